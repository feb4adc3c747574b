"""The catalogue page: the top k as the agent reads them, an Expand action per row, the expansion.

Each row is one catalogue line (title, one-line summary) with what the line costs and what
expanding the memory would cost; a line the budget left out is muted and says so. Rows the
catalogue cannot tell apart (same title and summary) carry a mark and are listed above the table:
choosing between them means expanding them all. Expand (the button, Enter, a double click or the
row's context menu) asks for the expansion — body, neighbours, supersession chain, evidence — and
shows exactly the text the agent would receive with its cost. Expanding is not a read.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.catalogue import Catalogue, CatalogueEntry, Expansion
from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.palette import muted_color, warning_color
from memhtml_desktop.ui.kit.rows_model import PATH_ROLE, Col, RowsModel


class CatalogueModel(RowsModel):
    """The catalogue's entries as rows (ui/kit/rows_model.py); a mark on the lines that cannot be
    told apart, a line the budget left out muted."""

    RANK, ENTRY, LINE, EXPAND = range(4)
    PathRole = PATH_ROLE

    def __init__(self, parent: Any = None) -> None:
        self._twins: dict[str, tuple[str, ...]] = {}
        tip, muted = self._tip, self._muted
        super().__init__(
            (
                Col("#", lambda e: str(e.rank), tip=tip, color=lambda e: muted(e, True), numeric=True),
                Col("Entry", self._entry_text, tip=tip, color=lambda e: muted(e, False)),
                Col(
                    "Line",
                    lambda e: f"{e.cost:,}" if e.listed else "left out",
                    tip=tip,
                    color=lambda e: muted(e, True),
                    numeric=True,
                ),
                Col("Expand", lambda e: f"{e.expand_cost:,}", tip=tip, color=lambda e: muted(e, False), numeric=True),
            ),
            parent,
            path=lambda e: e.path,
        )

    def set_catalogue(self, cat: Catalogue | None) -> None:
        self._twins = {p: g for g in (cat.indistinct if cat is not None else ()) for p in g}
        self.set_rows(cat.entries if cat is not None else ())

    def entry(self, row: int) -> CatalogueEntry | None:
        return self.row(row)

    def _entry_text(self, entry: CatalogueEntry) -> str:
        mark = "\u2261 " if self._twins.get(entry.path) else ""
        return f"{mark}{entry.title}: {entry.summary}" if entry.summary else f"{mark}{entry.title}"

    def _tip(self, entry: CatalogueEntry) -> str:
        text = f"{entry.line}\n\nexpanding costs {entry.expand_cost:,} chars"
        if not entry.listed:
            text += "\nleft out: the line does not fit in what the budget has left"
        twins = self._twins.get(entry.path, ())
        if twins:
            others = ", ".join(p for p in twins if p != entry.path)
            text += f"\ncannot be told apart from {others} (same title and summary)"
        return tooltip_text(text)

    @staticmethod
    def _muted(entry: CatalogueEntry, always: bool) -> Any:
        return muted_color() if always or not entry.listed else None


class CatalogueView(QWidget):
    """Data in (`set_catalogue`, `show_expansion`), `expand_requested` and `open_path` out."""

    expand_requested = Signal(str)
    open_path = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._catalogue: Catalogue | None = None
        self._expansion: Expansion | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(4)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.finding = QLabel(self)
        self.finding.setObjectName("catalogueFinding")
        self.finding.setWordWrap(True)
        self.finding.setTextFormat(Qt.TextFormat.PlainText)
        self.model = CatalogueModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setAccessibleName("Catalogue")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header = self.table.horizontalHeader()
        for col in range(4):
            mode = (
                QHeaderView.ResizeMode.Stretch
                if col == CatalogueModel.ENTRY
                else QHeaderView.ResizeMode.ResizeToContents
            )
            header.setSectionResizeMode(col, mode)
        self.table.activated.connect(lambda index: self.expand_row(index.row()))
        self.table.customContextMenuRequested.connect(self._menu)
        self.model.modelReset.connect(self._selection_changed)
        self.expand_button = QPushButton("Expand", self)
        self.expand_button.setToolTip(
            "The memory's body, neighbours and evidence chain, with the call's cost (Enter on a row; not a read)"
        )
        self.expand_button.clicked.connect(lambda: self.expand_row(self.table.currentIndex().row()))
        self.expansion_label = QLabel(self)
        self.expansion_label.setTextFormat(Qt.TextFormat.PlainText)
        self.expansion_label.setWordWrap(True)
        self.expansion_text = QPlainTextEdit(self)
        self.expansion_text.setReadOnly(True)
        self.expansion_text.setAccessibleName("Expansion: the text the agent receives")
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.expansion_text.setFont(font)
        row = QHBoxLayout()
        row.addWidget(self.expand_button)
        row.addWidget(self.expansion_label, 1)
        bottom = QWidget(self)
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addLayout(row)
        bottom_layout.addWidget(self.expansion_text, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        layout.addWidget(self.summary)
        layout.addWidget(self.finding)
        layout.addWidget(split, 1)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._selection_changed())
        self.set_catalogue(None)

    # -- contract -----------------------------------------------------------------------------

    def set_catalogue(self, cat: Catalogue | None) -> None:
        current = self.current_path()
        self._catalogue = cat
        self.model.set_catalogue(cat)
        paths = [e.path for e in cat.entries] if cat is not None else []
        if current in paths:
            self.table.selectRow(paths.index(current))
        elif paths:
            self.table.selectRow(0)
        if self._expansion is not None and self._expansion.path not in paths:
            self.show_expansion(None)
        if cat is None:
            self.summary.setText("No catalogue yet: type a query.")
            self.finding.hide()
            return
        listed = cat.listed
        text = (
            f"Top {cat.k}: {counted(len(listed), 'line')}, {counted(cat.cost, 'char')} (no body text)"
            + (f", {cat.dropped} left out by the budget" if cat.dropped else "")
            + f" · + expand #1 {cat.with_expansions(1):,} · + expand #1–2 {cat.with_expansions(2):,}"
        )
        if cat.question:
            text += f"\nThe question reads {cat.question}: {cat.question_why}."
        if cat.does_not_fit:
            text += "\nDoes not fit: the budget is below the shortest line."
        self.summary.setText(text)
        groups = cat.indistinct
        if groups:
            ranks = {e.path: e.rank for e in cat.entries}
            listing = "; ".join(" = ".join(f"#{ranks[p]}" for p in g) for g in groups)
            self.finding.setText(
                f"≡ The catalogue cannot tell these apart (same title and summary): {listing}. "
                "Choosing one means expanding them all."
            )
            self.finding.setStyleSheet(
                f"QLabel#catalogueFinding {{ background: {warning_color()}; border-radius: 4px; padding: 4px 8px; }}"
            )
        self.finding.setVisible(bool(groups))

    def show_expansion(self, expansion: Expansion | None) -> None:
        self._expansion = expansion
        if expansion is None:
            self.expansion_label.setText("Choose a row and Expand to see what that call returns.")
            self.expansion_text.setPlainText("")
            return
        self.expansion_label.setText(
            f"Expanded {expansion.path}: {expansion.cost:,} chars — body, {counted(len(expansion.neighbours), 'neighbour')}, "
            f"{max(0, len(expansion.chain) - 1)} other versions, {len(expansion.evidence)} sources"
        )
        self.expansion_text.setPlainText(expansion.text)

    def current_path(self) -> str | None:
        entry = self.model.entry(self.table.currentIndex().row())
        return entry.path if entry is not None else None

    def expansion(self) -> Expansion | None:
        return self._expansion

    def expand_row(self, row: int) -> None:
        entry = self.model.entry(row)
        if entry is not None:
            self.table.selectRow(row)
            self.expansion_label.setText(f"Expanding {entry.path}…")
            self.expand_requested.emit(entry.path)

    # -- reactions ----------------------------------------------------------------------------

    def _selection_changed(self) -> None:
        self.expand_button.setEnabled(self.model.entry(self.table.currentIndex().row()) is not None)

    def _menu(self, pos: Any) -> None:
        index = self.table.indexAt(pos)
        entry = self.model.entry(index.row())
        if entry is None:
            return
        menu = QMenu(self)
        expand = QAction(f"Expand #{entry.rank} ({entry.expand_cost:,} chars)", menu)
        expand.triggered.connect(lambda: self.expand_row(index.row()))
        open_it = QAction("Open in the reader (counts as a read)", menu)
        open_it.triggered.connect(lambda: self.open_path.emit(entry.path))
        menu.addAction(expand)
        menu.addAction(open_it)
        menu.popup(self.table.viewport().mapToGlobal(pos))
        self._menu_shown = menu  # tests find it
