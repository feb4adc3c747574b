"""Issue 17, items 4-6 and the daylight-saving case: time that sorts as time.

memhtml keeps `<time datetime>` and the `memhtml-*` stamps verbatim and compares them as text. The
index keeps those projected columns byte-identical (the conformance goldens pin them) and ranks and
filters on a normalised UTC instant kept beside them. Every store here is real files, a real index
and a pinned clock; ranks are read from the real recency arm (`Store.why` ranks every file, outside
the 40-candidate window too).
"""

from __future__ import annotations

import datetime as dt
import json
import random

import pytest
from hardening_support import run_cli

from memfiles import write_memory
from memhtml_desktop.domain.instants import canonical, instant_text, parse_instant
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.html.datetime_rule import is_valid_datetime
from memhtml_desktop.index.store import Store

NOW = dt.datetime(2026, 3, 25, 12, 0, tzinfo=dt.timezone.utc)


def _store(tmp_path, memories: dict[str, dict], *, now: dt.datetime = NOW) -> Store:
    root = tmp_path / "store"
    for path, kwargs in memories.items():
        kwargs = dict(kwargs)
        kwargs.setdefault("title", path.rsplit("/", 1)[-1].removesuffix(".html").replace("-", " "))
        kwargs.setdefault("claim", f"The {kwargs['title']} claim about the release train.")
        kwargs.setdefault("created", "2026-01-01T00:00:00Z")  # in the past of every clock used here
        write_memory(root, path, **kwargs)
    (root / "projects").mkdir(exist_ok=True)
    clock = {"now": now}
    store = Store(root, index_path=tmp_path / "index.db", clock=lambda: clock["now"])
    store.test_clock = clock  # lets a test move time forward
    report = store.index()
    assert report.failed == 0, report.failures
    return store


def recency_ranks(store: Store) -> dict[str, int]:
    """Every file's rank in the recency arm (the arm alone, no candidate window)."""
    from memhtml_desktop.index.retrieval_sql import bind_params, build_arm_sql
    from memhtml_desktop.index.scope import assemble_scope

    scope_sql = assemble_scope(Scope())
    sql = build_arm_sql("recency", scope_sql.filter)
    params = bind_params(sql, (None, -1, None, None), scope_sql.params)
    return {path: rank for path, rank, _ in store.reader().execute(sql, params)}


def recency_times(store: Store) -> dict[str, str]:
    """The instant each file was ranked by (the arm's raw value)."""
    from memhtml_desktop.index.retrieval_sql import bind_params, build_arm_sql
    from memhtml_desktop.index.scope import assemble_scope

    scope_sql = assemble_scope(Scope())
    sql = build_arm_sql("recency", scope_sql.filter)
    params = bind_params(sql, (None, -1, None, None), scope_sql.params)
    return {path: raw for path, _, raw in store.reader().execute(sql, params)}


# -- item 4: offsets ------------------------------------------------------------------------------


def test_an_offset_event_ranks_by_its_instant_not_its_text(tmp_path):
    """23:30 at -05:00 on the 23rd is 04:30Z on the 24th: later than 03:00Z on the 24th."""
    store = _store(
        tmp_path,
        {
            "areas/ops/chicago-evening.html": {"event": "2026-03-23T23:30:00-05:00", "created": "2026-03-01T00:00:00Z"},
            "areas/ops/utc-night.html": {"event": "2026-03-24T03:00:00Z", "created": "2026-03-01T00:00:00Z"},
            "areas/ops/older.html": {"event": "2026-03-20", "created": "2026-03-01T00:00:00Z"},
        },
    )
    ranks = recency_ranks(store)
    assert ranks["areas/ops/chicago-evening.html"] == 1
    assert ranks["areas/ops/utc-night.html"] == 2
    assert ranks["areas/ops/older.html"] == 3
    # The projected column is memhtml's, byte for byte; the instant sits beside it.
    row = (
        store.reader()
        .execute("SELECT event_at, recency_utc FROM files WHERE path = 'areas/ops/chicago-evening.html'")
        .fetchone()
    )
    assert row == ("2026-03-23T23:30:00-05:00", "2026-03-24T04:30:00.000Z")
    hit = next(h for h in store.search("release train").hits if h.path == "areas/ops/chicago-evening.html")
    assert hit.arm("recency").raw == {"time": "2026-03-24T04:30:00.000Z"}


