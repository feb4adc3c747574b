"""The committed sidecar `.memhtml/state/access.jsonl`: memhtml's bytes, byte-stability, round trips,
the merge rule, and a damaged file restoring every row it still holds."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml_desktop.index.db import open_index
from memhtml_desktop.index.sidecar import (
    SIDECAR_RELPATH,
    SidecarWouldEmpty,
    export_access,
    import_access,
    import_file,
    js_number,
    js_round,
    js_string,
    round4,
    write_export,
)
from memhtml_desktop.index.state import StateReadOnly, StateUnavailable, access_stats_many, reinforce
from tests.index.helpers_state import at, open_plane, open_readonly_plane, row

A = "areas/oncall/vip-drain-before-rollback.html"
B = "areas/oncall/rollback-runbook.html"
C = "resources/deploys/canary.html"

INSERT = "INSERT INTO state.access VALUES (?, ?, ?, ?, ?, ?, ?)"


@pytest.fixture
def conn(tmp_path: Path):
    c = open_plane(tmp_path)
    yield c
    c.close()


def _all(conn) -> list[tuple]:
    return conn.execute("SELECT * FROM state.access ORDER BY path").fetchall()


# ------------------------------------------------------------------------------------------------
# The bytes


def test_export_is_memhtmls_format(conn) -> None:
    reinforce(conn, [B], "positive", at(0))
    reinforce(conn, [B], "negative", at(900))  # 0.7 - 0.3 = 0.39999999999999997 in binary
    reinforce(conn, [A], "neutral", at(5))
    reinforce(conn, [C], "negative", at(7))
    expected = (
        '{"path":"areas/oncall/rollback-runbook.html","accessCount":2,"reinforcementCount":2,'
        '"outcomeScore":0.4,"lastAccessedAt":"2026-08-01T12:15:00Z",'
        '"lastReinforcedAt":"2026-08-01T12:15:00Z","updatedAt":"2026-08-01T12:15:00Z"}\n'
        '{"path":"areas/oncall/vip-drain-before-rollback.html","accessCount":1,"reinforcementCount":0,'
        '"outcomeScore":0,"lastAccessedAt":"2026-08-01T12:00:05Z","lastReinforcedAt":null,'
        '"updatedAt":"2026-08-01T12:00:05Z"}\n'
        '{"path":"resources/deploys/canary.html","accessCount":1,"reinforcementCount":1,'
        '"outcomeScore":-1,"lastAccessedAt":"2026-08-01T12:00:07Z",'
        '"lastReinforcedAt":"2026-08-01T12:00:07Z","updatedAt":"2026-08-01T12:00:07Z"}\n'
    )
    assert export_access(conn) == expected.encode()


def test_an_empty_or_absent_plane_exports_the_empty_file(conn, tmp_path: Path) -> None:
    assert export_access(conn) == b""
    bare = open_index(tmp_path / "bare.db")
    assert export_access(bare) == b""
    bare.close()


def test_outcome_scores_are_written_like_javascript_numbers(conn) -> None:
    cases = {
        "a.html": (1.0, "1"),
        "b.html": (-1.0, "-1"),
        "c.html": (0.0, "0"),
        "d.html": (-0.00004, "0"),  # Math.round gives -0; memhtml normalizes it to 0
        "e.html": (0.12345, "0.1235"),  # ties go up, as JS Math.round does
        "f.html": (-0.12345, "-0.1234"),  # ...toward +infinity, also for negatives
        "g.html": (0.00005, "0.0001"),
        "h.html": (0.5, "0.5"),
        "i.html": (1 / 3, "0.3333"),
    }
    for path, (score, _) in cases.items():
        conn.execute(INSERT, (path, 1, 1, score, at(0), at(0), at(0)))
    lines = export_access(conn).decode().splitlines()
    got = {json.loads(line)["path"]: line.split('"outcomeScore":')[1].split(",")[0] for line in lines}
    assert got == {path: text for path, (_, text) in cases.items()}


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (0.4, "0.4"),
        (-0.4, "-0.4"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (123456.789, "123456.789"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (2.5e25, "2.5e+25"),
        (float("nan"), "null"),
        (5e-324, "5e-324"),
        (12, "12"),
    ],
)
def test_js_number(value: float, text: str) -> None:
    assert js_number(value) == text


def test_js_round_is_math_round() -> None:
    assert js_round(0.5) == 1 and js_round(-0.5) == 0 and js_round(2.5) == 3 and js_round(-2.5) == -2
    assert js_round(0.49999999999999994) == 0  # floor(x + 0.5) would say 1
    assert round4(-0.00004) == 0 and math.copysign(1, round4(-0.00004)) == 1


def test_js_string_escapes_like_json_stringify() -> None:
    assert js_string('a"b\\c') == '"a\\"b\\\\c"'
    assert js_string("\b\t\n\f\r") == '"\\b\\t\\n\\f\\r"'
    assert js_string("\x00\x1f\x7f") == '"\\u0000\\u001f\x7f"'
    assert js_string("café 😀 \u2028") == '"café 😀 \u2028"'
    assert js_string("\ud800") == '"\\ud800"'


NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed: no JavaScript to compare with")
def test_export_matches_javascript_byte_for_byte(conn) -> None:
    """The rows rendered by node with Math.round and JSON.stringify, as memhtml renders them."""
    rng = random.Random(11)
    alphabet = ["a", "/", "é", "😀", '"', "\\", "\n", "\t", "\x01", "\x7f", "\u2028", " ", "Z"]
    rows = []
    for i in range(300):
        path = f"areas/{i:03d}/" + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        score = rng.choice([rng.uniform(-1, 1), round(rng.uniform(-1, 1), 4), 1.0, -1.0, 0.0, 5e-5, -5e-5])
        la = rng.choice([None, at(rng.randint(0, 10**6))])
        lr = rng.choice([None, at(rng.randint(0, 10**6))])
        rows.append((path, rng.randint(0, 10**6), rng.randint(0, 500), score, la, lr, at(i)))
        conn.execute(INSERT, rows[-1])
    script = (
        "const rows = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "const r4 = (v) => { const x = Math.round(v * 10 ** 4) / 10 ** 4; return x === 0 ? 0 : x };"
        "const out = rows.map(([p, a, r, s, la, lr, u]) => JSON.stringify({path: p, accessCount: a,"
        " reinforcementCount: r, outcomeScore: r4(s), lastAccessedAt: la, lastReinforcedAt: lr,"
        " updatedAt: u})).join('\\n') + '\\n';"
        "process.stdout.write(out);"
    )
    ordered = [list(r) for r in conn.execute("SELECT * FROM state.access ORDER BY path")]
    done = subprocess.run(
        [NODE, "-e", script], input=json.dumps(ordered).encode(), capture_output=True, check=True, timeout=60
    )
    assert export_access(conn) == done.stdout


# ------------------------------------------------------------------------------------------------
# Byte-stability and round trips


def test_export_is_byte_stable(conn) -> None:
    reinforce(conn, [A, B, C], "positive", at(0))
    reinforce(conn, [B], "negative", at(1000))
    first = export_access(conn)
    assert export_access(conn) == first
    reinforce(conn, [A, B, C], "neutral", at(800))  # all cooled: nothing changes, nor do the bytes
    assert export_access(conn) == first


def test_round_trip_into_a_fresh_plane(conn, tmp_path: Path) -> None:
    reinforce(conn, [A, B, C, "areas/ünï/café.html"], "positive", at(0))
    reinforce(conn, [B], "negative", at(900))
    reinforce(conn, [C], "neutral", at(1800))
    exported = export_access(conn)

    fresh = open_plane(tmp_path, store="clone")
    report = import_access(fresh, exported)
    assert (report.imported, report.skipped_lines, report.errors, report.unchanged) == (4, 0, [], 0)
    assert export_access(fresh) == exported
    again = import_access(fresh, exported)  # importing twice is importing once
    assert (again.imported, again.unchanged) == (0, 4)
    assert export_access(fresh) == exported
    fresh.close()


_paths = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=24
)
_stamp = st.integers(min_value=0, max_value=10**8).map(at)
_row = st.tuples(
    st.integers(min_value=0, max_value=2**40),
    st.integers(min_value=0, max_value=2**20),
    st.floats(min_value=-1, max_value=1, allow_nan=False),
    st.none() | _stamp,
    st.none() | _stamp,
    _stamp,
)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(rows=st.dictionaries(_paths, _row, max_size=25))
def test_round_trip_property(tmp_path_factory, rows) -> None:
    base = tmp_path_factory.mktemp("rt")
    src = open_plane(base, store="src")
    for path, values in rows.items():
        src.execute(INSERT, (path, *values))
    exported = export_access(src)
    dst = open_plane(base, store="dst")
    report = import_access(dst, exported)
    assert report.skipped_lines == 0 and report.imported == len(rows)
    assert export_access(dst) == exported
    for got, want in zip(_all(dst), _all(src)):
        assert got[:3] == want[:3] and got[4:] == want[4:]
        assert got[3] == round4(want[3])  # the sidecar carries four decimals
    src.close()
    dst.close()


# ------------------------------------------------------------------------------------------------
# A damaged file


def test_unparseable_and_invalid_lines_are_skipped_and_counted(conn) -> None:
    good = {
        "path": A,
        "accessCount": 3,
        "reinforcementCount": 1,
        "outcomeScore": 0.3,
        "lastAccessedAt": at(0),
        "lastReinforcedAt": at(0),
        "updatedAt": at(0),
    }
    lines = [
        "\ufeff" + json.dumps(good),  # a BOM an editor added: tolerated
        "",  # blank: ignored, not counted
        "   ",
        "not json at all",
        '{"path": "areas/x/cut.html", "accessCount": 2, "reinf',  # cut mid-object
        "[1, 2, 3]",
        '{"accessCount": 1, "updatedAt": "2026-08-01T12:00:00Z"}',  # no path
        json.dumps({**good, "path": "areas/x/neg.html", "accessCount": -1}),
        json.dumps({**good, "path": "areas/x/str.html", "accessCount": "3"}),
        json.dumps({**good, "path": "areas/x/frac.html", "accessCount": 1.5}),
        json.dumps({**good, "path": "areas/x/big.html", "outcomeScore": 1.5}),
        '{"path": "areas/x/nan.html", "accessCount": 1, "outcomeScore": NaN, "updatedAt": "2026-08-01T12:00:00Z"}',
        json.dumps({**good, "path": "areas/x/when.html", "updatedAt": "last tuesday"}),
        json.dumps(
            {
                **good,
                "path": "areas/x/nostamp.html",
                "updatedAt": None,
                "lastAccessedAt": None,
                "lastReinforcedAt": None,
            }
        ),
        json.dumps({**good, "path": B}) + "\r",  # a CRLF checkout
        json.dumps({"path": C, "updatedAt": at(9)}),  # sparse but valid: counts default to 0
        json.dumps({**good, "path": "areas/x/empty-stamps.html", "lastReinforcedAt": ""}),  # memhtml's ''
        json.dumps({**good, "path": "areas/x/derived.html", "updatedAt": None, "lastAccessedAt": at(50)}),
    ]
    data = "\n".join(lines).encode() + b"\n" + b"\xff\xfe{broken utf-8}\n" + b'{"path": "areas/x/tail.html", "acc'
    report = import_access(conn, data)
    assert report.skipped_lines == 13
    assert len(report.errors) == 13 and all(e.startswith("line ") for e in report.errors)
    assert report.imported == 5
    assert set(access_stats_many(conn, [A, B, C, "areas/x/empty-stamps.html", "areas/x/derived.html"])) == {
        A,
        B,
        C,
        "areas/x/empty-stamps.html",
        "areas/x/derived.html",
    }
    assert row(conn, C)["access_count"] == 0 and row(conn, C)["outcome_score"] == 0.0
    assert row(conn, "areas/x/empty-stamps.html")["last_reinforced_at"] is None
    assert row(conn, "areas/x/derived.html")["updated_at"] == at(50)
    assert conn.execute("SELECT count(*) FROM state.access").fetchone()[0] == 5


def test_a_file_of_garbage_imports_nothing_and_does_not_fail(conn) -> None:
    report = import_access(conn, b"\x00\x01\x02\n}{\n" * 200)
    assert report.imported == 0 and report.skipped_lines == 400
    assert len(report.errors) == 101 and report.errors[-1] == "... and 300 more"
    assert import_access(conn, b"").imported == 0


# ------------------------------------------------------------------------------------------------
# The merge rule


def _line(path: str, access: int, reinforced: int, score: float, la, lr, updated) -> bytes:
    return (
        json.dumps(
            {
                "path": path,
                "accessCount": access,
                "reinforcementCount": reinforced,
                "outcomeScore": score,
                "lastAccessedAt": la,
                "lastReinforcedAt": lr,
                "updatedAt": updated,
            }
        )
        + "\n"
    ).encode()


def test_a_stale_sidecar_changes_nothing_on_a_live_plane(conn) -> None:
    stale = _line(A, 1, 1, 1.0, at(0), at(0), at(0))
    reinforce(conn, [A], "positive", at(0))
    reinforce(conn, [A], "negative", at(1000))
    before = _all(conn)
    report = import_access(conn, stale)
    assert (report.imported, report.unchanged) == (0, 1)
    assert _all(conn) == before


def test_counts_take_the_maximum_so_no_bump_is_lost(conn) -> None:
    """A clone read twice before anyone imported must not shadow the sidecar's 40 reads."""
    reinforce(conn, [A], "neutral", at(10_000))
    reinforce(conn, [A], "neutral", at(11_000))
    sidecar = _line(A, 40, 3, 0.5, at(5_000), at(4_000), at(5_000))
    assert import_access(conn, sidecar).imported == 1
    got = row(conn, A)
    assert got["access_count"] == 40 and got["reinforcement_count"] == 3
    assert got["last_accessed_at"] == at(11_000)  # the later stamp
    assert got["last_reinforced_at"] == at(4_000)  # the only one
    assert got["outcome_score"] == 0.5  # the only side that was ever reinforced
    assert got["updated_at"] == at(11_000)


