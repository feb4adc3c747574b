"""The store's write lock: this app's writes to one store, one at a time, across threads and processes.

`fcntl.flock` on `<cache>/writes/<store>-<hash>/lock` (see `write/journal.py` for what it guards and
what it does not). It lives here, above both, because two siblings need it: `write/` takes it for
the whole of a write (files, commit, the index brought current), and the watcher (`watch/`) waits
for it to be free before a pass, so the file events of the app's own write are looked at after the
write has indexed them, not halfway (a pass that ran first indexed the write's move itself and
announced a second change).
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
import time
from pathlib import Path
from typing import Callable

LOCK_WAIT_S = 10.0


class LockTimeout(Exception):
    """Another write of this app held the store's write lock for the whole wait."""


def write_dir(store_root: Path) -> Path:
    """`<cache>/writes/<store>-<hash>/`: the write lock (and, from earlier versions, the last commit)."""
    from memhtml_desktop.settings import default_index_path

    return default_index_path(store_root).parent.parent / "writes" / default_index_path(store_root).stem


class WriteLock:
    """An exclusive lock on one store's writes: across processes (`flock`) and across the threads
    sharing this object (an RLock, so one thread may nest it, as apply nests recover)."""

    def __init__(self, directory: Path, *, wait_s: float = LOCK_WAIT_S) -> None:
        self.directory = directory
        self.wait_s = wait_s
        self._fd: int | None = None
        self._depth = 0
        self._threads = threading.RLock()

    def __enter__(self) -> "WriteLock":
        deadline = time.monotonic() + self.wait_s
        if not self._threads.acquire(timeout=self.wait_s):
            raise LockTimeout("another write to this store (from this app) is still running; try again in a moment")
        if self._depth:
            self._depth += 1
            return self
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.directory / "lock", os.O_RDWR | os.O_CREAT, 0o644)
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() >= deadline:
                        os.close(fd)
                        raise LockTimeout(
                            "another write to this store (from this app) is still running; try again in a moment"
                        ) from exc
                    time.sleep(0.05)
        except BaseException:
            self._threads.release()
            raise
        self._fd = fd
        self._depth = 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
        self._threads.release()


def wait_for_writes(store_root: Path, timeout: float, *, stop: Callable[[], bool] = lambda: False) -> bool:
    """Wait until no write of this app holds `store_root`'s write lock: True once it is free (or
    was never made), False when `timeout` passed or `stop()` said so. Takes nothing: a shared
    lock is taken and let go in the same breath, so a write that starts next is not kept waiting
    (its own wait polls every 50 ms)."""
    try:
        fd = os.open(write_dir(store_root) / "lock", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return True  # no write ever ran here
    except OSError:
        return True  # unreadable: nothing to wait on that we could see
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    return True
                if time.monotonic() >= deadline or stop():
                    return False
                time.sleep(0.02)
                continue
            fcntl.flock(fd, fcntl.LOCK_UN)
            return True
    finally:
        os.close(fd)
