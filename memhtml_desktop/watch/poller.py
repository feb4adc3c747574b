"""Polling that costs what a change costs: the fallback when kernel events are unavailable.

watchdog's snapshot poller lists every folder and stats every file on every poll: at 100,000
memories that was 30-83% of a core at idle, twice a second, to learn that nothing happened. This
one keeps a snapshot too, and on each poll asks the cheapest question first:

1. **Folders** (every poll): one `lstat` per folder (a 100,000-memory generated store has 217). A
   file created, deleted or renamed (an editor's save, `git checkout`, `git mv`) changes its
   folder's mtime, and only such a folder is listed again (`scandir`, whose inode numbers come
   free with the names: a file replaced by a rename is seen without a stat).
2. **Files** (a rolling sweep): a file rewritten in place (`echo >> f`, an editor that truncates
   and writes) changes no folder. So each poll also stats the next slice of the files, enough that
   the whole store is visited every `SWEEP_S` (30 s) but at least `SWEEP_MIN_RATE` (1,000) files a
   second: a store of up to 1,000 files is swept on every poll, one of 100,000 every 30 s. **The
   trade-off:** an in-place edit is seen within the sweep (up to 30 s at 100,000 memories), every
   other change within one poll. A folder listed again also has its files stat'ed when it holds at
   most `STAT_LISTED_UP_TO` (2,000), so an in-place edit beside another change is seen at once.
3. **Back-off**: each poll that finds nothing doubles the pause, from `interval` (0.5 s) up to
   `MAX_INTERVAL_S` (2 s); a poll that finds a change returns to `interval`. So a change after a
   long quiet is seen within 2 s (plus the watcher's burst window), a change in a busy minute
   within `interval`.
4. **Racy folders**: a folder whose mtime is within `RACY_S` of the moment it was listed is listed
   again on the next polls until it is not: a file created in the same timestamp tick as the
   listing (coarse-grained or remote filesystems) leaves the folder's mtime as it was listed.

Events are watchdog's own (`FileCreatedEvent`, `DirMovedEvent`, …) with moves paired by inode, so
the watcher's `ChangeCollector` takes them as it takes inotify's. Only the four buckets are
listed at the top, symlinks are not followed (a link's own mtime counts), and the store folder
vanishing ends the poller with a `DirDeletedEvent` of the root, as watchdog's does.
"""

from __future__ import annotations

import logging
import os
import stat as _stat
import threading
import time
from dataclasses import dataclass, field
from functools import partial

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
)
from watchdog.observers.api import DEFAULT_EMITTER_TIMEOUT, BaseObserver, EventEmitter

from memhtml_desktop.domain.paths import BUCKETS

log = logging.getLogger(__name__)

SWEEP_S = 30.0
SWEEP_MIN_RATE = 1_000  # files a second
MAX_INTERVAL_S = 2.0
RACY_S = 2.0
STAT_LISTED_UP_TO = 2_000

FileSig = tuple[int, int, int]  # inode, size, mtime_ns


@dataclass
class _Folder:
    mtime_ns: int
    ino: int
    entries: dict[str, tuple[int, bool]] = field(default_factory=dict)  # name -> (inode, is a folder)
    racy: bool = False


@dataclass
class _Found:
    """What one poll saw, before moves are paired."""

    created: dict[str, tuple[int, bool]] = field(default_factory=dict)  # path -> (inode, is a folder)
    gone: dict[str, tuple[int, bool]] = field(default_factory=dict)
    modified: list[str] = field(default_factory=list)


