"""Work cut into turns of the event loop (a timer, not a posted event)."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, QTimer


def turn_timer(parent: QObject, slot: Callable[[], None]) -> QTimer:
    """A single-shot zero timer that runs `slot` in a later turn; `start()` it for each step.

    Not `QTimer.singleShot(0, ...)`: that posts an event, and every event posted before a turn
    runs in that turn, so a step chained that way could share one turn with the next step and a
    paint (two 7 ms render slices and a pool chart's picture made one 21 ms turn). A timer's
    steps leave the loop a turn for everything else in between.
    """
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(0)
    timer.timeout.connect(slot)
    return timer
