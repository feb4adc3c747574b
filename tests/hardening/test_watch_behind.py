"""Issue 40, item 4: the watcher says "behind" while the index is not in step, never "live".

Before, a start-up reconciliation that failed (a killed parse worker then; here a real full disk
under the index) left the status "live" over an index holding none of the store's memories: the
failure's reason was set and overwritten in the same breath. Now the mode is "behind" with the
reason, and it turns "live" once a reconciliation completes (here: the disk has room again)."""

from __future__ import annotations

import pytest
from full_disk import MountUnavailable, fill, full_tmpfs

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store
from memhtml_desktop.watch.watcher import Watcher


def _wait(predicate, timeout: float = 60.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_failed_start_up_says_behind_until_it_is_in_step(tmp_path):
    root = tmp_path / "store"
    generate_store(root, 300, 4, invalid=0)
    try:
        with full_tmpfs(tmp_path / "mnt", size="32m") as disk:
            store = Store(root, index_path=disk / "index.db", embedder=HashEmbedder())
            store.stats()  # the index file exists, migrated: only the rows find no room
            store.close_thread_connection()
            fill(disk)
            statuses = []
            watcher = Watcher(store, on_status=statuses.append, audit_every_s=1.0, health_after_s=0.3)
            watcher.start()
            try:
                _wait(lambda: watcher.status().mode == "behind")
                status = watcher.status()
                assert status.reason.startswith("comparing the store with the index failed: ")
                assert "retrying in 1 s" in status.reason
                assert "live" not in [s.mode for s in statuses]
                (disk / "filler").unlink()  # room again: the retry completes
                _wait(lambda: watcher.status().mode == "live")
                assert watcher.wait_idle(60)
                assert watcher.status().reason == ""
                assert store.stats()["memories"] == 300
            finally:
                watcher.stop()
                store.close_thread_connection()
    except MountUnavailable as exc:
        pytest.skip(f"no real full disk here: {exc}")
