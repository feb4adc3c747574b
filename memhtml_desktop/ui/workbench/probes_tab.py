"""The Probes tab: the set's probes, and after a run each probe's verdict — which fail and why.

Per probe: passed or failed, the query, the target, its rank in the list, the controls ranked
above it (inversions) and the arm or post-fusion step that lost it, read from the fusion itself
(`domain/judging.lost_by`). The figures of the run on top, the lines of the set that could not be
used (file and line) below. The tab does no I/O: data in, signals out.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QListWidget, QMenu, QSplitter, QVBoxLayout, QWidget

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.workbench.models import (
    FAIL_COLOR,
    PASS_COLOR,
    PATH_ROLE,
    Col,
    RowsModel,
    figures_text,
    rank_text,
    rows_table,
    short,
)

STEP_WORDS = {
    "polarity": "the polarity step",
    "twins": "twin resolution",
    "mmr": "MMR diversification",
    "steps": "a post-fusion step",
}


def why_text(v: Any) -> str:
    """A failing verdict's reason in words."""
    if v is None or getattr(v, "passed", True) and not getattr(v, "inverted", ()):
        return ""
    by, to = v.lost_by, short(v.lost_to, 50) if v.lost_to else "another memory"
    if by in palette.ARM_TITLES:
        return f"the {palette.ARM_TITLES[by]} arm put {to} ahead of the target"
    if by in STEP_WORDS:
        return f"{STEP_WORDS[by]} moved the target below {to}"
    if by == "unreached":
        return "no arm ranked the target within its window"
    if by == "tie":
        return f"a tie with {to}: path order decided"
    if by == "no hits":
        return "the query found nothing"
    if v.rank is not None and v.rank > 1:
        return f"ranked {v.rank}, below {to}"
    return by or "failed"


def _status(v: Any) -> str:
    if not hasattr(v, "passed"):
        return "not run"
    return "\u2713 pass" if v.passed else "\u2717 fail"


def _status_color(v: Any) -> str | None:
    if not hasattr(v, "passed"):
        return None
    return PASS_COLOR if v.passed else FAIL_COLOR


COLUMNS = (
    Col("Result", _status, color=_status_color, width=70),
    Col("Query", lambda v: v.query, tip=lambda v: v.query),
    Col("Target", lambda v: short(v.target, 90), tip=lambda v: "\n".join(v.targets)),  # stretches with the query
    Col(
        "Rank",
        lambda v: rank_text(v.rank) if hasattr(v, "passed") else "",
        numeric=True,
        width=50,
        tip=lambda v: "the target's position in the list (40 hits)",
    ),
    Col(
        "Inv.",
        lambda v: len(v.inverted) if hasattr(v, "passed") else "",
        numeric=True,
        width=42,
        tip=lambda v: "\n".join(getattr(v, "inverted", ())) or "no control above the target",
    ),
    Col("Lost by", lambda v: getattr(v, "lost_by", ""), width=80, tip=why_text),
)


