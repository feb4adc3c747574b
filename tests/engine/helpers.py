"""Jobs for the engine's tests: module-level classes, so an engine process imports them by name."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, ClassVar

from memhtml_desktop.ops.jobs import Cancelled, Job


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
