"""A live watcher's lease on the index (index/lease.py): a read trusts it instead of walking the store,
and only while the watcher is there, live and caught up.

Beside a real headless `memhtml-desktop watch` process and real CLI searches as processes. Whether a
search walked the store is read from the index itself: a walk (`Store.index`) stamps
`index_state.scan_started_at`, the lease's shortcut stamps nothing.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memhtml_desktop.index import lease
from memhtml_desktop.index.store import Store
from memhtml_desktop.watch.watcher import Watcher

from .conftest import wait_until, write
from .test_headless import Lines, _spawn

ROOT = Path(__file__).resolve().parents[2]


def _search(store_root: Path, index: Path, query: str) -> dict:
    env = dict(os.environ, MEMHTML_DESKTOP_NO_USER_CONFIG="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "memhtml_desktop", "search", query, "--json", "--store",
                           str(store_root), "--index", str(index)], capture_output=True, text=True, env=env,
                          cwd=str(ROOT), timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _walked_at(index: Path) -> str:
    import apsw

    conn = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return conn.execute("SELECT scan_started_at FROM index_state WHERE id = 1").fetchone()[0]
    finally:
        conn.close()


def _back_date_walk(index: Path) -> str:
    import apsw

    conn = apsw.Connection(str(index))
    try:
        with conn:
            conn.execute("UPDATE index_state SET scan_started_at = '2000-01-01T00:00:00Z' WHERE id = 1")
    finally:
        conn.close()
    return _walked_at(index)


def _leases(index: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in index.parent.glob(f"{index.name}.lease-*")]


def _settled(index: Path) -> bool:
    return any(item["state"] == lease.SETTLED for item in _leases(index))


def _paths(result: dict) -> set[str]:
    return {hit["path"] for hit in result["hits"]}


@pytest.fixture
def watching(store_root, tmp_path):
    """A store of a few memories, indexed, and a headless watcher on it, live and settled."""
    for i, (title, claim) in enumerate([("Alpha", "The albatross nests on the cliff."),
                                        ("Beta", "The barnacle clings to the hull."),
                                        ("Gamma", "The gannet dives for herring.")]):  # fmt: skip
        write(store_root, f"areas/notes/{i}.html", title, claim)
    index = tmp_path / "index.db"
    Store(store_root, index_path=index).index()
    proc = _spawn(store_root, index)
    err = Lines(proc.stderr)
    err.next_matching(lambda line: line.endswith(": live"))
    wait_until(lambda: _settled(index), timeout=20, what="a settled lease")
    try:
        yield store_root, index, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


def test_a_search_beside_a_live_watcher_does_not_walk_and_sees_a_file_just_written(watching):
    store_root, index, proc = watching
    stamped = _walked_at(index)
    assert "areas/notes/0.html" in _paths(_search(store_root, index, "albatross cliff"))
    assert _walked_at(index) == stamped  # the lease stood in for the walk
    # A memory written a moment before the search: the lease turns pending at the watcher's first
    # event, and the search waits for it to settle instead of answering from before the write.
    write(store_root, "areas/notes/new.html", "Delta", "The dunlin probes the mudflat at dusk.")
    assert "areas/notes/new.html" in _paths(_search(store_root, index, "dunlin mudflat"))
    assert _walked_at(index) == stamped


def test_a_killed_watcher_s_lease_is_not_trusted_and_is_removed(watching):
    store_root, index, proc = watching
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert _leases(index)  # left behind: a killed process removes nothing
    # The stamp has a resolution of a second and the fixture's own walk may share it: back-date it, so
    # a walk by the search below shows whatever second it falls in.
    stamped = _back_date_walk(index)
    # A change the dead watcher never saw: only a walk finds it.
    write(store_root, "areas/notes/late.html", "Epsilon", "The eider lines its nest with down.")
    assert "areas/notes/late.html" in _paths(_search(store_root, index, "eider down"))
    assert _walked_at(index) != stamped and not _leases(index)


def test_a_stopped_watcher_leaves_no_lease(watching):
    store_root, index, proc = watching
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert not _leases(index)


def test_a_polling_watcher_holds_no_lease(store_root, tmp_path):
    write(store_root, "areas/a.html", "Alpha", "The albatross nests on the cliff.")
    store = Store(store_root, index_path=tmp_path / "index.db")
    with Watcher(store, force_polling=True, poll_interval_s=0.1) as watcher:
        wait_until(lambda: watcher.status().mode == "polling", timeout=20)
        write(store_root, "areas/b.html", "Beta", "The barnacle clings to the hull.")
        assert watcher.wait_idle(20)
        time.sleep(1.2)  # a heartbeat's time: a live watcher would have written by now
        assert not _leases(tmp_path / "index.db") and not store.watched()


def test_a_live_watcher_in_this_process_settles_turns_pending_and_settles_again(store_root, tmp_path):
    write(store_root, "areas/a.html", "Alpha", "The albatross nests on the cliff.")
    store = Store(store_root, index_path=tmp_path / "index.db")
    seen: list[str] = []
    with Watcher(store, quiet_s=0.5, max_delay_s=2.0, on_status=lambda s: seen.extend(
            item["state"] for item in _leases(store.index_path))) as watcher:  # fmt: skip
        wait_until(lambda: _settled(store.index_path), timeout=20)
        assert store.watched()
        write(store_root, "areas/b.html", "Beta", "The barnacle clings to the hull.")
        wait_until(lambda: not _settled(store.index_path), timeout=5, what="the lease to turn pending")
        assert store.watched()  # waits for the burst's pass, then trusts
        assert watcher.wait_idle(10)
        wait_until(lambda: _settled(store.index_path), timeout=5)
    assert not _leases(store.index_path)


def _forge(index_file: Path, store_root: Path, **changes) -> None:
    st = os.stat(index_file)
    boot = (
        Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        if Path("/proc/sys/kernel/random/boot_id").exists()
        else ""
    )
    record = {"pid": os.getpid(), "host": socket.gethostname(), "boot": boot, "store": str(store_root),
              "index": [st.st_dev, st.st_ino], "state": "settled", "since": time.time(), "heartbeat": time.time(),
              "every": 1.0}  # fmt: skip
    record.update(changes)
    pid = record["pid"]
    lease.path_for(index_file, pid).write_text(json.dumps(record))


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"state": "pending"},
        {"heartbeat": time.time() - 60},
        {"heartbeat": time.time() + 60},
        {"host": "elsewhere"},
        {"boot": "another-boot"},
        {"store": "/another/store"},
        {"index": [1, 2]},
        {"pid": 2**22 + 12345},
    ],
    ids=[
        "trusted",
        "pending",
        "stale",
        "from the future",
        "another machine",
        "another boot",
        "another store",
        "another index file",
        "a process that is gone",
    ],
)
def test_what_a_read_trusts(store_root, tmp_path, changes):
    store = Store(store_root, index_path=tmp_path / "index.db")
    store.index()
    _forge(store.index_path, store.root, **changes)
    started = time.monotonic()
    assert lease.in_step(store.index_path, str(store.root), wait=0.3) == (not changes)
    if changes.get("state") == "pending":
        assert time.monotonic() - started >= 0.3  # it waited for the lease to settle
    if "pid" in changes:
        assert not _leases(store.index_path)  # a dead holder's lease is removed
