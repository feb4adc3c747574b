"""Issue 40, item 4, in the window: `kill -9` of one parse process of the watcher's child during the
start-up reconciliation. Before, the status bar said "· live" while the index held a few hundred of
the store's memories (the failure only flashed by), and every later pass met the same broken pool.
Now the reconciliation goes on with a new pool, and the count and the state are the truth."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store

WAIT = 120_000
COUNT = 3_000


def _parse_workers(pid: int) -> list[int]:
    """Descendants of `pid` running multiprocessing's spawn entry point (not the resource tracker)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in children:
            try:
                if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                    found.append(child)
            except OSError:
                pass
            found += _parse_workers(child)
    return found


@pytest.fixture
def unindexed(tmp_path: Path):
    root = tmp_path / "store"
    generate_store(root, COUNT, 7, invalid=0)  # the size
    store = Store(root, index_path=tmp_path / "index" / "index.db", embedder=HashEmbedder())
    yield store
    store.close_thread_connection()


def test_a_killed_parse_worker_leaves_the_window_telling_the_truth(qtbot, make_window, unindexed):
    window = make_window(unindexed, watch=True, settle=False)
    engine = window.runner.client
    assert window.bridge.watching and not engine.in_process, "the watcher runs in the engine's process"
    statuses: list = []
    window.bridge.status_changed.connect(statuses.append)
    qtbot.waitUntil(
        lambda: any(s.progress and s.progress[0] == "index" and s.progress[1] > 0 for s in statuses), timeout=WAIT
    )
    workers = _parse_workers(engine.pid)
    assert workers, "the reconciliation parses in worker processes of the engine"
    os.kill(workers[0], signal.SIGKILL)

    bar = window.statusBar()
    qtbot.waitUntil(lambda: window.bridge.status().mode == "live" and not window.bridge.status().busy, timeout=WAIT)
    status = window.bridge.status()
    assert status.last_batch.kind == "reconcile" and status.last_batch.added == COUNT
    assert [s.mode for s in statuses if s.mode not in ("starting", "live")] == []
    stats = unindexed.stats()
    assert stats["memories"] == COUNT
    qtbot.waitUntil(lambda: bar.count_label.text() == f"\u00b7 {stats['active']:,} memories", timeout=WAIT)
    assert bar.watch.label.text() == "\u00b7 live"
