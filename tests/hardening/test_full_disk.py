"""Issue 17, item 1: a full disk behaves like a read-only store, never like a broken one.

With the store's filesystem full, a `state.db` in WAL mode cannot get its shared-memory file, and
attaching it raised `IOError` through every command, reads included (a `state.db` in memhtml's
rollback journal attaches, and its bump's write fails instead: both are tested). Now: memories are readable, salience is
read, and bumps are refused with a notice that says why; when the disk holding the index is full
too, reads answer from the index as it is and a refresh is skipped with a notice.

Two ways to a full disk: a real tmpfs filled to the last byte (needs root with CAP_SYS_ADMIN; a
clean skip with the reason otherwise) and a child under RLIMIT_FSIZE (no privileges: every write
past 1 KB fails, the same SQLite error path), so CI always exercises the fix.
"""

from __future__ import annotations

import json

import apsw
import pytest
from full_disk import (
    FIRST,
    PATH,
    MountUnavailable,
    fill,
    free_bytes,
    full_tmpfs,
    give_the_refresh_work,
    prepare,
    reads_on_a_full_disk,
    run_cli_fsize,
)
from hardening_support import copy_demo, read_state, run_cli


def _args(root, index, *extra):
    return [*extra, "--store", str(root), "--index", str(index)]


@pytest.fixture()
def mounted(tmp_path):
    try:
        with full_tmpfs(tmp_path / "mnt") as where:
            yield where
    except MountUnavailable as exc:
        pytest.skip(f"no real full disk here: {exc}")


def _check_reads(root, index, run, *, index_full: bool) -> dict:
    figures = reads_on_a_full_disk(root, index, run, index_full=index_full)
    print(figures)
    for name, command in figures["commands"].items():
        assert command["exit"] == 0, (name, command)
    assert figures["bump"]["bumped"] == [] and "full" in figures["bump"]["refused"]
    assert figures["says_not_counted"] and figures["salience_read"]
    assert figures["reinforce"]["exit"] == 1
    assert figures["state_db_unchanged"], "state.db changed on a full disk"
    assert figures["ok"], figures
    return figures


@pytest.mark.slow
@pytest.mark.parametrize("state_journal", ["rollback", "wal"])
def test_reads_survive_a_full_store_disk(tmp_path, mounted, state_journal):
    root = copy_demo(mounted / "store")
    index = tmp_path / "index.db"  # the index lives elsewhere, as it does by default (~/.cache)
    prepare(root, index, state_journal=state_journal)
    filled = fill(mounted)
    assert free_bytes(mounted) == 0 and filled > 0
    _check_reads(root, index, run_cli, index_full=False)
    # Space comes back: the same store counts reads again, nothing to repair.
    (mounted / "filler").unlink()
    proc = run_cli(_args(root, index, "read", FIRST, "--json"))
    assert proc.returncode == 0, proc.stderr
    detail = json.loads(proc.stdout)
    assert detail["bump"]["bumped"] == [FIRST] and detail["bump"]["refused"] is None
    _, rows = read_state(root / ".memhtml" / "state.db")
    assert rows[PATH][0] == 1 and rows[FIRST][0] == 1


@pytest.mark.slow
def test_reads_survive_when_the_index_disk_is_full_too(tmp_path, mounted):
    root = copy_demo(mounted / "store")
    index = mounted / "cache" / "index.db"
    prepare(root, index)
    give_the_refresh_work(root)
    fill(mounted)
    _check_reads(root, index, run_cli, index_full=True)
    proc = run_cli(_args(root, index, "index"))
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert "unexpected error" not in err and "full" in err, err
    (mounted / "filler").unlink()
    proc = run_cli(_args(root, index, "index", "--json"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["changed"] == 1


@pytest.mark.parametrize(
    "index_open_elsewhere, state_journal",
    [
        pytest.param(False, "rollback", id="nothing-open", marks=pytest.mark.slow),
        pytest.param(True, "rollback", id="index-held-open", marks=pytest.mark.slow),
        pytest.param(True, "wal", id="index-held-open-state-wal"),  # the exact case; in the quick run
    ],
)
def test_reads_survive_a_file_size_limit(tmp_path, index_open_elsewhere, state_journal):
    """No mount needed: a child that can write no file past 1 KB meets the same SQLite I/O error.
    With the index held open by another process its shared memory exists, so only the state
    plane's attach fails when it is in WAL (the issue's exact case); otherwise both planes fail. A
    state.db in memhtml's rollback journal attaches, and only a bump's write fails."""
    root = copy_demo(tmp_path / "store")
    index = tmp_path / "index.db"
    prepare(root, index, state_journal=state_journal)
    give_the_refresh_work(root)  # without it, CI's flake at stop 32
    keeper = None
    if index_open_elsewhere:
        keeper = apsw.Connection(str(index))
        keeper.execute("SELECT count(*) FROM files").fetchall()
        assert (tmp_path / "index.db-shm").exists()
    try:
        _check_reads(root, index, run_cli_fsize, index_full=True)
    finally:
        if keeper is not None:
            keeper.close()
