"""The engine: the one owner of an open store, behind the window.

An `Engine` opens one `Store` from a `StoreSpec` and keeps it for its whole life: its caches (the
vector snapshot, salience, coverage) stay warm, and each of its threads opens its connection once
and keeps it (long-lived threads keep their thread-locals; a job no longer pays 2-6 ms to open
one). It runs the window's typed jobs (`ops/jobs.py`) on lanes — the same lines of work the
window's pools were: two readers, a writer, and a one-thread lane per named pool (the person's
writes on `curate`, never queued behind an integrity check; the workbench's runs) — and the
watcher (`watch/watcher.py`) with its index passes and parse workers.

It speaks only in the messages of `engine/protocol.py`, through the `send` it is given: every
`Call` ends in one `Done` or `Failed` with its id, progress is throttled to one line per 50 ms a
call, and what the store would tell the user (`Store.notices`) follows each job as `Notices`.
Which transport carries the messages (a pipe to another process, or a queue between threads) is
not its business: `serve(receive)` reads requests until `Close` or until `receive` says the
window is gone.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memhtml_desktop.engine.protocol import (
    RECONCILE,
    START,
    Batch,
    Call,
    Cancel,
    Close,
    Done,
    Failed,
    Idle,
    Notices,
    Opened,
    OpenFailed,
    Progress,
    Status,
    Stop,
    StoreFacts,
    Watch,
)
from memhtml_desktop.memory import libc
from memhtml_desktop.ops.jobs import Cancelled
from memhtml_desktop.ops.spec import StoreSpec

log = logging.getLogger(__name__)

READERS = 2
"""Threads of the read lane: a search never waits behind one long count, and two cores are all."""
PROGRESS_INTERVAL_S = 0.05
"""At most one progress line per 50 ms a call: the window redraws, it must not drown."""
TICK_S = 0.02
"""How often the serving loop looks at the watcher's idleness and the store's notices."""
TRIM_EVERY_S = 5.0
"""At most this often, between calls, the engine hands the memory its calls freed back to the system
(`give_back_freed_memory`): glibc keeps what a search or a pass freed in each thread's arena, so the
engine's RSS stayed near the high-water mark of its last few calls and swung by 70 MB with its work
(the soak, 20,000 memories). A trim takes under 1 ms there."""
WATCHER_STOP_S = 8.0
"""How long closing waits for the watcher's pass to notice the stop (it does between batches)."""
LANE_JOIN_S = 5.0
"""How long closing waits for the lanes' running jobs to notice their cancel flags (all lanes together)."""
SLOW_CLOSE_STAGE_S = 1.0
"""A stage of closing that takes longer than this is logged with its time (`Engine.close`)."""


class Receiver:
    """What `serve` reads requests through: `(timeout) -> message | None`; raises EOFError once
    the window is gone (its pipe closed, its process ended)."""

    def __call__(self, timeout: float) -> Any:  # pragma: no cover - a protocol
        raise NotImplementedError


@dataclass
class _Running:
    """One call's flags: cancelled (its answer is unwanted) and stopped (its own Stop)."""

    kind: str
    cancel: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)


def facts_of(store: Any) -> StoreFacts:
    embedder = store.embedder
    space = getattr(embedder, "space", None) or type(embedder).__name__
    return StoreFacts(root=str(store.root), index_path=str(store.index_path), embedder=str(space))


