"""Side by side: two configurations on the probe set (the figures, the probes that moved and by how
much), and two configurations on one query (the two lists next to each other, the same memory
linked across them: selecting it in one list selects it in the other, and each row says how far
it moved).

"memhtml vs default" is the first comparison a curator sees: A defaults to `memhtml`, what an
agent on memhtml receives, and B to `default`, this app's ranking. No I/O here.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.workbench.models import (
    FAIL_COLOR,
    PASS_COLOR,
    PATH_ROLE,
    Col,
    RowsModel,
    config_color,
    rank_text,
    rows_table,
    short,
)

STATUS_COLORS = {"broke": FAIL_COLOR, "fixed": PASS_COLOR}
FIGURES = (
    ("passed", "passed", "{:d}"),
    ("MRR", "mrr", "{:.3f}"),
    ("nDCG@10", "ndcg", "{:.3f}"),
    ("recall@10", "recall", "{:.3f}"),
    ("inversions", "inversions", "{:d}"),
    ("degraded", "degraded", "{:d}"),
)


def _delta_text(delta: int | None) -> str:
    if delta is None:
        return "\u2013"
    return f"\u2191{delta}" if delta > 0 else (f"\u2193{-delta}" if delta < 0 else "=")


def _delta_color(delta: int | None) -> str | None:
    if not delta:
        return None
    return PASS_COLOR if delta > 0 else FAIL_COLOR


def change_delta(change: Any) -> tuple[str, int]:
    """A probe's move as shown (`↑2`, `↓1`, `=`; `↑in` / `↓out` when it entered or left the list)
    and its direction (+1, -1, 0): a target out of the 40 hits on one side has no number to subtract."""
    if change.delta is not None:
        return _delta_text(change.delta), (change.delta > 0) - (change.delta < 0)
    if change.rank_before is None and change.rank_after is not None:
        return "\u2191in", 1
    if change.rank_after is None and change.rank_before is not None:
        return "\u2193out", -1
    return "\u2013", 0


def _change_tip(change: Any) -> str:
    text, _ = change_delta(change)
    if text == "\u2191in":
        return f"not in the list under A, rank {change.rank_after} under B"
    if text == "\u2193out":
        return f"rank {change.rank_before} under A, not in the list under B"
    return "positions gained under B"


CHANGE_COLUMNS = (
    Col("Change", lambda c: c.status, color=lambda c: STATUS_COLORS.get(c.status), width=64),
    Col("Query", lambda c: c.query, tip=lambda c: c.query),
    Col("Target", lambda c: short(c.target, 90), tip=lambda c: c.target),  # stretches with the query
    Col("A", lambda c: rank_text(c.rank_before), numeric=True, width=40, tip=lambda c: "rank under A"),
    Col("B", lambda c: rank_text(c.rank_after), numeric=True, width=40, tip=lambda c: "rank under B"),
    Col(
        "\u0394",
        lambda c: change_delta(c)[0],
        color=lambda c: _delta_color(change_delta(c)[1]),
        numeric=True,
        width=48,
        tip=_change_tip,
    ),
    Col("Lost by", lambda c: c.lost_by, width=70),
)


class _Side:
    """One query list of the pair: rows are (position, hit, position in the other list or None)."""

    def __init__(self, owner: "CompareTab", name: str) -> None:
        self.name = name
        self.selected_path = ""

        def gain(row: Any) -> int | None:
            """Positions the memory gained under B (the same number on both sides)."""
            i, _, there = row
            if there is None:
                return None
            return i - there if name == "A" else there - i

        def moved(row: Any) -> str:
            return f"only in {name}" if row[2] is None else _delta_text(gain(row))

        def tint(row: Any) -> QColor | None:
            if row[1].path == self.selected_path and self.selected_path:
                color = QColor(palette.mark_color())
                return color
            return None

        columns = (
            Col("#", lambda r: r[0] + 1, numeric=True, width=30, background=tint),
            Col("Title", lambda r: r[1].title or r[1].path, tip=lambda r: f"{r[1].path}\n{r[1].gist}", background=tint),
            Col(
                "under B",
                moved,
                width=84,
                background=tint,
                color=lambda r: _delta_color(gain(r)),
                tip=lambda r: "not in the other list" if r[2] is None else f"position {r[2] + 1} in the other list",
            ),
        )
        self.model = RowsModel(columns, owner, path=lambda r: r[1].path)
        self.title = QLabel(name, owner)
        self.table = rows_table(self.model, owner, f"queryList{name}", f"Results under configuration {name}")

    def fill(self, hits: Any, links: list[int | None]) -> None:
        self.model.set_rows([(i, h, links[i]) for i, h in enumerate(hits)])


class CompareTab(QWidget):
    """The set comparison on top, the query comparison below."""

    open_requested = Signal(str)
    query_requested = Signal(str)  # compare this query under A and B

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workbenchCompare")
        self.comparison: Any = None
        self.query_comparison: Any = None
        # -- per set
        self.set_summary = QLabel("Press Compare to run A and B on the probe set.", self)
        self.set_summary.setObjectName("compareSummary")
        self.set_summary.setWordWrap(True)
        self.set_summary.setTextFormat(Qt.TextFormat.RichText)
        self.changes = RowsModel(CHANGE_COLUMNS, self, path=lambda c: c.target)
        self.changes_table = rows_table(self.changes, self, "changesTable", "Probes that moved between A and B")
        self.changes_table.doubleClicked.connect(self._compare_change)
        self.changes_table.activated.connect(self._compare_change)
        self.changes_table.setToolTip("Enter or double-click: compare this probe's query side by side")
        set_box = QGroupBox("On the probe set", self)
        set_layout = QVBoxLayout(set_box)
        set_layout.addWidget(self.set_summary)
        set_layout.addWidget(self.changes_table, 1)
        # -- per query
        self.query_field = QLineEdit(self)
        self.query_field.setObjectName("compareQuery")
        self.query_field.setPlaceholderText("A query (the window's current search by default)")
        self.query_field.setAccessibleName("Query to compare under A and B")
        self.query_field.returnPressed.connect(lambda: self.query_requested.emit(self.query_field.text()))
        self.query_button = QPushButton("Compare &query", self)
        self.query_button.setObjectName("compareQueryButton")
        self.query_button.clicked.connect(lambda: self.query_requested.emit(self.query_field.text()))
        ask = QHBoxLayout()
        ask.addWidget(self.query_field, 1)
        ask.addWidget(self.query_button)
        self.a, self.b = _Side(self, "A"), _Side(self, "B")
        lists = QHBoxLayout()
        for side in (self.a, self.b):
            column = QVBoxLayout()
            column.addWidget(side.title)
            column.addWidget(side.table, 1)
            lists.addLayout(column, 1)
            side.table.selectionModel().currentRowChanged.connect(lambda cur, _, s=side: self._link(s, cur.row()))
            side.table.doubleClicked.connect(self._open)
            side.table.activated.connect(self._open)
        self.query_summary = QLabel(self)
        self.query_summary.setObjectName("querySummary")
        self.query_summary.setWordWrap(True)
        query_box = QGroupBox("On one query (the same memory is highlighted in both lists)", self)
        query_layout = QVBoxLayout(query_box)
        query_layout.addLayout(ask)
        query_layout.addWidget(self.query_summary)
        query_layout.addLayout(lists, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(set_box)
        split.addWidget(query_box)
        split.setChildrenCollapsible(False)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(split)

    # -- data in -----------------------------------------------------------------------------------

    def show_comparison(self, comparison: Any) -> None:
        self.comparison = comparison
        a, b = comparison.a, comparison.b
        ca, cb = config_color(a.config_name).name(), config_color(b.config_name).name()
        cells = []
        for label, attr, fmt in FIGURES:
            x, y = getattr(a.figures, attr), getattr(b.figures, attr)
            diff = y - x
            sign = "+" if diff > 0 else ""
            cells.append(
                f"<td>{label}</td><td align=right>{fmt.format(x)}</td><td align=right>{fmt.format(y)}</td>"
                f"<td align=right>{sign}{fmt.format(diff) if diff else '='}</td>"
            )
        head = (
            f"<tr><th></th><th><span style='color:{ca}'>\u25a0</span> A: {a.config_name}</th>"
            f"<th><span style='color:{cb}'>\u25a0</span> B: {b.config_name}</th><th>B \u2212 A</th></tr>"
        )
        broke = sum(1 for c in comparison.changes if c.status == "broke")
        fixed = sum(1 for c in comparison.changes if c.status == "fixed")
        self.set_summary.setText(
            f"<b>{a.set_name}</b>: {counted(comparison.moved, 'probe')} moved ({fixed} fixed, {broke} broke under B)"
            f"<table cellspacing=0 cellpadding=2>{head}" + "".join(f"<tr>{c}</tr>" for c in cells) + "</table>"
        )
        self.changes.set_rows(comparison.changes)

    def show_query(self, comparison: Any) -> None:
        self.query_comparison = comparison
        qc = comparison
        self.query_field.setText(qc.a.query)
        self.a.title.setText(f"A: {qc.a_name} ({counted(len(qc.a.hits), 'hit')})")
        self.b.title.setText(f"B: {qc.b_name} ({counted(len(qc.b.hits), 'hit')})")
        back = {there: i for i, there in enumerate(qc.links) if there is not None}
        self.a.fill(qc.a.hits, list(qc.links))
        self.b.fill(qc.b.hits, [back.get(j) for j in range(len(qc.b.hits))])
        moved = sum(1 for d in qc.rank_deltas().values() if d)
        self.query_summary.setText(
            f"\u201c{qc.a.query}\u201d: {counted(moved, 'memory')} moved, {len(qc.only_a)} only under A, "
            f"{len(qc.only_b)} only under B."
            if qc.a.hits or qc.b.hits
            else f"\u201c{qc.a.query}\u201d: no hits under either."
        )

    def set_query(self, text: str) -> None:
        if not self.query_field.hasFocus():
            self.query_field.setText(text)

    # -- the link ----------------------------------------------------------------------------------

    def _link(self, side: _Side, row: int) -> None:
        """Select the same memory in the other list; tint it in both."""
        hit = side.model.row(row)
        if hit is None:
            return
        path = hit[1].path
        other = self.b if side is self.a else self.a
        for s in (self.a, self.b):
            s.selected_path = path
            s.model.dataChanged.emit(s.model.index(0, 0), s.model.index(max(0, s.model.rowCount() - 1), 2))
        target = next((i for i, r in enumerate(other.model.rows) if r[1].path == path), None)
        selection = other.table.selectionModel()
        if target is None:
            selection.clearSelection()
            return
        if other.table.currentIndex().row() != target:
            index = other.model.index(target, 0)
            selection.blockSignals(True)
            selection.setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            )
            selection.blockSignals(False)
            other.table.viewport().update()
            other.table.scrollTo(index)

    def linked_rows(self) -> tuple[int, int]:
        """(current row in A, current row in B): the same memory after a selection (tests read it)."""
        return self.a.table.currentIndex().row(), self.b.table.currentIndex().row()

    def _open(self, index) -> None:
        path = index.data(PATH_ROLE)
        if path:
            self.open_requested.emit(path)

    def _compare_change(self, index) -> None:
        change = self.changes.row(index.row())
        if change is not None:
            self.query_requested.emit(change.query)
