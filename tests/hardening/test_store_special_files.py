"""Every file the app opens in a store, not only the state plane, is refused when it is not a regular
file of the store (issue 40, item 2: "special files … at ANY file the app opens inside a store").

Found by listing every open of a store file that bypassed the guard (`guarded.read_guarded`):

* the index, when `--index` puts it in the store, and its `-wal` / `-shm` / `-journal`: a FIFO there
  made the read-only fallback's `O_RDONLY` open block for good; a link out of the store was opened;
* the index's lock file `<index>.lock`: opened `O_RDWR | O_CREAT` through a link, its label
  ("pid …: index") written into whatever the link named; read back with `read_text()`;
* `.git` when it is a `gitdir:` file, read by every read command before it answers (recovery's
  look for interrupted writes): a FIFO there hung `list`;
* the git directory's small files this app reads itself (`HEAD`, the loose ref, `packed-refs`,
  `commondir`) and its own (`memhtml-desktop/last.json`, `state-moves.json`, the journals): read
  with `read_text()`; its own temp files were opened with `open(path, "wb")`, which writes through
  a link planted at a fixed name (`last.json.tmp`). (A FIFO at `.git/HEAD` still hangs `git`
  itself, which this app runs: that is git's read, not this app's; see docs/reliability.md.)

Each now goes through the guard (or `O_NOFOLLOW | O_NONBLOCK` and `fstat`) and is refused with a
sentence, or, where nothing depends on it, passed over (the lock's label, a `gitdir:` file).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hardening_support import copy_demo, private_git

from write.support import git

ROOT = Path(__file__).resolve().parents[2]
MEMORY = "areas/arcs/mobile-releases-ship-dark.html"


def _cli(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MEMHTML_DESKTOP_NO_USER_CONFIG": "1"}
    try:
        return subprocess.run([sys.executable, "-m", "memhtml_desktop", *argv], env=env, capture_output=True,
                              text=True, timeout=timeout)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(argv)} hung for {timeout} s")


@pytest.fixture
def store(tmp_path, monkeypatch):
    private_git(monkeypatch, tmp_path)
    root = copy_demo(tmp_path / "store")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "seed")
    return root


@pytest.mark.parametrize("kind", ["fifo", "link-out", "wal-fifo"])
def test_an_index_in_the_store_that_is_not_a_regular_file_of_it_is_refused(store, tmp_path, kind):
    index = store / ".memhtml" / "index.db"
    outside = tmp_path / "outside.db"
    outside.write_bytes(b"")
    if kind == "fifo":
        os.mkfifo(index)
    elif kind == "link-out":
        index.symlink_to(outside)
    else:
        assert _cli("--store", str(store), "--index", str(index), "index").returncode == 0
        os.mkfifo(str(index) + "-wal")
    proc = _cli("--store", str(store), "--index", str(index), "list")
    words = {"fifo": "is a FIFO", "link-out": "leads out of", "wal-fifo": "index.db-wal beside it is a FIFO"}[kind]
    assert proc.returncode == 1 and words in proc.stderr and "unexpected error" not in proc.stderr, proc.stderr
    assert outside.read_bytes() == b""


def test_an_index_lock_that_links_elsewhere_is_never_written_through(store, tmp_path):
    index = tmp_path / "index.db"
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    Path(str(index) + ".lock").symlink_to(victim)
    proc = _cli("--store", str(store), "--index", str(index), "index")
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "keep me\n", "the lock's label was written through the link"


def test_a_gitdir_file_that_is_a_fifo_does_not_hang_a_read(store, tmp_path):
    real = tmp_path / "elsewhere.git"
    os.rename(store / ".git", real)
    os.mkfifo(store / ".git")
    started = time.monotonic()
    proc = _cli("--store", str(store), "--index", str(tmp_path / "index.db"), "list")
    assert proc.returncode == 0 and time.monotonic() - started < 45, proc.stderr


def test_the_apps_own_temp_files_in_the_git_directory_are_not_written_through_a_planted_link(store, tmp_path):
    from memhtml_desktop.index.store import Store
    from memhtml_desktop.write.curator import Curator
    from memhtml_desktop.write.requests import ArchiveRequest

    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    app_dir = store / ".git" / "memhtml-desktop"
    app_dir.mkdir()
    (app_dir / "last.json.tmp").symlink_to(victim)
    curator = Curator(Store(store, index_path=tmp_path / "index.db"), refresh_index=True)
    applied = curator.run(ArchiveRequest(MEMORY, "retired"))
    assert applied.commit_sha and victim.read_text() == "keep me\n"
    assert curator.undo_status()[0]