def test_daylight_saving_boundaries_order_by_instant(tmp_path):
    """US spring-forward (01:59 EST, then 03:00 EDT one minute later) and fall-back (01:30 EDT, then
    01:30 EST an hour later): the wall clocks say nothing; the offsets say everything."""
    store = _store(
        tmp_path,
        {
            "areas/dst/a-spring-before.html": {"event": "2026-03-08T01:59:00-05:00"},
            "areas/dst/b-spring-after.html": {"event": "2026-03-08T03:00:00-04:00"},
            "areas/dst/c-fall-first.html": {"event": "2026-11-01T01:30:00-04:00"},
            "areas/dst/d-fall-second.html": {"event": "2026-11-01T01:30:00-05:00"},
            "areas/dst/e-fall-between.html": {"event": "2026-11-01T06:00:00Z"},
            "areas/dst/f-eu-spring.html": {"event": "2026-03-29T03:00:00+0200"},
        },
        now=dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc),
    )
    ranks = recency_ranks(store)
    order = sorted(ranks, key=ranks.get)
    assert order == [
        "areas/dst/d-fall-second.html",  # 06:30Z
        "areas/dst/e-fall-between.html",  # 06:00Z
        "areas/dst/c-fall-first.html",  # 05:30Z
        "areas/dst/f-eu-spring.html",  # 01:00Z on the 29th
        "areas/dst/b-spring-after.html",  # 07:00Z on the 8th
        "areas/dst/a-spring-before.html",  # 06:59Z on the 8th
    ]
    # as-of between the two 01:30s: the first happened, the second had not.
    listed = {m.path for m in store.list(Scope.build(as_of="2026-11-01T01:45:00-04:00"), limit=100).files}
    assert "areas/dst/c-fall-first.html" in listed and "areas/dst/d-fall-second.html" not in listed
    assert "areas/dst/e-fall-between.html" not in listed  # 06:00Z is after 05:45Z


def test_a_random_store_ranks_exactly_by_instant(tmp_path):
    """Seeded random offsets (every quarter hour from -12:00 to +14:00, with and without a colon):
    the arm's order is the order of the instants, ties broken by path."""
    rng = random.Random(1717)
    memories, instants = {}, {}
    base = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    for i in range(60):
        moment = base + dt.timedelta(minutes=rng.randrange(0, 60 * 24 * 60))
        minutes = rng.randrange(-12 * 4, 14 * 4 + 1) * 15
        offset = dt.timedelta(minutes=minutes)
        local = (moment + offset).replace(tzinfo=None)
        sign = "-" if minutes < 0 else "+"
        hh, mm = divmod(abs(minutes), 60)
        zone = (
            rng.choice([f"{sign}{hh:02d}:{mm:02d}", f"{sign}{hh:02d}{mm:02d}"])
            if minutes
            else rng.choice(["Z", "+00:00"])
        )
        path = f"areas/r/m{rng.randrange(10**6):06d}-{i}.html"
        memories[path] = {"event": local.strftime("%Y-%m-%dT%H:%M:%S") + zone}
        instants[path] = moment
    store = _store(tmp_path, memories)
    ranks = recency_ranks(store)
    expected = sorted(instants, key=lambda p: (-instants[p].timestamp(), p))
    assert sorted(ranks, key=ranks.get) == expected


# -- item 5: claimed future dates --------------------------------------------------------------


def test_a_memory_dated_9999_never_tops_the_recency_arm(tmp_path):
    store = _store(
        tmp_path,
        {
            "areas/ops/pinned.html": {"event": "9999-12-31", "created": "2026-01-05T00:00:00Z"},
            "areas/ops/recent.html": {"event": "2026-03-24T08:00:00Z"},
            "areas/ops/last-week.html": {"event": "2026-03-18"},
            "areas/ops/february.html": {"event": "2026-02-01T00:00:00Z"},
        },
    )
    ranks = recency_ranks(store)
    # Not clamped to now (that would still beat every past date): it falls back to its own
    # `updated` stamp, 2026-01-05, and ranks below everything dated after that.
    assert ranks["areas/ops/recent.html"] == 1
    assert ranks["areas/ops/pinned.html"] == 4
    hit = next(h for h in store.search("release train").hits if h.path == "areas/ops/pinned.html")
    assert hit.suspicious_date == "9999-12-31"
    assert hit.arm("recency").raw == {"time": "2026-01-05T00:00:00.000Z"}
    assert all(
        h.suspicious_date is None for h in store.search("release train").hits if h.path != "areas/ops/pinned.html"
    )
    detail = store.read("areas/ops/pinned.html", bump=False)
    assert detail.suspicious_date == "9999-12-31"
    assert detail.to_json()["suspicious_date"] == "9999-12-31"


