"""The words a row shows: which spans of a title or snippet match the query, and the window cut around them.

Pure (no painting), so they are tested on their own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

PREFIX_MIN = 4
"""Query words this long also mark longer words they start (`drain` marks `draining`), roughly
what the stemming tokenizer matches; shorter words (`the`, `vip`) must match whole."""


def highlight_spans(text: str, words: Iterable[str]) -> list[tuple[int, int]]:
    """Sorted, non-overlapping `(start, end)` spans of `text` that show a query word.

    Matching is case-folded and on word boundaries; words of PREFIX_MIN letters or more also match
    as the start of a longer word.
    """
    words = [w for w in words if w]
    if not words or not text:
        return []
    exact = [re.escape(w) for w in words if len(w) < PREFIX_MIN]
    prefix = [re.escape(w) for w in words if len(w) >= PREFIX_MIN]
    parts = []
    if prefix:
        parts.append(r"(?:" + "|".join(sorted(prefix, key=len, reverse=True)) + r")\w*")
    if exact:
        parts.append(r"(?:" + "|".join(sorted(exact, key=len, reverse=True)) + r")(?!\w)")
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(parts) + ")", re.IGNORECASE)
    return [(m.start(), m.end()) for m in pattern.finditer(text)]


def snippet_window(text: str, spans: list[tuple[int, int]], lead: int = 24) -> tuple[str, list[tuple[int, int]]]:
    """Start the snippet shortly before its first telling match, so the match is on screen.

    The anchor is the first marked word of PREFIX_MIN letters or more (a `the` early in the text
    says little), else the first marked word. Returns the (possibly shortened, "…"-prefixed) text
    and the spans shifted to match it.
    """
    if not spans:
        return text, spans
    anchor = next((a for a, b in spans if b - a >= PREFIX_MIN), spans[0][0])
    if anchor <= lead:
        return text, spans
    start = anchor - lead
    space = text.find(" ", start)
    if 0 <= space < anchor:
        start = space + 1
    spans = [(a, b) for a, b in spans if a >= start]
    shifted = [(a - start + 1, b - start + 1) for a, b in spans]
    return "\u2026" + text[start:], shifted


def runs(text: str, spans: list[tuple[int, int]]) -> list[tuple[str, bool]]:
    """`text` cut into `(piece, highlighted)` runs."""
    out: list[tuple[str, bool]] = []
    at = 0
    for start, end in spans:
        if start > at:
            out.append((text[at:start], False))
        out.append((text[start:end], True))
        at = end
    if at < len(text):
        out.append((text[at:], False))
    return out
