"""Watcher fixtures: a real store directory, a real Store, a real observer, and deadlines, not sleeps."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memhtml_desktop.devtools.store_render import MINIMAL_MEMORY, minimal_memory
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.db import open_index
from memhtml_desktop.index.store import Store
from memhtml_desktop.watch.watcher import Watcher

# The smallest valid memory (golden `areas__edge__minimal`), and the same file with no <mark>:
# memhtml refuses that one (no claim), so the index lists it as a problem.
INVALID = MINIMAL_MEMORY.replace("<p><mark>{claim}</mark></p>", "<p>{claim}</p>")


def live_threads() -> set[threading.Thread]:
    """Threads now, minus the indexer's shared parse pool's own (its manager and its call queue's
    feeder): the pool is process-wide infrastructure kept alive on purpose (index/indexer.py), not
    something a watcher left behind."""
    from concurrent.futures.process import _ExecutorManagerThread

    return {
        t for t in threading.enumerate() if not isinstance(t, _ExecutorManagerThread) and t.name != "QueueFeederThread"
    }


def memory(title: str, claim: str) -> str:
    return minimal_memory(title, claim)


def write(root: Path, path: str, title: str, claim: str) -> Path:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(memory(title, claim), encoding="utf-8")
    return target


def wait_until(
    predicate: Callable[[], object], timeout: float = 10.0, interval: float = 0.02, what: str = ""
) -> object:
    """Poll `predicate` until it is truthy or the deadline passes (then fail, saying what was awaited)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            said = what() if callable(what) else what
            raise AssertionError(f"timed out after {timeout:g} s waiting for {said or predicate}")
        time.sleep(interval)


class CountingEmbedder:
    """The default embedder with a counter: a real embedder, counted (not a mock).

    Searches embed their query too, so the count that matters (texts embedded for the index) is
    kept per thread: `indexed` is what the watcher's worker thread embedded.
    """

    def __init__(self) -> None:
        self.inner = HashEmbedder()
        self.model_id = self.inner.model_id
        self.dim = self.inner.dim
        self.by_thread: dict[str, int] = {}
        self._lock = threading.Lock()

    @property
    def space(self) -> str:
        return f"{self.model_id}@{self.dim}"

    @property
    def indexed(self) -> int:
        with self._lock:
            return self.by_thread.get("memhtml-watch", 0)

    def embed(self, texts):
        name = threading.current_thread().name
        with self._lock:
            self.by_thread[name] = self.by_thread.get(name, 0) + len(texts)
        return self.inner.embed(texts)


class Fresh:
    """Reads through a brand-new connection each time: what any other reader would see."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def query(self, sql: str, params=()) -> list[tuple]:
        conn = open_index(self.store.index_path, state_path=self.store.state_path, create_state=False)
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    def paths(self) -> set[str]:
        return {row[0] for row in self.query("SELECT path FROM files")}

    def row(self, path: str) -> tuple | None:
        rows = self.query("SELECT title, archived, origin_path, para FROM files WHERE path = ?", (path,))
        return rows[0] if rows else None

    def problems(self) -> dict[str, str]:
        return {row[0]: row[1] for row in self.query("SELECT path, kind FROM problems WHERE kind <> 'warnings'")}

    def access(self, path: str):
        from memhtml_desktop.index.state import access_stats

        conn = open_index(self.store.index_path, state_path=self.store.state_path, create_state=False)
        try:
            return access_stats(conn, path)
        finally:
            conn.close()


def found(store: Store, query: str, path: str) -> bool:
    """`path` is a hit for `query` through the full-text arm (the vector arm returns something for anything)."""
    for hit in store.search(query, limit=20).hits:
        if hit.path == path and hit.arm("fts") is not None:
            return True
    return False


@pytest.fixture
def store_root(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    for bucket in ("projects", "areas", "resources", "archive"):
        (root / bucket).mkdir(parents=True)
    return root


@pytest.fixture
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture
def make_store(tmp_path: Path, embedder: CountingEmbedder):
    stores: list[Store] = []

    def make(root: Path, index_name: str = "index.db") -> Store:
        store = Store(root, index_path=tmp_path / "index" / index_name, embedder=embedder)
        stores.append(store)
        return store

    yield make
    for store in stores:
        store.close_thread_connection()


@pytest.fixture
def threads_before():
    return live_threads()


@pytest.fixture
def start_watcher(threads_before):
    """Start a Watcher (and wait for its start-up reconciliation); every one is stopped, and no thread may leak."""
    started: list[Watcher] = []

    def start(store: Store, *, settle: bool = True, **options) -> Watcher:
        options.setdefault("health_after_s", 0.3)
        watcher = Watcher(store, **options)
        started.append(watcher)
        watcher.start()
        if settle:
            wait_until(lambda: watcher.status().mode in ("live", "polling"), 20, what="the watcher to go live")
            assert watcher.wait_idle(20)
        return watcher

    yield start
    for watcher in started:
        watcher.stop()
        assert not watcher.running
    wait_until(
        lambda: live_threads() <= threads_before,
        10,
        what=lambda: f"every watcher thread to end (left: {sorted(t.name for t in live_threads() - threads_before)})",
    )
