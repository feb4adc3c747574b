"""A write on a full disk leaves the store as it was, and the next write goes on (issue 21, row 5).

The store (its git directory and `.memhtml/` included) lives on a real tmpfs filled to the last
byte; the index and the cache are elsewhere, as they are for a user whose store's disk filled.
Before: the rollback's `git reset` failed unnoticed, the journal was deleted, "rolled back" was
said, and every later write was refused ("other changes are staged"). Now: a disk full before
the write starts refuses it (the journal cannot be written: nothing is touched); a disk that fills
mid-write is rolled back with renames and unlinks only (the journal holds hard links to the
originals, so putting them back needs no space), nothing was ever staged, and once space is back
the same write lands. memhtml's CLI: its `writeFile` fails with ENOSPC (or leaves a truncated
file), nothing rolls back, and a file it had already staged stays staged.
"""

from __future__ import annotations

import os
import shutil

import pytest
from full_disk import MountUnavailable, fill, free_bytes, full_tmpfs

from write.support import BASE, git, pin_git, snapshot

MEMORY = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"


@pytest.fixture
def tmpfs_store(tmp_path, monkeypatch):
    pin_git(monkeypatch, tmp_path)
    monkeypatch.setenv("MEMHTML_DESKTOP_NOW", "2026-12-01T12:00:00Z")
    try:
        with full_tmpfs(tmp_path / "disk", "16m") as disk:
            root = disk / "store"
            shutil.copytree(BASE, root)
            for path in [root, *root.rglob("*")]:
                path.chmod(path.stat().st_mode | 0o200)
            git(root, "init", "-q", "-b", "main")
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "seed: demo store")
            from memhtml_desktop.index.sidecar import import_file
            from memhtml_desktop.index.store import Store

            store = Store(root, index_path=tmp_path / "index" / "index.db")
            import_file(store.reader(), root)
            store.index()
            yield disk, root, store
            store.close_thread_connection()
    except MountUnavailable as exc:
        pytest.skip(str(exc))


def _correct(title: str):
    from memhtml_desktop.write.requests import CorrectRequest

    return CorrectRequest(MEMORY, title, claim=f"The prod ALB uses a 300-second delay ({title}).")


def test_a_full_disk_refuses_the_write_before_anything_is_touched(tmpfs_store):
    from memhtml_desktop.write.curator import Curator
    from memhtml_desktop.write.errors import WriteError

    disk, root, store = tmpfs_store
    before = snapshot(root, store)
    fill(disk)
    assert free_bytes(disk) == 0
    with pytest.raises(WriteError) as refused:
        Curator(store).run(_correct("Delay is 300 s"))
    assert "No space left on device" in str(refused.value) or "disk" in str(refused.value).lower()
    assert snapshot(root, store) == before
    (disk / "filler").unlink()
    applied = Curator(store).run(_correct("Delay is 300 s"))
    assert applied.commit_sha == git(root, "rev-parse", "HEAD").strip()
    assert git(root, "status", "--porcelain") == ""


@pytest.mark.parametrize("at", ["put areas/", "rename ", "put archive/", "rows", "index"])
def test_a_disk_that_fills_mid_write_is_rolled_back_and_the_next_write_lands(tmpfs_store, at):
    from memhtml_desktop.write.curator import Curator
    from memhtml_desktop.write.errors import WriteError

    disk, root, store = tmpfs_store
    before = snapshot(root, store)
    curator = Curator(store)
    filled: list[int] = []

    def fill_now(name: str) -> None:
        if name.startswith(at) and not filled:
            filled.append(fill(disk))
            assert free_bytes(disk) == 0

    curator.checkpoint = fill_now
    with pytest.raises((WriteError, OSError)) as failed:
        curator.run(_correct("Delay is 300 s"))
    assert filled, f"step {at!r} was never reached"
    assert "Traceback" not in str(failed.value)
    (disk / "filler").unlink()  # (git status itself writes the index: look once there is room again)
    after = snapshot(root, store)
    # The files, git's index and HEAD are as they were (renames and unlinks need no space).
    assert {k: v for k, v in after.items() if k != "state"} == {k: v for k, v in before.items() if k != "state"}, (
        f"filled at {at!r}: {failed.value}"
    )
    if after["state"] != before["state"]:
        # state.db is on the full disk too: the moved row could not go back, and the message says so;
        # the journal stays, and recovery moves it once there is room.
        from memhtml_desktop.write.executor import RollbackIncomplete

        assert isinstance(failed.value, RollbackIncomplete), failed.value
        assert "access row" in str(failed.value) and "doctor --fix" in str(failed.value)
    curator.checkpoint = None
    curator.recover()
    assert snapshot(root, store) == before, f"filled at {at!r}: {failed.value}"
    journals = root / ".git" / "memhtml-desktop" / "journals"
    assert not journals.exists() or not list(journals.iterdir())
    applied = curator.run(_correct("Delay is 300 s"))
    assert applied.commit_sha == git(root, "rev-parse", "HEAD").strip()
    assert git(root, "status", "--porcelain") == ""
    assert os.path.exists(root / "archive" / "2026" / MEMORY)
