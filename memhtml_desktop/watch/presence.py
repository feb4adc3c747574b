"""Is the store directory still there, and is it still the same directory?

A store can vanish without a single event: moved away (inotify reports IN_MOVE_SELF, which
watchdog drops), unmounted, or replaced by a fresh clone at the same path (the old observer then
watches a directory nobody uses). So the watcher compares the directory's identity, (device,
inode), with the one it started on, before every pass and once a second when idle.
"""

from __future__ import annotations

import os
import stat

from memhtml_desktop.domain.paths import BUCKETS


def identity(root: str) -> tuple[int, int]:
    """(st_dev, st_ino) of the store directory; FileNotFoundError when it is not a directory."""
    st = os.stat(root)
    if not stat.S_ISDIR(st.st_mode):
        raise FileNotFoundError(root)
    return st.st_dev, st.st_ino


def same_directory(root: str, expected: tuple[int, int] | None) -> bool:
    try:
        st = os.stat(root)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and (st.st_dev, st.st_ino) == expected


def looks_like_store(root: str) -> bool:
    """The directory is back AND looks like a store: an empty mount point must not empty the index.

    `.memhtml/` alone does not count: opening a Store connection creates it (for the state plane)
    even under a path that has just vanished, so a search run meanwhile would fake a return.
    """
    if not os.path.isdir(root):
        return False
    return any(os.path.isdir(os.path.join(root, name)) for name in (*BUCKETS, ".git"))
