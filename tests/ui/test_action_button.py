"""A button that shows an action follows the action's changes without piling up connections.

Qt 6.11's QToolButton re-runs `setDefaultAction` at every change of its default action, and each run
connects the action's `changed` signal once more (measured below on the installed Qt, so a Qt that
fixes it shows here). `ActionButton` mirrors the change itself: the count stays, the button follows.
"""

from __future__ import annotations

from PySide6.QtCore import SIGNAL, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QToolButton

from memhtml_desktop.ui.kit.action_button import ActionButton

CHANGED = SIGNAL("changed()")


def _toggle(action: QAction, times: int) -> None:
    for i in range(times):
        action.setEnabled(i % 2 == 1)
        action.setText(f"Helpful {i}")


def test_the_action_button_keeps_one_connection_and_follows_the_action(qtbot):
    action = QAction("Helpful")
    action.setCheckable(True)
    button = ActionButton(action)
    qtbot.addWidget(button)
    before = action.receivers(CHANGED)
    _toggle(action, 200)
    assert action.receivers(CHANGED) == before, "each change of the action added a connection"
    assert button.defaultAction() is action
    assert (button.text(), button.isEnabled()) == ("Helpful 199", True)
    action.setEnabled(False)
    action.setToolTip("Mark it helpful")
    action.setChecked(True)
    assert not button.isEnabled() and button.toolTip() == "Mark it helpful" and button.isChecked()
    action.setEnabled(True)
    seen = []
    action.triggered.connect(lambda checked: seen.append(checked))
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert seen == [False] and not action.isChecked() and not button.isChecked(), "a click toggles the action"


def test_what_a_plain_tool_button_does_on_the_installed_qt(qtbot):
    """Not a requirement: the reason for ActionButton, measured. If this starts failing, the
    installed Qt stopped piling up connections and ActionButton could go (say so in its docstring)."""
    action = QAction("Helpful")
    button = QToolButton()
    qtbot.addWidget(button)
    button.setDefaultAction(action)
    before = action.receivers(CHANGED)
    _toggle(action, 100)
    assert action.receivers(CHANGED) - before >= 100
