"""After fusion: the memories of a query's pool that contradict each other, marked, the newer first.

An agent's memory changes its mind: a value moves, a decision is reversed. The older memory and
the newer one tie on the query's words (they state one subject and relation), so fusion orders
them by noise, and a stale fact wins half the time without a word (issue 39: 48% of the newer
facts ranked first with the hash embedder, 31% with MiniLM, whose world knowledge favours
whichever value is true in the world). This step reads every pair of the fused pool with THE rule
the conflicts scan uses (`domain.contradiction`: one frame key with two values, or the same claim
but for one negation, number, date, qualifier, name or value), so a pair the conflicts view lists
is a pair search marks.

- **Marks** (`disagreements`, both profiles): each memory of a contradicting pair carries a
  `Disagreement` naming the other memory, the values and which of the two is newer (event time,
  else written time; `contradiction.newer_of`). Nothing is reconciled: both stay in the list.
- **Order** (`newer_first`, the `default` profile only; `memhtml` is what an agent on memhtml gets):
  in each pair one side goes first: the side whose differing value the query names and the other's
  it does not ("Is Sydney the capital of Australia?" keeps the memory saying Sydney first, as twin
  resolution and polarity read the query's words as what is asked), else the side whose title the
  query asks for (`query_quotes`: its title is the other's with words added, every query word is
  one of its title's, and some are words added: "refuted reading compactor" asks for "Refuted
  reading — Nightly compactor merges intervals", not for "Nightly compactor merges intervals"),
  else the newer side, else neither. A first side standing below its other is lifted to just above it (the older and what
  stood between go down one place); pairs sharing a memory form a group, ordered so each pair's
  first side comes first, and a chain of changes lands newest, newer, older where its highest member
  stood. Nothing else moves up, and the step is deterministic. Lifting rather than swapping keeps
  the older next to the newer: swapped, an older memory asked for by its own words went to wherever
  its newer had stood, often off the page (docs/ranking.md has the figures).

The step runs last, over the whole pool in its final order (the page, then the candidates MMR did
not pick), so it can lift a newer memory from below the page to just above its older: MMR's picks,
and the polarity and twin steps, may move a newer memory down, never above its final say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from memhtml_desktop.domain.contradiction import (
    REWORDED_COSINE,
    Contradiction,
    Statement,
    blocking_keys,
    contradiction,
    newer_of,
)
from memhtml_desktop.domain.signals import NEWER, OLDER, SAME, Disagreement, Move
from memhtml_desktop.domain.twins import deciding_words

STEP = "newer"


@dataclass(frozen=True)
class Pair:
    """Pool items `a` < `b` (indexes) contradicting each other, why, and the newer one (or None)."""

    a: int
    b: int
    found: Contradiction  # judged as `contradiction(statements[a], statements[b])`: value_a is a's
    newer: int | None
    claims: tuple[str, str] = ("", "")  # a's and b's
    titles: tuple[str, str] = ("", "")  # a's and b's


def contradicting_pairs(
    statements: Sequence[Statement | None],
    settled: Callable[[str, str], bool] | None = None,
    vectors: Sequence[np.ndarray | None] | None = None,
) -> list[Pair]:
    """Every pair of `statements` the contradiction rule flags, in index order (only the pairs
    sharing a `blocking_keys` key are judged, and, given each statement's unit `vectors`, the pairs
    whose vectors are near-twins for the reworded rule: the rule cannot flag the others). A None
    statement (a task, an archived memory, a memory without a claim: what the conflicts scan leaves
    out) takes part in no pair; `settled(path, path)` true leaves a pair out (a curator linked the
    two by a relation other than `contradicts`: both hold)."""
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(statements):
        if s is not None and s.claim.strip():
            for key in s.keys if s.keys is not None else blocking_keys(s.claim, s.frame_key):
                groups.setdefault(key, []).append(i)
    candidates = {
        (i, j)
        for members in groups.values()
        if len(members) > 1
        for x, i in enumerate(members)
        for j in members[x + 1 :]
    }
    similar = _near_twins(statements, vectors) if vectors is not None else {}
    candidates |= similar.keys()
    out: list[Pair] = []
    for i, j in sorted(candidates):
        si, sj = statements[i], statements[j]
        if si.path == sj.path:
            continue
        found = contradiction(si, sj, similar.get((i, j)))
        if found is None or (settled is not None and settled(si.path, sj.path)):
            continue
        newer = newer_of(si, sj)
        out.append(
            Pair(
                i,
                j,
                found,
                None if newer is None else (i if newer == si.path else j),
                (si.claim, sj.claim),
                (si.title, sj.title),
            )
        )
    return out


def _near_twins(
    statements: Sequence[Statement | None], vectors: Sequence[np.ndarray | None]
) -> dict[tuple[int, int], float]:
    """(i, j) -> cosine of the statements whose vectors reach REWORDED_COSINE (one product over the pool)."""
    have = [
        i for i, (s, v) in enumerate(zip(statements, vectors)) if s is not None and v is not None and s.claim.strip()
    ]
    if len(have) < 2:
        return {}
    matrix = np.asarray([vectors[i] for i in have], dtype=np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    sims = matrix @ matrix.T
    rows, cols = np.nonzero(np.triu(sims >= REWORDED_COSINE, k=1))
    return {(have[r], have[c]): float(sims[r, c]) for r, c in zip(rows.tolist(), cols.tolist())}


def _side(pair: Pair, i: int) -> str:
    if pair.newer is None:
        return SAME
    return NEWER if pair.newer == i else OLDER


def _values(pair: Pair, i: int) -> tuple[str, str]:
    """(i's differing words, the other's), as written."""
    a, b = pair.found.value_a, pair.found.value_b
    return (a, b) if i == pair.a else (b, a)


def _own(pair: Pair, side: int) -> set[str]:
    """The words of `side`'s value that neither the other value nor the other claim holds: a value
    word that is also the subject's ("Asia/Kuala_Lumpur" for Kuala Terengganu) names nothing."""
    mine, theirs = _values(pair, side)
    other_claim = pair.claims[1] if side == pair.a else pair.claims[0]
    return set(deciding_words(mine)) - set(deciding_words(theirs)) - set(deciding_words(other_claim))


