"""One writer per index across processes: a lock file beside the index, held for a whole pass.

Inside one process `Store` serialises its index passes with a thread lock. Across processes (the
window's watcher, a headless `watch`, `index --rebuild` in a terminal) SQLite's own write lock is
taken and released per 500-file batch, so two passes used to interleave batch by batch: each
decided from what it had read at its start, and the one that met the other's lock for longer
than the busy timeout died with "database is locked". An advisory `flock` on `<index>.lock`,
held from the first read of a pass to its last commit, makes them take turns instead: `index
--rebuild` waits for a watcher's pass and the watcher waits for the rebuild. The holder writes
its pid and what it is doing into the file, so a waiter can say whom it is waiting for.

Readers never take it: WAL readers are never blocked, and a read that wanted to refresh the index
first waits briefly, then answers from the last committed state (`Store.refresh`).

Best effort by design: where the file cannot be created (a read-only cache, a full disk) the pass
runs without it, as it did before, and SQLite's lock still guards every batch.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

log = logging.getLogger(__name__)

POLL_S = 0.05
POLL_MAX_S = 0.5
_TAKEN = (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)


class IndexBusy(Exception):
    """Another process held the index's write lock for longer than the caller would wait."""

    def __init__(self, holder: str) -> None:
        super().__init__(f"another process is writing the index ({holder})")
        self.holder = holder


def lock_path(index_path: str | os.PathLike[str]) -> Path | None:
    index_path = str(index_path)
    if index_path == ":memory:" or index_path.startswith("file:"):
        return None
    return Path(index_path + ".lock")


def holder_of(path: Path) -> str:
    """What the holder wrote into the lock file ("pid 1234: index --rebuild"), or a plain phrase."""
    from memhtml_desktop.guarded import read_guarded

    try:
        text = read_guarded(path, cap=4096, what="the index's lock file").decode("utf-8", "replace").strip()
    except (OSError, ValueError):
        text = ""
    return text[:200] or "a process that did not say what it is doing"


def _open(path: Path | None) -> int | None:
    """The lock file, opened without following a link (an `<index>.lock` linking elsewhere would
    have the label written through it) and only when it is a regular file (a FIFO is not waited on)."""
    if path is None:
        return None
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        log.info("no index lock file (%s): passes from other processes are not coordinated", exc)
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        log.info("no index lock file (%s is not a regular file): passes from other processes are not coordinated", path)
        return None
    return fd


def _acquire(fd: int, path: Path, deadline: float | None, cancelled, on_wait) -> bool:
    """Take the lock; False when cancelled while waiting. Raises IndexBusy past the deadline."""
    delay, told = POLL_S, False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError as exc:
            if exc.errno not in _TAKEN:
                log.info("index lock unavailable (%s): not coordinated", exc)
                return True
        if not told:
            told = True
            if on_wait is not None:
                on_wait(holder_of(path))
        if cancelled is not None and cancelled():
            return False
        if deadline is not None and time.monotonic() >= deadline:
            raise IndexBusy(holder_of(path))
        time.sleep(delay)
        delay = min(delay * 2, POLL_MAX_S)


@contextlib.contextmanager
def hold(
    index_path: str | os.PathLike[str],
    what: str,
    *,
    deadline: float | None = None,
    cancelled: Callable[[], bool] | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[bool]:
    """Hold the index's write lock for the block; yields False when `cancelled` fired while waiting.

    `deadline` is a `time.monotonic()` instant (None: wait as long as it takes). Past it, raises
    IndexBusy naming the holder. `on_wait(holder)` is called once, when the lock is found taken.
    """
    path = lock_path(index_path)
    fd = _open(path)
    if fd is None:
        yield True
        return
    try:
        got = _acquire(fd, path, deadline, cancelled, on_wait)
        if got:
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"pid {os.getpid()}: {what}\n".encode(), 0)
            except OSError:
                pass  # a full disk: the lock holds all the same, only the label is missing
        try:
            yield got
        finally:
            if got:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # closing the descriptor releases the lock
