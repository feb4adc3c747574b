"""The state plane: creation, reinforcement (memhtml's cases 34-36 and the one improvement), reads,
moves, a read-only store, busy handling and a second process writing at the same time.

Real SQLite files, no mocks; the clock is pinned through the `at` argument.
"""

from __future__ import annotations

import json
import os
import random
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import apsw
import pytest

from memhtml_desktop.domain import reinforce as twin
from memhtml_desktop.index import state
from memhtml_desktop.index.db import open_index
from memhtml_desktop.index.state import (
    InvalidSignal,
    StateBusy,
    access_stats,
    access_stats_many,
    move_access,
    reinforce,
)
from tests.index.helpers_state import (
    T0,
    at,
    digest,
    memhtml_reinforce,
    open_plane,
    open_readonly_plane,
    row,
    state_paths,
)

A = "areas/oncall/vip-drain-before-rollback.html"
B = "areas/oncall/rollback-runbook.html"
C = "resources/deploys/canary.html"


@pytest.fixture
def conn(tmp_path: Path):
    c = open_plane(tmp_path)
    yield c
    c.close()


# ------------------------------------------------------------------------------------------------
# Creation: memhtml's ledger, and an existing plane is never dropped


def test_absent_state_db_is_created_with_memhtmls_ledger(tmp_path: Path) -> None:
    _, state_db = state_paths(tmp_path)
    assert not state_db.exists()
    c = open_plane(tmp_path)
    assert state_db.exists()
    assert c.state_mode == "rw"
    ledger = [r[0] for r in c.execute("SELECT name FROM state.schema_migrations ORDER BY name")]
    assert ledger == ["S0001_access.sql", "S0002_entity_corroboration.sql"]
    tables = {r[0] for r in c.execute("SELECT name FROM state.sqlite_schema WHERE type = 'table'")}
    assert {"access", "edge_corroboration", "entity_corroboration", "schema_migrations"} <= tables
    # memhtml creates state.db with a rollback journal; a file this app creates is the same
    assert c.execute("PRAGMA state.journal_mode").fetchone()[0] == "delete"
    c.close()
    assert not Path(str(state_db) + "-wal").exists()


def test_the_journal_mode_memhtml_chose_is_left_alone(tmp_path: Path) -> None:
    """Opening, reading, bumping and moving rows never switch memhtml's state.db to WAL (for good)."""
    _, state_db = state_paths(tmp_path)
    c = open_plane(tmp_path)  # created as memhtml creates it
    c.close()
    for _ in range(2):
        c = open_plane(tmp_path)
        reinforce(c, [A], "positive", at(0))
        move_access(c, A, B)
        assert c.execute("PRAGMA state.journal_mode").fetchone()[0] == "delete"
        c.close()
    raw = apsw.Connection(str(state_db))
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    raw.close()
    assert [p.name for p in state_db.parent.iterdir()] == ["state.db"]  # no -wal, no -shm


def test_existing_state_db_is_never_dropped_or_recreated(tmp_path: Path) -> None:
    c = open_plane(tmp_path)
    reinforce(c, [A], "positive", at(0))
    ledger = c.execute("SELECT name, applied_at FROM state.schema_migrations ORDER BY name").fetchall()
    c.close()

    again = open_plane(tmp_path)
    assert row(again, A) == {
        "access_count": 1,
        "reinforcement_count": 1,
        "outcome_score": 1.0,
        "last_accessed_at": at(0),
        "last_reinforced_at": at(0),
        "updated_at": at(0),
    }
    # the same ledger rows, applied_at untouched: nothing was re-applied
    assert again.execute("SELECT name, applied_at FROM state.schema_migrations ORDER BY name").fetchall() == ledger
    again.close()


# ------------------------------------------------------------------------------------------------
# memhtml's cases (retrieval.md section 12, items 34-36)


