"""The reconcile queue's actions on the pair shown, one key each (issue 39, step 3).

N — the newer is right: it supersedes the older; O — the older is still right: it supersedes the
newer; B — both hold: link them (`contradicts` records the disagreement and keeps both; another
relation says how both hold); D — not a conflict: dismissed, remembered on a ref of the app's own,
never listed again while neither memory changes; R — restore a dismissed pair. Every action opens
its dialog, which previews the one commit before it writes. The bar holds no logic: it says which
action applies to the pair and emits what was asked.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QWidget

#: The relations "both hold" offers: `contradicts` first (both kept, the disagreement recorded: the
#: pair stays listed as known, below the open ones), then those that settle it.
BOTH_HOLD_RELS = ("contradicts", "relates_to", "laterally_related", "supports", "example_of", "part_of")


class QueueBar(QWidget):
    """Buttons for the four resolutions (and restore), each with its one-letter key."""

    newer_right = Signal()
    older_right = Signal()
    both_hold = Signal(str)  # the relation
    dismiss = Signal()
    restore = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("queueBar")
        self.newer_button = self._button("&Newer is right", "newerRight", "N",
                                         "The newer memory supersedes the older: the older is archived, and its links, "
                                         "entities, facets and the links to it follow the newer (N)")  # fmt: skip
        self.older_button = self._button(
            "&Older is still right", "olderRight", "O", "The older memory supersedes the newer, which is archived (O)"
        )
        self.rel = QComboBox(self)
        self.rel.setObjectName("bothHoldRel")
        self.rel.addItems(list(BOTH_HOLD_RELS))
        self.rel.setToolTip("contradicts: both stay, the disagreement recorded (the pair stays listed as known); "
                            "any other relation says how both hold and settles the pair")  # fmt: skip
        self.link_button = self._button(
            "&Both hold\u2026", "linkPairButton", "B", "Both hold: A links to B by this relation (B)"
        )
        self.dismiss_button = self._button("Not a conflict\u2026", "dismissPair", "D",
                                           "Not a conflict: remembered (on a ref of this app's own, not your branch) "
                                           "and never listed again while neither memory changes (D)")  # fmt: skip
        self.restore_button = self._button("Restore", "restorePair", "R", "List this dismissed pair again (R)")
        self.keys = QLabel("Keys: N, O, B, D", self)
        self.keys.setObjectName("queueKeys")
        self.keys.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.newer_button.clicked.connect(self.newer_right)
        self.older_button.clicked.connect(self.older_right)
        self.link_button.clicked.connect(lambda: self.both_hold.emit(self.rel.currentText()))
        self.dismiss_button.clicked.connect(self.dismiss)
        self.restore_button.clicked.connect(self.restore)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.newer_button, self.older_button, self.rel, self.link_button, self.dismiss_button,
                       self.restore_button):  # fmt: skip
            layout.addWidget(widget)
        layout.addStretch(1)
        layout.addWidget(self.keys)
        self.show_pair(None)

    def _button(self, text: str, name: str, key: str, tip: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setToolTip(tip)
        button.setProperty("tip", tip)
        button.setProperty("key", key)
        return button

    def attach_keys(self, window: QWidget) -> None:
        """The one-letter keys work anywhere in `window` (the conflicts window, once the bar is in it)."""
        for button in (self.newer_button, self.older_button, self.link_button, self.dismiss_button,
                       self.restore_button):  # fmt: skip
            shortcut = QShortcut(QKeySequence(button.property("key")), window)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(lambda b=button: b.click() if b.isVisible() and b.isEnabled() else None)

    def show_pair(self, pair) -> None:
        """Which actions apply to `pair` (None: none is shown)."""
        shown = pair is not None
        dismissed = bool(shown and pair.dismissed)
        for button in (self.newer_button, self.older_button, self.link_button, self.dismiss_button):
            button.setVisible(not dismissed)
            button.setEnabled(shown)
        self.rel.setVisible(not dismissed)
        self.restore_button.setVisible(dismissed)
        has_newer = bool(shown and pair.newer)
        why = (
            ""
            if has_newer
            else "Neither is newer (the same time): choose with \u201cThis one is right\u201d under a side"
        )
        for button in (self.newer_button, self.older_button):
            button.setEnabled(has_newer)
            button.setToolTip(why or button.property("tip"))
        self.keys.setText("Key: R" if dismissed else "Keys: N, O, B, D" if has_newer else "Keys: B, D")
