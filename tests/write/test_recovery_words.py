"""What recovery and undo say is what they found and did (issue 40, item 8).

1. `kill -9` of a batch (`apply`) after some of its files were renamed into place, then an agent's
   `git add -A && git commit` of the half-written tree. Recovery said "rolled back an interrupted
   write" although it rolled nothing back: every file the batch had written was committed by the
   agent and stayed (the branch decides), and the batch's temp files, which the agent's commit had
   swept in too, were deleted from the working tree, leaving it dirty with tracked files deleted.
   Now recovery says what it found (the files another writer committed, in which commit) and what
   it did (nothing rolled back; the temp files left as committed, with the `git rm` to run), and
   the tree stays as the agent committed it.
2. After the store's folder was renamed or moved, `undo` said "nothing to undo: this app has made
   no change to this store" although the app's commit was HEAD: the record of the app's last
   commit lived in the cache directory under a name made from the store's path. It now lives in
   the store's git directory (`<git dir>/memhtml-desktop/last.json`), beside the write journals,
   so it goes wherever the repository goes; a record left at the old place by an earlier version
   is still read.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from write.support import git, open_store, pin_git, seed, status, tree_bytes
from write.test_batch_once import CHILD

ROOT = Path(__file__).resolve().parents[2]
MEMORY = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"


def _killed_batch(root: Path, at: str, count: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MEMHTML_DESKTOP_NOW": "2026-12-01T12:00:00Z"}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(root), at, str(count)], env=env, capture_output=True,
                          text=True, timeout=180)  # fmt: skip
    assert proc.returncode == -9, proc.stderr


@pytest.mark.parametrize("at,count", [("put#3", 6), ("rows", 4)])
def test_recovery_after_an_agent_committed_the_half_written_batch_says_what_it_found(tmp_path, monkeypatch, at,
                                                                                       count) -> None:  # fmt: skip
    from memhtml_desktop.write.curator import Curator

    pin_git(monkeypatch, tmp_path)
    root = seed(tmp_path)
    open_store(root, index=False, state=False).close_thread_connection()
    _killed_batch(root, at, count)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "agent: save work in progress")
    agent = git(root, "rev-parse", "HEAD").strip()
    written = sorted(p.relative_to(root).as_posix() for p in root.rglob("killed-batch-*.html"))
    temps = sorted(p.relative_to(root).as_posix() for p in root.rglob(".killed-batch-*.tmp"))
    assert len(written) == (count if at == "rows" else int(at[4:])) and len(temps) == count - len(written)
    committed = tree_bytes(root)

    said = Curator(open_store(root, index=False, state=False)).recover()

    assert said is not None
    assert "rolled back an interrupted write" not in said, said
    assert "nothing was rolled back" in said and "memhtml(batch)" in said
    assert agent[:12] in said and "agent: save work in progress" in said
    assert f"{len(written)} file" in said
    if temps:
        assert "temp file" in said and "git rm" in said
    # the agent's commit stands, whole: no file of it deleted, the tree clean
    assert git(root, "rev-parse", "HEAD").strip() == agent
    assert status(root) == "" and tree_bytes(root) == committed
    assert not list((Path(git(root, "rev-parse", "--absolute-git-dir").strip()) / "memhtml-desktop/journals").iterdir())


def test_a_recovery_that_did_roll_back_still_says_so(tmp_path, monkeypatch) -> None:
    from memhtml_desktop.write.curator import Curator

    pin_git(monkeypatch, tmp_path)
    root = seed(tmp_path)
    open_store(root, index=False, state=False).close_thread_connection()
    before = tree_bytes(root)
    _killed_batch(root, "put#2", 3)
    said = Curator(open_store(root, index=False, state=False)).recover()
    assert said.startswith("rolled back an interrupted write: memhtml(batch): 3 memories")
    assert tree_bytes(root) == before and status(root) == ""


def test_part_committed_by_another_writer_part_rolled_back_is_said_as_such(tmp_path, monkeypatch) -> None:
    from memhtml_desktop.write.curator import Curator

    pin_git(monkeypatch, tmp_path)
    root = seed(tmp_path)
    open_store(root, index=False, state=False).close_thread_connection()
    _killed_batch(root, "put#3", 4)
    git(root, "add", "areas/inbox/killed-batch-0.html")
    git(root, "commit", "-qm", "agent: one of them")
    said = Curator(open_store(root, index=False, state=False)).recover()
    assert said.startswith("rolled back part of an interrupted write: memhtml(batch): 4 memories"), said
    assert "1 file" in said and "agent: one of them" in said
    assert (root / "areas/inbox/killed-batch-0.html").exists()
    assert not (root / "areas/inbox/killed-batch-1.html").exists() and not list(root.rglob("*.tmp"))
    assert status(root) == ""


@pytest.mark.parametrize("how", ["renamed", "moved into another folder"])
def test_undo_finds_the_apps_own_commit_after_the_store_folder_moved(tmp_path, monkeypatch, capsys, how) -> None:
    from memhtml_desktop.write.curator import Curator
    from memhtml_desktop.write.requests import ArchiveRequest
    from write.golden_run import cli

    pin_git(monkeypatch, tmp_path)
    root = seed(tmp_path)
    curator = Curator(open_store(root))
    applied = curator.run(ArchiveRequest(MEMORY, "retired"))
    curator.store.close_thread_connection()
    moved = tmp_path / "renamed-store" if how == "renamed" else tmp_path / "elsewhere" / "deeper" / "store"
    moved.parent.mkdir(parents=True, exist_ok=True)
    os.rename(root, moved)
    assert git(moved, "rev-parse", "HEAD").strip() == applied.commit_sha

    ok, why = Curator(open_store(moved, index=False, state=False)).undo_status()
    assert ok, why
    assert applied.commit_sha[:12] in why and "memhtml(archive)" in why
    code, out, err = cli(["--store", str(moved), "undo"], capsys)
    assert code == 0, err
    assert git(moved, "log", "-1", "--format=%s").startswith('Revert "memhtml(archive): ')
    assert (moved / MEMORY).exists() and status(moved) == ""


def test_an_undo_record_left_in_the_cache_by_an_earlier_version_is_still_read(tmp_path, monkeypatch) -> None:
    import json

    from memhtml_desktop.write import journal
    from memhtml_desktop.write.curator import Curator
    from memhtml_desktop.write.requests import ArchiveRequest

    pin_git(monkeypatch, tmp_path)
    root = seed(tmp_path)
    curator = Curator(open_store(root))
    applied = curator.run(ArchiveRequest(MEMORY, "retired"))
    git_dir = Path(git(root, "rev-parse", "--absolute-git-dir").strip())
    record = git_dir / "memhtml-desktop" / "last.json"
    assert json.loads(record.read_text())["sha"] == applied.commit_sha
    legacy = journal.write_dir(root)  # where an earlier version kept it
    legacy.mkdir(parents=True, exist_ok=True)
    os.replace(record, legacy / "last.json")
    ok, why = curator.undo_status()
    assert ok and applied.commit_sha[:12] in why
    curator.undo()
    assert not (legacy / "last.json").exists() and not record.exists()
    assert not curator.undo_status()[0]