def query_names(query: str, pair: Pair) -> int | None:
    """The side (item index) whose differing value the query names while naming none of the
    other's, or None. Words compare as twin resolution compares them (negation markers read as
    `not`, inflections folded, function words ignored); a value's word that the other claim holds
    too (its subject's, its relation's) names nothing."""
    asked = set(deciding_words(query))
    if not asked:
        return None
    in_a, in_b = bool(_own(pair, pair.a) & asked), bool(_own(pair, pair.b) & asked)
    if in_a == in_b:
        return None
    return pair.a if in_a else pair.b


def _quoted(query: str, pair: Pair, side: int) -> set[str]:
    """The query's words that single out `side` by its title: `side`'s title is the other's, whole and
    in order, with words added around it ("Refuted reading — Nightly compactor merges intervals"
    against "Nightly compactor merges intervals"; the other's of two words at least), every word of
    the query is one of its title's, and some are words added that the other's claim lacks too. Two
    titles that merely share words ("Capital of Oman" against "Oman: capital city", "Where Estonia
    is" against "Estonia: continent") are two ways to title one slot, and a question in either's
    words asks about the slot, not for one of them."""
    mine, theirs = (list(deciding_words(pair.titles[0])), list(deciding_words(pair.titles[1])))[
        :: 1 if side == pair.a else -1
    ]
    asked = set(deciding_words(query))
    if len(theirs) < 2 or len(mine) <= len(theirs) or not asked or not asked <= set(mine):
        return set()
    if not any(mine[i : i + len(theirs)] == theirs for i in range(len(mine) - len(theirs) + 1)):
        return set()
    other_claim = pair.claims[1] if side == pair.a else pair.claims[0]
    return (asked - set(theirs)) - set(deciding_words(other_claim))


def query_quotes(query: str, pair: Pair) -> int | None:
    """The side (item index) the query asks for by its title (`_quoted`), or None: a person who
    types the words one memory's title adds to the other's asked for that memory, whichever is newer."""
    in_a, in_b = bool(_quoted(query, pair, pair.a)), bool(_quoted(query, pair, pair.b))
    if in_a == in_b:
        return None
    return pair.a if in_a else pair.b


def _named_words(query: str, pair: Pair, side: int) -> tuple[str, ...]:
    """The words of `side`'s value the query names, as the memory writes them."""
    named = _own(pair, side) & set(deciding_words(query))
    return tuple(dict.fromkeys(word for word in _values(pair, side)[0].split() if set(deciding_words(word)) & named))


def disagreements(
    statements: Sequence[Statement | None],
    pairs: Sequence[Pair],
    query: str = "",
) -> dict[int, tuple[Disagreement, ...]]:
    """Per item index, the marks its pairs give it (newest partner first)."""
    out: dict[int, list[Disagreement]] = {}
    for pair in pairs:
        named = query_names(query, pair) if query else None
        for me, other in ((pair.a, pair.b), (pair.b, pair.a)):
            mine, theirs = statements[me], statements[other]
            value, other_value = _values(pair, me)
            out.setdefault(me, []).append(
                Disagreement(
                    other=theirs.path,
                    other_title=theirs.title,
                    side=_side(pair, me),
                    kind=pair.found.reason,
                    value=value,
                    other_value=other_value,
                    when=mine.when,
                    other_when=theirs.when,
                    query_names="" if named is None else ("this" if named == me else "other"),
                )
            )
    return {i: tuple(sorted(marks, key=lambda d: (d.other_when, d.other), reverse=True)) for i, marks in out.items()}


