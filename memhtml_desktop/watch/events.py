"""Turning watchdog events into store changes, on watchdog's own thread.

This is the only code that runs on the observer thread, so it does string work and nothing else:
no stat, no SQL, no directory walk. Each event becomes at most one `RawChange` (a store-relative
description of what happened) handed to a sink, which queues it; the worker thread later expands
directory changes into paths (see `changes.py`). Keeping this thread cheap matters because a
slow observer thread lets the kernel's inotify queue overflow during a burst, and an overflow
loses events.

What is ignored: `.git/` and `.memhtml/` (a `git mv` brings a dozen `.git` events for one move;
the index and state databases live in or next to `.memhtml`), anything outside the four buckets,
files that are not indexable memories, and events that do not change content (open, close
without write, a directory's own "modified" which only says an entry changed).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from watchdog.events import (
    EVENT_TYPE_ATTRIB,
    EVENT_TYPE_CLOSED,
    EVENT_TYPE_CREATED,
    EVENT_TYPE_DELETED,
    EVENT_TYPE_MODIFIED,
    EVENT_TYPE_MOVED,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileAttribEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)

from memhtml_desktop.domain.paths import BUCKETS, is_indexable

IGNORED_TOP = (".git", ".memhtml")

# The event kinds a RawChange can carry.
UPDATE = "update"  # re-examine one file path (created, modified, deleted: the indexer looks at the disk)
MOVE = "move"  # one memory file moved from `path` to `dest`
DIR_GONE = "dir_gone"  # a directory deleted or moved out of the tree: every indexed path below it goes
DIR_NEW = "dir_new"  # a directory created or moved in from outside: walk it
DIR_MOVE = "dir_move"  # a directory moved within the tree: its files move
ROOT = "root"  # the store directory itself was deleted: the worker checks whether it is gone

#: The event types the observer is asked for. Leaving out "opened" and "closed without write"
#: matters: the indexer reads every file it indexes, and those reads must not come back as events.
EVENT_FILTER = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileAttribEvent,
    FileClosedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]


@dataclass(frozen=True)
class RawChange:
    """One thing that happened under the store, in store-relative '/'-separated paths."""

    kind: str
    path: str
    dest: str = ""


def relative(root: str, absolute: str) -> str | None:
    """`absolute` relative to `root` ('' for the root itself), or None when it lies outside."""
    if absolute == root:
        return ""
    prefix = root if root.endswith(os.sep) else root + os.sep
    if not absolute.startswith(prefix):
        return None
    rel = absolute[len(prefix) :]
    return rel.replace(os.sep, "/") if os.sep != "/" else rel


def in_buckets(rel: str | None) -> bool:
    """A path inside one of the four buckets (a bucket directory itself counts)."""
    if not rel:
        return False
    return rel.split("/", 1)[0] in BUCKETS


def _memory(rel: str | None) -> bool:
    return rel is not None and is_indexable(rel)


def classify(root: str, event: FileSystemEvent) -> RawChange | None:
    """The store change an event means, or None when it means nothing to the index."""
    kind = event.event_type
    src = relative(root, os.fsdecode(event.src_path))
    if event.is_directory:
        if kind == EVENT_TYPE_DELETED and src == "":
            return RawChange(ROOT, "")
        if kind == EVENT_TYPE_DELETED:
            return RawChange(DIR_GONE, src) if in_buckets(src) else None
        if kind == EVENT_TYPE_CREATED:
            return RawChange(DIR_NEW, src) if in_buckets(src) else None
        if kind == EVENT_TYPE_MOVED:
            dst = relative(root, os.fsdecode(event.dest_path)) if event.dest_path else None
            inside_src, inside_dst = in_buckets(src), in_buckets(dst)
            if inside_src and inside_dst:
                return RawChange(DIR_MOVE, src, dst)  # type: ignore[arg-type]
            if inside_src:
                return RawChange(DIR_GONE, src)  # type: ignore[arg-type]
            if inside_dst:
                return RawChange(DIR_NEW, dst)  # type: ignore[arg-type]
        return None  # a directory's "modified" only says an entry in it changed
    if kind == EVENT_TYPE_MOVED:
        dst = relative(root, os.fsdecode(event.dest_path)) if event.dest_path else None
        src_ok, dst_ok = _memory(src), _memory(dst)
        if src_ok and dst_ok:
            return RawChange(MOVE, src, dst)  # type: ignore[arg-type]
        if dst_ok:  # an editor's save: a temp file renamed onto the memory
            return RawChange(UPDATE, dst)  # type: ignore[arg-type]
        if src_ok:  # renamed to a backup name, or out of the tree: the memory is gone from here
            return RawChange(UPDATE, src)  # type: ignore[arg-type]
        return None
    if kind in (EVENT_TYPE_CREATED, EVENT_TYPE_MODIFIED, EVENT_TYPE_DELETED, EVENT_TYPE_CLOSED, EVENT_TYPE_ATTRIB):
        return RawChange(UPDATE, src) if _memory(src) else None  # type: ignore[arg-type]
    return None


class ChangeCollector(FileSystemEventHandler):
    """The watchdog handler: classify on the observer thread, hand the result to `sink`."""

    def __init__(self, root: str, sink: Callable[[RawChange], None]) -> None:
        super().__init__()
        self.root = os.path.normpath(root)
        self.sink = sink

    def on_any_event(self, event: FileSystemEvent) -> None:
        change = classify(self.root, event)
        if change is not None:
            self.sink(change)
