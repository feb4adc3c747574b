"""The cyclic collector, run when nobody is waiting for the window.

A full collection holds the GIL for as long as it walks every tracked object, on whichever
thread triggers it: mid-burst at 100,000 memories that was 260 ms of a frozen window. So a window
keeps automatic full collections rare (`ui.app.GC_THRESHOLDS`) and instead collects here, when
no job runs and no search waits, then freezes what survived (`gc.freeze`): the survivors are the
long-lived state (vector snapshot, caches), and the next collection skips them.
"""

from __future__ import annotations

import gc
import time
from typing import Any

from PySide6.QtCore import QObject, QTimer

IDLE_EVERY_MS = 60_000
QUIET_S = 3.0


class IdleCollector(QObject):
    """Every IDLE_EVERY_MS, if the runner and the driver have been idle for QUIET_S: collect, freeze."""

    def __init__(self, runner: Any, driver: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner, self.driver = runner, driver
        self.collections = 0
        self._busy_at = time.monotonic()
        runner.busy_changed.connect(lambda kind, busy: self._touch())
        self.timer = QTimer(self)
        self.timer.setInterval(IDLE_EVERY_MS)
        self.timer.timeout.connect(self.maybe_collect)
        self.timer.start()

    def _touch(self) -> None:
        self._busy_at = time.monotonic()

    def maybe_collect(self) -> bool:
        if self.runner.is_busy() or self.driver.pending() or time.monotonic() - self._busy_at < QUIET_S:
            return False
        gc.collect()
        gc.freeze()
        self.collections += 1
        return True
