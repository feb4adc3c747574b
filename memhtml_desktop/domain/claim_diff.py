"""Where two near-identical claims disagree, and in which words: the conflicts view's core.

Two memories whose vectors are near-twins yet whose claims differ in a negation, a number or a
variant qualifier (polarity's merge veto, `polarity.diverges`) state the same fact two ways, and
at most one of them can be right. The ranking's polarity step uses the same rule to decide which
of such a pair to demote for a query; the conflicts view lists every such pair in the store.

`claim_diff` says which of the three disagreements hold and which words differ, with character
spans into each original claim so a view can highlight them. Words are compared after polarity's
normalisation (lower case, typographic apostrophes folded, contractions expanded), aligned with a
longest-common-subsequence diff, so "does not merge" vs "merges" marks `does not merge`/`merges`,
and "800 ms" vs "650 ms" marks only the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

import regex

from memhtml_desktop.domain.polarity import (
    negation_divergent,
    numeric_token_divergent,
    tokens,
    variant_qualifier_divergent,
)

#: A word as written: letters/digits, with inner `.` (5.10) or apostrophes (don't, isn’t) kept.
_WORD = regex.compile(r"[\p{L}\p{N}]+(?:[.'\u2019\u02bc][\p{L}\p{N}]+)*")

NEGATION, NUMBER, QUALIFIER = "negation", "number", "qualifier"


@dataclass(frozen=True)
class ClaimDiff:
    """How claims `a` and `b` disagree.

    `kinds`: which of negation, number, qualifier differ (polarity's veto), in that order.
    `only_a` / `only_b`: the normalised words found on one side only, in claim order.
    `spans_a` / `spans_b`: `(start, end)` character ranges of the differing words in each original
    claim, adjacent words merged into one span.
    """

    kinds: tuple[str, ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    spans_a: tuple[tuple[int, int], ...]
    spans_b: tuple[tuple[int, int], ...]

    def to_json(self) -> dict:
        return {
            "kinds": list(self.kinds),
            "only_a": list(self.only_a),
            "only_b": list(self.only_b),
            "spans_a": [list(s) for s in self.spans_a],
            "spans_b": [list(s) for s in self.spans_b],
        }


def disagreement(a: str, b: str) -> tuple[str, ...]:
    """Which of negation, number and qualifier differ between the two claims (empty: they agree)."""
    kinds = []
    if negation_divergent(a, b):
        kinds.append(NEGATION)
    if numeric_token_divergent(a, b):
        kinds.append(NUMBER)
    if variant_qualifier_divergent(a, b):
        kinds.append(QUALIFIER)
    return tuple(kinds)


def _words(text: str) -> list[tuple[str, int, int]]:
    """(normalised token, start, end) for every token, the span being the written word it came from."""
    out: list[tuple[str, int, int]] = []
    for match in _WORD.finditer(text):
        for token in tokens(match.group(0)):
            out.append((token, match.start(), match.end()))
    return out


def _merge(spans: list[tuple[int, int]], text: str) -> tuple[tuple[int, int], ...]:
    merged: list[list[int]] = []
    for start, end in sorted(set(spans)):
        if merged and text[merged[-1][1] : start].strip() == "":
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple((s, e) for s, e in merged)


def claim_diff(a: str, b: str) -> ClaimDiff | None:
    """The disagreement between two claims, or None when polarity's veto finds none."""
    kinds = disagreement(a, b)
    if not kinds:
        return None
    return words_diff(a, b, kinds)


def words_diff(a: str, b: str, kinds: tuple[str, ...]) -> ClaimDiff:
    """The differing words of two claims, with their spans, under the `kinds` a rule named
    (the conflicts scan's reason: `slot`, `entity`, … besides polarity's three)."""
    words_a, words_b = _words(a), _words(b)
    matcher = SequenceMatcher(a=[w[0] for w in words_a], b=[w[0] for w in words_b], autojunk=False)
    only_a: list[str] = []
    only_b: list[str] = []
    spans_a: list[tuple[int, int]] = []
    spans_b: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for token, start, end in words_a[i1:i2]:
            only_a.append(token)
            spans_a.append((start, end))
        for token, start, end in words_b[j1:j2]:
            only_b.append(token)
            spans_b.append((start, end))
    return ClaimDiff(
        kinds=kinds,
        only_a=tuple(dict.fromkeys(only_a)),
        only_b=tuple(dict.fromkeys(only_b)),
        spans_a=_merge(spans_a, a),
        spans_b=_merge(spans_b, b),
    )
