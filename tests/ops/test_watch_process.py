"""The watcher in a child process (ops/watch_process.py): reconciles, indexes a burst, reconciles when
asked, and when its process is killed says so and waits for nothing."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store
from memhtml_desktop.ops.watch_process import ProcessWatcher
from memhtml_desktop.watch.status import STOPPED
from tests.ui.conftest import PROCEDURAL, write_golden_store


@pytest.fixture
def store(tmp_path: Path):
    root = write_golden_store(tmp_path / "store")
    s = Store(root, index_path=tmp_path / "index" / "index.db", embedder=HashEmbedder())
    yield s
    s.close_thread_connection()


def until(condition, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_the_child_indexes_the_store_and_a_burst_and_the_caller_hears_every_batch(store):
    batches, statuses = [], []
    watcher = ProcessWatcher(store, on_status=statuses.append, on_batch=batches.append, quiet_s=0.1,
                             thread_nice=5).start()
    try:
        assert until(lambda: batches and batches[0].kind == "reconcile")
        assert batches[0].added > 0 and threading.current_thread().name == "MainThread"
        assert watcher.wait_idle(20)
        template = (store.root / PROCEDURAL).read_text(encoding="utf-8")
        folder = store.root / "areas" / "burst"
        folder.mkdir(parents=True)
        for i in range(7):
            (folder / f"note-{i}.html").write_text(template.replace("</h1>", f" quokka{i} hops</h1>", 1))
        assert until(lambda: sum(b.added for b in batches[1:]) == 7)
        assert store.search("quokka3 hops", limit=10).hits  # the caller's connection sees the child's commits
        assert watcher.status().batches >= 2
        watcher.request_reconcile("asked for")
        assert until(lambda: sum(b.kind == "reconcile" for b in batches) == 2)
    finally:
        watcher.stop(10)
    assert not watcher.running


def test_a_killed_watcher_process_is_said_and_nothing_waits(store):
    statuses = []
    watcher = ProcessWatcher(store, on_status=statuses.append).start()
    try:
        assert watcher.wait_idle(30)
        os.kill(watcher._proc.pid, signal.SIGKILL)
        assert until(lambda: statuses and statuses[-1].mode == STOPPED)
        assert "SIGKILL" in statuses[-1].reason and "Re-index" in statuses[-1].reason
        assert not watcher.running
        started = time.monotonic()
        assert watcher.wait_idle(5) is False and time.monotonic() - started < 1
    finally:
        watcher.stop(5)


def test_a_clean_exit_reads_as_clean_while_other_threads_ask_whether_it_runs(store, caplog):
    """Under the forkserver a child's exit code is written once on its sentinel; two threads polling
    together (the listener's join, `stop`'s, the window asking `running`) made the second reader get
    EOF, and multiprocessing then recorded 255 over the real 0: a clean exit said as a crash."""
    codes = []
    for _ in range(6):
        watcher = ProcessWatcher(store, quiet_s=0.1).start()
        assert watcher.wait_idle(30)
        asking = threading.Event()

        def ask() -> None:
            while not asking.is_set():
                watcher.running  # noqa: B018 - the poll is the point
        askers = [threading.Thread(target=ask) for _ in range(3)]
        for thread in askers:
            thread.start()
        try:
            watcher.stop(10)
        finally:
            asking.set()
            for thread in askers:
                thread.join()
        watcher._listener.join(5)
        codes.append(watcher._exit_code())
    assert codes == [0] * 6
    assert "the watcher's process stopped" not in caplog.text
