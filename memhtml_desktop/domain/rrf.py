"""Reciprocal-rank fusion: the arm registry and the pure twin of the fused SQL statement.

Arms are data. The index layer folds a SQL statement over `RANK_ARMS` filtered by `active_arms`, so
adding a fifth arm is a table entry and dropping one is a filter. Each arm hands back `(path, rank)`
with rank counted from 1, and contributes `weight / (rank + RRF_K)` to that path's fused score. The
sum decides the order; ties break on `path` ascending, which makes the order total, so two runs
over an unchanged corpus give the same list.

RRF fuses ranks, not raw scores, because the arms' raw signals have incomparable units (bm25 is
negative and unbounded, cosine distance lies in [0, 2], time is a string). The price is that "how
much better" is lost: first and second differ by one rank however far apart their raw scores are.

`fuse` is what the fused statement computes (`SUM(s) ... GROUP BY path ORDER BY score DESC, path
ASC`), so a weight change is testable without a database and the SQL can be tested against it.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Mapping, Sequence

RRF_K = 60
"""The RRF damping constant. Large k flattens the curve: rank 1 earns 1/61, rank 40 earns 1/100."""

DEFAULT_ARM_LIMIT = 40
"""Candidates each arm hands to the fold (bound as ?2). Fixed, not caller-settable."""


@dataclass(frozen=True)
class Arm:
    """One ranker in the fold, with the preconditions that decide whether it can fire at all.

    An arm whose precondition is unmet is dropped before the SQL is assembled, so a search with no
    query vector is ranked by the arms that could still fire and reports itself degraded.
    """

    name: str
    weight: float
    needs_embedding: bool = False
    needs_state: bool = False
    needs_query_terms: bool = False


RANK_ARMS: tuple[Arm, ...] = (
    Arm("fts", 1.0, needs_query_terms=True),
    Arm("vector", 1.0, needs_embedding=True),
    Arm("recency", 0.5),
    Arm("salience", 0.4, needs_state=True),
)
"""The registry in fold order. The order is presentation only: the sum commutes."""


def active_arms(arms: Sequence[Arm], *, has_vector: bool, has_state: bool, has_terms: bool) -> tuple[Arm, ...]:
    """The arms that can fire: preconditions met and weight > 0, in registry order.

    An empty result means there is nothing to fuse; the caller must read it as zero hits rather
    than assemble `SELECT ... FROM ()`.
    """
    return tuple(
        arm
        for arm in arms
        if _positive(arm.weight)
        and (has_vector or not arm.needs_embedding)
        and (has_state or not arm.needs_state)
        and (has_terms or not arm.needs_query_terms)
    )


def _positive(weight: float) -> bool:
    return isinstance(weight, numbers.Real) and math.isfinite(weight) and weight > 0


def rrf_score(rank: float, weight: float, k: int = RRF_K) -> float:
    """`weight / (rank + k)`, unchecked. `rrf_score(1, 1.0) == 1/61`."""
    return weight / (rank + k)


def rrf_contribution(rank: float, weight: float, k: int = RRF_K) -> float | None:
    """One arm's contribution for one rank, or None when the pair earns nothing.

    None when `rank` is not a positive, finite, whole number (0, NaN, infinity, 1.5, a bool) or
    `weight` is not a positive finite number: a bad rank from a broken arm must not inflate a score.
    """
    if isinstance(rank, bool) or not isinstance(rank, numbers.Real):
        return None
    if not math.isfinite(rank) or rank < 1 or rank != int(rank):
        return None
    if not _positive(weight):
        return None
    return float(weight) / (int(rank) + k)


def fused_scores(
    ranked: Mapping[str, Sequence[tuple[str, int]]], arms: Sequence[Arm], k: int = RRF_K
) -> dict[str, float]:
    """Per path, the sum of its contributions over `arms`.

    `ranked` maps an arm name to that arm's `(path, rank)` list. Lists for arms not in `arms` are
    ignored, and so are arms with weight <= 0. A path listed twice by one arm earns twice (as the
    SQL's `UNION ALL` would); the real arms never do that because each collapses to one row a path.
    Sums are exactly rounded (`math.fsum`), so the result does not depend on the fold order and
    matches SQLite's compensated `SUM()` to the last bit or so.
    """
    parts: dict[str, list[float]] = {}
    for arm in arms:
        for path, rank in ranked.get(arm.name, ()):
            value = rrf_contribution(rank, arm.weight, k)
            if value is not None:
                parts.setdefault(path, []).append(value)
    return {path: math.fsum(values) for path, values in parts.items()}


def rank_fused(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """`(path, score)` pairs, score descending then path ascending: a total, repeatable order."""
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def fuse(
    ranked: Mapping[str, Sequence[tuple[str, int]]], arms: Sequence[Arm], k: int = RRF_K
) -> list[tuple[str, float]]:
    """The fused list the SQL statement returns (before its final LIMIT)."""
    return rank_fused(fused_scores(ranked, arms, k))
