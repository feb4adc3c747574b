"""Heavy jobs in a child process (ops/backend.py): the answer, progress, cancellation, a child's death,
the store's notices, all over a real store on disk with its own connections in the child."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.ranking import MEMHTML
from memhtml_desktop.index.store import Store
from memhtml_desktop.ops import backend, jobs
from tests.ui.conftest import write_golden_store


@pytest.fixture
def store(tmp_path: Path):
    root = write_golden_store(tmp_path / "store")
    s = Store(root, index_path=tmp_path / "index" / "index.db", embedder=HashEmbedder(), ranking=MEMHTML)
    yield s
    s.close_thread_connection()


def never() -> bool:
    return False


# module-level: a child process imports them by name
def waits_for_cancel(store, cancelled, progress):
    progress(str(os.getpid()), 0, 1)
    deadline = time.monotonic() + 30
    while not cancelled():
        if time.monotonic() > deadline:
            return "never cancelled"
        time.sleep(0.01)
    raise jobs.Cancelled()


def sleeps(store, cancelled, progress):
    progress(str(os.getpid()), 0, 1)
    time.sleep(60)
    return "woke"


def fails(store, cancelled, progress):
    raise ValueError(f"no such probe set in {store.root.name}")


def test_a_reconciliation_runs_in_a_child_with_its_own_connections(store):
    lines = []
    spec = backend.spec_of(store)
    report = backend.run_in_child(spec, jobs.ReconcileJob().portable().run, cancelled=never,
                                  progress=lambda *line: lines.append(line), label="reconcile")
    assert report.added == len(list(store.root.rglob("*.html"))) - report.failed > 0
    assert lines and all(len(line) == 3 for line in lines)
    # the parent's own connection sees the child's commit
    assert store.search("drain the vip", limit=3).hits


def environment_of(store, cancelled, progress):
    return os.environ.get("MEMHTML_DESKTOP_DATA")


def test_the_child_uses_the_callers_embedder_profile_and_environment(store, monkeypatch, tmp_path):
    monkeypatch.setenv("MEMHTML_DESKTOP_DATA", str(tmp_path / "data-of-this-test"))
    assert backend.run_in_child(backend.spec_of(store), environment_of, cancelled=never,
                                progress=lambda *_: None) == str(tmp_path / "data-of-this-test")
    spec = backend.spec_of(store)
    assert spec.ranking == store.ranking == MEMHTML
    opened = spec.open()
    assert opened.ranking.name == "memhtml" and opened.embedder.model_id == store.embedder.model_id
    assert opened.index_path == store.index_path and opened.root == store.root


def test_a_cancelled_child_stops_and_says_cancelled(store):
    flag = threading.Event()
    with pytest.raises(jobs.Cancelled):
        backend.run_in_child(backend.spec_of(store), waits_for_cancel, cancelled=flag.is_set,
                             progress=lambda *_: flag.set())


def test_a_child_that_ignores_cancelling_is_ended(store, monkeypatch):
    monkeypatch.setattr(backend, "CANCEL_GRACE_S", 0.3)
    flag, pids = threading.Event(), []

    def progress(phase, *_):
        pids.append(int(phase))
        flag.set()

    started = time.monotonic()
    with pytest.raises(jobs.Cancelled):
        backend.run_in_child(backend.spec_of(store), sleeps, cancelled=flag.is_set, progress=progress)
    assert time.monotonic() - started < 20
    with pytest.raises(ProcessLookupError):
        for _ in range(100):
            os.kill(pids[0], 0)
            time.sleep(0.05)


def test_a_killed_child_is_said_and_nothing_hangs(store):
    def kill(phase, *_):
        os.kill(int(phase), signal.SIGKILL)

    with pytest.raises(backend.WorkerDied, match="SIGKILL"):
        backend.run_in_child(backend.spec_of(store), sleeps, cancelled=never, progress=kill, label="index")
    # asking again is the retry: a new child
    report = backend.run_in_child(backend.spec_of(store), jobs.ReconcileJob().portable().run, cancelled=never,
                                  progress=lambda *_: None)
    assert report.added > 0


def test_the_childs_exception_comes_back_in_its_words(store):
    with pytest.raises(ValueError, match="no such probe set in store"):
        backend.run_in_child(backend.spec_of(store), fails, cancelled=never, progress=lambda *_: None)


def test_a_damaged_index_is_rebuilt_by_the_child_and_the_caller_hears_it(store):
    store.index()
    store.search("drain", limit=1)  # the caller holds a connection to the old file
    store.close_thread_connection()
    data = bytearray(store.index_path.read_bytes())
    data[100:4096] = b"\x00garbage" * 499 + b"\x00" * (3996 - 8 * 499)
    store.index_path.write_bytes(bytes(data))
    heard = []

    def notices(texts, reopened):
        heard.append((texts, reopened))
        store.heard(texts, reopened)

    report = backend.run_in_child(backend.spec_of(store), jobs.ReconcileJob().portable().run, cancelled=never,
                                  progress=lambda *_: None, notices=notices)
    assert report.added > 0
    assert heard and heard[0][1] is True
    assert any("damaged" in text for text in store.notices)
    assert store.search("drain the vip", limit=3).hits


class _HeldEmbedder(HashEmbedder):
    """A hash embedder carrying a lock: it cannot be pickled, so it cannot reach a child as itself."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()


def test_an_embedder_that_cannot_cross_keeps_its_work_in_this_process(store, tmp_path):
    # A child with another embedder would write vectors of another space: no spec, the caller runs it here.
    held = Store(store.root, index_path=tmp_path / "held.db", embedder=_HeldEmbedder())
    assert backend.spec_of(held) is None
    assert backend.crossing(HashEmbedder()) is not None and backend.spec_of(store) is not None
    pytest.importorskip("onnxruntime")
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    assert backend.crossing(MiniLMEmbedder()) == "minilm"
    assert backend.crossing(MiniLMEmbedder(precision="fp32")) is None, "fp32 is not the registry's int8 space"
    assert backend.crossing(MiniLMEmbedder(model_dir=tmp_path)) is None
    held.close_thread_connection()
