"""The contradictions among one query's candidates: the rows the rule reads, and the settled pairs.

The rule and the step are pure (`domain/contradiction.py`, `domain/newer_first.py`); this module
gives them what only the index knows: each candidate's claim, frame key, times and contradiction
keys (hydrated with the candidate's row, so no statement per hit), which pairs a curator settled,
and which frames are lists. A pair linked by a relation other than `contradicts` (both hold, as the
conflicts view's "settled" says) and a `slot` pair under a frame the store fills with more than
LIST_VALUES values (as the conflicts scan skips them) are neither marked nor reordered: a statement
or two over the pairs found, and none when no pair was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import apsw

from memhtml_desktop.domain.contradiction import LIST_VALUES, UNSETTLING_RELS, Statement, slot_value
from memhtml_desktop.domain.newer_first import Pair, contradicting_pairs, disagreements
from memhtml_desktop.domain.signals import Disagreement
from memhtml_desktop.index.authored_links import links_among


def statement_of(row: Mapping[str, Any]) -> Statement | None:
    """What the rule reads of a hydrated file row, or None for a memory the conflicts scan leaves
    out (archived, a task, no claim)."""
    gist = row.get("gist") or ""
    if not gist.strip() or row.get("archived") or row.get("memory_type") == "task":
        return None
    keys = row.get("contradiction_keys")
    return Statement(
        row["path"],
        gist,
        row.get("frame_key"),
        row.get("event_at"),
        row.get("created_at"),
        row.get("title") or "",
        tuple(keys.split("\n")) if keys else None,
    )


def settled_among(conn: apsw.Connection, paths: Iterable[str]) -> frozenset[frozenset[str]]:
    """The pairs of `paths` a curator linked by a relation other than `contradicts` (both hold)."""
    links = links_among(conn, paths)
    return frozenset(frozenset(k) for k, rels in links.items() if any(r not in UNSETTLING_RELS for r in rels))


def lists_among(conn: apsw.Connection, keys: Iterable[str]) -> set[str]:
    """Of frame `keys`, those the store's active memories fill with more than LIST_VALUES values (a
    list, not a slot); each key's holders read through its index until the count is passed."""
    out = set()
    for key in dict.fromkeys(keys):
        values: set[str] = set()
        for (gist,) in conn.execute(
            "SELECT gist FROM files WHERE frame_key = ? AND archived = 0 AND memory_type <> 'task'", (key,)
        ):
            values.add(slot_value(gist, key))
            if len(values) > LIST_VALUES:
                out.add(key)
                break
    return out


def left_out(
    conn: apsw.Connection, statements: Sequence[Statement | None], among: Iterable[tuple[int, int]] | None = None
) -> frozenset[frozenset[str]]:
    """The pairs of `statements` (or of the index pairs `among`) the step leaves alone: those a
    curator settled, and those sharing a frame key the store fills with more than LIST_VALUES values."""
    if among is None:  # every pair sharing a frame key, grouped by it
        holders: dict[str, list[int]] = {}
        for i, s in enumerate(statements):
            if s is not None and s.frame_key:
                holders.setdefault(s.frame_key, []).append(i)
        among = [(i, j) for group in holders.values() for x, i in enumerate(group) for j in group[x + 1 :]]
        paths = {s.path for s in statements if s is not None}
    else:
        among = list(among)
        paths = {statements[i].path for pair in among for i in pair}
    shared = [
        statements[i].frame_key
        for i, j in among
        if statements[i].frame_key and statements[i].frame_key == statements[j].frame_key
    ]
    lists = lists_among(conn, shared) if shared else set()
    out = set(settled_among(conn, paths)) if paths else set()
    out |= {
        frozenset((statements[i].path, statements[j].path))
        for i, j in among
        if statements[i].frame_key in lists and statements[i].frame_key == statements[j].frame_key
    }
    return frozenset(out)


def pool_pairs(
    conn: apsw.Connection, statements: Sequence[Statement | None], vectors: Sequence[Any] | None = None
) -> list[Pair]:
    """The contradicting pairs among `statements` (candidate order; `vectors` theirs, for the reworded
    rule), less the pairs `left_out` (settled, or under a frame that is a list); a statement or two
    only when the rule found a pair."""
    found = contradicting_pairs(statements, vectors=vectors)
    if not found:
        return found
    out = left_out(conn, statements, [(p.a, p.b) for p in found])
    return [p for p in found if frozenset((statements[p.a].path, statements[p.b].path)) not in out]


def marks(
    conn: apsw.Connection, fused: Sequence[Any], ordered: Sequence[Any], pairs: list[Pair] | None, query: str
) -> dict[str, tuple[Disagreement, ...]]:
    """Per path of `ordered` (the candidates being made into hits), the marks its contradictions
    within the list give it: among `fused` (the pool, whose `pairs` the search judged), widened to
    `ordered` when that lists candidates past the pool (a deeper list: "show more")."""
    known = {c.path for c in fused}
    extra = [c for c in ordered if c.path not in known]
    universe = [*fused, *extra]
    statements = [statement_of(c.row) for c in universe]
    if pairs is None or extra:
        pairs = pool_pairs(conn, statements, [getattr(c, "vector", None) for c in universe])
    if not pairs:
        return {}
    wanted = {c.path for c in ordered}
    found = disagreements(statements, pairs, query)
    return {universe[i].path: m for i, m in found.items() if universe[i].path in wanted}