def test_a_future_updated_stamp_cannot_hold_the_top_either(tmp_path):
    store = _store(
        tmp_path,
        {
            "areas/ops/forged-updated.html": {"created": "2026-01-05T00:00:00Z", "updated": "9999-12-31T23:59:59Z"},
            "areas/ops/forged-both.html": {
                "event": "3000-01-01",
                "created": "2026-01-05T00:00:00Z",
                "updated": "2999-01-01T00:00:00Z",
            },
            "areas/ops/honest.html": {"created": "2025-06-01T00:00:00Z"},
        },
    )
    ranks = recency_ranks(store)
    assert ranks["areas/ops/honest.html"] == 1
    assert {ranks["areas/ops/forged-updated.html"], ranks["areas/ops/forged-both.html"]} == {2, 3}
    flagged = {h.path: h.suspicious_date for h in store.search("release train").hits}
    assert flagged["areas/ops/forged-updated.html"] == "9999-12-31T23:59:59Z"
    assert flagged["areas/ops/forged-both.html"] == "3000-01-01"
    assert flagged["areas/ops/honest.html"] is None


def test_a_date_that_was_future_ranks_by_it_once_it_has_passed(tmp_path):
    store = _store(
        tmp_path,
        {
            "areas/ops/planned.html": {"event": "2026-04-01T09:00:00Z", "created": "2026-01-05T00:00:00Z"},
            "areas/ops/yesterday.html": {"event": "2026-03-24"},
        },
    )
    assert recency_ranks(store)["areas/ops/planned.html"] == 2
    store.test_clock["now"] = dt.datetime(2026, 4, 2, tzinfo=dt.timezone.utc)
    assert recency_ranks(store)["areas/ops/planned.html"] == 1
    hit = next(h for h in store.search("release train").hits if h.path == "areas/ops/planned.html")
    assert hit.suspicious_date is None