class StatPollingEmitter(EventEmitter):
    """One poller thread over `watch.path` (see the module docstring)."""

    def __init__(
        self,
        event_queue,
        watch,
        *,
        timeout: float = DEFAULT_EMITTER_TIMEOUT,
        event_filter: list[type[FileSystemEvent]] | None = None,
        max_interval: float = MAX_INTERVAL_S,
        sweep_s: float = SWEEP_S,
        sweep_min_rate: float = SWEEP_MIN_RATE,
    ) -> None:
        super().__init__(event_queue, watch, timeout=timeout, event_filter=event_filter)
        self.root = os.path.normpath(watch.path)
        self.interval = float(timeout)
        self.max_interval = max(float(timeout), max_interval)
        self.sweep_s, self.sweep_min_rate = sweep_s, sweep_min_rate
        self._pause = self.interval
        self._folders: dict[str, _Folder] = {}
        self._files: dict[str, FileSig] = {}
        self._sweep: list[str] = []
        self._sweep_at = 0
        self._swept_at = 0.0
        self._failing = False
        self._lock = threading.Lock()
        self.polls = 0  # for tests and benchmarks: polls made, and files stat'ed by the sweep
        self.swept = 0

    # -- watchdog's emitter protocol ----------------------------------------------------------

    def on_thread_start(self) -> None:
        self._add_tree(self.root, _Found())
        self._swept_at = time.monotonic()

    def queue_events(self, timeout: float) -> None:
        if self.stopped_event.wait(self._pause):
            return
        with self._lock:
            if not self.should_keep_running():
                return
            try:
                found = self._poll()
            except (FileNotFoundError, NotADirectoryError):
                self.queue_event(DirDeletedEvent(self.root))
                self.stop()
                return
            except OSError as exc:  # EIO, ESTALE: a share briefly away; the snapshot is kept, tried again
                if not self._failing:
                    self._failing = True
                    log.warning("cannot poll %s, will retry: %s", self.root, exc)
                return
            self._failing = False
            busy = self._emit(found) or any(f.racy for f in self._folders.values())
            self._pause = self.interval if busy else min(self._pause * 2, self.max_interval)

    # -- one poll -----------------------------------------------------------------------------

    def _poll(self) -> _Found:
        self.polls += 1
        found = _Found()
        root = os.stat(self.root)  # gone: FileNotFoundError, the caller ends the poller (a link to it is followed)
        for path, folder in list(self._folders.items()):
            if path not in self._folders:
                continue  # dropped with a parent listed earlier in this poll
            try:
                st = root if path == self.root else os.lstat(path)
            except FileNotFoundError:
                continue  # its parent's listing says it is gone
            if not _stat.S_ISDIR(st.st_mode):
                continue  # replaced by a file: its parent's listing says so
            if folder.racy or st.st_mtime_ns != folder.mtime_ns or st.st_ino != folder.ino:
                self._relist(path, st, found)
        self._sweep_files(found)
        return found

    def _listing(self, path: str) -> dict[str, tuple[int, bool]]:
        with os.scandir(path) as entries:
            out = {e.name: (e.inode(), e.is_dir(follow_symlinks=False)) for e in entries}
        if path == self.root:
            out = {name: entry for name, entry in out.items() if name in BUCKETS and entry[1]}
        return out

    def _relist(self, path: str, st: os.stat_result, found: _Found) -> None:
        try:
            now = self._listing(path)
        except (FileNotFoundError, NotADirectoryError):
            return  # gone meanwhile: its parent's listing says so
        folder = self._folders[path]
        before, folder.entries = folder.entries, now
        folder.mtime_ns, folder.ino = st.st_mtime_ns, st.st_ino
        folder.racy = time.time_ns() - st.st_mtime_ns < RACY_S * 1e9
        stat_all = len(now) <= STAT_LISTED_UP_TO
        for name, entry in now.items():
            child = os.path.join(path, name)
            old = before.get(name)
            if old == entry:
                if stat_all and not entry[1]:
                    self._check_file(child, found)
                continue
            if old is not None:
                self._drop(child, old, found)
            if entry[1]:
                self._add_tree(child, found)
            else:
                self._add_file(child, found)
        for name, old in before.items():
            if name not in now:
                self._drop(os.path.join(path, name), old, found)

    def _add_tree(self, path: str, found: _Found) -> None:
        """A folder new to the snapshot (or the root at start): listed, its files stat'ed, recorded."""
        try:
            st = os.stat(path) if path == self.root else os.lstat(path)
            listing = self._listing(path)
        except (FileNotFoundError, NotADirectoryError):
            return
        if path != self.root and self._folders:
            found.created[path] = (st.st_ino, True)
        self._folders[path] = _Folder(
            st.st_mtime_ns, st.st_ino, listing, racy=time.time_ns() - st.st_mtime_ns < RACY_S * 1e9
        )
        for name, (_, is_dir) in listing.items():
            child = os.path.join(path, name)
            if is_dir:
                self._add_tree(child, _Found())  # below a new folder: the folder's event covers them
            else:
                self._add_file(child, None)

    def _add_file(self, path: str, found: _Found | None) -> None:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return
        self._files[path] = (st.st_ino, st.st_size, st.st_mtime_ns)
        if found is not None:
            found.created[path] = (st.st_ino, False)

    def _drop(self, path: str, entry: tuple[int, bool], found: _Found) -> None:
        found.gone[path] = entry
        if not entry[1]:
            self._files.pop(path, None)
            return
        prefix = path + os.sep
        for folder in [p for p in self._folders if p == path or p.startswith(prefix)]:
            del self._folders[folder]
        for file in [p for p in self._files if p.startswith(prefix)]:
            del self._files[file]

    def _check_file(self, path: str, found: _Found) -> None:
        old = self._files.get(path)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return  # its folder's mtime moved: the next folder pass lists it
        sig = (st.st_ino, st.st_size, st.st_mtime_ns)
        if sig != old:
            self._files[path] = sig
            if old is not None:
                found.modified.append(path)

    def _sweep_files(self, found: _Found) -> None:
        """The next slice of the rolling sweep over every file (in-place edits)."""
        now = time.monotonic()
        rate = max(self.sweep_min_rate, len(self._files) / self.sweep_s)
        budget = int(rate * (now - self._swept_at)) + 1
        self._swept_at = now
        done = 0
        while done < budget and self._files:
            if self._sweep_at >= len(self._sweep):
                self._sweep, self._sweep_at = list(self._files), 0
                if done >= len(self._sweep):
                    break  # the whole store swept in this one poll
            path = self._sweep[self._sweep_at]
            self._sweep_at += 1
            if path in self._files:
                self._check_file(path, found)
                done += 1
        self.swept += done

    # -- events -------------------------------------------------------------------------------

    def _emit(self, found: _Found) -> bool:
        """Queue the poll's events, a disappearance and an appearance of one inode as a move."""
        by_inode = {entry: path for path, entry in found.gone.items()}
        moved_to: dict[str, str] = {}
        for path, entry in found.created.items():
            src = by_inode.pop(entry, None)
            if src is not None:
                moved_to[path] = src
        sources = set(moved_to.values())
        for path, (_, is_dir) in found.gone.items():
            if path not in sources:
                self.queue_event(DirDeletedEvent(path) if is_dir else FileDeletedEvent(path))
        for path, (_, is_dir) in found.created.items():
            src = moved_to.get(path)
            if src is not None:
                self.queue_event(DirMovedEvent(src, path) if is_dir else FileMovedEvent(src, path))
            else:
                self.queue_event(DirCreatedEvent(path) if is_dir else FileCreatedEvent(path))
        for path in found.modified:
            self.queue_event(FileModifiedEvent(path))
        return bool(found.gone or found.created or found.modified)


class StatPoller(BaseObserver):
    """watchdog's observer shape over `StatPollingEmitter`: `schedule`, `start`, `stop`, `join`."""

    def __init__(
        self,
        interval: float,
        *,
        max_interval: float = MAX_INTERVAL_S,
        sweep_s: float = SWEEP_S,
        sweep_min_rate: float = SWEEP_MIN_RATE,
    ) -> None:
        emitter = partial(StatPollingEmitter, max_interval=max_interval, sweep_s=sweep_s, sweep_min_rate=sweep_min_rate)
        super().__init__(emitter, timeout=interval)  # type: ignore[arg-type]
