"""The engine's messages: what the window asks and what the engine says.

Frozen dataclasses, pickled over one duplex pipe by the process transport (`engine/process.py`)
or handed across threads as they are by the local one (`engine/local.py`). The shape follows an
editor's language server: requests carry an id, every request ends in exactly one `Done` or
`Failed` with that id (a cancelled one too, `Failed.cancelled`), progress is said by id, and the
engine also speaks on its own (the store opened, the watcher's status and batches, notices, log
lines). `Gone` is never sent by an engine: the transport says it when the engine has stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# -- window -> engine -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """Run `job` (an `ops.jobs.Job` without its handlers: `Job.portable()`) on its lane."""

    id: int
    job: Any


@dataclass(frozen=True)
class Cancel:
    """The answer to call `id` is no longer wanted: its `cancelled()` turns true."""

    id: int


@dataclass(frozen=True)
class Stop:
    """Call `id`'s own Stop (a job with `stoppable`): it ends early and answers with what it has."""

    id: int


START, RECONCILE = "start", "reconcile"


@dataclass(frozen=True)
class Watch:
    """Start the watcher (`options` are `watch.watcher.Watcher`'s) or ask it for a reconciliation."""

    action: str
    options: dict = field(default_factory=dict)
    reason: str = ""


@dataclass(frozen=True)
class Close:
    """Stop: the watcher's pass and every job cancelled, the lanes joined, then the engine leaves."""


# -- engine -> window -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    id: int
    phase: str
    done: int
    total: int


@dataclass(frozen=True)
class Done:
    id: int
    value: Any


@dataclass(frozen=True)
class Failed:
    """Call `id` ended without an answer: `message` in the job's own words, or it was cancelled."""

    id: int
    message: str
    cancelled: bool = False


@dataclass(frozen=True)
class StoreFacts:
    """What the window knows of an open store: names, never a connection."""

    root: str
    index_path: str
    embedder: str  # the embedder's vector space (`model_id@dim`)


@dataclass(frozen=True)
class Opened:
    facts: StoreFacts


@dataclass(frozen=True)
class OpenFailed:
    """The store could not be opened (not a directory, an unusable index): said as is."""

    message: str


@dataclass(frozen=True)
class Status:
    status: Any  # watch.status.WatchStatus


@dataclass(frozen=True)
class Batch:
    summary: Any  # watch.status.BatchSummary


@dataclass(frozen=True)
class Idle:
    """Whether the watcher has caught up with every change it saw (batch tools and tests wait on it)."""

    idle: bool


@dataclass(frozen=True)
class Notices:
    """What the store would tell the user (a damaged index moved aside and rebuilt, a locked state
    plane); `reopened`: the index file was replaced, so every cached view of it is stale."""

    texts: tuple[str, ...]
    reopened: bool = False


@dataclass(frozen=True)
class LogLine:
    """A warning the engine logged, logged again by the window under the same logger name."""

    level: int
    name: str
    text: str


@dataclass(frozen=True)
class Gone:
    """The engine stopped (said by the transport): how it ended, in words."""

    reason: str
    expected: bool = False  # the window closed it