def test_the_outcome_comes_from_the_latest_signal(conn) -> None:
    reinforce(conn, [A], "positive", at(0))  # live: 1.0 reinforced at T0
    import_access(conn, _line(A, 1, 2, -0.4, at(0), at(2_000), at(2_000)))
    assert row(conn, A)["outcome_score"] == -0.4 and row(conn, A)["last_reinforced_at"] == at(2_000)
    import_access(conn, _line(A, 1, 1, 1.0, at(0), at(0), at(0)))  # older signal: ignored
    assert row(conn, A)["outcome_score"] == -0.4
    # same signal instant, a later updated_at (memhtml's sleep decayed the score): the decay wins
    import_access(conn, _line(A, 1, 2, -0.3, at(0), at(2_000), at(3_000)))
    assert row(conn, A)["outcome_score"] == -0.3 and row(conn, A)["updated_at"] == at(3_000)


def test_stamps_compare_as_instants_not_strings(conn) -> None:
    conn.execute(INSERT, (A, 1, 0, 0.0, "2026-08-01T12:00:00.500Z", None, "2026-08-01T12:00:00.500Z"))
    import_access(conn, _line(A, 1, 0, 0.0, "2026-08-01T12:00:00Z", None, "2026-08-01T12:00:00Z"))
    assert row(conn, A)["last_accessed_at"] == "2026-08-01T12:00:00.500Z"  # '.5Z' > 'Z' as text too
    import_access(conn, _line(A, 1, 0, 0.0, "2026-08-01T13:00:00+02:00", None, at(0)))
    assert row(conn, A)["last_accessed_at"] == "2026-08-01T12:00:00.500Z"  # 11:00 UTC is earlier


