"""The cyclic collector, kept out of the window's way.

A full collection holds the GIL for as long as it walks every tracked object, on whichever
thread triggers it: mid-burst at 100,000 memories that was 260 ms of a frozen window, and during
a cold index at 20,000 a full pass of what the window had gathered since start-up (each batch's
answer relisted, the header's counts, the watcher's statuses) took 63-76 ms. So a window keeps
automatic full collections rare (`ui.app.GC_THRESHOLDS`), and this collector keeps what a full
pass would walk small, at two paces:

* **settle**, every SETTLE_EVERY_MS whatever runs: collect what is not frozen (only what
  survived since the last settle, a few milliseconds) and freeze the survivors (`gc.freeze`),
  so the next automatic full pass has little to walk even through a pass that never goes quiet;
* **deep**, when no job runs, no search waits, no watcher pass is under way and nothing of the
  sort has happened for QUIET_S, at most every DEEP_EVERY_S: unfreeze everything, collect,
  freeze again. A frozen object that later became part of a garbage cycle is freed only here; the
  whole-heap walk (62-78 ms at 20,000 memories on a loaded machine: some 60,000 objects, most of
  them Qt's) is paid only when nobody waits for the window.
"""

from __future__ import annotations

import gc
import time
from typing import Any

from PySide6.QtCore import QObject, QTimer

SETTLE_EVERY_MS = 5_000
IDLE_EVERY_MS = 20_000
QUIET_S = 30.0
DEEP_EVERY_S = 600.0


class IdleCollector(QObject):
    """Settles the young heap every SETTLE_EVERY_MS; collects the whole heap when quiet (see above).

    The watcher's statuses reach `heard`: work the runner does not see (the watcher's pass in its
    child process) counts as activity, and its pass defers the deep collection.
    """

    def __init__(self, runner: Any, driver: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner, self.driver = runner, driver
        self._watcher_busy = False
        self._stopped = False
        self.collections = 0  # deep collections
        self.settles = 0
        self._busy_at = time.monotonic()
        self._deep_at = float("-inf")
        runner.busy_changed.connect(lambda kind, busy: self._touch())
        self.timer = QTimer(self)
        self.timer.setInterval(IDLE_EVERY_MS)
        self.timer.timeout.connect(self.maybe_collect)
        self.timer.start()
        self.settle_timer = QTimer(self)
        self.settle_timer.setInterval(SETTLE_EVERY_MS)
        self.settle_timer.timeout.connect(self.settle)
        self.settle_timer.start()

    def _touch(self) -> None:
        self._busy_at = time.monotonic()

    def heard(self, status: Any) -> None:
        """A watcher status: activity, and whether its pass is under way."""
        self._busy_at = time.monotonic()
        self._watcher_busy = bool(getattr(status, "busy", False))

    def stop(self) -> None:
        """The window is shutting down: no settle and no deep collection from now on.

        A closed window's collector would otherwise go on with nothing busy to hold it back and
        walk the whole heap in the middle of whatever runs next in the process (a second window,
        the next test, the next round of a bench: 99 ms beside a cold index, two cores loaded)."""
        self.timer.stop()
        self.settle_timer.stop()
        self._stopped = True

    def settle(self) -> None:
        if self._stopped:
            return
        gc.collect()  # walks only what is not frozen: what survived since the last settle
        gc.freeze()
        self.settles += 1

    def maybe_collect(self) -> bool:
        now = time.monotonic()
        if (
            self._stopped
            or self.runner.is_busy()
            or self.driver.pending()
            or self._watcher_busy
            or now - self._busy_at < QUIET_S
            or now - self._deep_at < DEEP_EVERY_S
        ):
            return False
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._deep_at = time.monotonic()
        self.collections += 1
        return True
