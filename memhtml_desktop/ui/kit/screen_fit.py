"""Sizing a dialog or a secondary window so that all of it, buttons included, is on the screen.

A fixed `resize(1100, 720)` put the Correct…, New memory and Conflicts windows' buttons off a
1024x700 screen. `fit_to_screen` asks for the preferred size but never more than the available
area of the screen the window opens on (its parent's: a dialog opens over the window that owns it),
less a margin for the window frame.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

FRAME_MARGIN = 48  # the title bar and borders a window manager adds outside the widget


def screen_area(widget: QWidget):
    """The available geometry (QRect) of the screen `widget` opens on."""
    parent = widget.parentWidget()
    screen = (parent.window().screen() if parent is not None else None) or widget.screen()
    return screen.availableGeometry()


def fit_to_screen(widget: QWidget, width: int, height: int) -> None:
    """Resize `widget` to `width` x `height`, or to what its screen's free area holds."""
    area = screen_area(widget)
    widget.resize(
        max(200, min(width, area.width() - FRAME_MARGIN)), max(200, min(height, area.height() - FRAME_MARGIN))
    )
