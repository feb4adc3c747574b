"""The datetime grammar for `<time datetime>` and `memhtml-due` (`isValidDatetime` in memhtml).

`files.event_at` and `files.due_at` are stored verbatim and compared as strings, so memhtml admits
only a narrow ISO shape: a calendar date, optionally a `T`/space and `HH:MM`, optional `:SS`
(00-60, a leap second is a real instant) with an optional fraction, and an optional `Z` or
`±HH[:]MM` zone. There is no UTC normalization.

Two quirks are kept on purpose, because the TypeScript has them:

- the calendar check round-trips through JS `Date.UTC`, which maps years 0-99 to 1900-1999, so
  years 0000-0099 are rejected;
- digits are ASCII only (JS `\\d`), whereas Python's `\\d` would accept Arabic-Indic digits.
"""

from __future__ import annotations

import re

_DATETIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
    r"(?:[T ](?:[01][0-9]|2[0-3]):[0-5][0-9]"
    r"(?::(?:[0-5][0-9]|60)(?:\.[0-9]+)?)?"
    r"(?:Z|[+-](?:[01][0-9]|2[0-3]):?[0-5][0-9])?)?"
)
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def is_valid_datetime(value: str) -> bool:
    """True when memhtml accepts `value` as a `<time datetime>` or `memhtml-due`."""
    match = _DATETIME.fullmatch(value)
    if match is None:
        return False
    year, month, day = (int(part) for part in match.groups())
    if year < 100 or not 1 <= month <= 12 or day < 1:
        return False
    days = 29 if month == 2 and _is_leap(year) else _DAYS[month - 1]
    return day <= days