class ProbesTab(QWidget):
    """Figures, the verdicts (or the set's probes before a run), the set's problems."""

    open_requested = Signal(str)
    remove_requested = Signal(object)  # a verdict or probe (its `key`)
    compare_requested = Signal(str)  # a query: compare it side by side

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workbenchProbes")
        self.figures = QLabel("Choose a probe set and press Run.", self)
        self.figures.setObjectName("runFigures")
        self.figures.setWordWrap(True)
        self.figures.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.failing_only = QCheckBox("&Failing only", self)
        self.failing_only.setAccessibleName("Show only failing probes")
        self.failing_only.toggled.connect(lambda _: self._refill())
        top = QHBoxLayout()
        top.addWidget(self.figures, 1)
        top.addWidget(self.failing_only)
        self.model = RowsModel(COLUMNS, self, path=lambda v: v.target)
        self.table = rows_table(self.model, self, "probesTable", "Probes and their verdicts")
        self.table.doubleClicked.connect(self._open)
        self.table.activated.connect(self._open)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._menu)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _: self._show_detail(cur.row()))
        self.detail = QLabel(self)
        self.detail.setObjectName("probeDetail")
        self.detail.setWordWrap(True)
        self.detail.setMinimumHeight(self.detail.fontMetrics().lineSpacing() * 3)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problems = QListWidget(self)
        self.problems.setObjectName("probeProblems")
        self.problems.setAccessibleName("Probe lines that could not be used")
        self.problems.hide()
        lower = QWidget(self)
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.detail)
        lower_layout.addWidget(self.problems, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(lower)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        self.run: Any = None
        self._all: list[Any] = []

    # -- data in -----------------------------------------------------------------------------------

    def show_set(self, probe_set: Any) -> None:
        """The set's probes before any run (ranks empty), and its problems."""
        self.run = None
        self._all = list(probe_set.probes)
        self.figures.setText(
            f"{probe_set.name}: {counted(len(probe_set.probes), 'probe')}, not run yet "
            "(Run ranks each under configuration A)."
        )
        self._refill()
        self._show_problems(probe_set.problems)

    def show_run(self, run: Any) -> None:
        self.run = run
        # Failing probes first (the worst placed first), then the passing ones in the set's order.
        self._all = sorted(run.verdicts, key=lambda v: (v.passed, -(v.rank or 10**6) if not v.passed else 0))
        failed = run.figures.failed
        self.figures.setText(
            f"{run.set_name} under {run.config_name}: {figures_text(run.figures)}"
            f" \u00b7 {failed} failing \u00b7 {run.elapsed_s:.2f} s"
            + (f" \u00b7 at {run.head[:10]}" if run.head else "")
        )
        self._refill()
        self._show_problems(run.problems)

    def _show_problems(self, problems: Any) -> None:
        self.problems.clear()
        for p in problems:
            self.problems.addItem(f"\u26a0 {p}")
        self.problems.setVisible(bool(problems))

    def _refill(self) -> None:
        rows = self._all
        if self.failing_only.isChecked():
            rows = [v for v in rows if hasattr(v, "passed") and not v.passed]
        self.model.set_rows(rows)
        self.detail.setText("")

    def verdicts(self) -> list[Any]:
        return list(self.model.rows)

    # -- gestures ----------------------------------------------------------------------------------

    def _show_detail(self, row: int) -> None:
        v = self.model.row(row)
        if v is None:
            self.detail.setText("")
            return
        if not hasattr(v, "passed"):
            controls = ", ".join(short(c, 40) for c in v.controls) or "none"
            self.detail.setText(
                f"\u201c{v.query}\u201d expects {v.target} (controls: {controls})"
                + (f" \u2014 {v.note}" if v.note else "")
            )
            return
        where = f"rank {rank_text(v.rank)}" if v.rank else "not in the first 40 hits"
        above = f"; above it: {', '.join(short(c, 40) for c in v.inverted)}" if v.inverted else ""
        why = why_text(v)
        self.detail.setText(
            f"\u201c{v.query}\u201d \u2192 {v.target}: {where}{above}" + (f". Lost: {why}." if why else ".")
        )

    def _open(self, index) -> None:
        path = index.data(PATH_ROLE)
        if path:
            self.open_requested.emit(path)

    def _menu(self, pos: QPoint) -> None:
        index = self.table.indexAt(pos)
        v = self.model.row(index.row()) if index.isValid() else None
        if v is None:
            return
        menu = QMenu(self)
        menu.addAction("Open the target", lambda: self.open_requested.emit(v.target))
        if getattr(v, "lost_to", ""):
            menu.addAction("Open what beat it", lambda: self.open_requested.emit(v.lost_to))
        menu.addAction("Compare this query side by side", lambda: self.compare_requested.emit(v.query))
        menu.addSeparator()
        menu.addAction("Remove from the set\u2026", lambda: self.remove_requested.emit(v))
        menu.popup(self.table.viewport().mapToGlobal(pos))
        self._menu_shown = menu
