"""For batch tools (screenshots, the benches): pump the window's events until nothing is pending."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication


def wait_idle(window: Any, timeout: float = 30.0) -> bool:
    """Pump events until no job, no debounced search and no watcher pass is pending; False on timeout."""
    deadline = time.monotonic() + timeout
    app = QApplication.instance()
    while time.monotonic() < deadline:
        app.processEvents()
        bridge = window.bridge
        if (
            not window.runner.is_busy()
            and not window.driver.debounce.isActive()
            and (bridge is None or bridge.wait_idle())
        ):
            for _ in range(5):
                app.processEvents()
            if not window.runner.is_busy():
                return True
        time.sleep(0.005)
    return False


def pump_until(condition: Any, timeout: float = 30.0) -> bool:
    """Pump events until `condition()` holds (checked after each round of events); False when
    `timeout` seconds pass first. For drivers of the real window (bench/soak.py)."""
    deadline = time.monotonic() + timeout
    app = QApplication.instance()
    while time.monotonic() < deadline:
        app.processEvents()
        # What the running event loop does and processEvents() does not: delete the objects given to
        # deleteLater(). Without it a driver kept every chip, label and row widget the window let go
        # (the soak's widget count rose 120 per 1,000 actions, its RSS with it: a harness's leak).
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        if condition():
            return True
        time.sleep(0.002)
    return bool(condition())
