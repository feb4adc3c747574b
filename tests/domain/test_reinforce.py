"""The pure twin of reinforcement (retrieval.md section 10; section 12 items 34-36), pinned to
SQLite's `unixepoch()` guard the index layer's upsert uses."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml_desktop.domain.reinforce import (
    OUTCOME_EWMA_ALPHA,
    REINFORCE_COOLDOWN_S,
    SIGNALS,
    epoch_seconds,
    is_reinforcing,
    next_outcome,
    parse_instant,
    should_bump,
    signal_value,
    targets,
)

T0 = "2026-08-02T14:03:11Z"


def _at(seconds: float, base: str = T0) -> str:
    moment = parse_instant(base) + timedelta(seconds=seconds)
    millis = f".{moment.microsecond // 1000:03d}" if moment.microsecond else ""
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + millis + "Z"


def test_constants() -> None:
    assert REINFORCE_COOLDOWN_S == 900 and OUTCOME_EWMA_ALPHA == 0.3
    assert SIGNALS == ("positive", "negative", "neutral")


def test_signal_values() -> None:
    assert [signal_value(s) for s in SIGNALS] == [1.0, -1.0, 0.0]
    assert [is_reinforcing(signal_value(s)) for s in SIGNALS] == [True, True, False]


@pytest.mark.parametrize("bad", ["Positive", "", "bogus", None, 1])
def test_an_unknown_signal_is_a_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        signal_value(bad)  # type: ignore[arg-type]


def test_parse_instants() -> None:
    utc = datetime(2026, 8, 2, 14, 3, 11, tzinfo=timezone.utc)
    assert parse_instant(T0) == utc
    assert parse_instant("2026-08-02T16:03:11+02:00") == utc
    assert parse_instant("2026-08-02T14:03:11.250Z") == utc + timedelta(milliseconds=250)
    assert parse_instant("2026-08-02 14:03:11") == utc  # no offset: UTC, as unixepoch reads it
    assert epoch_seconds("2026-08-02T14:03:11.999Z") == epoch_seconds(T0)
    with pytest.raises(ValueError):
        parse_instant("yesterday")


@pytest.mark.parametrize(
    ("offset", "bumps"),
    [(0, False), (1, False), (60, False), (898, False), (899, False), (900, True), (901, True), (1800, True)],
)
def test_the_cooldown_boundary_is_inclusive(offset: int, bumps: bool) -> None:
    assert should_bump(T0, _at(offset)) is bumps


def test_no_stamp_bumps_and_a_future_stamp_cools() -> None:
    assert should_bump(None, T0) and should_bump("", T0)
    assert not should_bump(_at(3600), T0)


def test_an_unreadable_stored_stamp_cools_like_the_sql_guard() -> None:
    assert not should_bump("garbage", T0)
    with pytest.raises(ValueError):
        should_bump(T0, "garbage")


def test_offsets_and_custom_cooldown() -> None:
    assert should_bump("2026-08-02T16:03:11+02:00", _at(900))
    assert should_bump(T0, _at(10), cooldown_s=10) and not should_bump(T0, _at(9), cooldown_s=10)


def test_whole_seconds_are_compared_as_unixepoch_does() -> None:
    # 899.2 real seconds apart, but 900 apart in whole seconds: the SQL guard bumps, so we do too
    assert should_bump("2026-08-02T14:03:11.900Z", "2026-08-02T14:18:11.100Z")


def test_outcome_average() -> None:
    assert next_outcome(None, 1.0) == 1.0
    assert next_outcome(None, -1.0) == -1.0
    assert next_outcome(None, 0.0) == 0.0
    assert next_outcome(1.0, 0.0) == 1.0  # neutral on an existing row: count only
    assert next_outcome(1.0, -1.0) == pytest.approx(0.4)
    score = 1.0
    for _ in range(30):
        score = next_outcome(score, -1.0)
    assert -1.0 <= score < -0.9
    assert next_outcome(5.0, 1.0) == 1.0  # clamped
    with pytest.raises(ValueError):
        next_outcome(0.0, float("nan"))


@given(st.floats(-1, 1), st.sampled_from([-1.0, 0.0, 1.0]))
def test_outcome_stays_in_range(old: float, value: float) -> None:
    assert -1.0 <= next_outcome(old, value) <= 1.0


def test_targets_dedupe_in_first_order_and_drop_empties() -> None:
    assert targets(["b", "a", "", "b", "c", "a"]) == ["b", "a", "c"]
    assert targets([]) == []


_OFFSETS = st.one_of(
    st.sampled_from([0, 1, 898, 899, 900, 901, 1800, -1, -900]),
    st.integers(-5000, 5000),
    st.floats(-5000, 5000, allow_nan=False).map(lambda x: round(x, 3)),
)


@settings(max_examples=200, deadline=None)
@given(_OFFSETS, st.sampled_from(["Z", "+02:00", "-07:30"]))
def test_the_sql_guard_and_should_bump_agree(offset: float, zone: str) -> None:
    last = "2026-08-02T14:03:11.400" + zone
    now = _at(offset, last)
    db = apsw.Connection(":memory:")
    guard = "SELECT unixepoch(?2) - unixepoch(?1) >= ?3"
    (sql,) = db.execute(guard, (last, now, REINFORCE_COOLDOWN_S)).fetchone()
    assert bool(sql) == should_bump(last, now)
