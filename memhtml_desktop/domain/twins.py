"""Twin resolution: among near-identical candidates, the query's own words decide which goes first.

The polarity step sees one kind of disagreement, a negation. The discrimination gate's controls
stand for three (a negation, a changed number, an added qualifier), and users write others. None
of the four arms can tell "retries 2 times" from "retries 12 times": the two share every word the
lexical arm weighs, sit a hair apart in vector space and tie on recency and salience, so fusion
orders them by noise, and with the hash embedder by an exact RRF tie broken on the path (measured:
a control named `qualified-variant-…` beat its target `schema-…` on path order alone).

The rule generalises polarity. Candidates whose vectors are near-identical (cosine at or above
the embedder's twin threshold) form a twin group. Within a group only the words that differ
between the headlines (title and claim) can decide; each member's deviation from the query is,
compared in this order,

    1. |query words a twin has and it lacks|
    2. |its own differing words the query does not say|

and the group's members are re-seated in the slots the group already held, least deviation
first; equal deviations keep their fused order. A missing query word outweighs any number of
extra words: "worker 90 only" names the twin that says "… on the beta variant only", even though
that one adds "beta" and "variant" (measured: summing the two counts instead pushed such known
items off the page for their unqualified twin). So:

- a candidate with no near-twin in the pool never moves, nor does anything outside a group;
- it is deterministic (positions and words only) and symmetric: a query saying the control's
  words ("retries 12 times", "on the beta variant", "does not merge") puts the control first;
- it is explained: a moved candidate carries the words that decided (`TwinDecision`).

Words are compared after polarity's normalisation (lower case, contractions expanded) and a
light suffix fold (`retries`/`retry`, `merges`/`merged`/`merge` compare equal); function words do
not decide, negation markers all read as `not` (so "never" in a query agrees with "not" in a
claim), and a number is a word ("2" and "12" differ). Explanations quote the words as written.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import regex

from memhtml_desktop.domain import text_memo
from memhtml_desktop.domain.mmr import CosineTable, CosineView
from memhtml_desktop.domain.polarity import NEGATION_MARKERS, VARIANT_QUALIFIERS, normalise
from memhtml_desktop.domain.stopwords import STOPWORD_SET

_WORD = regex.compile(r"[\p{L}\p{N}]+(?:\.[\p{N}]+)*")
NEGATION = "not"


def fold(word: str) -> str:
    """A light, deterministic suffix fold so inflections of one word compare equal.

    Not a stemmer: `ies`/`ied` become `y`, then one of `ing`, `ed`, `es`, `s` and a final `e` go,
    for words of five letters or more that are not numbers. "retries" and "retry" meet at "retry";
    "merges", "merged", "merging" and "merge" at "merg".
    """
    if len(word) < 5 or not word.isalpha():
        return word
    for suffix, replacement in (("ies", "y"), ("ied", "y")):
        if word.endswith(suffix):
            return word[: -len(suffix)] + replacement
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def deciding_words(text: str) -> dict[str, str]:
    """The words of `text` that can decide between twins, folded, each with how it was written."""
    folded, written = _deciding(text)
    return dict(zip(folded, written))


@text_memo.per_text
def _deciding(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The folded words and how each was written, as two tuples (a pair each cost 64 bytes more)."""
    out: dict[str, str] = {}
    for word in text_memo.words(_WORD.findall(normalise(text))):
        if word in NEGATION_MARKERS:
            out.setdefault(NEGATION, word)
        elif word in VARIANT_QUALIFIERS or word not in STOPWORD_SET:
            out.setdefault(sys.intern(fold(word)), word)
    return tuple(out), tuple(out.values())


@dataclass(frozen=True)
class TwinCandidate:
    """A pool item in its current order: its claim (the gist) and its vector (or None)."""

    key: str
    claim: str
    vector: np.ndarray | None


