"""The workbench's lists are `RowsModel`s over `Col`s (ui/kit/rows_model.py: a 500-probe run is a
model reset over 500 references, the cells computed when painted).

Also the shared helpers of the tabs: a read-only table view with row selection and an accessible
name, a colour for a configuration (the same one in the trend chart and the comparison), and the
figures line of a run.
"""

from __future__ import annotations

import hashlib
from typing import Any

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from memhtml_desktop.ui.kit.rows_model import PATH_ROLE, Col, RowsModel  # noqa: F401 - the tabs' vocabulary

PASS_COLOR = "#009E73"
FAIL_COLOR = "#D55E00"
CONFIG_COLORS = {"memhtml": "#E69F00", "default": "#0072B2"}
_OTHER_COLORS = ("#CC79A7", "#009E73", "#56B4E9", "#D55E00", "#8C6BB1", "#7F7F7F")


def config_color(name: str) -> QColor:
    """One colour per configuration name, the same in every chart and table (Okabe–Ito)."""
    if name in CONFIG_COLORS:
        return QColor(CONFIG_COLORS[name])
    digest = int(hashlib.sha1(name.encode("utf-8", "replace")).hexdigest()[:6], 16)
    return QColor(_OTHER_COLORS[digest % len(_OTHER_COLORS)])


def rows_table(model: RowsModel, parent: QWidget, name: str, accessible: str, *, multi: bool = False) -> QTableView:
    """A read-only, row-selecting, keyboard-usable table over `model`."""
    view = QTableView(parent)
    view.setObjectName(name)
    view.setAccessibleName(accessible)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(
        QAbstractItemView.SelectionMode.ExtendedSelection if multi else QAbstractItemView.SelectionMode.SingleSelection
    )
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setShowGrid(False)
    view.setWordWrap(False)
    view.setTabKeyNavigation(False)  # Tab leaves the table: the window stays keyboard-usable
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    header = view.horizontalHeader()
    header.setHighlightSections(False)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(False)
    for i, col in enumerate(model.columns):  # a column without a width shares what the others leave
        if col.width:
            header.resizeSection(i, col.width)
        else:
            header.setSectionResizeMode(i, QHeaderView.ResizeMode.Stretch)
    return view


def selected_rows(view: QTableView) -> list[Any]:
    model = view.model()
    rows = sorted({i.row() for i in view.selectionModel().selectedRows()})
    return [model.row(r) for r in rows] if isinstance(model, RowsModel) else []


def short(path: str, limit: int = 60) -> str:
    """A store path as its file name (what tells memories apart; the tooltip has the path), cut
    at `limit` characters."""
    name = path.rsplit("/", 1)[-1]
    name = name[:-5] if name.endswith(".html") else name
    return name if len(name) <= limit else name[: limit - 1] + "\u2026"


def rank_text(rank: int | None) -> str:
    return "\u2013" if rank is None else str(rank)


def figures_text(figures: Any) -> str:
    """A run's figures on one line (plain text: names and numbers)."""
    f = figures
    text = (
        f"{f.passed}/{f.probes} passed \u00b7 MRR {f.mrr:.3f} \u00b7 nDCG@10 {f.ndcg:.3f} \u00b7 "
        f"recall@10 {f.recall:.3f} \u00b7 {f.inversions} inversions"
    )
    if f.degraded:
        text += f" \u00b7 {f.degraded} degraded"
    if f.skipped:
        text += f" \u00b7 {f.skipped} skipped"
    return text
