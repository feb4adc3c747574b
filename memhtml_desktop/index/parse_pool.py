"""Parsing files for the indexer, in worker processes, and surviving a worker that dies.

Parsing is pure CPU and the writer is one thread, so a large run parses in worker processes while
the indexer writes (`parse_pool`); a small one parses inline, except a large file, which goes to a
worker too, where a limit can stop it. The workers are one `ProcessPoolExecutor` per process,
started on first need and kept (a watcher's bursts reuse it).

**A worker that dies** (killed by the OOM killer or a `kill -9`, a crash in the parser, or its own
CPU limit) breaks the whole executor: every chunk in flight fails with `BrokenProcessPool`, and the
executor refuses all later work. Before, that ended the run ("unexpected error: BrokenProcessPool")
and, the broken pool being kept, every later pass of the process. Now (`_PoolParse`):

1. the broken pool is replaced by a new one and the files of every chunk it lost are parsed again,
   in chunks as before: a worker killed from outside costs one retry;
2. a chunk lost a second time has its files parsed one at a time, each alone in the pool, so the
   file whose parse kills a worker is known: it is `unreadable` with what happened ("parsing it
   took more than 10 s of CPU", "the parse process died while parsing it (SIGSEGV)") and listed
   under Problems, and the run goes on. A file whose worker died of something other than its CPU
   limit is given a second solo attempt first, so a kill from outside during the solo step does not
   blame the file it happened to hit.
3. a pool that cannot be started again (no processes left to the user, no memory) leaves the rest
   of the run to this process, inline, without the limit.

**The CPU limit** is the backstop of the parse budget (`html/budget.py`): each file a worker parses
runs under `setitimer(ITIMER_PROF)` of `cpu_limit_s()` seconds (10, or `MEMHTML_DESKTOP_PARSE_CPU_S`),
whose SIGPROF, left at its default action, ends the worker inside lexbor's C code, where no Python
exception could reach. CPU time, not wall time: a niced worker on a loaded machine is not punished
for waiting. Inline parsing has no such limit, so a small pass sends files over `ISOLATE_BYTES` to
the workers (the known costs of lexbor grow with size; a typical memory is 2 KB).
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from memhtml_desktop.guarded import FolderReader
from memhtml_desktop.html.project import Projection, project
from memhtml_desktop.html.project import blob_sha_of as blob_sha  # git's blob id: the change key
from memhtml_desktop.index import writer
from memhtml_desktop.index.scanner import DiskFile, read_bytes, store_reader

log = logging.getLogger(__name__)


@dataclass
class _Parsed:
    disk: DiskFile
    sha: str
    projection: Projection | None  # None: unreadable; a valid one's `tables` are in `rows`
    error: str | None = None
    rows: writer.Bound | None = None  # a valid file's rows, bound (writer.bind)


def parsed(disk: DiskFile, sha: str, projection: Projection) -> _Parsed:
    """A projection as the indexer takes it: a valid file's rows bound (`writer.bind`) in place of
    its tables (the dicts cost three times the bytes to send back from a worker, and converting
    them was the writer's work). `projection` itself is left as it was (a write hands its own)."""
    if not projection.ok:
        return _Parsed(disk, sha, projection)
    return _Parsed(disk, sha, replace(projection, tables={}), rows=writer.bind(projection.tables))


def parse_file(
    root: Path, disk: DiskFile, indexed_at: str, unchanged_sha: str | None = None, reader: FolderReader | None = None
) -> _Parsed:
    """Read and project one file; never raises (a worker-process entry point too).

    When the bytes hash to `unchanged_sha` (what the index already holds for this path), the
    projection is skipped: a touch, a duplicate event or a rewrite of identical bytes costs a read
    and a hash, not a parse. `reader`: the batch's `store_reader`.
    """
    try:
        data = read_bytes(root, disk.path, reader)
    except FileNotFoundError:
        return _Parsed(disk, "", None, error="vanished")
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return _Parsed(disk, "", None, error=f"unreadable: {reason}")
    sha = blob_sha(data)
    if unchanged_sha is not None and sha == unchanged_sha:
        return _Parsed(disk, sha, None, error="unchanged")
    return parsed(disk, sha, project(disk.path, data, indexed_at, blob_sha=sha))


Job = tuple[DiskFile, "str | None"]  # a file and the blob sha the index holds for it


def _parse_chunk(root: str, jobs: list[Job], indexed_at: str, cpu_s: float = 0.0) -> list[_Parsed]:
    """A worker's task: each file under the CPU limit (`cpu_s`; 0 for none)."""
    out = []
    with store_reader(Path(root)) as reader:
        for disk, sha in jobs:
            if cpu_s > 0:
                signal.setitimer(signal.ITIMER_PROF, cpu_s)
            try:
                out.append(parse_file(Path(root), disk, indexed_at, sha, reader))
            finally:
                if cpu_s > 0:
                    signal.setitimer(signal.ITIMER_PROF, 0)
    return out


POOL_THRESHOLD = 400
"""Below this many files a run parses inline: a pool's first start (spawned interpreters importing
selectolax) costs more than it saves."""

ISOLATE_BYTES = 64 * 1024
"""A file this large is parsed in a worker even in a small run, under the CPU limit (a memory is
one fact, 1-5 KB; the parse costs the budget bounds grow with size)."""

CPU_LIMIT_S = 10.0
"""CPU seconds one file may take in a worker (`MEMHTML_DESKTOP_PARSE_CPU_S` overrides). Within the
parse budget the worst shape measured takes about 1.5 s (20,000 nested elements)."""

_LIMIT_SIGNAL = signal.SIGPROF

PARSE_NICENESS = 10

PARSE_AHEAD = 2
"""Batches handed to the parse workers ahead of the one being written. With one, the workers
idled whenever they finished the next batch before the writer finished this one, and the writer
idled the other way round: at 20,000 memories the two take about as long, and a cold index lost
a tenth of its time to the bubbles."""

MAX_CHUNK_FILES = 16
"""Files per task sent to a parse process. A task's result comes back as one pickle that the
pool's manager thread unpickles in one call, holding the GIL: 62 files (a 500-file batch on two
cores) held it 15-61 ms on a loaded machine while a window was open; 16 keep it to a quarter."""

OWNER_POLL_S = 1.0
DEATH_WAIT_S = 2.0

_POOL_LOCK = threading.Lock()
_POOL: ProcessPoolExecutor | None = None
_LEFT = False
"""Set by `leave_pool`: this process is leaving and starts no parse workers again."""


class Leaving(RuntimeError):
    """`_shared_pool` once `leave_pool` ran: what is left to parse is parsed in this process."""


def _live_pool() -> ProcessPoolExecutor | None:
    """The shared pool; None once the process is leaving (`leave_pool`)."""
    try:
        return _shared_pool()
    except Leaving:
        return None


_AT_EXIT = False


def cpu_limit_s() -> float:
    try:
        return max(0.0, float(os.environ.get("MEMHTML_DESKTOP_PARSE_CPU_S", CPU_LIMIT_S)))
    except ValueError:
        return CPU_LIMIT_S


def _workers() -> int:
    return min(os.cpu_count() or 1, 4)


def _shared_pool() -> ProcessPoolExecutor:
    """One pool per process, started on first need and kept: a watcher's bursts reuse it.

    Measured: starting a fresh pool for every 400+-file pass was most of a pass's fixed cost.
    Shut down at interpreter exit.
    """
    global _POOL, _AT_EXIT
    with _POOL_LOCK:
        if _LEFT:
            raise Leaving("this process is leaving: it parses in no worker any more")
        if _POOL is None:
            _POOL = ProcessPoolExecutor(
                max_workers=_workers(),
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(os.getpid(),),
            )
            if not _AT_EXIT:
                atexit.register(shutdown_pool)
                _AT_EXIT = True
        return _POOL


def _renew(broken: ProcessPoolExecutor) -> ProcessPoolExecutor | None:
    """A new shared pool in place of `broken` (unless another thread replaced it already); None when
    the process is leaving (`leave_pool`)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is broken:
            _POOL = None
    try:
        broken.shutdown(wait=True, cancel_futures=True)  # its workers are gone or terminated: quick
    except Exception:  # noqa: BLE001 - a broken executor's shutdown must not stop the run
        log.debug("shutting down a broken parse pool failed", exc_info=True)
    return None if _LEFT else _shared_pool()


def _start_worker(owner: int) -> None:
    """In each parse worker: yield the CPU to interactive work (the window's GUI thread), leave
    when the process that owns the pool is gone, and import the parser before any file's CPU
    limit starts counting.

    On a machine with few cores the parse processes keep every core busy and a window stutters
    though it does little; niced, they still get every cycle nobody else wants.
    """
    if hasattr(os, "nice"):
        try:
            os.nice(PARSE_NICENESS)
        except OSError:
            pass
    signal.signal(_LIMIT_SIGNAL, signal.SIG_DFL)  # the limit ends the worker, in C code too
    # The owner's pid comes from the owner: a worker still importing when its owner died would
    # otherwise read its new parent (init) as the owner, and wait for it.
    threading.Thread(target=_exit_with_owner, args=(owner,), name="owner-watch", daemon=True).start()
    project("areas/warm-up.html", b"<!doctype html><title>w</title><p>w", "1970-01-01T00:00:00Z")


def _exit_with_owner(owner: int) -> None:
    """A worker blocks on the pool's call queue, of which it holds both ends (multiprocessing
    pickles a queue whole), so it never sees its owner die: a watcher process stopped with
    SIGTERM or SIGKILL left its parse workers behind, holding the owner's stdout open (a test
    that read a child's output waited on them forever). Reparented means the owner is gone."""
    while True:
        time.sleep(OWNER_POLL_S)
        if os.getppid() != owner:
            os._exit(0)


def shutdown_pool() -> None:
    """Stop this process's parse workers (queued chunks cancelled, running ones finished). A
    process that owns a watcher calls it once the watcher's thread has stopped, before it returns:
    multiprocessing's exit joins every non-daemon child, and the pool's workers would wait on
    their queue for ever (the interpreter's own shutdown of the pool comes after that join)."""
    global _POOL
    with _POOL_LOCK:
        pool, _POOL = _POOL, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


LEAVE_JOIN_S = 2.0
"""How long `leave_pool` waits for each killed worker to be reaped."""


def leave_pool() -> None:
    """For a process about to leave (the engine, as it closes): its parse workers are killed, not
    waited for, and none is started again here; a pass still running parses what it has left in
    this process (it was cancelled, and stops at its next batch).

    `shutdown_pool` lets the chunks the workers are running finish, and a worker still starting
    finish its imports. The workers are niced: beside two busy processes a chunk, or a start, took
    seconds, and the window terminated an engine that had not left after 15 s (docs/architecture.md,
    "Threads and processes"). A worker only reads files and parses them, so killing one loses nothing."""
    global _POOL, _LEFT
    with _POOL_LOCK:
        pool, _POOL, _LEFT = _POOL, None, True
    if pool is None:
        return
    workers = list((getattr(pool, "_processes", None) or {}).values())  # private to the executor: best effort
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        try:
            worker.kill()
        except (OSError, ValueError, AttributeError):  # already reaped, or never started
            pass
    for worker in workers:
        try:
            worker.join(LEAVE_JOIN_S)
        except (OSError, ValueError, AssertionError):
            pass


def _death_of(pool: ProcessPoolExecutor) -> int | None:
    """The signal that ended a worker of a broken pool (the others were terminated by the pool)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # private to the executor: best effort
    # The pool's manager thread reaps the dead worker and terminates the rest as it marks the pool
    # broken, and may not have finished when the failed future returns: wait for every exit code.
    deadline = time.monotonic() + DEATH_WAIT_S
    while any(p.exitcode is None for p in processes) and time.monotonic() < deadline:
        time.sleep(0.01)
    for process in processes:
        code = process.exitcode
        if code is not None and code < 0 and -code != signal.SIGTERM:
            return -code
    return None


T = TypeVar("T")
STUCK_POLL_S = 0.5
STUCK_S = 3.0
"""A pool with a dead worker that is still not marked broken this long after the death was seen
is taken as stuck (see `result_of`)."""


def result_of(future: "Future[T] | _Done", pool: ProcessPoolExecutor | None) -> T:
    """`future.result()`, except that a pool stuck on a dead worker's half-sent result is broken.

    A worker killed while it writes its result into the pool's result pipe (SIGKILL, the
    out-of-memory killer, its own CPU limit) leaves part of a message there. The executor's manager
    thread has already seen the pipe readable and is reading the whole message, so it waits for
    bytes nobody will send and never looks at the workers again: the pool is never marked broken,
    and every pending future waits for ever (CPython's `ProcessPoolExecutor`, 3.11-3.13; a pass
    hung this way in tests/index/test_parse_workers.py). So, while waiting, look at the workers:
    once one is dead and the pool still is not broken after STUCK_S, fill the pipe from this end
    (`_unstick`): the manager reads its message's missing bytes, cannot unpickle them, and breaks
    the pool as it would have, and the caller's BrokenProcessPool recovery takes over."""
    if pool is None or isinstance(future, _Done):
        return future.result()
    dead_since: float | None = None
    while True:
        try:
            return future.result(timeout=STUCK_POLL_S)
        except TimeoutError:
            if dead_since is None:
                if _has_dead_worker(pool):
                    dead_since = time.monotonic()
            elif not getattr(pool, "_broken", False) and time.monotonic() - dead_since >= STUCK_S:
                _unstick(pool)
                dead_since = float("inf")  # once: the manager now breaks the pool, or it already had


