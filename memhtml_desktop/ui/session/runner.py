"""Work off the GUI thread: a runner over two thread pools.

Every Store call the window makes is a typed job (`ops/jobs.py`) handed to `Runner.run`,
which runs its `run(store, cancelled, progress)` on a pool thread, calls its success or failure
handler back on the GUI thread, then announces the StoreChange the job made on `StoreEvents`.
Underneath, `Runner.submit` takes a plain function `fn(cancelled, progress) -> value`;
`cancelled()` says the caller no longer wants the answer and `progress(phase, done, total)`
reports headway.

Each job has a kind ("search", "counts", "open", ...) and each kind has a generation number. A
new job of a replacing kind cancels the previous one, and a result whose generation is no longer
the latest is dropped on arrival: typing "drai" then "drain" can never show "drai"'s hits last.

Reads run on a small pool; writes (a one-off reconciliation) on a one-thread pool, so there is
one writer. A job may name a pool of its own (`Job.pool`): the curation writes run on a one-thread
"curate" pool, so a person's confirmed write never waits behind an integrity check or a full
reconciliation (both take the store's write lock only for their own index writes). Each job opens its own connection (`Store.reader()`) and closes it before it ends
(`Runner.thread_closers`): PySide gives a QRunnable's `run` a fresh Python thread state on every
call and deletes it afterwards, which takes `threading.local` data with it, and an apsw connection
deallocated during that teardown crashes the process. Opening one costs about 2 ms.

Pool threads run at the GUI thread's own niceness (they were niced +4 until 3 December 2026).
Their jobs run Python in bursts (an answer's counts, a listing) holding the GIL the GUI thread
needs next, and a niced thread holding it is kept off loaded cores longest: the window's own gaps
over 50 ms in `bench/event_loop_gaps.py --trace` were the GUI thread waiting on pool threads queued
32-64 ms. `bench/gil_inversion.py` (two busy processes, 15 ms Python bursts): the GUI thread's
longest gap 28-37 ms beside a pool thread niced +4, 18 ms beside one that is not; with C work that
gives the GIL up (a search's SQL), 15-19 ms either way.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.jobs import Cancelled, Job

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
JobFn = Callable[[Callable[[], bool], Progress], Any]

PROGRESS_INTERVAL_S = 0.05
"""At most one progress signal per 50 ms per job: the GUI thread redraws, it must not drown."""

class CancelFlag:
    """A thread-safe flag; calling it answers "was I cancelled?"."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    def __call__(self) -> bool:
        return self._event.is_set()


@dataclass
class Outcome:
    job_id: int
    kind: str
    generation: int
    ok: bool
    value: Any = None
    error: str = ""
    cancelled: bool = False


@dataclass
class _Pending:
    kind: str
    generation: int
    flag: CancelFlag
    replace: bool
    on_done: Callable[[Any], None] | None
    on_error: Callable[[str], None] | None
    on_progress: Callable[[str, int, int], None] | None
    started: float = field(default_factory=time.perf_counter)


class _Channel(QObject):
    """Lives in the GUI thread; jobs emit on it from pool threads, so delivery is queued."""

    finished = Signal(object)
    progressed = Signal(int, str, int, int)


