"""Thread priority: the window's background threads yield the CPU to its GUI thread.

On Linux niceness is per thread, so a search worker or the watcher can run a few steps nicer than
the GUI thread of the same process. Two cores shared by the GUI, two readers, the watcher and the
parse processes otherwise let a key press wait for a search's SQL to give up a core.
"""

from __future__ import annotations

import os
import threading


def lower_thread_priority(nice: int) -> None:
    """Raise the calling thread's niceness by `nice`; elsewhere (or without the right) nothing."""
    if nice <= 0 or not hasattr(os, "setpriority"):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
    except (OSError, AttributeError):
        pass