def _has_dead_worker(pool: ProcessPoolExecutor) -> bool:
    processes = list((getattr(pool, "_processes", None) or {}).values())  # private: best effort
    return any(p.exitcode is not None for p in processes)


def _unstick(pool: ProcessPoolExecutor, seconds: float = 30.0) -> None:
    """Fill `pool`'s result pipe (a daemon thread's blocking writes, 4 KB at a time) until its
    manager thread has broken the pool or ended, or `seconds` passed."""
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    manager = getattr(pool, "_executor_manager_thread", None)
    if writer is None:
        return
    log.warning("a parse process died while sending its result; breaking the stuck pool")

    def fill() -> None:
        deadline = time.monotonic() + seconds
        try:
            fd = writer.fileno()
            while (
                time.monotonic() < deadline
                and not getattr(pool, "_broken", False)
                and (manager is None or manager.is_alive())
            ):
                os.write(fd, b"\0" * 4096)
        except (OSError, ValueError):  # closed by the pool's shutdown: nothing left to unstick
            pass

    threading.Thread(target=fill, name="parse-pool-unstick", daemon=True).start()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class _Done:
    """A chunk parsed in this process, with a future's `result` and `cancel`."""

    def __init__(self, parsed: list[_Parsed]) -> None:
        self.parsed = parsed

    def result(self) -> list[_Parsed]:
        return self.parsed

    def cancel(self) -> bool:
        return False