def test_neutral_bumps_once_per_cooldown(conn) -> None:
    first = reinforce(conn, [A], "neutral", at(0))
    assert first.bumped == (A,) and first.cooled_down == ()
    assert first.signal_applied == () and first.signal_cooled == ()
    assert row(conn, A)["access_count"] == 1
    assert row(conn, A)["reinforcement_count"] == 0
    assert row(conn, A)["last_reinforced_at"] is None

    again = reinforce(conn, [A], "neutral", at(60))
    assert again.bumped == () and again.cooled_down == (A,)
    assert row(conn, A)["access_count"] == 1
    assert row(conn, A)["last_accessed_at"] == at(0)  # the stamp is not refreshed by a cooled read
    assert row(conn, A)["updated_at"] == at(0)

    assert reinforce(conn, [A], "neutral", at(899)).cooled_down == (A,)
    assert reinforce(conn, [A], "neutral", at(900)).bumped == (A,)
    assert row(conn, A)["access_count"] == 2
    assert row(conn, A)["last_accessed_at"] == at(900)


def test_outcome_average(conn) -> None:
    r = reinforce(conn, [A], "positive", at(0))
    assert r.bumped == (A,) and r.signal_applied == (A,)
    assert row(conn, A)["outcome_score"] == pytest.approx(1.0)  # a new row takes the value itself
    assert row(conn, A)["reinforcement_count"] == 1

    reinforce(conn, [A], "neutral", at(900))
    assert row(conn, A)["outcome_score"] == pytest.approx(1.0)
    assert row(conn, A)["reinforcement_count"] == 1
    assert row(conn, A)["access_count"] == 2

    r = reinforce(conn, [A], "negative", at(1800))
    assert r.bumped == (A,) and r.signal_applied == (A,)
    assert row(conn, A)["outcome_score"] == pytest.approx(0.7 - 0.3)
    assert row(conn, A)["reinforcement_count"] == 2

    for i in range(30):
        reinforce(conn, [A], "negative", at(2700 + 900 * i))
    score = row(conn, A)["outcome_score"]
    assert -1.0 <= score < -0.9


def test_mixed_batch_duplicates_and_empty(conn) -> None:
    hot, cold, new = "areas/x/hot.html", "areas/x/cold.html", "areas/x/new.html"
    reinforce(conn, [cold], "neutral", at(-3600))
    reinforce(conn, [hot], "neutral", at(0))
    r = reinforce(conn, [hot, cold, new], "neutral", at(60))
    assert set(r.bumped) == {cold, new}
    assert r.bumped == (cold, new)  # target order
    assert r.cooled_down == (hot,)

    r = reinforce(conn, ["areas/x/thrice.html"] * 3 + [""], "neutral", at(0))
    assert r.bumped == ("areas/x/thrice.html",)
    assert row(conn, "areas/x/thrice.html")["access_count"] == 1

    empty = reinforce(conn, [], "positive", at(0))
    assert empty.bumped == () and empty.cooled_down == () and empty.refused is None
    assert reinforce(conn, ["", ""], "neutral", at(0)).bumped == ()


def test_no_state_plane_cools_everything(tmp_path: Path) -> None:
    c = open_index(tmp_path / "index.db")  # no state_path: no state plane
    assert c.state_mode is None
    r = reinforce(c, [A, B, A], "positive", at(0))
    assert r.bumped == () and r.cooled_down == (A, B)
    assert r.signal_applied == () and r.signal_cooled == (A, B)
    assert r.refused == "no state plane"
    assert access_stats(c, A) is None
    assert access_stats_many(c, [A, B]) == {}
    assert move_access(c, A, B) is False
    c.close()


OFFSETS = [0, 1, 898, 899, 900, 901, 1800, -1, -900] + random.Random(36).sample(range(-5000, 5000), 191)


def test_sql_guard_agrees_with_the_pure_twin(tmp_path: Path) -> None:
    """200 offsets: the SQL's bumped-vs-cooled equals domain.reinforce.should_bump, for both guards."""
    assert len(OFFSETS) == 200
    c = open_plane(tmp_path)
    for i, offset in enumerate(OFFSETS):
        path = f"areas/probe/p{i}.html"
        reinforce(c, [path], "neutral", at(0))  # last_accessed_at = T0
        expected = twin.should_bump(at(0), at(offset), 900)
        assert (reinforce(c, [path], "neutral", at(offset)).bumped == (path,)) is expected, offset

        sig = f"areas/probe/s{i}.html"
        reinforce(c, [sig], "positive", at(0))  # last_reinforced_at = T0
        got = reinforce(c, [sig], "positive", at(offset))
        assert (got.signal_applied == (sig,)) is expected, offset
    c.close()


