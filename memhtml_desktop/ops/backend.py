"""Heavy work in a child process: the window's GUI thread never competes with it for the GIL.

Threads of one process share one interpreter lock, so an index pass, a reconciliation or a
workbench run on a pool thread takes turns with the GUI thread however nice its thread is; on two
loaded cores that cost the window gaps of 100-200 ms. A job that declares itself heavy
(`Job.process = True`) therefore runs in a child process instead: `run_in_child` starts one (the
`forkserver` context where there is one, else `spawn`: never a fork of a process that has Qt
threads), which opens its OWN `Store` from a picklable `StoreSpec` (its own apsw connections,
its own embedder), runs the job and sends back progress lines and the answer through a pipe. The
calling pool thread only waits on that pipe (a wait without the GIL).

- Cancellation: the caller's `cancelled()` is polled every `POLL_S`; when it turns true the
  child's cancel event is set (its `cancelled()` answers true, so the work stops at its next
  check), and a child that has not stopped `CANCEL_GRACE_S` later is terminated.
- Death: a child that exits without an answer (killed, out of memory, a crash in a library)
  raises `WorkerDied` naming how it ended; nothing waits for it. The next job starts a new child,
  so asking again is the retry.
- Notices: what the child's store would have told the user (a damaged index moved aside and
  rebuilt, a locked state plane) comes back with the answer and is added to the caller's store;
  an index moved aside makes the caller's threads reopen their connections.
- A child outlives no parent: it stops itself when the process that asked for it is gone.

The command line runs the same jobs in its own process (`Job.run` directly): it has no GUI to
keep smooth.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memhtml_desktop.ops.spec import StoreSpec, alive as _alive, context, describe_exit, spec_of

log = logging.getLogger(__name__)

POLL_S = 0.05
"""How often the waiting thread looks at the caller's cancel flag and the child's health."""
CANCEL_GRACE_S = 5.0
"""How long a cancelled child may take to stop at its next check before it is terminated."""
CHILD_NICE = 5
"""The child runs this much nicer than the window (Linux niceness): the GUI thread comes first."""


class WorkerDied(RuntimeError):
    """The child process ended without an answer (killed, crashed): said, never waited for."""


def job_call(job: Any, store: Any) -> Callable[[Callable[[], bool], Callable[[str, int, int], None]], Any]:
    """`job` (a `Job` with `process` set) as its runner calls it: `(cancelled, progress) -> answer`,
    in a child process over its own connections, or here when the store's embedder cannot cross
    (`spec_of`). Either way through `job.around`, so a job's own Stop reaches the child's flag."""
    portable, spec = job.portable(), spec_of(store)
    if spec is None:  # its embedder cannot cross faithfully: the work runs here, on the pool thread
        return lambda cancelled, progress: job.run(store, cancelled, progress)

    def call(cancelled: Callable[[], bool], progress: Callable[[str, int, int], None]) -> Any:
        return job.around(lambda flag: run_in_child(spec, portable.run, cancelled=flag, progress=progress,
                                                    label=job.kind, notices=store.heard), cancelled)

    return call


def run_in_child(spec: StoreSpec, work: Callable[..., Any], *, cancelled: Callable[[], bool],
                 progress: Callable[[str, int, int], None], label: str = "work",
                 notices: Callable[[list[str], bool], None] | None = None) -> Any:
    """`work(store, cancelled, progress)` in a child process over its own `Store(spec)`; blocks the
    calling (worker) thread, never the GUI. Re-raises the child's exception (Cancelled included);
    `WorkerDied` when the child ends without an answer. `notices(texts, reopened)` gets the
    child's store notices."""
    ctx = context()
    ours, theirs = ctx.Pipe(duplex=False)
    stop = ctx.Event()
    child = ctx.Process(target=child_main, args=(spec, work, theirs, stop, os.getpid()),
                        name=f"memhtml-{label}", daemon=False)  # not a daemon: the indexer spawns parse processes
    child.start()
    theirs.close()
    stop_at: float | None = None
    try:
        while True:
            if cancelled() and stop_at is None:
                stop.set()
                stop_at = time.monotonic()
            if stop_at is not None and time.monotonic() - stop_at > CANCEL_GRACE_S:
                child.terminate()
                from memhtml_desktop.ops.jobs import Cancelled

                raise Cancelled()
            try:
                ready = ours.poll(POLL_S)
                message = ours.recv() if ready else None
            except (EOFError, OSError):
                message = ("died",)
            if message is None:
                if not child.is_alive() and not ours.poll(0):
                    message = ("died",)
                else:
                    continue
            what = message[0]
            if what == "progress":
                progress(*message[1:])
                continue
            if what == "died":
                child.join(1.0)
                raise WorkerDied(f"the {label} process stopped without an answer ({describe_exit(child.exitcode)})")
            texts, reopened = message[2], message[3]
            if notices is not None and (texts or reopened):
                notices(texts, reopened)
            if what == "error":
                raise message[1]
            return message[1]
    finally:
        ours.close()
        child.join(2.0)
        if child.is_alive():
            child.terminate()
            child.join(2.0)


def child_main(spec: StoreSpec, work: Callable[..., Any], pipe: Any, stop: Any, parent_pid: int) -> None:
    """The child: open the store, run the work, send the answer (or the exception) and leave."""
    try:
        os.nice(CHILD_NICE)
    except (AttributeError, OSError):
        pass
    last = [0.0]

    def cancelled() -> bool:
        if stop.is_set():
            return True
        now = time.monotonic()
        if now - last[0] > 0.5:
            last[0] = now
            if not _alive(parent_pid):
                stop.set()
        return stop.is_set()

    sent = [0.0]

    def progress(phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - sent[0] < POLL_S:
            return
        sent[0] = now
        pipe.send(("progress", phase, int(done), int(total)))

    store = None
    try:
        store = spec.open()
        value = work(store, cancelled, progress)
        outcome: tuple = ("done", value)
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the caller, in its words
        outcome = ("error", _portable(exc))
    generation = getattr(store, "_generation", 0) if store is not None else 0
    texts = list(getattr(store, "notices", []) or [])
    try:
        pipe.send((*outcome, texts, bool(generation)))
    except Exception as exc:  # an answer that does not pickle: said as an error
        pipe.send(("error", RuntimeError(f"the answer could not be sent back: {exc}"), texts, bool(generation)))
    finally:
        if store is not None:
            store.close_thread_connection()
        pipe.close()
        from memhtml_desktop.index.store import Store

        Store.stop_parse_workers()  # the work is over: its parse workers leave now (the exit would wait on them)


def _portable(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(str(exc) or type(exc).__name__)
