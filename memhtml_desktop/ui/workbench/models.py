"""One small table model for every list of the workbench: rows are plain values, columns are
functions of a row. A 500-probe run is a model reset over 500 references (the cells are computed
when painted), so showing it costs the GUI thread next to nothing.

Also the shared helpers of the tabs: a read-only table view with row selection and an accessible
name, a colour for a configuration (the same one in the trend chart and the comparison), and the
figures line of a run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

Index = QModelIndex | QPersistentModelIndex
ROW_ROLE = Qt.ItemDataRole.UserRole + 1  # the row value itself
PATH_ROLE = Qt.ItemDataRole.UserRole + 2  # the memory a row is about (double-click opens it)

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


@dataclass(frozen=True)
class Col:
    """A column: its header, the cell's text, and optionally its tooltip, colour and alignment."""

    header: str
    text: Callable[[Any], Any]
    tip: Callable[[Any], str] | None = None
    color: Callable[[Any], str | None] | None = None
    background: Callable[[Any], QColor | None] | None = None
    numeric: bool = False
    width: int = 0


class RowsModel(QAbstractTableModel):
    """Rows of any value, shown through `Col`s; `path` says which memory a row is about."""

    def __init__(self, columns: Sequence[Col], parent=None, *, path: Callable[[Any], str | None] | None = None) -> None:
        super().__init__(parent)
        self.columns = tuple(columns)
        self.rows: list[Any] = []
        self.path_of = path

    def set_rows(self, rows: Sequence[Any]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def row(self, index: int) -> Any:
        return self.rows[index] if 0 <= index < len(self.rows) else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section].header
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Called for every role of every visible cell at each paint (~8 a cell): plain ints rather
        # than enum members (0.3 us a lookup) and one dict dispatch keep a 500-row table's paint cheap.
        kind = _ROLES.get(role)
        if kind is None or not index.isValid():
            return None
        row, col = self.rows[index.row()], self.columns[index.column()]
        if kind == _TEXT:
            value = col.text(row)
            return "" if value is None else str(value)
        if kind == _TIP:
            return col.tip(row) or None if col.tip is not None else None
        if kind == _FOREGROUND:
            color = col.color(row) if col.color is not None else None
            return QBrush(QColor(color)) if color else None
        if kind == _BACKGROUND:
            color = col.background(row) if col.background is not None else None
            return QBrush(color) if color is not None else None
        if kind == _ALIGN:
            return _RIGHT if col.numeric else None
        if kind == _ROW:
            return row
        return self.path_of(row) if self.path_of is not None else None


_TEXT, _TIP, _FOREGROUND, _BACKGROUND, _ALIGN, _ROW, _PATH = range(7)
_ROLES = {int(Qt.ItemDataRole.DisplayRole): _TEXT, int(Qt.ItemDataRole.AccessibleTextRole): _TEXT,
          int(Qt.ItemDataRole.ToolTipRole): _TIP, int(Qt.ItemDataRole.ForegroundRole): _FOREGROUND,
          int(Qt.ItemDataRole.BackgroundRole): _BACKGROUND, int(Qt.ItemDataRole.TextAlignmentRole): _ALIGN,
          int(ROW_ROLE): _ROW, int(PATH_ROLE): _PATH}
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def rows_table(model: RowsModel, parent: QWidget, name: str, accessible: str, *, multi: bool = False) -> QTableView:
    """A read-only, row-selecting, keyboard-usable table over `model`."""
    view = QTableView(parent)
    view.setObjectName(name)
    view.setAccessibleName(accessible)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection if multi
                          else QAbstractItemView.SelectionMode.SingleSelection)
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
    text = (f"{f.passed}/{f.probes} passed \u00b7 MRR {f.mrr:.3f} \u00b7 nDCG@10 {f.ndcg:.3f} \u00b7 "
            f"recall@10 {f.recall:.3f} \u00b7 {f.inversions} inversions")
    if f.degraded:
        text += f" \u00b7 {f.degraded} degraded"
    if f.skipped:
        text += f" \u00b7 {f.skipped} skipped"
    return text
