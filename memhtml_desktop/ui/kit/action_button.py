"""A tool button that shows one QAction and follows its changes without piling up connections."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QAction, QActionEvent
from PySide6.QtWidgets import QToolButton, QWidget


class ActionButton(QToolButton):
    """`QToolButton` with `action` as its default action, refreshed by hand when the action changes.

    QToolButton answers every `ActionChanged` of its default action by running `setDefaultAction`
    again, and in Qt 6.11 each run adds one more connection to the action's `changed` signal: 1,000
    changes, 1,000 receivers, every one of them called at each later change (tests/ui/
    test_action_button.py measures it on the installed Qt). The reader's footer buttons change two
    to three times per memory opened, so a long session grew by ~8 connections an open and each
    click or open cost more than the last (the soak: 2,384 connection blocks from 300 opens, memray).
    Here the change is mirrored the way `setDefaultAction` does it, without reconnecting.
    """

    def __init__(self, action: QAction, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDefaultAction(action)

    def actionEvent(self, event: QActionEvent) -> None:  # noqa: N802 - Qt override
        action = event.action()
        if event.type() == QEvent.Type.ActionChanged and action is not None and action is self.defaultAction():
            self._mirror(action)
            return
        super().actionEvent(event)

    def _mirror(self, action: QAction) -> None:
        self.setText(action.iconText())
        self.setIcon(action.icon())
        self.setToolTip(action.toolTip())
        self.setStatusTip(action.statusTip())
        self.setWhatsThis(action.whatsThis())
        self.setCheckable(action.isCheckable())
        self.setChecked(action.isChecked())
        self.setEnabled(action.isEnabled())
