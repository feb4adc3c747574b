"""The as-of instant of a scope: what a person types, checked, as the text the index compares.

`Scope.as_of` asks for the memories valid at one instant. The reading itself is
`domain.instants.as_of_instant`, the one parser behind the CLI's `--as-of`, `Scope.build` and the
window's as-of field: a date means the END of that day (UTC), so "as of June 1" includes what was
written on June 1; an offset is applied; a time without a zone is UTC, as the stamps are. This
module adds what the window needs around it: "empty means none", one ValueError that says what is
expected, and the label a chip shows.
"""

from __future__ import annotations

from memhtml_desktop.domain.instants import NotAnInstant, as_of_instant

EXPECTED = "expected YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss][Z|±hh:mm]"
_DAY_END = "T23:59:59.999Z"


def parse_as_of(text: str | None) -> str | None:
    """`text` as a canonical UTC instant (`YYYY-MM-DDThh:mm:ss.mmmZ`); None when empty; ValueError otherwise."""
    if text is None:
        return None
    raw = str(text).strip()
    if not raw:
        return None
    try:
        return as_of_instant(raw)
    except (NotAnInstant, ValueError, OverflowError) as exc:
        raise ValueError(f"as-of {raw!r}: {exc}; {EXPECTED}") from None


def as_of_label(instant: str | None) -> str:
    """How a chip shows the instant: the day alone when it is a day's end, else the instant."""
    if not instant:
        return ""
    if instant.endswith(_DAY_END):
        return instant[:10]
    return instant.replace("T", " ").removesuffix("Z").removesuffix(".000") + " UTC"