@dataclass
class _Chunk:
    """Files handed to a worker (or parsed here: `pool` None), and the future of their parse."""

    future: "Future[list[_Parsed]] | _Done"
    jobs: list[Job]
    pool: ProcessPoolExecutor | None


class _PoolParse:
    """`parse_batch(disks, indexed_at) -> list[_Parsed]` (input order) over the shared pool,
    recovering from a pool that breaks (see the module docstring); `prefetch` hands the next batch
    to the workers while the caller writes this one."""

    def __init__(self, root: Path, known: dict[str, str]) -> None:
        self.root = root
        self.known = known
        self.ahead: dict[tuple[str, ...], list[_Chunk]] = {}
        self.cpu_s = cpu_limit_s()
        self.inline = False  # the pool could not be started again: the rest parses here

    # -- the caller's side -------------------------------------------------------------------

    def __call__(self, disks: Sequence[DiskFile], at: str) -> list[_Parsed]:
        chunks = self.ahead.pop(tuple(d.path for d in disks), None) or self._submit(self._jobs(disks), at)
        return self._ordered(disks, self._collect(chunks, at))

    def prefetch(self, disks: Sequence[DiskFile], at: str) -> None:
        self.ahead[tuple(d.path for d in disks)] = self._submit(self._jobs(disks), at)

    def small(self, disks: Sequence[DiskFile], at: str) -> list[_Parsed]:
        """A small run: inline, but for files over `ISOLATE_BYTES`, parsed in a worker under the limit."""
        large = [d for d in disks if d.size > ISOLATE_BYTES]
        parsed = _parse_chunk(str(self.root), self._jobs(d for d in disks if d.size <= ISOLATE_BYTES), at)
        if large:
            parsed += self._collect(self._submit(self._jobs(large), at), at)
        return self._ordered(disks, parsed)

    def cancel(self) -> None:
        """A cancelled run leaves no work queued behind it."""
        for chunks in self.ahead.values():
            for chunk in chunks:
                chunk.future.cancel()
        self.ahead.clear()

    # -- internals ----------------------------------------------------------------------------

    def _jobs(self, disks) -> list[Job]:
        return [(d, self.known.get(d.path)) for d in disks]

    def _inline(self, job: Job, at: str) -> _Parsed:
        return parse_file(self.root, job[0], at, job[1])

    @staticmethod
    def _ordered(disks: Sequence[DiskFile], parsed: list[_Parsed]) -> list[_Parsed]:
        by_path = {p.disk.path: p for p in parsed}
        return [by_path[d.path] for d in disks]

    def _here(self, jobs: list[Job], at: str) -> _Chunk:
        return _Chunk(_Done(_parse_chunk(str(self.root), jobs, at)), jobs, None)

    def _submit(self, jobs: list[Job], at: str) -> list[_Chunk]:
        size = max(8, min(MAX_CHUNK_FILES, len(jobs) // (_workers() * 4)))
        out: list[_Chunk] = []
        for group in (jobs[i : i + size] for i in range(0, len(jobs), size)):
            pool = None if self.inline else _live_pool()
            if pool is not None:
                try:
                    future = pool.submit(_parse_chunk, str(self.root), group, at, self.cpu_s)
                except BrokenProcessPool:  # broken since the last chunk: renewed, and submitted again
                    pool = self._renewed(pool)
                    future = pool.submit(_parse_chunk, str(self.root), group, at, self.cpu_s) if pool else None
                except RuntimeError:  # the pool was shut down under this run (the process is closing)
                    log.info("the parse pool is shut down; parsing %d files in this process", len(group))
                    future = None
            out.append(
                _Chunk(future, group, pool) if pool is not None and future is not None else self._here(group, at)
            )
        return out

    def _collect(self, chunks: list[_Chunk], at: str, *, retried: bool = False) -> list[_Parsed]:
        parsed: list[_Parsed] = []
        lost: list[Job] = []
        for chunk in chunks:
            try:
                parsed.extend(result_of(chunk.future, chunk.pool))
            except BrokenProcessPool:
                lost.extend(chunk.jobs)
                if chunk.pool is not None and chunk.pool is _POOL:  # not renewed yet (by another batch)
                    death = _death_of(chunk.pool)
                    # A worker its own CPU limit ended was parsing one of these files: no point in
                    # spending the limit again on a plain retry; straight to one at a time.
                    retried = retried or death == _LIMIT_SIGNAL
                    log.warning(
                        "a parse process died (%s); parsing its batch %s",
                        _signal_name(death) if death else "no signal",
                        "one file at a time" if retried else "again",
                    )
                    self._renewed(chunk.pool)
            except CancelledError:  # the pool was shut down under the run (`leave_pool`): its files are parsed here
                lost.extend(chunk.jobs)
            except Exception as exc:  # noqa: BLE001 - the chunk failed in its worker (MemoryError, ...): its files alone
                log.warning("a parse process failed on a chunk of %d files: %r", len(chunk.jobs), exc)
                lost.extend(chunk.jobs)
        if not lost:
            return parsed
        if not retried:
            return parsed + self._collect(self._submit(lost, at), at, retried=True)
        return parsed + [self._alone(job, at) for job in lost]

    def _alone(self, job: Job, at: str) -> _Parsed:
        """One file by itself in the pool: a death now is its own."""
        reason = "unreadable: the parse process died while parsing it; not indexed"
        for attempt in (1, 2):
            pool = None if self.inline else _live_pool()
            if pool is None:
                return self._inline(job, at)
            try:
                return result_of(pool.submit(_parse_chunk, str(self.root), [job], at, self.cpu_s), pool)[0]
            except BrokenProcessPool:
                death = _death_of(pool)
                self._renewed(pool)
                if death == _LIMIT_SIGNAL:
                    reason = (
                        f"unreadable: parsing it took more than {self.cpu_s:g} s of CPU "
                        f"(a memory file may take {self.cpu_s:g} s); not indexed"
                    )
                    break
                if death is not None:
                    reason = f"unreadable: the parse process died while parsing it ({_signal_name(death)}); not indexed"
            except Exception as exc:  # noqa: BLE001 - its worker raised (out of memory): said, not retried
                reason = f"unreadable: parsing it failed ({type(exc).__name__}); not indexed"
                break
        log.warning("%s: %s", job[0].path, reason)
        return _Parsed(job[0], "", None, error=reason)

    def _renewed(self, broken: ProcessPoolExecutor) -> ProcessPoolExecutor | None:
        """The shared pool renewed; None (and the rest of the run inline) when it cannot start."""
        try:
            return _renew(broken)
        except Exception as exc:  # noqa: BLE001 - no processes, no memory: this process parses the rest
            log.warning("the parse pool cannot be started again (%s); parsing in this process", exc)
            self.inline = True
            return None


Parse = Callable[[Sequence[DiskFile], str], list[_Parsed]]


@contextmanager
def parse_pool(root: Path, total: int, known: dict[str, str] | None = None):
    """Yields `parse_batch(disks, indexed_at) -> list[_Parsed]`, in input order.

    `known` maps a path to the blob sha the index holds for it, so unchanged bytes skip the
    projection. With a pool, the NEXT batch is already being parsed while the caller writes this
    one (`parse_batch.prefetch`).
    """
    known = known or {}
    if os.environ.get("MEMHTML_DESKTOP_NO_POOL"):
        yield lambda disks, at: _parse_chunk(str(root), [(d, known.get(d.path)) for d in disks], at)
        return
    parser = _PoolParse(root, known)
    try:
        if total < POOL_THRESHOLD or _workers() < 2:
            yield parser.small
        else:
            yield parser
    finally:
        parser.cancel()


EMBED_AHEAD = 4
"""Batches of texts being embedded in the workers ahead of the one the caller writes."""

EMBED_TASK_TEXTS = 16
"""Texts per task a parse process embeds (a caller's batch is several tasks, put together here).
A task's vectors come back through the pool's result pipe: 16 x 384 float32 are 25 KB, under the
pipe's 64 KB, so a send is one write. A worker killed in the middle of a longer send (a batch of
256 was 393 KB, many writes) left a partial message that the executor's manager thread waits on
for ever (the pipe's other writers keep it open): the index hung instead of embedding the rest here."""


def _embed_texts(embedder, texts: list[str]):
    """A worker's embedding task (a `pool_safe` embedder only: see `embed_batches`)."""
    import numpy as np

    return np.asarray(embedder.embed(texts), dtype=np.float32)


def embed_batches(embedder, batches: Sequence[list[str]]):
    """Yields each batch's vectors, in order: `embedder.embed(batch)`.

    A `pool_safe` embedder (the hash embedder) with enough to do embeds in the parse processes,
    `EMBED_AHEAD` batches ahead of the caller, who writes one batch while the workers embed the
    next (a cold index's vectors took one core while the other idled). Any batch the pool does not
    give back (a worker killed, a pool that cannot start, an error in it) is embedded here, as is
    everything for an embedder that is not pool-safe: an embedder that fails here raises to the
    caller as before. Close the generator (or run it out) to cancel what is queued.
    """
    import numpy as np

    from memhtml_desktop.domain.embedder import pool_safe

    use_pool = (
        pool_safe(embedder)
        and sum(map(len, batches)) >= POOL_THRESHOLD
        and _workers() >= 2
        and not os.environ.get("MEMHTML_DESKTOP_NO_POOL")
    )
    if not use_pool:
        for texts in batches:
            yield embedder.embed(texts)
        return
    pending: list[list[Future] | None] = []  # by batch, its tasks; None: embedded here
    pool: ProcessPoolExecutor | None = None  # None once it failed: the rest here
    try:
        pool = _shared_pool()
    except Exception as exc:  # noqa: BLE001 - no processes, no memory: everything here
        log.info("embedding in this process: the parse pool cannot start (%r)", exc)
    try:
        for number, texts in enumerate(batches):
            while len(pending) < min(len(batches), number + 1 + EMBED_AHEAD):
                tasks = None
                if pool is not None:
                    queued = batches[len(pending)]
                    tasks = []
                    try:
                        for start in range(0, len(queued), EMBED_TASK_TEXTS):
                            tasks.append(pool.submit(_embed_texts, embedder, queued[start : start + EMBED_TASK_TEXTS]))
                    except Exception as exc:  # noqa: BLE001 - broken or shut down since: the rest here
                        log.info("embedding in this process: the parse pool cannot take it (%r)", exc)
                        for task in tasks:
                            task.cancel()
                        tasks, pool = None, None
                pending.append(tasks)
            tasks, pending[number] = pending[number], None
            vectors = None
            if tasks:
                try:
                    vectors = np.concatenate([result_of(task, pool) for task in tasks])
                except BrokenProcessPool:
                    if pool is not None:
                        log.warning("a parse process died while embedding; embedding the rest in this process")
                        _renew(pool)  # the next parse run finds a working pool
                        pool = None
                except Exception as exc:  # noqa: BLE001 - the embedder's own fault shows again here
                    log.info("embedding a batch in a parse process failed (%r); embedding it here", exc)
            yield vectors if vectors is not None else embedder.embed(texts)
    finally:
        for tasks in pending:
            for task in tasks or ():
                task.cancel()
