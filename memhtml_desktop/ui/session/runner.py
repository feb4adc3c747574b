"""The window's runner: typed jobs sent to the store's engine, answers delivered on the GUI thread.

Every Store call the window makes is a typed job (`ops/jobs.py`) handed to `Runner.run`. The job
runs in the store's engine (`engine/`: one long-lived process that owns the store, its connections,
its caches and its watcher); the runner sends it there without its handlers, and when its one
answer comes back it calls the job's success or failure handler on the GUI thread, then announces
the StoreChange the job made on `StoreEvents`. Nothing here touches disk or SQLite, and nothing
waits: one listening thread (the engine client's) waits on the engine's pipe and hands each message
to the GUI thread through a queued signal.

Each job has a kind ("search", "counts", "open", ...) and each kind has a generation number. A
new job of a replacing kind cancels the previous one (the engine sets its cancel flag) and a
result whose generation is no longer the latest is dropped on arrival: typing "drai" then
"drain" can never show "drai"'s hits last. `stop(kind)` asks a job with a Stop of its own (the
optimizer) to end early and answer with what it has.

What the engine says of itself (the store opened or could not be, the watcher's status and
batches, notices, its death) is re-emitted as `engine_said` for the watch bridge and the shell.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from memhtml_desktop.engine import EngineClient
from memhtml_desktop.engine.handle import StoreHandle
from memhtml_desktop.engine.protocol import Done, Failed, Gone, Notices, Opened, OpenFailed, Progress
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.jobs import Cancelled, Job  # noqa: F401 - Cancelled: part of the runner's words

log = logging.getLogger(__name__)


@dataclass
class _Pending:
    job: Job
    kind: str
    generation: int
    replace: bool
    cancelled: bool = False
    started: float = field(default_factory=time.perf_counter)


class _Channel(QObject):
    """Lives in the GUI thread; the engine client's thread emits on it, so delivery is queued."""

    message = Signal(object)  # (which engine, what it said)


class StoreEvents(QObject):
    """The one "store changed" signal every pane listens to (see ops/changes.py)."""

    changed = Signal(object)  # StoreChange

    def announce(self, change: StoreChange | None) -> None:
        if change is not None:
            self.changed.emit(change)