class _Job(QRunnable):
    def __init__(self, job_id: int, kind: str, generation: int, fn: JobFn, flag: CancelFlag, channel: _Channel,
                 closers: tuple[Callable[[], None], ...] = ()):
        super().__init__()
        self.setAutoDelete(True)
        self.job_id, self.kind, self.generation = job_id, kind, generation
        self.fn, self.flag, self.channel, self.closers = fn, flag, channel, closers
        self._last_progress = 0.0

    def _progress(self, phase: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if done < total and now - self._last_progress < PROGRESS_INTERVAL_S:
            return
        self._last_progress = now
        self.channel.progressed.emit(self.job_id, phase, int(done), int(total))

    def run(self) -> None:  # pool thread
        outcome = Outcome(self.job_id, self.kind, self.generation, ok=False)
        try:
            if self.flag():
                raise Cancelled()
            outcome.value = self.fn(self.flag, self._progress)
            outcome.ok = True
        except Cancelled:
            outcome.cancelled = True
        except Exception as exc:
            log.warning("%s job failed", self.kind, exc_info=True)
            outcome.error = str(exc) or type(exc).__name__
        finally:
            for close in self.closers:  # before PySide drops this call's thread state (see the docstring)
                try:
                    close()
                except Exception:
                    log.debug("closing a job's connection failed", exc_info=True)
        self.channel.finished.emit(outcome)


def in_child(job: Job, store: Any) -> JobFn:
    """`job` run by a child process over its own connections (ops/backend.py); the pool thread
    only waits on the child's pipe, so the GUI thread never shares the GIL with the work."""
    from memhtml_desktop.ops.backend import job_call

    return job_call(job, store)


class StoreEvents(QObject):
    """The one "store changed" signal every pane listens to (see ops/changes.py)."""

    changed = Signal(object)  # StoreChange

    def announce(self, change: StoreChange | None) -> None:
        if change is not None:
            self.changed.emit(change)


class Runner(QObject):
    """Submits jobs, numbers them per kind, and delivers only the answers still wanted."""

    busy_changed = Signal(str, bool)  # kind, whether a job of that kind is now pending

    def __init__(self, parent: QObject | None = None, *, readers: int = 2, events: StoreEvents | None = None,
                 processes: bool = True) -> None:
        super().__init__(parent)
        self.processes = processes
        """Heavy jobs (`Job.process`) run in a child process (ops/backend.py); False: on their pool thread."""
        self.events = events or StoreEvents(self)
        self.store: Any = None
        """The store typed jobs run against (the window sets it when it opens one)."""
        self.read_pool = QThreadPool(self)
        self.read_pool.setMaxThreadCount(max(1, readers))
        self.write_pool = QThreadPool(self)
        self.write_pool.setMaxThreadCount(1)
        self.pools: dict[str, QThreadPool] = {}  # named one-thread pools (see `_named_pool`)
        self._channel = _Channel(self)
        self._channel.finished.connect(self._finished)
        self._channel.progressed.connect(self._progressed)
        self._pending: dict[int, _Pending] = {}
        self._latest: dict[str, int] = {}
        self._next_id = 0
        self.dropped = 0  # late results thrown away (tests read this)
        self._closed = False
        self.thread_closers: list[Callable[[], None]] = []
        """Run at the end of every job on its thread, e.g. `store.close_thread_connection`."""

    def submit(
        self,
        kind: str,
        fn: JobFn,
        on_done: Callable[[Any], None] | None = None,
        *,
        on_error: Callable[[str], None] | None = None,
        on_progress: Callable[[str, int, int], None] | None = None,
        writer: bool = False,
        replace: bool = True,
        pool: str = "",
    ) -> int:
        """Queue `fn`; returns its generation within `kind`.

        With `replace` (the default) the previous job of this kind is cancelled and its answer,
        should it still arrive, is dropped. Without it every job of the kind is delivered.
        """
        if self._closed:
            return -1
        generation = self._latest.get(kind, 0) + 1
        self._latest[kind] = generation
        if replace:
            for pending in self._pending.values():
                if pending.kind == kind:
                    pending.flag.cancel()
        self._next_id += 1
        flag = CancelFlag()
        was_busy = self.is_busy(kind)
        self._pending[self._next_id] = _Pending(kind, generation, flag, replace, on_done, on_error, on_progress)
        job = _Job(self._next_id, kind, generation, fn, flag, self._channel, tuple(self.thread_closers))
        (self._named_pool(pool) if pool else self.write_pool if writer else self.read_pool).start(job)
        if not was_busy:
            self.busy_changed.emit(kind, True)
        return generation

    def _named_pool(self, name: str) -> QThreadPool:
        """A one-thread pool of its own (curation writes: never queued behind an integrity check)."""
        pool = self.pools.get(name)
        if pool is None:
            pool = self.pools[name] = QThreadPool(self)
            pool.setMaxThreadCount(1)
        return pool

    def run(self, job: Job, store: Any = None) -> int:
        """Run a typed job against `store` (default: the runner's); returns its generation.

        On success its `on_success` runs on the GUI thread, then the StoreChange its `changes`
        names is announced on `events.changed`; on failure its `on_failure` (else a warning).
        """
        store = self.store if store is None else store

        def done(value: Any) -> None:
            if job.on_success is not None:
                job.on_success(value)
            self.events.announce(job.changes(value))

        work: JobFn = lambda cancelled, progress: job.run(store, cancelled, progress)  # noqa: E731
        if job.process and self.processes:
            work = in_child(job, store)
        return self.submit(job.kind, work, done,
                           on_error=job.on_failure, on_progress=job.on_progress, writer=job.writer,
                           replace=job.replace, pool=getattr(job, "pool", ""))

    def is_busy(self, kind: str | None = None) -> bool:
        if kind is None:
            return bool(self._pending)
        return any(p.kind == kind for p in self._pending.values())

    def latest(self, kind: str) -> int:
        return self._latest.get(kind, 0)

    def cancel(self, kind: str) -> None:
        """Cancel every job of `kind`; their answers are dropped."""
        self._latest[kind] = self._latest.get(kind, 0) + 1
        for pending in self._pending.values():
            if pending.kind == kind:
                pending.flag.cancel()

    @Slot(object)
    def _finished(self, outcome: Outcome) -> None:
        pending = self._pending.pop(outcome.job_id, None)
        if pending is None:
            return
        if not self.is_busy(pending.kind):
            self.busy_changed.emit(pending.kind, False)
        stale = pending.replace and outcome.generation != self._latest.get(pending.kind)
        if self._closed or outcome.cancelled or stale or pending.flag():
            self.dropped += 1
            return
        if outcome.ok:
            if pending.on_done is not None:
                pending.on_done(outcome.value)
        elif pending.on_error is not None:
            pending.on_error(outcome.error)
        else:
            log.warning("%s failed: %s", pending.kind, outcome.error)

    @Slot(int, str, int, int)
    def _progressed(self, job_id: int, phase: str, done: int, total: int) -> None:
        pending = self._pending.get(job_id)
        if pending is None or pending.on_progress is None or pending.flag() or self._closed:
            return
        pending.on_progress(phase, done, total)

    def shutdown(self, timeout_ms: int = 10000) -> bool:
        """Cancel everything, drop queued jobs, and wait for running ones (at close only)."""
        self._closed = True
        for pending in self._pending.values():
            pending.flag.cancel()
        pools = (self.read_pool, self.write_pool, *self.pools.values())
        for pool in pools:
            pool.clear()
        done = all([pool.waitForDone(timeout_ms) for pool in pools])
        kinds = {p.kind for p in self._pending.values()}
        self._pending.clear()
        for kind in sorted(kinds):  # nothing is running any more: spinners stop
            self.busy_changed.emit(kind, False)
        return done