def test_no_claimed_future_date_ever_holds_the_top(tmp_path):
    """Seeded stores mixing past and future claims: rank 1 is always a memory whose recency
    instant is in the past, and every future claimer ranks where its `updated` stamp puts it."""
    rng = random.Random(99)
    memories = {}
    for i in range(40):
        past = NOW - dt.timedelta(hours=rng.randrange(1, 24 * 400))
        future = NOW + dt.timedelta(hours=rng.randrange(1, 24 * 365 * 8000))
        kind = rng.choice(["past", "future-event", "future-updated"])
        kwargs = {"created": past.strftime("%Y-%m-%dT%H:%M:%SZ")}
        if kind == "future-event":
            kwargs["event"] = future.strftime("%Y-%m-%d")
        elif kind == "future-updated":
            kwargs["updated"] = future.strftime("%Y-%m-%dT%H:%M:%SZ")
        else:
            kwargs["event"] = (past + dt.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%S+00:00")
        memories[f"areas/f/m{i:02d}-{kind}.html"] = kwargs
    store = _store(tmp_path, memories)
    ranks = recency_ranks(store)
    times = recency_times(store)
    top = min(ranks, key=ranks.get)
    # The top may be a future claimer ranked by its honest `updated` stamp, never by its claim.
    assert times[top] <= canonical(NOW) and all(t <= canonical(NOW) for t in times.values())
    rows = dict(store.reader().execute("SELECT path, updated_utc FROM files"))
    keys = {}
    for path in ranks:
        kwargs = memories[path]
        if "future-updated" in path:
            keys[path] = ""
        elif "future-event" in path:
            keys[path] = rows[path]
        else:
            keys[path] = instant_text(kwargs["event"])
    expected = sorted(ranks, key=lambda p: p)
    expected.sort(key=lambda p: keys[p], reverse=True)
    assert sorted(ranks, key=ranks.get) == expected


# -- item 6: --as-of -----------------------------------------------------------------------------


def test_as_of_compares_instants(tmp_path):
    store = _store(
        tmp_path,
        {
            "areas/v/starts-at-noon-utc.html": {"extra_metas": [("memhtml-valid-from", "2026-03-23T12:00:00Z")]},
            "areas/v/ends-at-noon-plus-one.html": {
                "created": "2026-01-01T00:00:00Z",
                "extra_metas": [("memhtml-valid-until", "2026-03-23T13:00:00+01:00")],
            },
            "areas/v/created-in-tokyo.html": {"created": "2026-03-23T20:00:00+09:00"},
        },
    )
    same = ["2026-03-23T13:00:00+02:00", "2026-03-23T11:00:00Z", "2026-03-23T11:00:00.000Z", "2026-03-23T06:00-0500"]
    lists = [sorted(m.path for m in store.list(Scope.build(as_of=a), limit=100).files) for a in same]
    assert all(listed == lists[0] for listed in lists)
    # 11:00Z: not yet valid from noon UTC; valid until 12:00Z still; created 11:00Z exactly.
    assert lists[0] == ["areas/v/created-in-tokyo.html", "areas/v/ends-at-noon-plus-one.html"]
    later = sorted(m.path for m in store.list(Scope.build(as_of="2026-03-23T12:30:00Z"), limit=100).files)
    assert later == ["areas/v/created-in-tokyo.html", "areas/v/starts-at-noon-utc.html"]


@pytest.mark.parametrize(
    "bad, says",
    [
        ("2026-13-45", "no month 13"),
        ("2026-02-30", "has no day 30"),
        ("2026-03-23T13:00:00-25:00", "offset -25:00 is out of range"),
        ("nonsense", "not an ISO date"),
        ("2026-03-23T24:00:00Z", "out of range"),
        ("", "not an ISO date"),
    ],
)
def test_a_bad_as_of_is_a_usage_error_with_a_clear_message(tmp_path, bad, says):
    store = _store(tmp_path, {"areas/ops/one.html": {}})
    if bad:  # an empty as-of is "no as-of" to the library; only the command line refuses it
        with pytest.raises(ValueError, match=says):
            Scope.build(as_of=bad)
    for command in (["list"], ["search", "release"], ["recall", "release"]):
        proc = run_cli([*command, "--as-of", bad, "--store", str(store.root), "--index", str(store.index_path)])
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        err = proc.stderr.decode()
        assert "--as-of" in err and says in err and "Traceback" not in err


def test_the_same_instant_in_two_zones_lists_the_same_memories_through_the_cli(tmp_path):
    store = _store(
        tmp_path,
        {
            "areas/v/a.html": {"created": "2026-03-23T10:59:59Z"},
            "areas/v/b.html": {"created": "2026-03-23T11:00:01Z"},
            "areas/v/c.html": {"created": "2026-03-23T12:30:00+01:30"},
        },
    )
    outputs = []
    for as_of in ("2026-03-23T13:00:00+02:00", "2026-03-23T11:00:00Z"):
        proc = run_cli(
            ["list", "--json", "--as-of", as_of, "--store", str(store.root), "--index", str(store.index_path)]
        )
        assert proc.returncode == 0, proc.stderr
        outputs.append(sorted(f["path"] for f in json.loads(proc.stdout)["files"]))
    assert outputs[0] == outputs[1] == ["areas/v/a.html", "areas/v/c.html"]


# -- the migration and the parser ----------------------------------------------------------------


def test_an_index_from_before_the_instants_is_migrated_and_backfilled(tmp_path):
    store = _store(
        tmp_path,
        {
            "areas/ops/chicago-evening.html": {"event": "2026-03-23T23:30:00-05:00"},
            "areas/ops/utc-night.html": {"event": "2026-03-24T03:00:00Z"},
        },
    )
    conn = store.reader()
    # Make it the index of the previous release: no instant columns, no 0007 in the ledger.
    conn.execute("DROP INDEX files_recency_utc")
    for column in ("recency_utc", "updated_utc", "valid_from_utc", "valid_until_utc"):
        conn.execute(f"ALTER TABLE files DROP COLUMN {column}")
    conn.execute("DELETE FROM schema_migrations WHERE name LIKE '0007%'")
    conn.execute("CREATE INDEX files_recency ON files (coalesce(event_at, updated_at) DESC, path)")
    store.close_thread_connection()
    again = Store(store.root, index_path=store.index_path, clock=lambda: NOW)
    ranks = recency_ranks(again)
    assert ranks["areas/ops/chicago-evening.html"] == 1
    assert again.reader().execute("SELECT count(*) FROM files WHERE recency_utc = ''").fetchone()[0] == 0


def test_the_instant_grammar_is_memhtmls():
    """Every string memhtml accepts names an instant, and every one it refuses names none."""
    rng = random.Random(5)
    samples = [
        "2026-03-23",
        "2026-03-23T13:00",
        "2026-03-23 13:00:60.123456+0530",
        "0099-01-01",
        "0100-01-01",
        "2024-02-29",
        "2025-02-29",
        "2026-03-23T13:00Z",
        "2026-03-23T13:00:00+24:00",
        "2026-3-23",
        "٢٠٢٦-03-23",
        "2026-03-23T13:00:00z",
        "9999-12-31T23:59:60-23:59",
    ]
    alphabet = "0123456789-:T Z+."
    for _ in range(3000):
        samples.append("".join(rng.choice(alphabet) for _ in range(rng.randrange(8, 30))))
        samples.append(
            f"{rng.randrange(0, 10000):04d}-{rng.randrange(0, 14):02d}-{rng.randrange(0, 33):02d}"
            f"T{rng.randrange(0, 25):02d}:{rng.randrange(0, 61):02d}:{rng.randrange(0, 62):02d}"
            + rng.choice(["", "Z", f"+{rng.randrange(0, 25):02d}:{rng.randrange(0, 61):02d}"])
        )
    for text in samples:
        assert (instant_text(text) is not None) == is_valid_datetime(text), text
    assert instant_text("9999-12-31T23:59:60-23:59") == "9999-12-31T23:59:59.999Z"
    assert instant_text("2026-03-23T13:00:60Z") == "2026-03-23T13:01:00.000Z"
    assert parse_instant("2026-03-23T13:00:00.123456Z").microsecond == 123000