class Runner(QObject):
    """Sends jobs to the engine, numbers them per kind, and delivers only the answers still wanted."""

    busy_changed = Signal(str, bool)  # kind, whether a job of that kind is now pending
    engine_said = Signal(object)  # Opened, OpenFailed, Status, Batch, Idle, Notices, Gone

    def __init__(
        self, parent: QObject | None = None, *, events: StoreEvents | None = None, processes: bool = True
    ) -> None:
        super().__init__(parent)
        self.processes = processes
        """The engine runs in a process of its own; False: on threads of this one (engine/local.py)."""
        self.events = events or StoreEvents(self)
        self.store: StoreHandle | None = None
        """The open store as the window knows it (names and notices, never a connection)."""
        self.client: EngineClient | None = None
        self._source: Any = None  # what the engine was opened from (a StoreSpec, or a Store)
        self._channel = _Channel(self)
        # Queued even when emitted on this thread (a call refused at once): an answer is never
        # delivered before `run` has recorded what waits for it.
        self._channel.message.connect(self._heard, Qt.ConnectionType.QueuedConnection)
        self._pending: dict[int, _Pending] = {}  # call id -> what the GUI waits for
        self._latest: dict[str, int] = {}
        self._engines = 0  # engines started so far: what an engine since replaced says of itself is not heard
        self.dropped = 0  # late results thrown away (tests read this)
        self._closed = False

    # -- the engine -----------------------------------------------------------------------------

    def open(self, store: Any) -> StoreHandle:
        """Start the engine for `store` (a `StoreSpec`, or an open `Store` whose spec is taken) after
        closing the old one; the engine's `Opened` (or `OpenFailed`) follows on `engine_said`."""
        self.close_engine()
        self._source = store
        self.store = StoreHandle.of(store)
        self._engines += 1
        say = lambda message, n=self._engines: self._channel.message.emit((n, message))  # noqa: E731
        self.client = EngineClient(store, say, processes=self.processes)
        self.client.start()
        return self.store

    def like_this(self, root: Any, *, curation_off: str | None = None) -> Any:
        """What `open` would take for another store at `root`, with this one's embedder, backend and
        profile: its spec rooted there (the index in that store's default place)."""
        import dataclasses

        from memhtml_desktop.index.store import CURATION_OFF_NOTE
        from memhtml_desktop.ops.spec import StoreSpec

        source, notes = self._source, ((CURATION_OFF_NOTE,) if curation_off else ())
        if isinstance(source, StoreSpec):
            return dataclasses.replace(source, root=str(root), index_path="", curation_off=curation_off, notes=notes)
        store = type(source)(
            root,
            embedder=source.embedder,
            vector_backend=source.vector_backend,
            ranking=source.ranking,
            curation_off=curation_off,
        )
        for note in notes:
            store.notice(note)
        return store

    def close_engine(self, timeout: float = 15.0) -> None:
        """Close the running engine (its pass cancelled, its lanes joined); pending jobs end cancelled."""
        client, self.client = self.client, None
        if client is not None:
            for pending in self._pending.values():
                pending.cancelled = True
            client.close(timeout)

    # -- jobs -----------------------------------------------------------------------------------

    def run(self, job: Job, store: Any = None) -> int:
        """Run a typed job in the engine; returns its generation within its kind.

        On success its `on_success` runs on the GUI thread, then the StoreChange its `changes`
        names is announced on `events.changed`; on failure its `on_failure` (else a warning).
        With `job.replace` (the default) the previous job of its kind is cancelled and its
        answer, should it still arrive, is dropped. (`store` is the open store's handle, if given.)
        """
        kind = job.kind
        if self._closed or self.client is None:
            return -1
        generation = self._latest.get(kind, 0) + 1
        self._latest[kind] = generation
        if job.replace:
            self._cancel_pending(kind)
        was_busy = self.is_busy(kind)
        call_id = self.client.call(job)  # its answer is queued to this thread: it comes after this returns
        self._pending[call_id] = _Pending(job, kind, generation, job.replace)
        if not was_busy:
            self.busy_changed.emit(kind, True)
        return generation

    def is_busy(self, kind: str | None = None) -> bool:
        if kind is None:
            return any(not p.cancelled for p in self._pending.values())
        return any(p.kind == kind and not p.cancelled for p in self._pending.values())

    def latest(self, kind: str) -> int:
        return self._latest.get(kind, 0)

    def cancel(self, kind: str) -> None:
        """Cancel every job of `kind`; their answers are dropped."""
        self._latest[kind] = self._latest.get(kind, 0) + 1
        self._cancel_pending(kind)

    def stop(self, kind: str) -> None:
        """Ask every running job of `kind` to stop early and answer with what it has (its own Stop)."""
        if self.client is None:
            return
        for call_id, pending in self._pending.items():
            if pending.kind == kind and not pending.cancelled:
                self.client.stop(call_id)

    def _cancel_pending(self, kind: str) -> None:
        was_busy = self.is_busy(kind)
        for call_id, pending in self._pending.items():
            if pending.kind == kind and not pending.cancelled:
                pending.cancelled = True
                if self.client is not None:
                    self.client.cancel(call_id)
        if was_busy and not self.is_busy(kind):
            self.busy_changed.emit(kind, False)

    # -- what the engine says (GUI thread) ------------------------------------------------------

    @Slot(object)
    def _heard(self, said: tuple[int, Any]) -> None:
        engine, message = said
        if isinstance(message, (Done, Failed)):
            self._answered(message)  # a call ends whichever engine answers it
        elif engine != self._engines:
            return
        elif isinstance(message, Progress):
            pending = self._pending.get(message.id)
            if pending is not None and not pending.cancelled and not self._closed and pending.job.on_progress:
                pending.job.on_progress(message.phase, message.done, message.total)
        else:
            if isinstance(message, Notices) and self.store is not None:
                self.store.heard(message.texts, message.reopened)
            elif isinstance(message, Opened) and self.store is not None:
                self.store.opened(message.facts)
            elif isinstance(message, OpenFailed) and self.store is not None:
                self.store.failed(message.message)
            elif isinstance(message, Gone) and not message.expected and self.store is not None:
                self.store.failed(message.reason)
            if not self._closed:
                self.engine_said.emit(message)

    def _answered(self, message: Done | Failed) -> None:
        pending = self._pending.pop(message.id, None)
        if pending is None:
            return
        kind = pending.kind
        if not pending.cancelled and not self.is_busy(kind):
            self.busy_changed.emit(kind, False)
        stale = pending.replace and pending.generation != self._latest.get(kind)
        if self._closed or pending.cancelled or stale or (isinstance(message, Failed) and message.cancelled):
            self.dropped += 1
            return
        job = pending.job
        if isinstance(message, Done):
            if job.on_success is not None:
                job.on_success(message.value)
            self.events.announce(job.changes(message.value))
        elif job.on_failure is not None:
            job.on_failure(message.message)
        else:
            log.warning("%s failed: %s", kind, message.message)

    def shutdown(self, timeout_ms: int = 15000) -> bool:
        """Cancel everything and close the engine (at close only)."""
        self._closed = True
        kinds = {p.kind for p in self._pending.values() if not p.cancelled}
        client = self.client
        self.close_engine(timeout_ms / 1000)
        self._pending.clear()
        for kind in sorted(kinds):  # nothing is running any more: spinners stop
            self.busy_changed.emit(kind, False)
        return client is None or not client.running
