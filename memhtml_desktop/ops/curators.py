"""One `Curator` per open Store, made on first use by a worker thread and kept by the store
(`Store.kept`), shared by every pane.

The write core's front door (`write/curator.py`) is thread-safe and serialises its own writes, so
the dialogs, the conflicts view and the timeline share one per store. It is made lazily, on the
worker that first needs it: making one creates the write journal's directory, and the GUI thread
never touches the disk. No Qt here.

`refresh_index`: with the watcher off nothing keeps the index current between writes, so the
curator brings it in step before each plan (the duplicate and link checks read it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhtml_desktop.index.doors import CuratorStore

if TYPE_CHECKING:
    from memhtml_desktop.write.curator import Curator

KEY = "curator"
"""The name the Curator is kept under by its store (`Store.kept`: the store's own state, not this
module's)."""


def curator_for(store: CuratorStore, *, refresh_index: bool = False) -> Curator:
    """The Curator of `store` (made once; `refresh_index` is the latest caller's wish)."""
    from memhtml_desktop.write.curator import Curator

    curator: Curator = store.kept(KEY, lambda: Curator(store, refresh_index=refresh_index))
    curator.refresh_index = refresh_index
    return curator
