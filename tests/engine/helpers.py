"""Jobs for the engine's tests: module-level classes, so an engine process imports them by name."""

from __future__ import annotations

import itertools
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, ClassVar

from memhtml_desktop.engine.protocol import Done, Failed
from memhtml_desktop.ops.jobs import Cancelled, Job, SearchJob


@dataclass
class WaitJob(Job[str]):
    """Waits until cancelled (or stopped, when `stoppable`); says its process id as progress."""

    kind: ClassVar[str] = "test-wait"
    seconds: float = 30.0

    def run(self, store, cancelled, progress) -> str:
        progress(str(os.getpid()), 0, 1)
        deadline = time.monotonic() + self.seconds
        while time.monotonic() < deadline:
            if cancelled():
                raise Cancelled()
            time.sleep(0.01)
        return "waited"


@dataclass
class StoppableJob(Job[str]):
    kind: ClassVar[str] = "test-stoppable"
    stoppable: ClassVar[bool] = True
    stop: Any = None

    def run(self, store, cancelled, progress) -> str:
        progress("started", 0, 1)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if cancelled():
                raise Cancelled()
            if self.stop is not None and self.stop.is_set():
                return "stopped with the best so far"
            time.sleep(0.01)
        return "ran out"


@dataclass
class FailJob(Job[str]):
    kind: ClassVar[str] = "test-fail"

    def run(self, store, cancelled, progress) -> str:
        raise ValueError(f"no such probe set in {store.root.name}")


@dataclass
class WhereJob(Job[tuple[int, int, str]]):
    """Which process and thread ran it, and the id of this thread's connection (kept or new)."""

    kind: ClassVar[str] = "test-where"

    def run(self, store, cancelled, progress) -> tuple[int, int, str]:
        import threading

        return os.getpid(), threading.get_ident(), str(id(store.reader()))


@dataclass
class ModulesJob(Job[tuple[int, list[str]]]):
    """The process it ran in, and the app's modules imported there so far."""

    kind: ClassVar[str] = "test-modules"

    def run(self, store, cancelled, progress) -> tuple[int, list[str]]:
        import sys

        return os.getpid(), sorted(m for m in sys.modules if m.startswith("memhtml_desktop"))


@dataclass
class NoticeJob(Job[int]):
    kind: ClassVar[str] = "test-notice"
    text: str = "The index was damaged; it was moved aside and rebuilt."

    def run(self, store, cancelled, progress) -> int:
        store.notice(self.text)
        return len(store.notices)


@dataclass
class CurateLaneJob(Job[str]):
    """A job of the person's writes' lane (`pool = "curate"`): answers at once."""

    kind: ClassVar[str] = "test-curate"
    pool: ClassVar[str] = "curate"

    def run(self, store, cancelled, progress) -> str:
        return "curated"


@dataclass
class LongLaneJob(WaitJob):
    """A wait on the workbench's lane (`pool = "workbench"`): holds it until cancelled."""

    kind: ClassVar[str] = "test-long"
    pool: ClassVar[str] = "workbench"


class HeldEmbedder:
    """A hash embedder carrying an Event: it cannot be pickled, so it cannot reach an engine process."""

    def __new__(cls):
        import threading

        from memhtml_desktop.domain.hash_embedder import HashEmbedder

        class _Held(HashEmbedder):
            def __init__(self) -> None:
                super().__init__()
                self.gate = threading.Event()

        return _Held()


class Inbox:
    """What the engine said, in order; `wait(pred)` blocks the test (never a GUI) until it is said."""

    def __init__(self) -> None:
        self.messages: list = []
        self._cond = threading.Condition()

    def __call__(self, message) -> None:
        with self._cond:
            self.messages.append(message)
            self._cond.notify_all()

    def wait(self, pred, timeout: float = 30.0):
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                for message in self.messages:
                    if pred(message):
                        return message
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"not said within {timeout} s; said: {self.messages!r}"[:3000])
                self._cond.wait(left)

    def answer(self, call_id: int, timeout: float = 30.0):
        return self.wait(lambda m: isinstance(m, (Done, Failed)) and m.id == call_id, timeout)


