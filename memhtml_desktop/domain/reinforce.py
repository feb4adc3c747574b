"""The pure twin of reinforcement: signals, the cooldown guard and the outcome average.

The index layer writes `state.access` with one conditional upsert whose `RETURNING` decides bumped
versus cooled; this module states the same rules in Python so a property test can pin the SQL guard
to them at the boundary, with both reading the same constants.

Why a cooldown: `access_count` feeds the salience arm, so without one a loop in an agent replaying
one read could rewrite the corpus's ranking. Why only non-neutral signals move the outcome average:
being read is evidence of relevance, not of correctness.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Iterable

REINFORCE_COOLDOWN_S = 900
"""Seconds after the last bump during which another bump of the same path is refused."""

OUTCOME_EWMA_ALPHA = 0.3
"""Weight of the newest signal in `outcome_score`; the old score keeps `1 - alpha`."""

SIGNALS = ("positive", "negative", "neutral")
_VALUES = {"positive": 1.0, "negative": -1.0, "neutral": 0.0}


def signal_value(signal: str) -> float:
    """positive 1.0, negative -1.0, neutral 0.0; anything else is a caller error (ValueError)."""
    try:
        return _VALUES[signal]
    except (KeyError, TypeError):
        raise ValueError(f"unknown signal {signal!r}; expected one of {', '.join(SIGNALS)}") from None


def is_reinforcing(value: float) -> bool:
    """Whether the signal moves `reinforcement_count` and `outcome_score` (not neutral)."""
    return value != 0


def parse_instant(iso: str) -> datetime:
    """An aware UTC datetime from an ISO-8601 instant.

    Accepts `2026-08-02T14:03:11Z`, offsets (`+02:00`) and fractional seconds. A stamp without an
    offset is read as UTC, as SQLite's `unixepoch()` reads it. Raises ValueError when unreadable.
    """
    if not isinstance(iso, str):
        raise ValueError(f"not an ISO instant: {iso!r}")
    text = iso.strip()
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def epoch_seconds(iso: str) -> int:
    """Whole seconds since 1970, truncated like SQLite's `unixepoch()` (sub-seconds dropped)."""
    return int(parse_instant(iso).timestamp())


def should_bump(last_iso: str | None, now_iso: str, cooldown_s: float = REINFORCE_COOLDOWN_S) -> bool:
    """True when there is no stamp, or at least `cooldown_s` whole seconds have passed.

    The boundary is inclusive: exactly 900 s later bumps, 899 s does not. A stamp in the future
    (clock skew) gives a negative gap and cools. Instants compare as whole seconds, as the SQL
    guard's `unixepoch(?2) - unixepoch(last) >= ?6` does. An unreadable stored stamp cools too,
    because there `unixepoch` yields NULL and the guard is not met; an unreadable `now_iso` is a
    caller bug and raises ValueError.
    """
    now = epoch_seconds(now_iso)
    if last_iso is None or last_iso == "":
        return True
    try:
        last = epoch_seconds(last_iso)
    except ValueError:
        return False
    return now - last >= cooldown_s


def next_outcome(old: float | None, value: float, alpha: float = OUTCOME_EWMA_ALPHA) -> float:
    """The outcome score after one bump carrying signal `value` (-1, 0 or 1).

    A new row takes `value` itself (a first positive is 1.0, not 0.3). On an existing row a neutral
    signal leaves the score alone; otherwise `clamp(old * (1 - alpha) + value * alpha, -1, 1)`.
    """
    if not math.isfinite(value):
        raise ValueError(f"signal value must be finite, got {value!r}")
    if old is None:
        return _clamp(value)
    if not is_reinforcing(value):
        return old
    return _clamp(old * (1 - alpha) + value * alpha)


def _clamp(x: float) -> float:
    return max(-1.0, min(1.0, x))


def targets(paths: Iterable[str]) -> list[str]:
    """The paths to reinforce: first occurrence order, repeats and empty strings removed."""
    return [p for p in dict.fromkeys(paths) if p]


def replace_outcome(
    score: float, count: int, previous: float, value: float, alpha: float = OUTCOME_EWMA_ALPHA
) -> tuple[float, int]:
    """`(score, reinforcement_count)` had `previous` never been sent and `value` sent instead.

    A person's second click within the signal cooldown replaces the first (a misclick is taken
    back; a neutral `value` withdraws it). The EWMA step is undone exactly: `previous` moved the
    score from `s0` to `s0 * (1 - alpha) + previous * alpha` (never clamped, since |s0| and
    |previous| are at most 1). A row made by that very signal (count 1, score == previous) had no
    score before it, and one whose count was 0 before had the default 0.0. A `previous` of 0 means
    the first click was already withdrawn: the score is the one before it.
    """
    if not all(math.isfinite(x) for x in (score, previous, value)):
        raise ValueError("scores and signal values must be finite")
    if is_reinforcing(previous):
        base_count = max(0, count - 1)
        if base_count == 0:
            base: float | None = None if score == previous else 0.0
        else:
            base = (score - previous * alpha) / (1 - alpha)
    else:
        base_count, base = count, score
    if not is_reinforcing(value):
        return (0.0 if base is None else _clamp(base)), base_count
    return next_outcome(None if base is None else _clamp(base), value, alpha), base_count + 1
