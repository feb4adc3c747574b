"""A `git checkout`-sized burst: 5,000 changes at once, search answering throughout, nothing lost.

Slow-ish (15-30 s on the 2-core container) but part of the normal suite: a burst is where watchers lose events.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memhtml_desktop.index.db import open_index
from memhtml_desktop.index.store import Store
from memhtml_desktop.watch.status import measure_health

from .conftest import wait_until, write

BASE = 2500
REWRITE, DELETE, CREATE = 2000, 500, 2500  # 5,000 changes


def make_base(root: Path) -> list[str]:
    """A generated store when the generator is there, else plain minimal memories."""
    try:
        from memhtml_desktop.devtools.gen_store import generate_store
    except ImportError:
        generate_store = None
    if generate_store is not None:
        return sorted(generate_store(root, BASE, 11).paths)
    paths = [f"areas/base/{i // 100:02d}/note-{i}.html" for i in range(BASE)]
    for i, path in enumerate(paths):
        write(root, path, f"Base note {i}", f"Base fact number {i} holds for service s{i % 37}.")
    return paths


def burst(tmp_path: Path, root: Path, paths: list[str]) -> None:
    """Rewrite, delete and create files as fast as another process can: one checkout of another branch."""
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps({"rewrite": paths[:REWRITE], "delete": paths[REWRITE : REWRITE + DELETE], "create": CREATE}),
        encoding="utf-8",
    )
    subprocess.run(
        [sys.executable, str(Path(__file__).with_name("burst_writer.py")), str(root), str(plan)],
        check=True,
        timeout=120,
    )


def snapshot(index_path: Path, state_path: Path) -> dict[str, set]:
    conn = open_index(index_path, state_path=state_path, create_state=False)
    try:
        return {
            "files": set(conn.execute("SELECT path, content_hash FROM files").fetchall()),
            "sources": set(conn.execute("SELECT path, blob_sha, status FROM sources").fetchall()),
            "problems": set(conn.execute("SELECT path, kind FROM problems").fetchall()),
            "unembedded": set(
                conn.execute(
                    "SELECT c.chunk_id FROM chunks c LEFT JOIN embeddings e ON e.chunk_id = c.chunk_id "
                    "WHERE e.chunk_id IS NULL"
                ).fetchall()
            ),
        }
    finally:
        conn.close()


@pytest.mark.slow
def test_burst_of_5000_changes(tmp_path, make_store, start_watcher):
    root = tmp_path / "store"
    paths = make_base(root)
    store = make_store(root)
    batches = []
    watcher = start_watcher(store, on_batch=batches.append, max_batch=1000)
    assert batches[0].kind == "reconcile" and batches[0].added + batches[0].failed == BASE

    stop = threading.Event()
    latencies: list[float] = []
    errors: list[BaseException] = []

    def searcher() -> None:
        try:
            while not stop.is_set():
                started = time.perf_counter()
                store.search("queue renames branch change")
                latencies.append(time.perf_counter() - started)
                stop.wait(0.005)  # a person typing, not a tight loop starving the writer of the GIL
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            errors.append(exc)
        finally:
            store.close_thread_connection()

    thread = threading.Thread(target=searcher, name="test-searcher")
    thread.start()
    try:
        started = time.perf_counter()
        burst(tmp_path, root, paths)

        def caught_up() -> bool:
            if not watcher.wait_idle(0.5):
                return False
            conn = open_index(store.index_path, state_path=store.state_path, create_state=False)
            try:
                return measure_health(conn, root).in_step
            finally:
                conn.close()

        wait_until(caught_up, timeout=120, interval=0.3, what="the index to catch up with the burst")
        took = time.perf_counter() - started
    finally:
        stop.set()
        thread.join()

    assert not errors, errors
    assert len(latencies) > 20, "search must keep answering during the burst"
    passes = [b for b in batches[1:] if b.kind == "batch"]
    assert len(passes) >= 5 and max(b.paths for b in passes) <= 1000, [b.paths for b in passes]

    # Nothing lost: the watched index equals a fresh full scan of the same tree.
    check = Store(root, index_path=tmp_path / "check.db")
    check.index()
    check.close_thread_connection()
    watched = snapshot(store.index_path, store.state_path)
    fresh = snapshot(tmp_path / "check.db", store.state_path)
    assert watched["files"] == fresh["files"]
    assert {(p, s) for p, _, s in watched["sources"]} == {(p, s) for p, _, s in fresh["sources"]}
    assert watched["problems"] == fresh["problems"]
    assert not watched["unembedded"]
    assert len(watched["files"]) + len([p for p in watched["problems"] if p[1] != "warnings"]) == BASE - DELETE + CREATE
    print(
        f"burst: {took:.1f} s to catch up, {len(passes)} passes, {len(latencies)} searches, "
        f"longest search {max(latencies) * 1000:.0f} ms"
    )
