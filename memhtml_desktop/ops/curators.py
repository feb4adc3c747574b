"""One `Curator` per open Store, made on first use by a worker thread, shared by every pane.

The write core's front door (`write/curator.py`) is thread-safe and serialises its own writes, so
the dialogs, the conflicts view and the timeline share one per store. It is made lazily, on the
worker that first needs it: making one creates the write journal's directory, and the GUI thread
never touches the disk. No Qt here.

`refresh_index`: with the watcher off nothing keeps the index current between writes, so the
curator brings it in step before each plan (the duplicate and link checks read it).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

_LOCK = threading.Lock()
_CURATORS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def curator_for(store: Any, *, refresh_index: bool = False) -> Any:
    """The Curator of `store` (made once; `refresh_index` is the latest caller's wish)."""
    from memhtml_desktop.write.curator import Curator

    with _LOCK:
        curator = _CURATORS.get(store)
        if curator is None:
            curator = Curator(store, refresh_index=refresh_index)
            _CURATORS[store] = curator
        curator.refresh_index = refresh_index
        return curator
