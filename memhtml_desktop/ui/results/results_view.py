"""The middle pane: a header (totals, the two orders, the legend), the honest notices, the ranked
table (or the archived banner, or a message), and "show more" under it.

A new answer starts with no current row: nothing is selected that the person did not choose, so
Enter in the search field never opens a memory they never saw chosen (it shows the first row
instead). A re-run of the same search (the store changed) keeps the row the person chose.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QItemSelectionModel, QPoint, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.ranking import RankingProfile
from memhtml_desktop.domain.results import Answer
from memhtml_desktop.domain.types import SearchResult
from memhtml_desktop.ui.kit.elided_label import ElidedLabel
from memhtml_desktop.ui.kit.row_actions import Row, RowActions, build_menu
from memhtml_desktop.ui.kit.warning_strip import warn, warning_strip
from memhtml_desktop.ui.results.archived_banner import ArchivedBanner
from memhtml_desktop.ui.results.header_text import SEP, floor_text, index_reason, legend_html, summary_parts
from memhtml_desktop.ui.results.results_model import AGENT, FUSED, Column, ResultsModel, Role
from memhtml_desktop.ui.results.results_table import ResultsTable

ORDER_STYLE = (
    "QToolButton { border: 1px solid palette(mid); padding: 1px 8px; background: palette(button); }"
    " QToolButton:checked { background: palette(highlight); color: palette(highlighted-text);"
    " border-color: palette(highlight); }"
    " QToolButton:focus { border: 2px solid palette(highlight); }"
    " QToolButton#agentOrder { border-top-left-radius: 3px; border-bottom-left-radius: 3px; border-right: none; }"
    " QToolButton#fusedOrder { border-top-right-radius: 3px; border-bottom-right-radius: 3px; }"
)
NO_WORD_NOTICE = "No memory contains these words; nearest by meaning, recency and salience."
EMPTY_INDEX = "No memories to show: the index is empty (or still being built)."


class ResultsView(QWidget):
    """Header strip + notices + (table | archived banner | message) + show more."""

    open_requested = Signal(str)
    include_archived_requested = Signal()
    more_requested = Signal()
    order_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resultsView")
        self.row_actions = RowActions()
        self.model = ResultsModel(self)
        self.table = ResultsTable(self.model, self)
        self.table.open_requested.connect(self.open_requested)
        self.table.menu_requested.connect(self._menu_requested)
        self.banner = ArchivedBanner(self)
        self.banner.open_requested.connect(self.open_requested)
        self.banner.include_archived_requested.connect(self.include_archived_requested)
        self.message = QLabel(self)
        self.message.setObjectName("resultsMessage")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.banner)
        self.stack.addWidget(self.message)
        self.model.layoutChanged.connect(self._update_footer)  # a column sort: the note follows it

        self._indexing: tuple[int, int] | None = None  # a first index's figures now (set_indexing)
        self.summary = ElidedLabel(self)
        self.summary.setObjectName("resultsSummary")
        self.summary.setAccessibleName("Result count")
        self.summary.setMinimumWidth(80)  # a narrow list elides the count line instead of widening the pane
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.agent_button, self.fused_button = QToolButton(self), QToolButton(self)
        self.orders = QButtonGroup(self)
        for button, key, text, tip in (
            (
                self.agent_button,
                "agentOrder",
                "Agent's order",
                "The page as the agent receives it (after polarity and MMR), then the fused list below it.",
            ),
            (
                self.fused_button,
                "fusedOrder",
                "Fused order",
                "The fused list before polarity and MMR: rows the agent does not get are muted.",
            ),
        ):
            button.setObjectName(key)
            button.setText(text)
            button.setToolTip(tip)
            button.setAccessibleDescription(tip)
            button.setCheckable(True)
            button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            self.orders.addButton(button)
        self.agent_button.setChecked(True)
        self.orders.buttonToggled.connect(self._order_toggled)
        switch = QWidget(self)
        switch.setObjectName("orderSwitch")
        switch.setStyleSheet(ORDER_STYLE)
        switch_layout = QHBoxLayout(switch)
        switch_layout.setContentsMargins(0, 0, 0, 0)
        switch_layout.setSpacing(0)
        for button in (self.agent_button, self.fused_button):
            button.setParent(switch)
            switch_layout.addWidget(button)
        self.legend = QLabel(legend_html(), self)
        self.legend.setObjectName("resultsLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setToolTip(
            "One colour per arm. The bar's segments are each arm's contribution "
            "weight/(rank+60) to the fused score; \u00d7 is the arm's weight."
        )
        self.legend.setAccessibleName("Arm colours: fts blue, vec pink, rec green, sal orange")
        self.legend.setMinimumWidth(0)
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._legend_width = self.legend.sizeHint().width()
        self.floor = QLabel(self)
        self.floor.setObjectName("relevanceFloor")
        self.floor.setAccessibleName("Relevance floor")
        self.floor.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.floor.setTextFormat(Qt.TextFormat.PlainText)
        self.floor.setMinimumWidth(80)
        self.floor.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.floor.setContentsMargins(6, 0, 6, 0)
        self.floor.setVisible(False)
        self.notice = warning_strip(self, "resultsNotice")
        self.degraded = warning_strip(self, "degradedArms")

        self.more_button = QPushButton(self)
        self.more_button.setObjectName("showMore")
        self.more_button.clicked.connect(self.more_requested)
        self.more_note = QLabel(self)
        self.more_note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.more_note.setWordWrap(True)
        foot = QHBoxLayout()
        foot.setContentsMargins(6, 0, 6, 2)
        foot.addWidget(self.more_button)
        foot.addWidget(self.more_note, 1)
        self.footer = QWidget(self)
        self.footer.setLayout(foot)

        head = QHBoxLayout()
        head.setContentsMargins(6, 2, 6, 2)
        head.addWidget(self.summary, 1)
        head.addWidget(switch)
        head.addSpacing(8)
        head.addWidget(self.legend)  # its own width: the count line takes what is left
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(head)
        layout.addWidget(self.floor)
        layout.addWidget(self.notice)
        layout.addWidget(self.degraded)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.footer)
        self.setTabOrder(self.agent_button, self.fused_button)
        self.setTabOrder(self.fused_button, self.table)
        self.setTabOrder(self.table, self.more_button)
        self.show_message("Type to search. With no words, the list ranks by recency and salience.")

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit_header()

    def _fit_header(self) -> None:
        """The legend is a nicety: when the count line and the two orders need the room, it goes."""
        needed = (
            self._legend_width
            + self.summary.fontMetrics().horizontalAdvance(self.summary.text())
            + self.agent_button.sizeHint().width()
            + self.fused_button.sizeHint().width()
            + 40
        )
        self.legend.setVisible(self.width() >= needed)

    def _set_summary(self, parts: list[str]) -> None:
        self.summary.set_parts(parts, SEP)
        self.summary.setToolTip(self.summary.text())
        self._fit_header()

    def set_indexing(self, figures: tuple[int, int] | None) -> None:
        """A first index's progress now (files indexed, files found): the count line and the
        degraded strip say how far it is, not how far it was when the answer listed was made."""
        self._indexing = figures
        answer = self.model.answer()
        index = getattr(answer.result, "index", None) if answer is not None else None
        if index is not None and not index.complete:
            self._set_summary(summary_parts(answer.result, answer.pool, figures))
            self._show_degraded(answer.result)

    # -- content -------------------------------------------------------------------------------

    def set_answer(self, answer: Answer) -> None:
        """Show a search's answer, page and pool together (see the module docstring for the current row)."""
        current = self.current_path() if answer.same_ask(self.model.answer()) else None
        self.model.set_answer(answer)
        result, pool = answer.result, answer.pool
        self._set_summary(summary_parts(result, pool, self._indexing))
        warn(self.notice, NO_WORD_NOTICE if pool is not None and pool.no_word_matched else "")
        self._show_degraded(result)
        self._show_floor(result)
        if result.scope_empty:
            self.banner.show_result(result)
            self.stack.setCurrentWidget(self.banner)
        elif not result.hits:
            self.show_message(EMPTY_INDEX)
        else:
            self.stack.setCurrentWidget(self.table)
            row = self.model.row_of(current) if current else -1
            if row >= 0:
                self.set_current_row(row)
            else:
                self.clear_current()
        self.table.fit_columns()
        # The view lays out a reset model from a zero timer; done now, the layout's repaint is the
        # reset's own, not a second paint of the whole table after the first (10-30 ms each).
        self.table.executeDelayedItemsLayout()
        self._update_footer()

    def set_deeper(self, answer: Answer) -> None:
        """The answer shown, its pool listed deeper (show more): more rows below, the current row kept."""
        current = self.current_path()
        self.model.set_deeper(answer)
        if current and self.model.row_of(current) >= 0:
            self.set_current_row(self.model.row_of(current), scroll=False)
        self._update_footer()

    def set_profile(self, profile: RankingProfile) -> None:
        """The active ranking profile: the legend's weights and the bars' scale follow it."""
        self.model.set_profile(profile)
        self.legend.setText(legend_html(profile))
        self.legend.setToolTip(
            f"One colour per arm ({profile.name} ranking). The bar's segments are each "
            f"arm's contribution to the fused score (full text: {profile.contribution_rule('fts')}; "
            f"recency: {profile.contribution_rule('recency')}); \u00d7 is the arm's weight."
        )
        self._legend_width = self.legend.sizeHint().width()
        self._fit_header()

    def _show_floor(self, result: SearchResult) -> None:
        text, tip = floor_text(result)
        self.floor.setText(text)
        self.floor.setToolTip(tip)
        self.floor.setAccessibleDescription(tip)
        self.floor.setVisible(bool(text))

    def _show_degraded(self, result: SearchResult) -> None:
        # Vectors still being made (a cold store, newest memories first) are progress, not a fault:
        # the header says how far they are ("vectors for 4,210 of 20,000; …"), other reasons warn.
        reasons = index_reason(result.degraded_reasons, getattr(result, "index", None), self._indexing)
        progress = [r for r in reasons if r.startswith("vectors for ")]
        faults = [r for r in reasons if r not in progress]
        parts = progress + (["\u26a0 Degraded: " + "; ".join(faults)] if faults else [])
        warn(self.degraded, " \u00b7 ".join(parts))

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.stack.setCurrentWidget(self.message)
        self._update_footer()

    # -- the two orders and show more -----------------------------------------------------------

    def _order_toggled(self, button, checked: bool) -> None:
        if checked:
            self.set_order(FUSED if button is self.fused_button else AGENT)

    def set_order(self, order: str) -> None:
        current = self.current_path()
        self.model.set_order(order)
        (self.fused_button if order == FUSED else self.agent_button).setChecked(True)
        header = self.table.horizontalHeader()
        header.blockSignals(True)
        header.setSortIndicator(Column.Fused if order == FUSED else Column.Position, Qt.SortOrder.AscendingOrder)
        header.blockSignals(False)
        self.table.fit_columns()
        if current and self.model.row_of(current) >= 0:
            self.set_current_row(self.model.row_of(current))
        self._update_footer()
        self.order_changed.emit(order)

    def show_more(self, count: int) -> None:
        """List `count` more rows of the fused list below the page."""
        self.model.set_extra(self.model.extra() + max(0, count))
        self.table.viewport().update()
        self._update_footer()

    def _update_footer(self) -> None:
        result, pool = self.model.result(), self.model.pool()
        on_table = self.stack.currentWidget() is self.table
        self.footer.setVisible(on_table and result is not None and bool(result.hits))
        if result is None:
            return
        step = max(1, len(result.hits))
        can = pool is not None and (self.model.below_available() > 0 or pool.more)
        self.more_button.setText(f"Show {step} more")
        self.more_button.setEnabled(can)
        self.more_button.setToolTip("List the next rows of the fused list, below the agent's page")
        below = sum(1 for r in range(self.model.rowCount()) if self.model.page_position(r) is None)
        rows = f"{counted(below, 'row')} below the dashed line"
        sorted_by = self.model.sorted_by()
        if sorted_by is not None and below:  # sorted: the page's rows are mixed in, no dashed line
            title = self.model.headerData(sorted_by[0], Qt.Orientation.Horizontal) or "a column"
            rows = f"{counted(below, 'row')} past the agent's page (sorted by {title}; click # for its order)"
        if pool is None:  # an answer with no hits has no fused list behind it (domain/results.Answer)
            note = "No candidate was fused for this search."
        elif not can:
            note = "Every candidate the arms returned is listed" + (f" ({rows})." if below else ".")
        elif below and self.model.order() != FUSED and sorted_by is not None:
            note = f"{rows}: mixed in with the page, not what the agent gets."
        elif below and self.model.order() != FUSED:
            note = f"{rows}: the fused list past the agent's page (not what the agent gets)."
        else:
            note = f"The agent's page: {len(result.hits)} of {pool.pool_size} fused candidates."
        self.more_note.setText(note)

    # -- navigation ----------------------------------------------------------------------------

    def current_path(self) -> str | None:
        index = self.table.currentIndex()
        return index.data(Role.Path) if index.isValid() else None

    def clear_current(self) -> None:
        self.table.selectionModel().clearCurrentIndex()
        self.table.selectionModel().clearSelection()

    def set_current_row(self, row: int, *, scroll: bool = True) -> None:
        if not (0 <= row < self.model.rowCount()):
            return
        index = self.model.index(row, Column.Title)
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        )
        if scroll:
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

    def focus_first(self) -> bool:
        """Enter with nothing chosen: make the first row current and focus the list; nothing is read."""
        if self.stack.currentWidget() is not self.table or not self.model.rowCount():
            return False
        self.set_current_row(0)
        self.table.setFocus(Qt.FocusReason.OtherFocusReason)
        return True

    # -- the context menu ----------------------------------------------------------------------

    def context_menu(self, row: int):
        """The menu for a row, built from the shared registry (`ui/kit/row_actions.py`)."""
        hit = self.model.hit(row)
        if hit is None:
            return None
        return build_menu(self.row_actions, Row(hit.path, hit.title, hit), self)

    def _menu_requested(self, row: int, where: QPoint) -> None:
        menu = self.context_menu(row)
        if menu is not None:
            self.set_current_row(row, scroll=False)
            menu.popup(where)
            self._menu = menu

    # -- persistence ---------------------------------------------------------------------------

    def save_state(self) -> QByteArray:
        return self.table.save_state()

    def restore_state(self, state) -> None:
        if state:
            self.table.restore_state(state)