@dataclass
class NewerFirst:
    """`order`: item indexes after the step (same length as given). `moves[i]`: the step's move of
    item i, when it changed position."""

    order: list[int]
    moves: dict[int, Move] = field(default_factory=dict)


def _groups(pairs: Sequence[Pair]) -> list[set[int]]:
    parent: dict[int, int] = {}

    def root(i: int) -> int:
        while parent.setdefault(i, i) != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for p in pairs:
        parent[root(p.a)] = root(p.b)
    groups: dict[int, set[int]] = {}
    for i in list(parent):
        groups.setdefault(root(i), set()).add(i)
    return [g for g in groups.values() if len(g) > 1]


def newer_first(query: str, order: Sequence[int], pairs: Sequence[Pair], keys: Sequence[str]) -> NewerFirst:
    """Lift each pair's first side to just above its other where it stands below it (see the module
    docstring); `pairs` index the same items `order` holds, `keys[i]` names item i (its path)."""
    order = list(order)
    at = {item: p for p, item in enumerate(order)}
    pairs = [p for p in pairs if p.a in at and p.b in at]
    if not pairs:
        return NewerFirst(order)
    # (winner, loser) -> (pair, what decided: "value" the query names its value, "title" it quotes
    # its title, "" the newer)
    first: dict[tuple[int, int], tuple[Pair, str]] = {}
    for pair in pairs:
        named = query_names(query, pair)
        quoted = query_quotes(query, pair) if named is None else None
        winner = named if named is not None else quoted if quoted is not None else pair.newer
        if winner is not None:
            first[(winner, pair.b if winner == pair.a else pair.a)] = (
                pair,
                "value" if named is not None else "title" if quoted is not None else "",
            )
    # Each item's place as (slot, rank within the slot): a winner below a loser takes the loser's slot
    # one rank ahead of it; losers first (the reverse of the group's topological order), so a chain
    # of changes lands newest, newer, older, just where its highest member stood.
    place = {item: (p, 0) for p, item in enumerate(order)}
    for group in _groups(pairs):
        for item in reversed(_topological(sorted(group, key=at.__getitem__), first)):
            beaten = [place[loser] for (winner, loser) in first if winner == item and place[loser] < place[item]]
            if beaten:
                slot, rank = min(beaten)
                place[item] = (slot, rank - 1)
    result = sorted(order, key=place.__getitem__)  # stable: items nothing moved keep their order
    moves: dict[int, Move] = {}
    for now, item in enumerate(result, start=1):
        before = at[item] + 1
        if now != before:
            moves[item] = _move(query, item, before, now, result, at, first, keys)
    return NewerFirst(result, moves)


def _topological(members: list[int], first: dict[tuple[int, int], tuple[Pair, str]]) -> list[int]:
    """`members` (in their current order) ordered so each (winner, loser) has the winner above,
    choosing at each step the highest-placed member no remaining member must precede; a cycle
    (times compared at mixed precision could make one) is broken at its highest-placed member."""
    remaining = list(members)
    out: list[int] = []
    while remaining:
        free = [m for m in remaining if not any((w, m) in first for w in remaining if w != m)]
        pick = free[0] if free else remaining[0]
        out.append(pick)
        remaining.remove(pick)
    return out


def _move(
    query: str,
    item: int,
    before: int,
    now: int,
    seated: list[int],
    at: dict[int, int],
    first: dict[tuple[int, int], tuple[Pair, str]],
    keys: Sequence[str],
) -> Move:
    """The move of `item`, naming the memory that decided: the first it now precedes that stood
    above it (up), or the first that now precedes it and stood below it (down); failing that, any
    pair it is in; in none (a memory a lift pushed down a place), a move without a twin."""
    if now < before:
        deciding = [(item, o) for o in seated if (item, o) in first and at[o] < at[item]]
    else:
        deciding = [(w, item) for w in seated if (w, item) in first and at[w] > at[item]]
    deciding += [k for k in first if item in k]
    if not deciding:  # in no ordered pair: a newer memory was lifted above it
        return Move(STEP, before, now)
    key = deciding[0]
    pair, decided = first[key]
    by_query = bool(decided)
    other = key[1] if key[0] == item else key[0]
    value, other_value = _values(pair, item)
    if decided == "title":
        title = pair.titles[0] if key[0] == pair.a else pair.titles[1]
        quoted = _quoted(query, pair, key[0])
        named = tuple(dict.fromkeys(w for w in title.split() if set(deciding_words(w)) & quoted))
    else:
        named = _named_words(query, pair, key[0]) if by_query else ()
    return Move(
        STEP,
        before,
        now,
        twin=keys[other],
        adds=(value,) if value else (),
        twin_adds=(other_value,) if other_value else (),
        matches=named,
        kind=pair.found.reason,
        side=_side(pair, item),
        named_side="this" if by_query and key[0] == item else ("other" if by_query else ""),
        by_title=decided == "title",
    )