def test_import_needs_a_writable_plane(tmp_path: Path) -> None:
    c = open_plane(tmp_path)
    c.close()
    ro = open_readonly_plane(tmp_path)
    with pytest.raises(StateReadOnly):
        import_access(ro, _line(A, 1, 0, 0.0, at(0), None, at(0)))
    ro.close()
    bare = open_index(tmp_path / "bare.db")
    with pytest.raises(StateUnavailable):
        import_access(bare, _line(A, 1, 0, 0.0, at(0), None, at(0)))
    bare.close()


# ------------------------------------------------------------------------------------------------
# Writing the file


def test_write_export_is_atomic_and_skips_identical_bytes(conn, tmp_path: Path) -> None:
    store = tmp_path / "store"
    reinforce(conn, [A, B], "positive", at(0))
    target = write_export(conn, store)
    assert target == store / SIDECAR_RELPATH
    assert target.read_bytes() == export_access(conn)
    assert [p.name for p in target.parent.iterdir()] == ["access.jsonl"]  # no temp file left
    if os.name == "posix":
        umask = os.umask(0)
        os.umask(umask)
        assert target.stat().st_mode & 0o777 == 0o666 & ~umask

    first = target.stat()
    write_export(conn, store)  # unchanged plane: the file is not rewritten at all
    assert target.stat().st_ino == first.st_ino and target.stat().st_mtime_ns == first.st_mtime_ns

    reinforce(conn, [C], "neutral", at(0))
    write_export(conn, store)
    assert target.read_bytes() == export_access(conn)
    assert [p.name for p in target.parent.iterdir()] == ["access.jsonl"]
    assert import_file(conn, store).unchanged == 3