def test_constants_are_the_twins() -> None:
    assert state.REINFORCE_COOLDOWN_S == twin.REINFORCE_COOLDOWN_S == 900
    assert state.OUTCOME_EWMA_ALPHA == twin.OUTCOME_EWMA_ALPHA == 0.3


def test_outcome_arithmetic_matches_the_twin(conn) -> None:
    signals = ["positive", "negative", "negative", "positive", "positive", "negative"]
    expected: float | None = None
    for i, signal in enumerate(signals):
        reinforce(conn, [A], signal, at(900 * i))
        expected = twin.next_outcome(expected, twin.signal_value(signal))
        assert row(conn, A)["outcome_score"] == expected  # exact: same float operations


def test_a_future_stamp_is_cooled(conn) -> None:
    reinforce(conn, [A], "positive", at(5000))
    r = reinforce(conn, [A], "positive", at(0))  # our clock is behind the stored stamp
    assert r.cooled_down == (A,) and r.signal_cooled == (A,)
    assert row(conn, A)["access_count"] == 1


# ------------------------------------------------------------------------------------------------
# The deliberate improvement: a signal has its own cooldown


def test_a_signal_right_after_a_read_is_applied_not_discarded(conn, tmp_path: Path) -> None:
    reinforce(conn, [A], "neutral", at(0))  # the user opened the memory
    r = reinforce(conn, [A], "positive", at(60))  # ...and a minute later said it was right
    assert r.bumped == () and r.cooled_down == (A,)  # access stays under its cooldown
    assert r.signal_applied == (A,) and r.signal_cooled == ()
    got = row(conn, A)
    assert got["access_count"] == 1
    assert got["last_accessed_at"] == at(0)
    assert got["reinforcement_count"] == 1
    assert got["outcome_score"] == pytest.approx(0.3)  # EWMA from the read's 0.0, as memhtml would
    assert got["last_reinforced_at"] == at(60)
    assert got["updated_at"] == at(60)

    # memhtml's statement on an identical plane drops that judgement on the floor
    other = open_plane(tmp_path, store="memhtml")
    memhtml_reinforce(other, [A], "neutral", at(0))
    assert memhtml_reinforce(other, [A], "positive", at(60)) == []
    assert row(other, A)["reinforcement_count"] == 0 and row(other, A)["outcome_score"] == 0.0
    other.close()


def test_a_signal_has_its_own_cooldown(conn) -> None:
    reinforce(conn, [A], "neutral", at(0))
    assert reinforce(conn, [A], "positive", at(60)).signal_applied == (A,)
    replay = reinforce(conn, [A], "positive", at(120))  # a loop replaying the judgement
    assert replay.signal_cooled == (A,) and replay.cooled_down == (A,)
    assert row(conn, A)["reinforcement_count"] == 1

    # access past its cooldown (from T0), signal still inside its own (from T0+60)
    r = reinforce(conn, [A], "negative", at(900))
    assert r.bumped == (A,) and r.signal_cooled == (A,)
    got = row(conn, A)
    assert got["access_count"] == 2 and got["reinforcement_count"] == 1
    assert got["outcome_score"] == pytest.approx(0.3)
    assert got["last_reinforced_at"] == at(60)

    r = reinforce(conn, [A], "negative", at(960))
    assert r.cooled_down == (A,) and r.signal_applied == (A,)
    assert row(conn, A)["outcome_score"] == pytest.approx(0.3 * 0.7 - 0.3)


def test_a_neutral_read_never_touches_the_reinforcement_columns(conn) -> None:
    reinforce(conn, [A], "negative", at(0))
    before = row(conn, A)
    reinforce(conn, [A], "neutral", at(900))
    after = row(conn, A)
    for key in ("reinforcement_count", "outcome_score", "last_reinforced_at"):
        assert after[key] == before[key]
    assert after["access_count"] == 2


