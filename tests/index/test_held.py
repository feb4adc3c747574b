"""Who in this process holds the state plane (index/held.py): named, and let go after the work.

Real stores and real SQLite: a cursor left half-iterated over state.db (rollback-journal mode)
keeps its SHARED lock, and a writer on another connection of the same process meets "database is
locked" — what the 10,000-action soak at aa3408c met from action 7,250 with nobody else on the file.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index import held
from memhtml_desktop.index.state import StateBusy, write_with_retry
from memhtml_desktop.index.store import Store
from tests.ui.conftest import write_golden_store


@pytest.fixture
def store(tmp_path: Path) -> Store:
    root = write_golden_store(tmp_path / "store")
    s = Store(root, index_path=tmp_path / "index" / "index.db", embedder=HashEmbedder())
    s.index()
    paths = [row[0] for row in s.reader().execute("SELECT path FROM files ORDER BY path LIMIT 3")]
    s.reinforce(paths, "positive")
    return s


def _leak_on_a_thread(store: Store, kept: list, done: threading.Event, settle: bool) -> threading.Thread:
    """A thread that leaves a read of state.access running in a kept generator, then (if `settle`)
    ends its unit of work as a lane does, and idles until told."""
    release = threading.Event()

    def work() -> None:
        conn = store.reader()

        def rows():
            yield from conn.execute("SELECT path FROM state.access ORDER BY path")

        kept.append(rows())
        next(kept[-1])
        if settle:
            kept.append(store.settle_thread_connection())
        done.set()
        release.wait(30)

    thread = threading.Thread(target=work, name="leaky-lane")
    thread.release = release  # type: ignore[attr-defined]
    thread.start()
    assert done.wait(30)
    return thread


def test_a_read_left_running_is_named_with_its_statement_and_keeper(store, caplog):
    kept: list = []
    thread = _leak_on_a_thread(store, kept, threading.Event(), settle=False)
    try:
        named = held.holders("state")
        assert len(named) == 1
        assert named[0].startswith("leaky-lane's connection holds a read transaction on state")
        assert "SELECT path FROM state.access ORDER BY path" in named[0] and "rows" in named[0]
        # and a writer on another connection of this process is locked out while it idles
        conn = store.reader()
        conn.set_busy_timeout(50)
        with pytest.raises(StateBusy), caplog.at_level(logging.WARNING, logger="memhtml_desktop.index.state"):
            write_with_retry(
                conn,
                lambda: conn.execute("DELETE FROM state.access WHERE path = ''"),
                what="test",
                retries=1,
                backoff_s=0.01,
            )
        said = [r.getMessage() for r in caplog.records if r.name == "memhtml_desktop.index.state"]
        assert said[0] == "test: state plane busy (attempt 1 of 2), retrying"
        assert said[1].startswith("test: leaky-lane's connection holds a read transaction on state")
    finally:
        thread.release.set()  # type: ignore[attr-defined]
        thread.join()
        kept.clear()


def test_settling_names_the_leak_in_the_log_and_lets_go(store, caplog):
    kept: list = []
    with caplog.at_level(logging.WARNING, logger="memhtml_desktop.index.held"):
        thread = _leak_on_a_thread(store, kept, threading.Event(), settle=True)
    try:
        assert kept[-1] is True  # it had to
        said = [r.getMessage() for r in caplog.records if r.name == "memhtml_desktop.index.held"]
        assert len(said) == 1 and said[0].startswith("leaky-lane's connection still held a read")
        assert "a statement left running" in said[0] and "state.access" in said[0]
        assert held.holders("state") == []
        result = store.reinforce(["nobody/else.html"], "positive")  # another connection writes at once
        assert result.signal_applied == ("nobody/else.html",)
    finally:
        thread.release.set()  # type: ignore[attr-defined]
        thread.join()
        kept.clear()


def test_a_connection_that_holds_nothing_is_kept(store):
    conn = store.reader()
    assert store.settle_thread_connection() is False
    assert store.reader() is conn  # not reopened: settling costs nothing when all is well
    assert held.txn(conn) == held.TXN_NONE