class Engine:
    def __init__(self, spec: StoreSpec, send: Callable[[Any], None], *, store: Any = None) -> None:
        self.spec = spec
        self._send_raw = send
        self._send_lock = threading.Lock()
        self.store = store
        """The open Store (None until `open`); an in-process engine may be handed one already open."""
        self._lanes: dict[str, _Lane] = {}
        self._running: dict[int, _Running] = {}
        self._lock = threading.Lock()
        self.watcher: Any = None
        self._idle: bool | None = None
        self._told = 0
        self._generation = 0
        self._closed = False
        self.open_error = ""
        self._finished_since_trim = 0
        self._trimmed_at = 0.0
        self.trims = 0
        """Times the freed memory was handed back (tests read it)."""

    # -- saying things --------------------------------------------------------------------------

    def send(self, message: Any) -> None:
        """Send one message (from any engine thread: one at a time on the wire)."""
        with self._send_lock:
            try:
                self._send_raw(message)
            except (OSError, EOFError, BrokenPipeError):
                pass  # the window is gone; serve() notices and leaves
            except Exception:  # an answer that does not pickle: said, never lost silently
                if isinstance(message, Done):
                    log.warning("the answer to call %s could not be sent", message.id, exc_info=True)
                    self._send_raw(Failed(message.id, "the answer could not be sent back to the window"))
                else:
                    log.warning("a message of the engine could not be sent", exc_info=True)

    def say_notices(self) -> None:
        """The store's new notices since the last time, and whether it moved its index aside."""
        store = self.store
        if store is None:
            return
        notices = list(store.notices)
        generation = getattr(store, "_generation", 0)
        if len(notices) > self._told or generation != self._generation:
            fresh, reopened = tuple(notices[self._told :]), generation != self._generation
            self._told, self._generation = len(notices), generation
            self.send(Notices(fresh, reopened))

    # -- life -----------------------------------------------------------------------------------

    def open(self) -> bool:
        """Open the store (unless handed one) and say so: `Opened` or `OpenFailed`."""
        if self.store is None:
            try:
                self.store = self.spec.open()
            except Exception as exc:  # noqa: BLE001 - whatever stops the store opening is said as is
                log.info("the store could not be opened", exc_info=True)
                self.open_error = str(exc) or type(exc).__name__
                self.send(OpenFailed(self.open_error))
                return False
        self._generation = getattr(self.store, "_generation", 0)
        self.send(Opened(facts_of(self.store)))
        self.say_notices()
        return True

    def serve(self, receive: Callable[[float], Any]) -> None:
        """Read requests until `Close` or until the window is gone, then close."""
        try:
            while True:
                try:
                    message = receive(TICK_S)
                except (EOFError, OSError):
                    break
                if message is not None and not self.handle(message):
                    break
                self._tick()
        finally:
            self.close()

    def handle(self, message: Any) -> bool:
        """Act on one request; False for `Close`."""
        if isinstance(message, Call):
            self._call(message)
        elif isinstance(message, Cancel):
            self._flag(message.id, "cancel")
        elif isinstance(message, Stop):
            self._flag(message.id, "stop")
        elif isinstance(message, Watch):
            self._watch(message)
        elif isinstance(message, Close):
            return False
        else:
            log.warning("the engine was asked something it does not know: %r", type(message).__name__)
        return True

    def close(self) -> None:
        """Ask the watcher's pass, every call and the lanes to stop, kill the parse workers, then wait
        for the watcher and the lanes: nothing of the engine runs after this returns (but a job that
        ignores its flag).

        Everything is asked to stop first and waited for after: the parse workers are killed before
        the watcher's pass is waited for, since that pass may be waiting on them (niced, beside two
        busy processes, a worker took seconds to finish its chunk). A stage that takes longer than
        `SLOW_CLOSE_STAGE_S` says so as it ends (a warning, which the window logs): the window
        terminates an engine that has not left after `CLOSE_WAIT_S`, and these lines say where the
        time went."""
        if self._closed:
            return
        self._closed = True
        stage = _Stages()
        if self.watcher is not None:
            self.watcher.stop(0)  # asked: its pass stops at its next batch
        with self._lock:
            for running in self._running.values():
                running.cancel.set()
        for lane in self._lanes.values():
            lane.close()
        if self.store is not None and self.spec is not None and self._owns_parse_workers:
            from memhtml_desktop.index.store import Store

            Store.stop_parse_workers(leaving=True)  # killed, not waited for: they only parse
            stage.done("stopping the parse workers")
        if self.watcher is not None:
            self.watcher.stop(WATCHER_STOP_S)
            if self.watcher.running:
                log.warning("the watcher's pass did not stop within %g s; leaving without waiting", WATCHER_STOP_S)
            else:
                self.send(Status(self.watcher.status()))
            stage.done("stopping the watcher")
        deadline = time.monotonic() + LANE_JOIN_S  # one wait for every lane, not one per lane
        for lane in self._lanes.values():
            lane.join(max(0.0, deadline - time.monotonic()))
        stage.done("joining the lanes")

    _owns_parse_workers = True
    """A process engine owns its process's parse workers; a local one shares them with its caller."""

    # -- calls ----------------------------------------------------------------------------------

    def _call(self, call: Call) -> None:
        job = call.job
        with self._lock:
            self._running[call.id] = _Running(kind=getattr(job, "kind", "job"))
        if self._closed or self.store is None:
            why = f"the store could not be opened: {self.open_error}" if self.open_error else "the engine is closing"
            self._finish(call.id, Failed(call.id, why, cancelled=self._closed))
            return
        self._lane(_lane_name(job)).put(call)

    def _flag(self, call_id: int, which: str) -> None:
        with self._lock:
            running = self._running.get(call_id)
        if running is not None:
            getattr(running, which).set()

    def _lane(self, name: str) -> _Lane:
        lane = self._lanes.get(name)
        if lane is None:
            lane = self._lanes[name] = _Lane(self, name, READERS if name == "read" else 1)
        return lane

    def run_call(self, call: Call) -> None:
        """On a lane's thread: run the job, send its one answer."""
        with self._lock:
            running = self._running.get(call.id)
        if running is None:
            return
        if running.cancel.is_set():
            self._finish(call.id, Failed(call.id, "cancelled", cancelled=True))
            return
        job = call.job
        if getattr(job, "stoppable", False):
            job.stop = running.stop  # its own Stop: `Stop(id)` sets it
        last = [0.0]

        def progress(phase: str, done: int, total: int) -> None:
            now = time.monotonic()
            if done < total and now - last[0] < PROGRESS_INTERVAL_S:
                return
            last[0] = now
            self.send(Progress(call.id, phase, int(done), int(total)))

        try:
            value = job.run(self.store, running.cancel.is_set, progress)
            answer: Any = Done(call.id, value)
        except Cancelled:
            answer = Failed(call.id, "cancelled", cancelled=True)
        except Exception as exc:  # noqa: BLE001 - a job's failure is an answer, in its own words
            log.warning("%s job failed", running.kind, exc_info=True)
            answer = Failed(call.id, str(exc) or type(exc).__name__, cancelled=running.cancel.is_set())
        try:  # before the answer leaves: whoever asked next must not meet this job's lock
            self.store.settle_thread_connection()  # a job leaves no statement running (index/held.py)
        except Exception:  # noqa: BLE001 - settling is housekeeping; the answer goes out regardless
            log.warning("settling a lane's connection failed", exc_info=True)
        self.say_notices()
        self._finish(call.id, answer)

    def _finish(self, call_id: int, answer: Any) -> None:
        with self._lock:
            self._running.pop(call_id, None)
            self._finished_since_trim += 1
        self.send(answer)

    # -- the watcher ----------------------------------------------------------------------------

    def _watch(self, message: Watch) -> None:
        if self.store is None or self._closed:
            return
        if message.action == START and self.watcher is None:
            from memhtml_desktop.watch.watcher import Watcher

            self.watcher = Watcher(
                self.store,
                on_status=lambda s: self.send(Status(s)),
                on_batch=lambda b: self.send(Batch(b)),
                **message.options,
            )
            self._idle = None
            self.watcher.start()
        elif message.action == RECONCILE and self.watcher is not None:
            self.watcher.request_reconcile(message.reason or "asked for")
            self._idle = False
            self.send(Idle(False))

    def _tick(self) -> None:
        if self.watcher is not None:
            idle = self.watcher.wait_idle(0)
            if idle != self._idle:
                self._idle = idle
                self.send(Idle(idle))
        self.say_notices()
        self._trim_between_calls()

    def _trim_between_calls(self) -> None:
        now = time.monotonic()
        with self._lock:
            due = not self._running and self._finished_since_trim and now - self._trimmed_at >= TRIM_EVERY_S
            if due:
                self._finished_since_trim, self._trimmed_at = 0, now
        if due and give_back_freed_memory():
            self.trims += 1


