"""The watcher's start-up reconciliation over a killed parse worker (issue 40, item 4): before, the
reconciliation failed (BrokenProcessPool), the status said "live" over an index holding a few
hundred of 1,200 memories, and every later pass met the same broken pool."""

from __future__ import annotations

import multiprocessing
import os
import signal

from memhtml_desktop.devtools.gen_store import generate_store

from .conftest import found, wait_until, write


def test_the_start_up_survives_a_killed_parse_worker(store_root, make_store, start_watcher):
    generate_store(store_root, 1_200, 13, invalid=0, force=True)
    store = make_store(store_root)
    killed: list[int] = []
    modes: list[str] = []

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "index" and not killed:
            workers = [p for p in multiprocessing.active_children() if type(p).__name__ == "SpawnProcess"]
            os.kill(workers[0].pid, signal.SIGKILL)
            killed.append(workers[0].pid)

    watcher = start_watcher(store, on_progress=progress, on_status=lambda s: modes.append(s.mode))
    assert killed
    status = watcher.status()
    assert (status.mode, status.reason) == ("live", "")
    assert "behind" not in modes
    assert status.last_batch.kind == "reconcile" and status.last_batch.added == 1_200
    assert store.stats()["memories"] == 1_200
    write(store_root, "areas/after.html", "After", "The kingfisher dives after the kill.")
    wait_until(lambda: found(store, "kingfisher", "areas/after.html"), 20, what="a pass after the kill")
