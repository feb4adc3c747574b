"""Live watching: the index follows the store on disk (watchdog adapter; plain callbacks, no Qt).

    from memhtml_desktop.watch import Watcher
    watcher = Watcher(store, on_status=..., on_batch=...).start()
    ...
    watcher.stop()

See docs/watching.md.
"""

from memhtml_desktop.watch.status import BatchSummary, Health, WatchStatus
from memhtml_desktop.watch.watcher import Watcher

__all__ = ["BatchSummary", "Health", "WatchStatus", "Watcher"]