@dataclass(frozen=True)
class TwinDecision:
    """Why a member of a twin group sits where it does, against the member that beat it (or that
    it beat).

    `lacks`: query words the other twin has and this one does not. `adds`: this one's own
    differing words the query does not say. `matches`: query words this one has and the other
    lacks. `twin_adds`: the other twin's own differing words the query does not say. Sorted, so
    the explanation is stable.
    """

    twin: int
    lacks: tuple[str, ...] = ()
    adds: tuple[str, ...] = ()
    matches: tuple[str, ...] = ()
    twin_adds: tuple[str, ...] = ()


@dataclass
class TwinOutcome:
    """`order`: indexes into the candidates in their new order. `groups`: each twin group's
    members (indexes) in new order. `decisions`: for each member that moved, why."""

    order: list[int]
    groups: list[list[int]] = field(default_factory=list)
    decisions: dict[int, TwinDecision] = field(default_factory=dict)


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard overlap of two word sets (0 when both are empty)."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def twin_groups(
    candidates: Sequence[TwinCandidate],
    cosine: float,
    words_overlap: float = 1.0,
    table: CosineTable | CosineView | None = None,
) -> list[list[int]]:
    """Connected groups (>= 2 members) of near-twins, each sorted, in order of their first member.

    Two candidates with vectors are twins at cosine >= `cosine`. When either has no vector (an
    embedder that is down, a chunk not embedded yet) they are twins when their headlines'
    deciding words overlap by at least `words_overlap` (Jaccard; 1.0 by default, i.e. only the
    same words): with no vector to compare, the words are all there is. Identical headlines are
    twins too (nothing will decide between them, so they keep their order).
    """
    n = len(candidates)
    sim = table if table is not None else CosineTable([c.vector for c in candidates])
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    pairs = sim.pairs_at_least(cosine)
    blind = [i for i in range(n) if not sim.has_vector(i)]
    if blind:  # no vector to compare: the headline words decide who is a twin
        words = [frozenset(deciding_words(c.claim)) for c in candidates]
        pairs += [
            (min(i, j), max(i, j))
            for i in blind
            for j in range(n)
            if j != i and (j not in blind or j > i) and words[i] and overlap(words[i], words[j]) >= words_overlap
        ]
    for i, j in pairs:
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    members: dict[int, list[int]] = {}
    for i in range(n):
        members.setdefault(root(i), []).append(i)
    return sorted((g for g in members.values() if len(g) > 1), key=lambda g: g[0])


def resolve_twins(
    query: str,
    candidates: Sequence[TwinCandidate],
    cosine: float,
    words_overlap: float = 1.0,
    table: CosineTable | CosineView | None = None,
) -> TwinOutcome:
    """Re-seat each twin group in its own slots by deviation from the query's words."""
    n = len(candidates)
    order = list(range(n))
    outcome = TwinOutcome(order=order)
    asked = deciding_words(query)
    wanted = frozenset(asked)
    if not wanted:
        return outcome
    words: dict[int, frozenset[str]] = {}
    written: dict[int, dict[str, str]] = {}
    for group in twin_groups(candidates, cosine, words_overlap, table):
        for i in group:
            written[i] = deciding_words(candidates[i].claim)
            words[i] = frozenset(written[i])
        union = frozenset().union(*(words[i] for i in group))
        common = frozenset.intersection(*(words[i] for i in group))
        deviation = {i: (len((wanted & union) - words[i]), len((words[i] - common) - wanted)) for i in group}
        seated = sorted(group, key=lambda i: (deviation[i], i))
        for slot, i in zip(group, seated):
            order[slot] = i
        outcome.groups.append(seated)
        if seated == group:
            continue
        winner = seated[0]
        for i in group:
            if seated.index(i) == group.index(i):
                continue
            other = seated[1] if i == winner else winner
            mine, theirs = words[i], words[other]

            def said(stems: frozenset[str], by: dict[str, str]) -> tuple[str, ...]:
                return tuple(sorted(by[s] for s in stems))

            outcome.decisions[i] = TwinDecision(
                twin=other,
                lacks=said((wanted & theirs) - mine, asked),
                adds=said((mine - theirs) - wanted, written[i]),
                matches=said((wanted & mine) - theirs, asked),
                twin_adds=said((theirs - mine) - wanted, written[other]),
            )
    return outcome
