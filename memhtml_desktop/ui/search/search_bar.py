"""The top bar: Search | Recall switch, the query field (with a spinner while a search runs), what
the lexical arm made of the query, and the active filters as removable chips.

The bar only reports what the person did; the window decides what runs (and debounces typing).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QPalette
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.as_of import EXPECTED, as_of_label, parse_as_of
from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.ui.kit import icons
from memhtml_desktop.ui.kit.chips import ChipBar, tooltip_text
from memhtml_desktop.ui.kit.ranking_text import CHOICES, PROFILE_HELP
from memhtml_desktop.ui.session.scope_edits import active_filters

MODES = ("search", "recall")
MODE_STYLE = (
    "QToolButton { border: 1px solid palette(mid); padding: 3px 12px; background: palette(button); }"
    " QToolButton:checked { background: palette(highlight); color: palette(highlighted-text);"
    " border-color: palette(highlight); }"
    " QToolButton#searchMode { border-top-left-radius: 4px; border-bottom-left-radius: 4px; border-right: none; }"
    " QToolButton#recallMode { border-top-right-radius: 4px; border-bottom-right-radius: 4px; }"
)
SPIN_MS = 80
FORM_TEXT = {"all": "all terms", "any": "any term"}


def form_text(fts_form: str | None, arms: tuple[str, ...]) -> str:
    """ "fts: all terms · 4 arms": how the query was matched and how many arms fused."""
    n = len(arms)
    lexical = f"fts: {FORM_TEXT.get(fts_form or '', fts_form)}" if fts_form else "fts: off (no words)"
    return f"{lexical} \u00b7 {counted(n, 'arm')}"


class FilterChips(QWidget):
    """The active filters as closable chips (the shared `chips.ChipBar`); ✕ removes one."""

    chip_removed = Signal(str, str)
    clear_all = Signal()

    SEP = "\x1f"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("filterChips")
        self.bar = ChipBar(self, closable=True)
        self.bar.chip_closed.connect(self._closed)
        self.bar.chip_clicked.connect(self._closed)
        self.hint = QLabel("No filters \u2014 choose some on the left, or click an entity or tag in the reader.", self)
        self.hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.clear_button = QToolButton(self)
        self.clear_button.setText("Clear filters")
        self.clear_button.setAutoRaise(True)
        self.clear_button.clicked.connect(self.clear_all)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.hint)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.clear_button, 0, Qt.AlignmentFlag.AlignTop)
        self.set_scope(Scope())

    def set_scope(self, scope: Scope) -> None:
        filters = active_filters(scope)
        self.bar.set_chips([(f"{axis}{self.SEP}{value}", label) for axis, value, label in filters])
        self.bar.setVisible(bool(filters))
        self.hint.setVisible(not filters)
        self.clear_button.setVisible(len(filters) > 1)

    def keys(self) -> list[tuple[str, str]]:
        return [tuple(key.split(self.SEP, 1)) for key in self.bar.keys()]  # noqa: SIM118 - ChipBar.keys()

    def _closed(self, key: str) -> None:
        axis, _, value = key.partition(self.SEP)
        self.chip_removed.emit(axis, value)


class SearchBar(QWidget):
    """Mode switch, query field and chips. Keys in the field: Up/Down move in the results, Enter
    opens the current result (or runs a pending search first), Esc clears."""

    query_edited = Signal(str)
    submitted = Signal()
    navigate = Signal(int)
    escape_pressed = Signal()
    mode_changed = Signal(str)
    chip_removed = Signal(str, str)
    clear_filters = Signal()
    as_of_entered = Signal(str)  # a checked UTC instant, or "" to search now
    ranking_chosen = Signal(str)  # a profile name the person picked in the selector

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("searchBar")
        self.search_button = QToolButton(self)
        self.search_button.setText("Search")
        self.recall_button = QToolButton(self)
        self.recall_button.setText("Recall")
        self.recall_button.setToolTip("Recall mode (Ctrl+R): the query builds the pack an agent would receive.")
        self.search_button.setToolTip("Search mode: the ranked list, explained per arm.")
        self.modes = QButtonGroup(self)
        for button, mode in ((self.search_button, "search"), (self.recall_button, "recall")):
            button.setCheckable(True)
            button.setObjectName(f"{mode}Mode")
            self.modes.addButton(button)
        self.search_button.setChecked(True)
        self.modes.buttonToggled.connect(self._mode_toggled)
        switch = QWidget(self)
        switch.setObjectName("modeSwitch")
        switch.setStyleSheet(MODE_STYLE)
        switch_layout = QHBoxLayout(switch)
        switch_layout.setContentsMargins(0, 0, 0, 0)
        switch_layout.setSpacing(0)
        for button in (self.search_button, self.recall_button):
            button.setParent(switch)
            switch_layout.addWidget(button)

        self.field = QLineEdit(self)
        self.field.setObjectName("queryField")
        self.field.setAccessibleName("Search query")
        self.field.setAccessibleDescription(
            "Type to search. Up and Down move in the results, Enter opens the chosen one, Esc clears."
        )
        self.field.setPlaceholderText("Search memories \u2014 e.g. drain the vip before rollback   (Ctrl+L)")
        self.field.setClearButtonEnabled(True)
        self.field.textEdited.connect(self.query_edited)
        self.field.installEventFilter(self)
        font = self.field.font()
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.field.setFont(font)
        self.field.setMinimumHeight(self.field.fontMetrics().height() + 14)
        color = self.palette().color(QPalette.ColorRole.PlaceholderText)
        self._search_icon = icons.search_icon(color)
        self.status_action = QAction(self._search_icon, "", self.field)
        self.field.addAction(self.status_action, QLineEdit.ActionPosition.LeadingPosition)
        self._spin_step = 0
        self._spinner = QTimer(self)
        self._spinner.setInterval(SPIN_MS)
        self._spinner.timeout.connect(self._spin)

        self.as_of = QLineEdit(self)
        self.as_of.setObjectName("asOfField")
        self.as_of.setPlaceholderText("as of (date)")
        self.as_of.setClearButtonEnabled(True)
        self.as_of.setMaximumWidth(self.as_of.fontMetrics().horizontalAdvance("2026-06-01T08:30Z") + 40)
        self.as_of.setToolTip(
            tooltip_text(
                "Search as of a day: what an agent would have recalled then (memories valid at that instant, "
                "archived ones included). A date means the end of that day, UTC; Enter applies, empty searches now."
            )
        )
        self.as_of.setAccessibleName("Search as of a date")
        self.as_of.editingFinished.connect(self._as_of_edited)
        self.as_of.textChanged.connect(lambda text: self._as_of_edited() if not text else None)

        self.info = QLabel(self)
        self.info.setObjectName("ftsForm")
        self.info.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.info.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.ranking = QComboBox(self)
        self.ranking.setObjectName("rankingProfile")
        self.ranking.setAccessibleName("Ranking profile")
        self.ranking.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        for name in CHOICES:
            self.ranking.addItem(f"Ranking: {name}", name)
            self.ranking.setItemData(
                self.ranking.count() - 1, tooltip_text(PROFILE_HELP[name]), Qt.ItemDataRole.ToolTipRole
            )
        self.ranking.activated.connect(lambda index: self.ranking_chosen.emit(self.ranking.itemData(index)))
        self.set_ranking("default", "")
        self.chips = FilterChips(self)
        self.chips.chip_removed.connect(self.chip_removed)
        self.chips.clear_all.connect(self.clear_filters)
        self.as_of_note = QLabel(self)  # a bad as-of, said where the list is: a red frame alone went unseen
        self.as_of_note.setObjectName("asOfNote")
        self.as_of_note.setTextFormat(Qt.TextFormat.PlainText)
        self.as_of_note.setWordWrap(True)
        self.as_of_note.setStyleSheet("QLabel#asOfNote { border-left: 4px solid #D55E00; padding: 2px 6px; }")
        self.as_of_note.hide()
        self._applied_as_of: str | None = None

        top = QHBoxLayout()
        top.setSpacing(6)
        top.addWidget(switch)
        top.addSpacing(4)
        top.addWidget(self.field, 1)
        top.addWidget(self.as_of)
        top.addSpacing(6)
        top.addWidget(self.info)
        top.addWidget(self.ranking)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 4)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.as_of_note)
        layout.addWidget(self.chips)
        # the switch's buttons were moved into it after the field was made: Tab goes switch, field
        QWidget.setTabOrder(self.search_button, self.recall_button)
        QWidget.setTabOrder(self.recall_button, self.field)

    # -- state shown ---------------------------------------------------------------------------

    def text(self) -> str:
        return self.field.text()

    def set_text(self, text: str) -> None:
        self.field.setText(text)

    def mode(self) -> str:
        return "recall" if self.recall_button.isChecked() else "search"

    def set_mode(self, mode: str) -> None:
        (self.recall_button if mode == "recall" else self.search_button).setChecked(True)

    def toggle_mode(self) -> None:
        self.set_mode("search" if self.mode() == "recall" else "recall")

    def set_busy(self, busy: bool) -> None:
        """The spinner in the field while a search runs (the list keeps its old answer meanwhile)."""
        if busy and not self._spinner.isActive():
            self._spinner.start()
            self._spin()
            self.status_action.setToolTip("Searching\u2026")
        elif not busy and self._spinner.isActive():
            self._spinner.stop()
            self.status_action.setIcon(self._search_icon)
            self.status_action.setToolTip("")

    def is_busy(self) -> bool:
        return self._spinner.isActive()

    def set_form(self, fts_form: str | None, arms: tuple[str, ...], degraded: tuple[str, ...] = ()) -> None:
        text = form_text(fts_form, arms)
        if degraded:
            text += " \u00b7 \u26a0 degraded"
        self.info.setText(text)
        tip = (
            "How the lexical arm read the query: 'all terms' when some file in scope holds every "
            "word, else 'any term'. Arms fused: " + ", ".join(arms)
        )
        if degraded:
            tip += "\nDegraded: " + "; ".join(degraded)
        self.info.setToolTip(tooltip_text(tip))

    def ranking_name(self) -> str:
        return self.ranking.currentData() or ""

    def set_ranking(self, name: str, help_text: str) -> None:
        """Show the active profile (a what-if profile from a file gets an entry of its own)."""
        index = self.ranking.findData(name)
        if index < 0:
            self.ranking.addItem(f"Ranking: {name}", name)
            index = self.ranking.count() - 1
        self.ranking.setCurrentIndex(index)
        tip = (help_text or PROFILE_HELP.get(name, name)) + (
            "\nSwitch to see what the other profile gives: the search re-runs, and the choice is kept."
        )
        self.ranking.setToolTip(tooltip_text(tip))
        self.ranking.setAccessibleDescription(f"Active ranking profile: {name}")

    def set_scope(self, scope: Scope) -> None:
        self._applied_as_of = scope.as_of
        self.chips.set_scope(scope)
        label = as_of_label(scope.as_of)
        if label != self.as_of.text() and not (self.as_of.hasFocus() and scope.as_of == self._as_of_value()):
            self.as_of.blockSignals(True)
            self.as_of.setText(label)
            self.as_of.blockSignals(False)
        self._as_of_error("")

    def _as_of_value(self) -> str | None:
        try:
            return parse_as_of(self.as_of.text())
        except ValueError:
            return None

    def _as_of_edited(self) -> None:
        try:
            value = parse_as_of(self.as_of.text())
        except ValueError as exc:
            self._as_of_error(str(exc))
            return
        self._as_of_error("")
        self.as_of_entered.emit(value or "")

    def _as_of_error(self, message: str) -> None:
        """A red frame, the reason in the tooltip, and a line under the bar saying the list did NOT
        move to that date (it stays as of now, or as of the last date that was read)."""
        self.as_of.setProperty("invalid", bool(message))
        self.as_of.setStyleSheet("QLineEdit#asOfField { border: 1px solid #D55E00; }" if message else "")
        if message:
            self.as_of.setToolTip(tooltip_text(f"{message}"))
            self.as_of.setAccessibleDescription(message)
            raw = self.as_of.text().strip()
            detail = message.removeprefix(f"as-of {raw!r}: ").removeprefix(f"{raw!r}: ")
            applied = as_of_label(self._applied_as_of)
            self.as_of_note.setText(
                f"\u26a0 As of \u201c{raw}\u201d is not applied, so the list still shows "
                f"memories {f'as of {applied}' if applied else 'as of now'}: {detail}."
            )
        else:
            self.as_of.setAccessibleDescription(f"A date ({EXPECTED})")
        self.as_of_note.setVisible(bool(message))

    def as_of_error(self) -> bool:
        return bool(self.as_of.property("invalid"))

    def focus_query(self) -> None:
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()

    # -- events --------------------------------------------------------------------------------

    def _spin(self) -> None:
        self._spin_step = (self._spin_step + 1) % 12
        self.status_action.setIcon(
            icons.spinner_icon(self._spin_step, self.palette().color(QPalette.ColorRole.Highlight))
        )

    def _mode_toggled(self, button, checked: bool) -> None:
        if checked:
            self.mode_changed.emit(self.mode())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.field and event.type() == QEvent.Type.KeyPress:
            key = event.key()
            steps = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: 10, Qt.Key.Key_PageUp: -10}
            if key in steps:
                self.navigate.emit(steps[key])
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.submitted.emit()
                return True
            if key == Qt.Key.Key_Escape:
                self.escape_pressed.emit()
                return True
        return super().eventFilter(watched, event)
