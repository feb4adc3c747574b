"""The middle pane: a header (counts, legend, degraded arms), the ranked table, or the archived banner.

Opening a memory is an explicit act: a click, a double-click or Enter. Moving the current row with
the arrow keys only moves it (a selection passing by is not a read), so `open_requested` is
emitted from those three gestures and nothing else.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QByteArray, QItemSelectionModel, QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.types import SearchResult
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.results.archived_banner import ArchivedBanner
from memhtml_desktop.ui.results.delegates import (
    ArmRankDelegate,
    ScoreBarDelegate,
    TitleDelegate,
)
from memhtml_desktop.ui.results.results_model import (
    ARM_NAMES,
    ARM_WEIGHTS,
    BAR_COLUMN,
    FIRST_ARM_COLUMN,
    Column,
    ResultsModel,
    Role,
)

DEFAULT_WIDTHS = {Column.Position: 30, Column.Type: 86, Column.Score: 58, BAR_COLUMN: 124}
ARM_COLUMN_WIDTH = 38


class ResultsTable(QTableView):
    """The table; Enter opens the current row."""

    open_requested = Signal(str)

    def __init__(self, model: ResultsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resultsTable")
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setShowGrid(False)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.setCornerButtonEnabled(False)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.verticalHeader().hide()
        self._title_delegate = TitleDelegate(self)
        self._arm_delegate = ArmRankDelegate(self)
        self._bar_delegate = ScoreBarDelegate(self)
        self.setItemDelegateForColumn(Column.Title, self._title_delegate)
        for offset in range(len(ARM_NAMES)):
            self.setItemDelegateForColumn(FIRST_ARM_COLUMN + offset, self._arm_delegate)
        self.setItemDelegateForColumn(BAR_COLUMN, self._bar_delegate)
        fm = self.fontMetrics()
        self.verticalHeader().setDefaultSectionSize(fm.height() * 2 + 12)
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(Column.Title, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(28)
        for column, width in DEFAULT_WIDTHS.items():
            header.resizeSection(column, width)
        for offset in range(len(ARM_NAMES)):
            header.resizeSection(FIRST_ARM_COLUMN + offset, ARM_COLUMN_WIDTH)
        self.clicked.connect(self._emit_open)
        self.doubleClicked.connect(self._emit_open)

    def _emit_open(self, index: QModelIndex) -> None:
        path = index.data(Role.Path) if index.isValid() else None
        if path:
            self.open_requested.emit(path)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._emit_open(self.currentIndex())
            event.accept()
            return
        super().keyPressEvent(event)


def legend_html() -> str:
    items = []
    for arm in ARM_NAMES:
        color = palette.ARM_COLORS.get(arm, "#777")
        items.append(
            f'<span style="color:{color}">\u25a0</span>&nbsp;{html.escape(palette.ARM_LABELS.get(arm, arm))}'
            f'&nbsp;<span style="color:{palette.muted_color().name()}">\u00d7{ARM_WEIGHTS[arm]:g}</span>'
        )
    return "&nbsp;&nbsp; ".join(items)


class ResultsView(QWidget):
    """Header strip + (table | archived banner | message)."""

    open_requested = Signal(str)
    include_archived_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ResultsModel(self)
        self.table = ResultsTable(self.model, self)
        self.table.open_requested.connect(self.open_requested)
        self.row_actions: list[tuple[str, Callable[[str], Any]]] = []
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._row_menu)
        self.banner = ArchivedBanner(self)
        self.banner.open_requested.connect(self.open_requested)
        self.banner.include_archived_requested.connect(self.include_archived_requested)
        self.message = QLabel(self)
        self.message.setObjectName("resultsMessage")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.banner)
        self.stack.addWidget(self.message)

        self.summary = QLabel(self)
        self.summary.setObjectName("resultsSummary")
        self.legend = QLabel(legend_html(), self)
        self.legend.setObjectName("resultsLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setToolTip("One colour per arm. The bar's segments are each arm's contribution "
                               "weight/(rank+60) to the fused score; \u00d7 is the arm's weight.")
        self.degraded = QLabel(self)
        self.degraded.setObjectName("degradedArms")
        self.degraded.setWordWrap(True)
        self.degraded.setTextFormat(Qt.TextFormat.PlainText)
        self.degraded.setVisible(False)
        self.degraded.setAutoFillBackground(True)
        self.degraded.setMargin(4)
        head = QHBoxLayout()
        head.setContentsMargins(6, 2, 6, 2)
        head.addWidget(self.summary)
        head.addStretch(1)
        head.addWidget(self.legend)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(head)
        layout.addWidget(self.degraded)
        layout.addWidget(self.stack, 1)
        self.show_message("Type to search. With no words, the list ranks by recency and salience.")

    # -- content -------------------------------------------------------------------------------

    def set_result(self, result: SearchResult) -> None:
        """Show a new answer; the current row follows its memory when it is still listed."""
        current = self.current_path()
        self.model.set_result(result)
        n = len(result.hits)
        self.summary.setText(f"{n} hit{'s' if n != 1 else ''} \u00b7 {result.elapsed_ms:.0f} ms")
        self._show_degraded(result)
        if result.scope_empty:
            self.banner.show_result(result)
            self.stack.setCurrentWidget(self.banner)
        elif not n:
            self.show_message("No memories to show: the index is empty (or still being built).")
        else:
            self.stack.setCurrentWidget(self.table)
            row = self.model.row_of(current) if current else -1
            self.set_current_row(max(row, 0))

    def _show_degraded(self, result: SearchResult) -> None:
        if not result.degraded_reasons:
            self.degraded.setVisible(False)
            return
        pal = self.degraded.palette()
        pal.setColor(self.degraded.backgroundRole(), QColor(palette.warning_color()))
        self.degraded.setPalette(pal)
        self.degraded.setText("\u26a0 Degraded: " + "; ".join(result.degraded_reasons))
        self.degraded.setVisible(True)

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.stack.setCurrentWidget(self.message)

    # -- navigation ----------------------------------------------------------------------------

    def current_path(self) -> str | None:
        index = self.table.currentIndex()
        return index.data(Role.Path) if index.isValid() else None

    def set_current_row(self, row: int) -> None:
        if not (0 <= row < self.model.rowCount()):
            return
        index = self.model.index(row, Column.Title)
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        )
        self.table.scrollTo(index)

    def move_current(self, delta: int) -> None:
        """Up/Down from the search field: move the current row, never open it."""
        rows = self.model.rowCount()
        if not rows or self.stack.currentWidget() is not self.table:
            return
        row = self.table.currentIndex().row()
        self.set_current_row(max(0, min(rows - 1, (row if row >= 0 else -1) + delta)))

    def open_current(self) -> bool:
        path = self.current_path()
        if path and self.stack.currentWidget() is self.table:
            self.open_requested.emit(path)
            return True
        return False

    # -- the row's context menu ----------------------------------------------------------------

    def add_row_action(self, text: str, slot: Callable[[str], Any]) -> None:
        """An entry of every result row's context menu; `slot(path)` runs when chosen (another
        pane's gesture on a row, e.g. the workbench's "Expect this memory for this query")."""
        self.row_actions.append((text, slot))

    def row_menu(self, path: str) -> QMenu | None:
        """The context menu of the row of `path` (None when no pane added an entry)."""
        if not self.row_actions:
            return None
        menu = QMenu(self)
        menu.setObjectName("resultRowMenu")
        for text, slot in self.row_actions:
            menu.addAction(text, lambda s=slot: s(path))
        return menu

    def _row_menu(self, pos: QPoint) -> None:
        index = self.table.indexAt(pos)
        if not index.isValid():  # the Menu key: the current row
            index = self.table.currentIndex()
            pos = self.table.visualRect(index).center()
        path = index.data(Role.Path) if index.isValid() else None
        menu = self.row_menu(path) if path else None
        if menu is not None:
            menu.popup(self.table.viewport().mapToGlobal(pos))
            self._menu = menu

    # -- persistence ---------------------------------------------------------------------------

    def save_state(self) -> QByteArray:
        return self.table.horizontalHeader().saveState()

    def restore_state(self, state) -> None:
        if state:
            self.table.horizontalHeader().restoreState(state)
            self.table.horizontalHeader().setSectionResizeMode(Column.Title, QHeaderView.ResizeMode.Stretch)
