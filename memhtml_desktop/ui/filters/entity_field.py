"""The "Filter by entity" field: completions of the store's entity names, and keys that stay in it.

Esc belongs to the field while it has the focus (issue 41): it closes the completions, then clears
what was typed, then, on an empty field, hands the focus back (`left`). It never reaches the
window's Esc, which clears the query. A chosen entity empties the field once the choice is made
(QLineEdit writes the completion into the field after `activated`, so the field is emptied after
that, not inside it), and a field emptied by any means (the clear button, Backspace, a choice)
shows no completions: an empty prefix would list every entity in a popup that takes the next
click or key.

What Enter takes (`resolve`): the name typed, matched without regard to case, else the one name
that holds what was typed; anything else is left in the field with the completions shown, never
turned into a filter no memory carries.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QCompleter, QLineEdit, QWidget


def resolve(text: str, names: list[str]) -> str | None:
    """The entity name `text` stands for: itself (any case), else the only name holding it."""
    text = text.strip()
    if not text:
        return None
    folded = text.casefold()
    exact = [n for n in names if n.casefold() == folded]
    if exact:
        return text if text in exact else exact[0]
    holding = [n for n in names if folded in n.casefold()]
    return holding[0] if len(holding) == 1 else None


class EntityField(QLineEdit):
    """See the module docstring. `chosen(name)`: an entity to filter by; `left()`: Esc on an empty field."""

    chosen = Signal(str)
    left = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("entityFilter")
        self.setAccessibleName("Filter by entity")
        self.setPlaceholderText("Filter by entity (type:name)\u2026")
        self.setToolTip("Type part of an entity's name and pick it; Esc clears the field (the query stays).")
        self.setClearButtonEnabled(True)
        self.names = QStringListModel(self)
        self.completer_ = QCompleter(self.names, self)
        self.completer_.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer_.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer_.setMaxVisibleItems(12)
        self.setCompleter(self.completer_)
        self.completer_.activated.connect(self._activated)
        self.returnPressed.connect(self._entered)
        self.textChanged.connect(self._text_changed)
        self._taken: str | None = None  # a choice made, the field not emptied yet

    def set_names(self, names: list[str]) -> None:
        self.names.setStringList(names)
        if not self.text():
            self._hide_popup()

    def popup_visible(self) -> bool:
        popup = self.completer_.popup()
        return popup is not None and popup.isVisible()

    def _hide_popup(self) -> None:
        if self.popup_visible():
            self.completer_.popup().hide()

    def _text_changed(self, text: str) -> None:
        if not text:
            self._hide_popup()

    def _activated(self, text: str) -> None:
        self._take(text)

    def _entered(self) -> None:
        if self._taken is not None:
            return  # Enter on a completion: `activated` took it (the key then reaches the field too)
        name = resolve(self.text(), self.names.stringList())
        if name is None:
            if self.text().strip():
                self.completer_.setCompletionPrefix(self.text().strip())
                self.completer_.complete()
            return
        self._take(name)

    def _take(self, name: str) -> None:
        self._hide_popup()
        self._taken = name
        self.chosen.emit(name)
        # QLineEdit puts the activated text into the field after this slot: empty it after that.
        QTimer.singleShot(0, self._emptied)

    def _emptied(self) -> None:
        self._taken = None
        self.clear()

    def event(self, event: QEvent) -> bool:  # noqa: D401
        """Esc is the field's own while it has the focus: the window's Esc shortcut never sees it."""
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape
            and event.modifiers() == Qt.KeyboardModifier.NoModifier
        ):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape and event.modifiers() == Qt.KeyboardModifier.NoModifier:
            event.accept()
            if self.popup_visible():
                self._hide_popup()
            elif self.text():
                self.clear()
            else:
                self.left.emit()
            return
        super().keyPressEvent(event)
