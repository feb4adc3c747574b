"""Instants: memhtml's datetime text read as points on one UTC time line.

memhtml stores `<time datetime>`, `memhtml-updated` and the validity stamps verbatim and compares
them as text, so `2026-03-23T23:30:00-05:00` (04:30Z on the 24th) sorts before
`2026-03-24T03:00:00Z`. The index keeps those columns verbatim (they are memhtml's projection, pinned
by the conformance goldens) and a canonical instant beside each one that is compared: UTC,
milliseconds, fixed width (`YYYY-MM-DDTHH:MM:SS.mmmZ`), so text order IS time order.

How text is read (the grammar is memhtml's `isValidDatetime`, twinned in `html/datetime_rule.py`):

- a date alone is midnight UTC (an as-of date is the end of that day: `as_of_instant`); a time without a zone is read as UTC. A zone-less time names no one
  instant, and UTC is the one reading every machine that opens the store agrees on;
- `±HH:MM` and `±HHMM` offsets are applied, so the two sides of a daylight-saving change (`-05:00`
  then `-04:00`) land an hour or a minute apart as they should, whatever the wall clock says;
- a leap second (`:60`) is the first instant of the next minute; digits past the millisecond are cut;
- an instant past the end of year 9999 (`9999-12-31T23:00-05:00`) is the last representable one.

Pure: no clock is read here; callers pass `now`.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable

_UTC = _dt.timezone.utc

# Loose on purpose (any two digits): `reason` can then say WHICH part is out of range.
_SHAPE = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
    r"(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?"
    r"(Z|[+-][0-9]{2}:?[0-9]{2})?)?"
)
_MAX = _dt.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=_UTC)
_MIN = _dt.datetime(1, 1, 1, tzinfo=_UTC)

EXAMPLES = "2026-03-23, 2026-03-23T13:00:00Z or 2026-03-23T13:00:00+02:00"


class NotAnInstant(ValueError):
    """Text that does not name an instant; the message says which part is wrong."""


def _offset(zone: str | None) -> _dt.timedelta:
    if not zone or zone == "Z":
        return _dt.timedelta(0)
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 23 or minutes > 59:
        raise NotAnInstant(f"the offset {zone} is out of range (-23:59 to +23:59)")
    return sign * _dt.timedelta(hours=hours, minutes=minutes)


def parse_instant(text: str) -> _dt.datetime:
    """The UTC instant `text` names, or NotAnInstant saying why not."""
    if not isinstance(text, str):
        raise NotAnInstant(f"{text!r} is not text")
    match = _SHAPE.fullmatch(text)
    if match is None:
        raise NotAnInstant(f"{text!r} is not an ISO date or datetime (e.g. {EXAMPLES})")
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    y, mo, d = int(year), int(month), int(day)
    if y < 100:
        # memhtml's check round-trips through JS Date.UTC, which maps years 0-99 to 1900-1999.
        raise NotAnInstant(f"{text!r}: years before 0100 are not dates memhtml accepts")
    if not 1 <= mo <= 12:
        raise NotAnInstant(f"{text!r}: there is no month {mo}")
    try:
        _dt.date(y, mo, d)
    except ValueError:
        raise NotAnInstant(f"{text!r}: {_dt.date(y, mo, 1):%B %Y} has no day {d}") from None
    h, mi = int(hour or 0), int(minute or 0)
    s = int(second or 0)
    if h > 23 or mi > 59 or s > 60:
        raise NotAnInstant(f"{text!r}: the time {hour}:{minute}{':' + second if second else ''} is out of range")
    millis = int((fraction or "0")[:3].ljust(3, "0"))
    leap = s == 60
    moment = _dt.datetime(y, mo, d, h, mi, 59 if leap else s, millis * 1000, tzinfo=_UTC)
    if leap:
        moment = moment.replace(microsecond=0)
    offset = _offset(zone)
    try:
        if leap:
            moment += _dt.timedelta(seconds=1)
        return moment - offset
    except OverflowError:
        return _MAX if offset < _dt.timedelta(0) or leap else _MIN


def canonical(moment: _dt.datetime) -> str:
    """`YYYY-MM-DDTHH:MM:SS.mmmZ`: fixed width, so comparing the text compares the instants."""
    moment = moment.astimezone(_UTC)
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


def instant_text(text: object) -> str | None:
    """The canonical instant of `text`, or None when it names none (NULL, '', junk)."""
    if not isinstance(text, str) or not text:
        return None
    quick = _plain_instant(text)
    if quick is not None:
        return quick
    try:
        return canonical(parse_instant(text))
    except NotAnInstant:
        return None


_PLAIN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)?")


def _plain_instant(text: str) -> str | None:
    """`canonical(parse_instant(text))` for the two shapes memhtml writes (`2026-03-23` and
    `2026-03-23T13:00:00Z`) read by slicing, None for anything else (or out of range): the full
    reading then decides. A cold index reads four stamps a memory, 80,000 at 20,000 memories."""
    if len(text) not in (10, 20) or _PLAIN.fullmatch(text) is None:
        return None
    year, month, day = int(text[:4]), int(text[5:7]), int(text[8:10])
    if year < 100 or not 1 <= month <= 12 or not 1 <= day <= 28 and not _is_date(year, month, day):
        return None
    if len(text) == 10:
        return text + "T00:00:00.000Z"
    if int(text[11:13]) > 23 or int(text[14:16]) > 59 or int(text[17:19]) > 59:
        return None
    return text[:19] + ".000Z"


def _is_date(year: int, month: int, day: int) -> bool:
    try:
        _dt.date(year, month, day)
    except ValueError:
        return False
    return True


def first_instant(*texts: object) -> str | None:
    """The canonical instant of the first text that names one (memhtml's coalesce, read as time)."""
    for text in texts:
        value = instant_text(text)
        if value is not None:
            return value
    return None


_BARE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def as_of_instant(text: str) -> str:
    """An as-of value as a canonical instant; NotAnInstant (a ValueError) with the reason.

    The one reading shared by `--as-of`, `Scope.build` and the window's as-of field. A date alone
    is the END of that day, UTC: "as of June 1" asks what was true on June 1, including what was
    written that day (a stamp is midnight only where memhtml stores one; here a person is asking).
    """
    raw = text.strip()
    moment = parse_instant(raw)
    if _BARE_DATE.fullmatch(raw):
        end = _dt.timedelta(days=1, milliseconds=-1)
        moment = _MAX if moment > _MAX - end else moment + end
    return canonical(moment)


# The stamps a memory claims about itself. Validity bounds and due dates may lie ahead; these may not.
CLAIMED_STAMPS = ("event_at", "updated_at", "created_at")


def future_claim(stamps: Iterable[tuple[str, object]], now: _dt.datetime) -> str | None:
    """The first claimed stamp (`name`, text) that lies after `now`, as its text; None when none does.

    Recency never lets such a stamp win (see README "How ranking works"); the window shows it as a
    suspicious date.
    """
    limit = canonical(now)
    for _name, text in stamps:
        value = instant_text(text)
        if value is not None and value > limit:
            return str(text)
    return None