def test_new_rows_are_identical_to_memhtmls(conn, tmp_path: Path) -> None:
    other = open_plane(tmp_path, store="memhtml")
    for i, signal in enumerate(("positive", "negative", "neutral")):
        path = f"areas/new/{signal}.html"
        assert reinforce(conn, [path], signal, at(i)).bumped == (path,)
        assert memhtml_reinforce(other, [path], signal, at(i)) == [path]
        assert row(conn, path) == row(other, path)
    other.close()


def test_without_early_signals_it_is_memhtml_exactly(conn, tmp_path: Path) -> None:
    """When no signal lands inside a read's cooldown, both statements agree on every row and report.

    Offsets are whole cooldowns apart or a minute apart; signals only on a path's first touch or
    >= 900 s after its last one, which is where the two designs are meant to coincide.
    """
    other = open_plane(tmp_path, store="memhtml")
    rng = random.Random(7)
    paths = [f"areas/r/{i}.html" for i in range(6)]
    last: dict[str, int] = {}
    clock = 0
    for _ in range(300):
        clock += rng.choice([60, 300, 900, 1800])
        batch = rng.sample(paths, rng.randint(1, 4))
        ready = all(clock - last.get(p, -(10**6)) >= 900 for p in batch)
        signal = rng.choice(["positive", "negative"]) if ready and rng.random() < 0.5 else "neutral"
        ours = reinforce(conn, batch, signal, at(clock))
        theirs = memhtml_reinforce(other, batch, signal, at(clock))
        assert list(ours.bumped) == theirs
        if signal != "neutral":
            assert ours.signal_applied == ours.bumped
        for p in ours.bumped:
            last[p] = clock
    assert access_stats_many(conn, paths) == access_stats_many(other, paths)
    other.close()


def test_invalid_input_writes_nothing(conn) -> None:
    with pytest.raises(InvalidSignal):
        reinforce(conn, [A], "useful", at(0))
    with pytest.raises(ValueError):
        reinforce(conn, [A], "neutral", "yesterday")
    with pytest.raises(ValueError):
        reinforce(conn, [A], "neutral", "2026-08-01 12:00:00")  # not memhtml's instant form
    assert row(conn, A) is None


def test_a_bare_string_is_one_path_not_its_characters(conn) -> None:
    assert reinforce(conn, A, "neutral", at(0)).bumped == (A,)


def test_more_paths_than_one_statement_binds(conn) -> None:
    paths = [f"areas/bulk/{i:05d}.html" for i in range(1203)]
    r = reinforce(conn, paths, "positive", at(0))
    assert r.bumped == tuple(paths) and r.signal_applied == tuple(paths)
    assert conn.execute("SELECT count(*), sum(access_count) FROM state.access").fetchone() == (1203, 1203)
    assert len(access_stats_many(conn, paths + ["areas/bulk/missing.html"])) == 1203
    r = reinforce(conn, paths, "positive", at(10))
    assert r.cooled_down == tuple(paths) and r.signal_cooled == tuple(paths)


def test_an_empty_stamp_left_by_memhtmls_import_does_not_freeze_a_row(conn) -> None:
    conn.execute("INSERT INTO state.access VALUES (?, 4, 0, 0.0, '', '', ?)", (A, at(-10)))
    r = reinforce(conn, [A], "positive", at(0))
    assert r.bumped == (A,) and r.signal_applied == (A,)
    assert row(conn, A)["access_count"] == 5


# ------------------------------------------------------------------------------------------------
# Reads


def test_access_stats_shape(conn) -> None:
    assert access_stats(conn, A) is None
    assert access_stats(conn, "") is None
    reinforce(conn, [A, B], "negative", at(0))
    stats = access_stats(conn, A)
    assert list(stats) == [
        "access_count",
        "reinforcement_count",
        "outcome_score",
        "last_accessed_at",
        "last_reinforced_at",
        "updated_at",
    ]
    assert stats["outcome_score"] == -1.0
    many = access_stats_many(conn, [B, C, A, B, "café/ünïcode.html"])
    assert set(many) == {A, B}
    assert many[A] == stats


def test_access_stats_many_handles_unicode_paths(conn) -> None:
    odd = ["areas/ünï/café.html", "areas/emoji/😀.html", 'areas/q/"quoted".html']
    reinforce(conn, odd, "neutral", at(0))
    assert set(access_stats_many(conn, odd)) == set(odd)


