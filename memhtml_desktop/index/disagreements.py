"""The contradictions among one query's candidates: the rows the rule reads, and the settled pairs.

The rule and the step are pure (`domain/contradiction.py`, `domain/newer_first.py`); this module
gives them what only the index knows: each candidate's claim, frame key and times (hydrated with
the candidate's row, so no statement per hit), and which pairs a curator settled. A pair linked by
a relation other than `contradicts` (both hold, as the conflicts view's "settled" says) is neither
marked nor reordered; one statement over the paths of the pairs found, and none when no pair was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import apsw

from memhtml_desktop.domain.contradiction import UNSETTLING_RELS, Statement
from memhtml_desktop.domain.newer_first import Pair, contradicting_pairs, disagreements
from memhtml_desktop.domain.signals import Disagreement
from memhtml_desktop.index import curation


def statement_of(row: Mapping[str, Any]) -> Statement | None:
    """What the rule reads of a hydrated file row, or None for a memory the conflicts scan leaves
    out (archived, a task, no claim)."""
    gist = row.get("gist") or ""
    if not gist.strip() or row.get("archived") or row.get("memory_type") == "task":
        return None
    keys = row.get("contradiction_keys")
    return Statement(row["path"], gist, row.get("frame_key"), row.get("event_at"), row.get("created_at"),
                     row.get("title") or "", tuple(keys.split("\n")) if keys else None)


def settled_among(conn: apsw.Connection, paths: Iterable[str]) -> frozenset[frozenset[str]]:
    """The pairs of `paths` a curator linked by a relation other than `contradicts` (both hold)."""
    links = curation.links_among(conn, paths)
    return frozenset(frozenset(k) for k, rels in links.items() if any(r not in UNSETTLING_RELS for r in rels))


def pool_pairs(conn: apsw.Connection, statements: Sequence[Statement | None]) -> list[Pair]:
    """The contradicting pairs among `statements` (candidate order), settled pairs left out."""
    found = contradicting_pairs(statements)
    if not found:
        return found
    settled = settled_among(conn, {statements[i].path for p in found for i in (p.a, p.b)})
    return [p for p in found if frozenset((statements[p.a].path, statements[p.b].path)) not in settled]


def marks(conn: apsw.Connection, fused: Sequence[Any], ordered: Sequence[Any], pairs: list[Pair] | None,
          query: str) -> dict[str, tuple[Disagreement, ...]]:
    """Per path of `ordered` (the candidates being made into hits), the marks its contradictions
    within the list give it: among `fused` (the pool, whose `pairs` the search judged), widened to
    `ordered` when that lists candidates past the pool (a deeper list: "show more")."""
    known = {c.path for c in fused}
    extra = [c for c in ordered if c.path not in known]
    universe = [*fused, *extra]
    statements = [statement_of(c.row) for c in universe]
    if pairs is None or extra:
        pairs = pool_pairs(conn, statements)
    if not pairs:
        return {}
    wanted = {c.path for c in ordered}
    found = disagreements(statements, pairs, query)
    return {universe[i].path: m for i, m in found.items() if universe[i].path in wanted}
