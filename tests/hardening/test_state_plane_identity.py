"""The state plane is known by the file it is, not by the handle opened (issue 40, item 2).

Before: a `state.db` replaced, deleted or moved while a Store was open was never noticed: the open
connection kept reading the old, unlinked file (stale salience, no word of it) and every bump was
lost with "attempt to write a readonly database"; a renamed column made `search` and `recall`
exit 1 with "SQLError: no such column"; a FIFO at `.memhtml/state.db` hung `search` and `list` for
good; a symbolic link to a database outside the store was followed, migrated and written.

Now (index/state_file.py, index/state_watch.py, index/pending_reads.py): the path's identity is
looked at (at most every 0.25 s per connection, and by the window every 2 s); another file there
is attached again and said in a notice; a deleted plane is made anew, as memhtml's CLI does on its
next command; a FIFO, a device, a folder, a link out of the store, or an odd journal beside it is
never opened; a schema this app does not know turns the salience arm off with the reason; and a
bump that cannot land is kept beside the plane and written later with its own instant.

All of it on real SQLite files (the real migrations), real FIFOs, links and device nodes, and the
real CLI in subprocesses with timeouts, so a hang fails instead of stopping the suite.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import apsw
import pytest
from hardening_support import copy_demo, read_state

from memhtml_desktop.index import state_watch
from memhtml_desktop.index.store import Store

ROOT = Path(__file__).resolve().parents[2]
MEMORY = "areas/arcs/mobile-releases-ship-dark.html"
OTHER = "areas/arcs/postgres-under-invoice-load.html"
THIRD = "areas/arcs/reversibility-first.html"


class Clock:
    """A clock that steps 1,000 s a call: no 900 s cooldown ever hides a bump."""

    def __init__(self) -> None:
        self.now = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)

    def __call__(self) -> dt.datetime:
        self.now += dt.timedelta(seconds=1000)
        return self.now


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMHTML_DESKTOP_CACHE", str(tmp_path / "cache"))
    root = copy_demo(tmp_path / "store")
    made = Store(root, index_path=tmp_path / "index.db", clock=Clock())
    made.index()
    made.reinforce([MEMORY], "neutral")
    yield made
    made.close_thread_connection()


def _rows(state_db: Path) -> dict[str, tuple]:
    return read_state(state_db)[1]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _copy_with(src: Path, dst: Path, sql: str) -> None:
    shutil.copyfile(src, dst)
    conn = apsw.Connection(str(dst))
    conn.execute(sql)
    conn.close()


def _soon(condition, timeout: float = 3.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


# -- replaced, deleted, moved away, a new inode ---------------------------------------------------


def test_a_replaced_state_db_is_noticed_within_a_second_reopened_and_written(store):
    state_db = store.state_path
    conn_before = store.reader()
    assert store.read(MEMORY, bump=False).access["access_count"] == 1
    _copy_with(state_db, state_db.with_name("restored.db"), "UPDATE access SET access_count = 41")
    os.replace(state_db.with_name("restored.db"), state_db)  # a backup put back: a new inode
    started = time.monotonic()
    assert _soon(lambda: store.read(MEMORY, bump=False).access["access_count"] == 41, timeout=2.0)
    assert time.monotonic() - started < 2.0, "noticed within a second or two"
    assert store.reader() is not conn_before
    bumped = store.reinforce([MEMORY], "neutral")
    assert bumped.bumped == (MEMORY,) and not bumped.refused
    assert _rows(state_db)[MEMORY][0] == 42, "the bump is in the file at the path, not the unlinked one"
    assert any("was replaced by another file" in n and "opened again" in n for n in store.notices), store.notices


def test_a_long_lived_connection_no_longer_loses_every_bump_to_the_unlinked_file(store, monkeypatch):
    """The issue's exact failure: the same thread's connection, used on after the file was replaced."""
    monkeypatch.setattr(state_watch, "LOOK_S", 0.0)
    state_db = store.state_path
    shutil.copyfile(state_db, state_db.with_name("copy.db"))
    os.replace(state_db.with_name("copy.db"), state_db)
    result = store.reinforce([OTHER], "neutral")
    assert result.bumped == (OTHER,) and not result.refused, (
        result
    )  # before: lost, "attempt to write a readonly database"
    assert _rows(state_db)[OTHER][0] == 1


def test_a_deleted_state_db_is_made_anew_as_memhtml_would_and_said(store, monkeypatch):
    monkeypatch.setattr(state_watch, "LOOK_S", 0.0)
    state_db = store.state_path
    os.unlink(state_db)
    result = store.reinforce([OTHER], "neutral")
    assert result.bumped == (OTHER,) and not result.refused
    rows = _rows(state_db)
    assert rows == {OTHER: rows[OTHER]} and rows[OTHER][0] == 1, "a new, empty plane holding only this read"
    said = [n for n in store.notices if "was deleted or moved away" in n]
    assert said and "new, empty state.db was made" in said[0] and "not in it" in said[0]
    assert store.search("drain the vip").degraded_reasons == ()


def test_a_state_db_moved_away_is_left_alone_and_the_new_one_takes_the_reads(store, monkeypatch):
    monkeypatch.setattr(state_watch, "LOOK_S", 0.0)
    state_db = store.state_path
    aside = state_db.with_name("state.db.moved")
    os.rename(state_db, aside)
    before = _digest(aside)
    store.reinforce([OTHER], "positive")
    store.read(THIRD)
    assert _digest(aside) == before, "the moved file is not written through the old handle"
    assert set(_rows(state_db)) == {OTHER, THIRD}


def test_a_new_inode_of_the_same_bytes_is_followed_and_the_old_inode_never_written(store, monkeypatch):
    monkeypatch.setattr(state_watch, "LOOK_S", 0.0)
    state_db = store.state_path
    keep = state_db.with_name("old-inode.db")
    os.link(state_db, keep)  # the old inode stays reachable, to see that nothing more is written to it
    shutil.copyfile(state_db, state_db.with_name("same.db"))
    os.replace(state_db.with_name("same.db"), state_db)
    before = _digest(keep)
    assert store.reinforce([OTHER], "neutral").bumped == (OTHER,)
    assert _digest(keep) == before and OTHER in _rows(state_db)


def test_a_state_db_made_by_memhtml_after_the_store_opened_without_one_is_attached(tmp_path, monkeypatch):
    monkeypatch.setattr(state_watch, "LOOK_S", 0.0)
    root = copy_demo(tmp_path / "store")
    store = Store(root, index_path=tmp_path / "index.db", clock=Clock(), create_state=False)
    store.index()
    assert "salience: no state plane (.memhtml/state.db) attached" in store.search("drain").degraded_reasons
    made = Store(root, index_path=tmp_path / "other-index.db", clock=Clock())  # memhtml's CLI, in effect
    made.reinforce([MEMORY], "neutral")
    made.close_thread_connection()
    assert store.search("drain").degraded_reasons == ()
    assert store.read(MEMORY, bump=False).access["access_count"] == 1
    assert any("appeared" in n for n in store.notices), store.notices


# -- a schema this app does not know ------------------------------------------------------------------


def _rename_column(state_db: Path) -> None:
    conn = apsw.Connection(str(state_db))
    conn.set_busy_timeout(5000)
    conn.execute("ALTER TABLE access RENAME COLUMN access_count TO reads")
    conn.close()


def test_a_schema_renamed_under_an_open_store_turns_salience_off_with_the_reason(store):
    state_db = store.state_path
    assert store.search("drain the vip").degraded_reasons == ()
    _rename_column(state_db)  # a newer memhtml migrated it, from another process
    before = _digest(state_db)
    answer = store.search("drain the vip")
    assert answer.hits and any(
        "no column access_count" in r and r.startswith("salience:") for r in answer.degraded_reasons
    )
    assert store.recall("drain the vip").degraded
    result = store.reinforce([OTHER], "neutral")
    assert result.queued and "no column access_count" in result.refused
    assert _digest(state_db) == before, "the file is left exactly as it is"
    assert any("not a state plane this app knows" in n for n in store.notices)


def _cli(root: Path, index: Path, *argv: str, timeout: float = 90) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MEMHTML_DESKTOP_NO_USER_CONFIG": "1"}
    started = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "memhtml_desktop", "--store", str(root), "--index", str(index),
                               *argv], env=env, capture_output=True, text=True, timeout=timeout)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(argv)} hung for {timeout} s")
    proc.seconds = time.monotonic() - started
    return proc


def test_search_and_recall_answer_with_an_unknown_schema_instead_of_exit_1(store, tmp_path):
    root, index = store.root, tmp_path / "index.db"
    store.close_thread_connection()
    _rename_column(store.state_path)
    before = _digest(store.state_path)
    for argv in (("search", "drain the vip"), ("recall", "drain the vip"), ("list",), ("read", MEMORY)):
        proc = _cli(root, index, *argv, "--no-refresh")
        assert proc.returncode == 0, (argv, proc.stderr)
        assert "no column access_count" in proc.stderr and "SQLError" not in proc.stderr, proc.stderr
    answer = json.loads(_cli(root, index, "search", "drain the vip", "--json", "--no-refresh").stdout)
    assert any(r.startswith("salience:") and "no column access_count" in r for r in answer["degraded_reasons"])
    assert _digest(store.state_path) == before


# -- files that are not a state plane at its place -----------------------------------------------------


def _outside_db(tmp_path: Path) -> Path:
    outside = tmp_path / "outside" / "state.db"
    outside.parent.mkdir()
    conn = apsw.Connection(str(outside))
    conn.execute("CREATE TABLE secret(x); INSERT INTO secret VALUES ('outside-value')")
    conn.close()
    return outside


SPECIAL = ["fifo", "folder", "link-out", "link-out-dev-zero", "device", "journal-link-out", "wal-fifo"]


@pytest.mark.parametrize("kind", SPECIAL)
def test_a_special_file_at_the_state_plane_is_refused_at_once_and_nothing_outside_is_touched(store, tmp_path, kind):
    root, index, state_db = store.root, tmp_path / "index.db", store.state_path
    store.close_thread_connection()
    outside = _outside_db(tmp_path)
    before = (_digest(outside), outside.stat().st_mtime_ns)
    words = {"fifo": "a FIFO", "folder": "a directory", "link-out": "leads out of the store",
             "link-out-dev-zero": "leads out of the store", "device": "a device",
             "journal-link-out": "state.db-journal beside it is a symbolic link", "wal-fifo": "state.db-wal beside it is a FIFO"}[kind]  # fmt: skip
    if kind in ("journal-link-out", "wal-fifo"):
        target = Path(str(state_db) + ("-journal" if kind == "journal-link-out" else "-wal"))
    else:
        os.unlink(state_db)
        target = state_db
    if kind in ("fifo", "wal-fifo"):
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()
    elif kind == "link-out" or kind == "journal-link-out":
        target.symlink_to(outside)
    elif kind == "link-out-dev-zero":
        target.symlink_to("/dev/zero")
    elif kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(target, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # /dev/null's numbers
    for argv in (("list",), ("search", "drain the vip"), ("recall", "drain"), ("read", MEMORY), ("doctor",)):
        proc = _cli(root, index, *argv, "--no-refresh" if argv[0] != "doctor" else "--json", timeout=60)
        assert proc.returncode == 0, (argv, proc.stderr)
        assert words in proc.stdout + proc.stderr, (argv, proc.stdout[-500:], proc.stderr[-500:])
        assert "outside-value" not in proc.stdout + proc.stderr
        assert proc.seconds < 30, argv
    reinforced = _cli(root, index, "reinforce", MEMORY, "--signal", "positive")
    assert reinforced.returncode == 1 and "not recorded yet" in reinforced.stderr and words in reinforced.stderr
    assert (_digest(outside), outside.stat().st_mtime_ns) == before, "the outside database is never opened for writing"
    assert not os.path.exists(str(outside) + "-journal")
    if kind in ("fifo", "folder", "device"):
        assert stat.S_IFMT(os.lstat(target).st_mode) in (stat.S_IFIFO, stat.S_IFDIR, stat.S_IFCHR), "left as it was"


# -- a bump that cannot land is kept and written later ---------------------------------------------------


def test_a_read_that_cannot_land_is_kept_and_counted_later_with_its_own_time(store, monkeypatch):
    monkeypatch.setattr(state_watch, "LOOK_S", 0.0)
    state_db = store.state_path
    aside = state_db.with_name("away.db")
    os.rename(state_db, aside)
    os.mkfifo(state_db)  # the plane is unusable for a while
    detail = store.read(OTHER)
    assert detail.bump.queued and not detail.bump.lost and "a FIFO" in detail.bump.refused
    judged = store.reinforce([THIRD], "positive")
    assert judged.queued
    kept = [json.loads(line) for line in Path(str(state_db) + "-pending.jsonl").read_text().splitlines()]
    assert [(k["path"], k["signal"]) for k in kept] == [(OTHER, "neutral"), (THIRD, "positive")]
    assert store.state_plane().waiting == 2 and store.state_plane().mode is None
    os.unlink(state_db)
    os.rename(aside, state_db)  # back
    plane = store.state_plane()
    assert plane.mode == "rw" and plane.waiting == 0 and not plane.reason
    rows = _rows(state_db)
    assert rows[OTHER][0] == 1 and rows[OTHER][3] == kept[0]["at"], "counted with the read's own instant"
    assert rows[THIRD][1] == 1 and rows[THIRD][2] == 1.0 and rows[THIRD][4] == kept[1]["at"]
    assert not Path(str(state_db) + "-pending.jsonl").exists()
    assert any("written now (2 counted" in n for n in store.notices), store.notices


def test_a_kept_read_replayed_twice_is_counted_once(store, monkeypatch):
    """A crash between a kept read's write and its line's removal: the line is written again, and
    its own cooldown at its own instant keeps it from counting twice."""
    from memhtml_desktop.index.pending_reads import PendingReads

    monkeypatch.setattr(state_watch, "LOOK_S", 0.0)
    at = "2026-12-01T13:00:00Z"
    pending = PendingReads(store.state_path)
    for _ in range(2):
        pending.add([OTHER, THIRD], "positive", at, "test")
        store.state_plane()
    rows = _rows(store.state_path)
    assert rows[OTHER][:3] == (1, 1, 1.0) and rows[THIRD][:3] == (1, 1, 1.0)


def test_kept_reads_survive_the_process_and_the_next_command_writes_them(store, tmp_path):
    root, index, state_db = store.root, tmp_path / "index.db", store.state_path
    store.close_thread_connection()
    aside = state_db.with_name("away.db")
    os.rename(state_db, aside)
    os.mkfifo(state_db)
    proc = _cli(root, index, "read", OTHER, "--no-refresh")
    assert proc.returncode == 0 and "this read is not counted yet" in proc.stdout, proc.stdout[-600:]
    doctor = _cli(root, index, "doctor")
    assert "1 read(s) kept until it can take them" in doctor.stdout, doctor.stdout[-800:]
    os.unlink(state_db)
    os.rename(aside, state_db)
    listed = _cli(root, index, "list", "--no-refresh")
    assert listed.returncode == 0 and "written now (1 counted" in listed.stderr, listed.stderr
    assert _rows(state_db)[OTHER][0] == 1


def test_a_second_click_replaces_the_first_while_it_waits(store, monkeypatch):
    monkeypatch.setattr(state_watch, "LOOK_S", 0.0)
    state_db = store.state_path
    aside = state_db.with_name("away.db")
    os.rename(state_db, aside)
    os.mkfifo(state_db)
    assert store.reinforce([OTHER], "positive").queued
    replaced = store.replace_signal(OTHER, "positive", "negative")
    assert OTHER in replaced.signal_applied and replaced.queued
    os.unlink(state_db)
    os.rename(aside, state_db)
    store.state_plane()
    assert _rows(state_db)[OTHER][2] == -1.0, "the waiting click was replaced where it waited"


@pytest.mark.parametrize("kind", ["fifo", "link-out"])
def test_a_pending_file_that_is_not_a_regular_file_is_refused_and_the_read_said_lost(
    store, tmp_path, monkeypatch, kind
):
    monkeypatch.setattr(state_watch, "LOOK_S", 0.0)
    state_db = store.state_path
    pending = Path(str(state_db) + "-pending.jsonl")
    outside = tmp_path / "outside.jsonl"
    outside.write_text("")
    if kind == "fifo":
        os.mkfifo(pending)
    else:
        pending.symlink_to(outside)
    aside = state_db.with_name("away.db")
    os.rename(state_db, aside)
    os.mkfifo(state_db)
    started = time.monotonic()
    result = store.reinforce([OTHER], "neutral")
    assert time.monotonic() - started < 5
    assert not result.queued and "could not be kept for later either" in result.refused
    assert outside.read_text() == ""