# ------------------------------------------------------------------------------------------------
# Moves


def test_move_follows_the_file_when_the_destination_is_free(conn) -> None:
    reinforce(conn, [A], "positive", at(0))
    before = row(conn, A)
    dst = "archive/2026/" + A
    assert move_access(conn, A, dst) is True
    assert row(conn, A) is None
    assert row(conn, dst) == before  # every fact kept, updated_at included
    assert move_access(conn, A, dst) is False  # already moved: never a double move


def test_move_never_overwrites_an_existing_destination(conn) -> None:
    dst = "archive/2026/" + A
    reinforce(conn, [A], "positive", at(0))
    reinforce(conn, [dst], "negative", at(5))  # memhtml moved it already, or a file used to live there
    src_before, dst_before = row(conn, A), row(conn, dst)
    assert move_access(conn, A, dst) is False
    assert row(conn, A) == src_before and row(conn, dst) == dst_before


def test_move_without_a_source_row_or_to_itself_is_a_no_op(conn) -> None:
    assert move_access(conn, A, B) is False
    reinforce(conn, [A], "neutral", at(0))
    assert move_access(conn, A, A) is False
    assert move_access(conn, "", B) is False
    assert move_access(conn, A, "") is False
    assert row(conn, A)["access_count"] == 1


# ------------------------------------------------------------------------------------------------
# A read-only store


def test_read_only_plane_reads_but_never_writes(tmp_path: Path) -> None:
    c = open_plane(tmp_path)
    reinforce(c, [A], "positive", at(0))
    c.close()
    _, state_db = state_paths(tmp_path)
    before = digest(state_db)

    ro = open_readonly_plane(tmp_path)
    assert ro.state_mode == "ro"
    r = reinforce(ro, [A, B], "positive", at(3600))
    assert r.refused == "the store is read-only: salience is read but not written"
    assert r.bumped == () and r.cooled_down == (A, B)
    assert r.signal_applied == () and r.signal_cooled == (A, B)
    assert reinforce(ro, [A], "neutral", at(3600)).signal_cooled == ()
    assert access_stats(ro, A)["access_count"] == 1  # salience is still read
    assert set(access_stats_many(ro, [A, B])) == {A}
    assert move_access(ro, A, B) is False
    with pytest.raises(apsw.ReadOnlyError):  # the attach really is read-only: refusal is not luck
        ro.execute("DELETE FROM state.access")
    ro.close()
    assert digest(state_db) == before


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_read_only_store_on_disk_opens_read_only(tmp_path: Path) -> None:
    """The store's .memhtml directory and state.db made read-only: open_index attaches mode=ro.

    Needs db.attach_state to open its `file:...?mode=ro` URI for real (SQLITE_OPEN_URI on the
    connection, and a fallback for a WAL file whose -shm cannot be created); see the report.
    """
    c = open_plane(tmp_path)
    reinforce(c, [A], "neutral", at(0))
    c.close()
    _, state_db = state_paths(tmp_path)
    for p in state_db.parent.iterdir():
        p.chmod(stat.S_IRUSR)
    state_db.parent.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        if os.access(state_db, os.W_OK) or os.access(state_db.parent, os.W_OK):
            pytest.skip("permissions are not enforced for this user (root): chmod cannot make a read-only store")
        before = digest(state_db)
        ro = open_plane(tmp_path)
        assert ro.state_mode == "ro"
        r = reinforce(ro, [A], "positive", at(3600))
        assert r.refused and r.bumped == ()
        assert access_stats(ro, A)["access_count"] == 1
        ro.close()
        assert digest(state_db) == before
    finally:
        state_db.parent.chmod(stat.S_IRWXU)
        for p in state_db.parent.iterdir():
            p.chmod(stat.S_IRUSR | stat.S_IWUSR)


# ------------------------------------------------------------------------------------------------
# Busy: retried, never lost, never "database is locked"


def _hold_write_lock(state_db: Path, seconds: float, started: threading.Event) -> None:
    other = apsw.Connection(str(state_db))
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO access (path, access_count, updated_at) VALUES ('areas/other/writer.html', 1, ?)", (T0,))
    started.set()
    time.sleep(seconds)
    other.execute("COMMIT")
    other.close()


