"""The state plane never loses a row silently; reads answer while it is locked (issue 21, rows 9–10).

Row 9: with `.memhtml/` read-only to this process, `correct` used to exit 0 silently, leave the
memory's access row at its old path, and `doctor --fix` then pruned it as an orphan: history that
cannot be rebuilt. Now the row that cannot move is recorded (in the git directory, where every
instance finds it), reported in the result (`state_pending`) and on stderr, kept by `doctor --fix`,
and moved on the next command once the plane can be written.

Row 10: another process holding an EXCLUSIVE lock on `state.db` (memhtml's `VACUUM`, a long write
in rollback-journal mode) made `list`, `read` and `search` exit 1 with "unexpected error:
BusyError". Now they answer without salience and say so.

memhtml's CLI: it runs the row move before its commit and only logs a failure (write-paths §1.4);
its doctor prunes such a row. Its reads under a locked state.db wait its 5 s busy timeout, then fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from lock_holder import hold, release

from write.support import open_store, pin_git, seed

ROOT = Path(__file__).resolve().parents[2]
MEMORY = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"  # has a state.access row
ARCHIVED = "archive/2026/" + MEMORY
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _rows(state_db: Path) -> dict[str, int]:
    import apsw

    conn = apsw.Connection(f"file:{state_db}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        return {path: count for path, count in conn.execute("SELECT path, access_count FROM access")}
    finally:
        conn.close()


def _chown(path: Path, uid: int) -> None:
    for p in [path, *path.rglob("*")]:
        os.lchown(p, uid, uid)


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root and setpriv")
def test_row9_a_row_that_cannot_move_is_recorded_reported_kept_and_moved_later(monkeypatch):
    base = Path(tempfile.mkdtemp(prefix="memhtml-ro-state-"))
    try:
        base.chmod(0o755)
        pin_git(monkeypatch, base)
        root = seed(base)
        open_store(root).close_thread_connection()  # state.db made, the sidecar imported: MEMORY has a row
        state_db = root / ".memhtml" / "state.db"
        before = _rows(state_db)
        assert MEMORY in before
        _chown(root, 65534)
        _chown(root / ".memhtml", 0)  # memhtml's folder stays root's: read-only to the CLI below
        (root / ".memhtml").chmod(0o755)
        state_db.chmod(0o644)
        (base / "cache").mkdir(exist_ok=True)
        _chown(base / "cache", 65534)
        home = base / "home"
        home.mkdir()
        _chown(home, 65534)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home), "MEMHTML_DESKTOP_NOW": "2026-12-01T12:00:00Z"}

        def as_nobody(*argv: str) -> subprocess.CompletedProcess:
            return subprocess.run([*NOBODY, sys.executable, "-m", "memhtml_desktop", "--repo", str(root), *argv],
                                  env=env, capture_output=True, text=True, timeout=180)  # fmt: skip

        corrected = as_nobody("correct", MEMORY, "--title", "Delay is 300 s", "--claim",
                              "The prod ALB uses a 300-second delay.", "--json")  # fmt: skip
        assert corrected.returncode == 0, corrected.stderr
        result = json.loads(corrected.stdout)
        assert result["archived_path"] == ARCHIVED
        pending = result["state_pending"]
        assert [(p["src"], p["dst"]) for p in pending] == [(MEMORY, ARCHIVED)] and pending[0]["reason"]
        assert f"the access row of {MEMORY} could not follow it to {ARCHIVED}" in corrected.stderr
        assert _rows(state_db) == before, "nothing moved, nothing lost"
        recorded = json.loads((root / ".git" / "memhtml-desktop" / "state-moves.json").read_text())
        assert [(m["src"], m["dst"], m["commit"]) for m in recorded] == [(MEMORY, ARCHIVED, result["commit_sha"])]
        # doctor --fix sees an orphan row (no file at MEMORY) and keeps it: its memory moved
        fixed = as_nobody("doctor", "--fix", "--json")
        assert fixed.returncode == 0, fixed.stderr
        assert MEMORY not in json.loads(fixed.stdout)["orphan_access_rows"]
        assert f"state row {MEMORY}: kept, it is waiting to follow its memory to {ARCHIVED}" in fixed.stderr
        assert _rows(state_db) == before
        # the plane becomes writable: the next command, whatever it is, moves the row
        _chown(root / ".memhtml", 65534)
        listed = as_nobody("list", "--limit", "1")
        assert listed.returncode == 0, listed.stderr
        assert f"the access row of {MEMORY} has now followed it to {ARCHIVED}" in listed.stderr
        after = _rows(state_db)
        assert MEMORY not in after and after[ARCHIVED] == before[MEMORY]
        assert not (root / ".git" / "memhtml-desktop" / "state-moves.json").exists()
    finally:
        for path in [base, *base.rglob("*")]:
            try:
                os.lchown(path, 0, 0)
            except OSError:
                pass
        shutil.rmtree(base, ignore_errors=True)


def test_row9_doctor_fix_lets_a_row_follow_a_memory_git_renamed(tmp_path, monkeypatch, capsys):
    """A memory moved and edited by hand (`git mv`, a changed claim, commit) while no program moved
    its row (the index cannot pair the two: the content changed): `doctor --fix` moves the row to
    where git's history says the memory went (a rename git detects), instead of pruning it."""
    from write.golden_run import cli
    from write.support import git

    pin_git(monkeypatch, tmp_path)
    root = seed(tmp_path)
    store = open_store(root)
    moved = "resources/infra/alb-deregistration-delay.html"
    git(root, "mv", MEMORY, moved)
    text = (root / moved).read_text()
    (root / moved).write_text(text.replace("120", "180"))
    git(root, "commit", "-qam", "a hand move and edit")
    before = _rows(root / ".memhtml" / "state.db")
    code, out, err = cli(["--repo", str(root), "doctor", "--fix", "--json"], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert MEMORY not in result["orphan_access_rows"]
    assert result["moved_access_rows"] == [{"src": MEMORY, "dst": moved}]
    after = _rows(root / ".memhtml" / "state.db")
    assert MEMORY not in after and after[moved] == before[MEMORY]
    store.close_thread_connection()


@pytest.fixture
def held_store(tmp_path, monkeypatch):
    pin_git(monkeypatch, tmp_path)
    root = seed(tmp_path)
    open_store(root).close_thread_connection()
    state_db = root / ".memhtml" / "state.db"
    import apsw

    mode = apsw.Connection(str(state_db)).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "delete", "memhtml's rollback journal: a lock there keeps readers out"
    return root, state_db


def test_row10_reads_answer_without_salience_while_state_db_is_held_exclusively(held_store):
    root, state_db = held_store
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    holder = hold(state_db, 120, exclusive=True)
    try:
        for argv, expect in ((["list", "--limit", "3"], "areas/arcs/"), (["search", "alb deregistration delay"], MEMORY),
                             (["read", MEMORY], "deregistration"), (["list", "--json"], '"files"'),
                             (["search", "alb deregistration delay", "--json"], MEMORY),
                             (["read", MEMORY, "--json"], '"path"')):  # fmt: skip
            start = time.monotonic()
            proc = subprocess.run([sys.executable, "-m", "memhtml_desktop", "--store", str(root), *argv], env=env,
                                  capture_output=True, text=True, timeout=120)  # fmt: skip
            assert proc.returncode == 0, (argv, proc.stderr)
            assert "BusyError" not in proc.stderr and "unexpected error" not in proc.stderr
            assert "state.db is locked by another process" in proc.stderr and "no salience" in proc.stderr, proc.stderr
            assert expect in proc.stdout, (argv, proc.stdout[:400])
            assert time.monotonic() - start < 60
            if argv[0] == "read" and "--json" in argv:
                bump = json.loads(proc.stdout)["bump"]
                assert "locked by another process" in bump["refused"], bump
            if argv[0] == "search" and "--json" in argv:
                reasons = json.loads(proc.stdout)["degraded_reasons"]
                assert any("salience" in r and "locked" in r for r in reasons), reasons
    finally:
        release(holder)


def test_row10_a_lock_taken_after_the_plane_was_attached_and_released_later(held_store, monkeypatch):
    """In one process (the window's case): the plane is attached, then locked by another process
    mid-session; a search answers without salience after the busy wait, and once the lock is gone
    the plane is attached again and salience is back."""
    from memhtml_desktop.index import store as store_mod
    from memhtml_desktop.index.store import Store

    root, state_db = held_store
    monkeypatch.setattr(store_mod, "STATE_RETRY_S", 0.0)
    store = Store(root, index_path=root.parent / "cache" / "index-row10.db")
    store.index()
    assert store.reader().state_mode == "rw"
    holder = hold(state_db, 120, exclusive=True)
    try:
        result = store.search("alb deregistration delay")
        assert MEMORY in [hit.path for hit in result.hits]
        assert any("locked" in r for r in result.degraded_reasons), result.degraded_reasons
        assert any("locked by another process" in n for n in store.notices)
    finally:
        release(holder)
    result = store.search("alb deregistration delay")
    assert store.reader().state_mode == "rw"
    assert not any("locked" in r for r in result.degraded_reasons), result.degraded_reasons
    read = store.read(MEMORY)
    assert read is not None
    store.close_thread_connection()