def wait_for_gate(gate: str, cancelled, seconds: float = 30.0) -> None:
    """Wait (in the engine) until the file `gate` exists: how a test releases a job across processes."""
    deadline = time.monotonic() + seconds
    with open(f"{gate}.waiting", "w"):  # the test can tell it started (a job cancelled first never does)
        pass
    while not os.path.exists(gate):
        if cancelled() or time.monotonic() > deadline:
            raise Cancelled()
        time.sleep(0.005)


@dataclass
class HoldJob(Job[str]):
    """Holds a lane's thread until the test creates `gate` (every one is delivered: no replacing)."""

    kind: ClassVar[str] = "test-hold"
    replace: ClassVar[bool] = False
    gate: str = ""

    def run(self, store, cancelled, progress) -> str:
        progress("held", 0, 1)
        wait_for_gate(self.gate, cancelled)
        return "released"


@dataclass
class GatedSearch(SearchJob):
    """A search that waits for `gate` first (its cancel ignored: its late answer must be dropped)."""

    gate: str = ""

    def run(self, store, cancelled, progress):
        wait_for_gate(self.gate, lambda: False)
        return super().run(store, lambda: False, progress)


@dataclass
class GatedOtherSearch(GatedSearch):
    """A gated search of another kind (the runner's generations cannot drop it; the driver's must)."""

    kind: ClassVar[str] = "slow-search"


_GATES = itertools.count(1)


class Gate:
    """A file a gated job waits for: `path` goes into the job, `open()` releases it."""

    def __init__(self, folder) -> None:
        self.path = str(folder / f"gate-{next(_GATES)}")

    def open(self) -> None:
        with open(self.path, "w"):
            pass

    def waiting(self) -> bool:
        """Whether a job has started waiting at the gate (so a cancel can no longer stop it before it runs)."""
        return os.path.exists(f"{self.path}.waiting")


@dataclass
class ChattyJob(Job[str]):
    """Says `steps` progress lines as fast as it can (the engine throttles them)."""

    kind: ClassVar[str] = "test-chatty"
    writer: ClassVar[bool] = True
    steps: int = 1000

    def run(self, store, cancelled, progress) -> str:
        for i in range(1, self.steps + 1):
            progress("index", i, self.steps)
        return "done"


KEPT: list[Any] = []  # what LeakJob leaves alive past its job, as a careless job might


@dataclass
class LeakJob(Job[str]):
    """Bumps a memory, then leaves a read of the state plane half-iterated in a kept generator:
    its connection keeps state.db's shared lock after the job (index/held.py)."""

    kind: ClassVar[str] = "test-leak"
    pool: ClassVar[str] = "test-leak"  # a lane of its own: it idles after, as a rarely used lane does

    def run(self, store, cancelled, progress) -> str:
        paths = [row[0] for row in store.reader().execute("SELECT path FROM files ORDER BY path LIMIT 2")]
        store.reinforce(paths, "positive")
        conn = store.reader()

        def rows():
            yield from conn.execute("SELECT path FROM state.access ORDER BY path")

        kept = rows()
        next(kept)
        KEPT.append(kept)
        return threading.current_thread().name


@dataclass
class BumpJob(Job[tuple[list[str], int]]):
    """What of this process holds the state plane, then a bump from this thread."""

    kind: ClassVar[str] = "test-bump"

    def run(self, store, cancelled, progress) -> tuple[list[str], int]:
        from memhtml_desktop.index.held import holders

        held = holders("state")
        path = store.reader().execute("SELECT path FROM files ORDER BY path DESC LIMIT 1").fetchone()[0]
        result = store.reinforce([path], "positive")
        return held, len(result.bumped) + len(result.signal_applied)


@dataclass
class DeafJob(Job[str]):
    """Runs on its own lane (`pool`) and ignores its cancel flag until `release` is set (in-process
    engines only: an Event does not cross to a process)."""

    kind: ClassVar[str] = "test-deaf"
    pool: str = "deaf"
    started: Any = None
    release: Any = None

    def run(self, store, cancelled, progress) -> str:
        self.started.release()
        self.release.wait(30)
        return "heard at last"


@dataclass
class ParseWorkersJob(Job[list[int]]):
    """Starts the engine's parse workers (one trivial task through them) and says their process ids."""

    kind: ClassVar[str] = "test-parse-workers"

    def run(self, store, cancelled, progress) -> list[int]:
        from memhtml_desktop.index import parse_pool

        pool = parse_pool._shared_pool()
        pool.submit(os.getpid).result(60)
        return sorted(worker.pid for worker in pool._processes.values())