MMAP_THRESHOLD = 256 * 1024
"""Allocations from this size up get pages of their own, given back when freed (glibc otherwise raises
the threshold to 32 MB after the first big free, and a call's big buffers then stay in the heap)."""
ARENAS = 2
"""glibc arenas for the engine's threads (its default is eight a core): each arena keeps what was freed
in it, and a dozen long-lived threads spread a session's garbage over a dozen of them."""


def tune_allocator() -> bool:
    """Hold glibc's allocator to MMAP_THRESHOLD and ARENAS in the engine's process, before its threads
    start. Searching 2,400 times from three threads at 20,000 memories, resident anonymous memory
    ended at 94 MB instead of 137 MB. False where the C library has no `mallopt`."""
    mallopt = libc("mallopt")
    if mallopt is None:
        return False
    m_mmap_threshold, m_arena_max = -3, -8  # <malloc.h>
    return bool(mallopt(m_mmap_threshold, MMAP_THRESHOLD)) and bool(mallopt(m_arena_max, ARENAS))


def give_back_freed_memory() -> bool:
    """glibc's `malloc_trim(0)`: the free memory of every arena back to the system. False where the C
    library has none (musl, macOS): nothing is done there."""
    trim = libc("malloc_trim")
    if trim is None:
        return False
    trim(0)
    return True


def _lane_name(job: Any) -> str:
    return getattr(job, "pool", "") or ("write" if getattr(job, "writer", False) else "read")


class _Stages:
    """The clock of `Engine.close`: each stage's time, logged when it was slow."""

    def __init__(self) -> None:
        self.at = time.monotonic()

    def done(self, what: str) -> None:
        now = time.monotonic()
        if now - self.at > SLOW_CLOSE_STAGE_S:
            log.warning("closing the engine: %s took %.1f s", what, now - self.at)
        self.at = now


class _Lane:
    """`threads` long-lived threads taking calls from one queue, in order."""

    def __init__(self, engine: Engine, name: str, threads: int) -> None:
        self.engine, self.name = engine, name
        self.queue: queue.Queue = queue.Queue()
        self.threads = [
            threading.Thread(target=self._work, name=f"engine-{name}-{i}", daemon=True) for i in range(threads)
        ]
        for thread in self.threads:
            thread.start()

    def put(self, call: Call) -> None:
        self.queue.put(call)

    def close(self) -> None:
        for _ in self.threads:
            self.queue.put(None)

    def join(self, timeout: float) -> None:
        end = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(max(0.0, end - time.monotonic()))

    def _work(self) -> None:
        store = self.engine.store
        try:
            while True:
                call = self.queue.get()
                if call is None:
                    break
                self.engine.run_call(call)
        finally:
            if store is not None:
                try:
                    store.close_thread_connection()  # this thread's connection, opened once and kept
                except Exception:  # noqa: BLE001 - closing at the end must not raise
                    log.debug("closing a lane's connection failed", exc_info=True)