def test_write_export_refuses_to_destroy_the_durable_copy(tmp_path: Path) -> None:
    store = tmp_path / "store"
    (store / SIDECAR_RELPATH).parent.mkdir(parents=True)
    (store / SIDECAR_RELPATH).write_bytes(_line(A, 4, 0, 0.0, at(0), None, at(0)))

    fresh = open_plane(tmp_path)  # a fresh clone: empty plane, sidecar not imported yet
    with pytest.raises(SidecarWouldEmpty):
        write_export(fresh, store)
    assert (store / SIDECAR_RELPATH).read_bytes() != b""
    assert import_file(fresh, store).imported == 1
    write_export(fresh, store)  # now the same content: fine
    assert (store / SIDECAR_RELPATH).read_bytes() == export_access(fresh)
    fresh.execute("DELETE FROM state.access")
    write_export(fresh, store, force=True)
    assert (store / SIDECAR_RELPATH).read_bytes() == b""
    fresh.close()

    bare = open_index(tmp_path / "bare.db")
    with pytest.raises(StateUnavailable):
        write_export(bare, store)
    bare.close()


def test_import_file_without_a_sidecar(conn, tmp_path: Path) -> None:
    assert import_file(conn, tmp_path / "nowhere") is None


def test_the_store_is_the_door_to_the_sidecar(tmp_path: Path) -> None:
    """The CLI and the window reach the sidecar through Store methods, not through index modules."""
    from memfiles import write_memory
    from memhtml_desktop.domain.hash_embedder import HashEmbedder
    from memhtml_desktop.index.store import Store

    write_memory(tmp_path / "s", "areas/a/one.html", title="One", claim="The first memory.")
    store = Store(tmp_path / "s", index_path=tmp_path / "i.db", embedder=HashEmbedder())
    store.index()
    store.read("areas/a/one.html")
    data = store.export_state()
    assert b'"path":"areas/a/one.html","accessCount":1' in data
    assert store.import_sidecar() is None  # nothing written yet
    assert store.write_state_export() == tmp_path / "s" / SIDECAR_RELPATH
    assert store.import_sidecar().unchanged == 1 and store.import_state(data).imported == 0
    store.close_thread_connection()