def test_a_busy_plane_is_retried_and_the_bump_lands(conn, tmp_path: Path) -> None:
    _, state_db = state_paths(tmp_path)
    conn.set_busy_timeout(20)  # far shorter than the lock is held: the retry loop must carry it
    started = threading.Event()
    holder = threading.Thread(target=_hold_write_lock, args=(state_db, 0.4, started))
    holder.start()
    started.wait(5)
    r = reinforce(conn, [A], "positive", at(0), retries=8)
    holder.join()
    assert r.bumped == (A,) and r.signal_applied == (A,)
    assert row(conn, A)["access_count"] == 1
    assert row(conn, "areas/other/writer.html")["access_count"] == 1  # the other writer's row too


def test_exhausted_retries_raise_a_domain_error_and_write_nothing(conn, tmp_path: Path) -> None:
    _, state_db = state_paths(tmp_path)
    conn.set_busy_timeout(10)
    started = threading.Event()
    holder = threading.Thread(target=_hold_write_lock, args=(state_db, 1.5, started))
    holder.start()
    started.wait(5)
    try:
        with pytest.raises(StateBusy) as caught:
            reinforce(conn, [A], "neutral", at(0), retries=1)
    finally:
        holder.join()
    assert "database is locked" not in str(caught.value)
    assert "nothing was written" in str(caught.value)
    assert row(conn, A) is None
    assert not conn.in_transaction
    assert reinforce(conn, [A], "neutral", at(0)).bumped == (A,)  # the connection is still usable


# ------------------------------------------------------------------------------------------------
# A second process (memhtml's CLI) writing at the same time


HELPER = Path(__file__).with_name("helpers_state.py")


@pytest.mark.slow
@pytest.mark.parametrize("busy_timeout_ms", [5000, 1], ids=["default-timeout", "1ms-timeout-retries"])
def test_no_lost_update_against_a_concurrent_memhtml_process(tmp_path: Path, busy_timeout_ms: int) -> None:
    shared = [f"areas/shared/{i}.html" for i in range(3)]
    theirs_only = [f"areas/memhtml/{i}.html" for i in range(2)]
    ours_only = [f"areas/desktop/{i}.html" for i in range(2)]
    c = open_plane(tmp_path)
    c.set_busy_timeout(busy_timeout_ms)
    # state.db keeps memhtml's rollback journal, where a reader waits while a writer commits (under
    # WAL it never did); the interleaved reads use their own connection with the default wait, so
    # the 1 ms timeout above exercises the writes' retries only.
    reader = open_plane(tmp_path)
    _, state_db = state_paths(tmp_path)

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    child = subprocess.Popen(
        [sys.executable, str(HELPER), str(state_db), "150", *shared, *theirs_only],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout.readline().strip() == "ready"
    child.stdin.write("go\n")
    child.stdin.flush()

    bumped: dict[str, int] = {}
    applied: dict[str, int] = {}
    rng = random.Random(5)
    rounds = 0
    while child.poll() is None or rounds < 50:
        batch = rng.sample(shared + ours_only, 3)
        signal = rng.choice(["neutral", "positive", "negative"])
        r = reinforce(c, batch, signal, T0, cooldown_s=0, retries=20)  # StateBusy here fails the test
        for p in r.bumped:
            bumped[p] = bumped.get(p, 0) + 1
        for p in r.signal_applied:
            applied[p] = applied.get(p, 0) + 1
        access_stats_many(reader, shared + theirs_only)  # reads interleave with both writers
        rounds += 1
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0
    theirs = json.loads(out.strip().splitlines()[-1])

    final = access_stats_many(c, shared + theirs_only + ours_only)
    for p in shared + theirs_only + ours_only:
        want_access = bumped.get(p, 0) + theirs["bumped"].get(p, 0)
        want_reinforced = applied.get(p, 0) + theirs["positives"].get(p, 0)
        assert final[p]["access_count"] == want_access, p
        assert final[p]["reinforcement_count"] == want_reinforced, p
    assert sum(theirs["bumped"].values()) > 0 and rounds > 0
    reader.close()
    c.close()
