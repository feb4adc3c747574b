"""Priors count only for memories the query actually matches.

Recency and salience are query-independent: they rank every memory whatever was asked. Fused with
RRF they add up to 0.9 / (rank + k) to any memory near the top of either list, about as much as a
rank-1 vector hit (1 / 61), so a recent, often-read memory on another subject outranked the one
memory the query means whenever the query shared no exact phrase with it (a paraphrase, the way an
agent asks). Measured on the paraphrase set (`bench/paraphrase_scale.py`, MiniLM int8): MRR@10
0.145 at 300 memories and 0.272 at 3,000 under the plain fusion, with the target the vector arm's
first hit for 21 of 30 queries.

So under a profile with `gate_priors`, a prior arm's contribution counts only for a memory that
matches the query lexically in full (the lexical arm bound its all-terms form and ranked it: it
holds every word) or semantically (its best chunk's raw cosine reaches the embedder's relevance
floor, the floor that marks "low relevance"). Priors then do what they are for, ordering the
memories that answer the query by how recent and how used they are, and stop lifting the ones that
do not. Without a query vector nothing is gated (there is no semantic evidence to judge by; the
search says it is degraded), and a browse (no query) is all priors by design.

Pure functions over per-arm contributions, shared by the fused search (`index/retrieval.py`), the
explanation (`index/explain.py`) and the workbench's in-memory re-ranking (`domain/refusion.py`),
so the three agree path for path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping

PRIOR_ARMS = frozenset({"recency", "salience"})


def matches_query(cosine: float | None, floor: float, holds_every_word: bool) -> bool:
    """Whether a memory's priors count: every query word held, or the cosine at the floor."""
    return holds_every_word or (cosine is not None and cosine >= floor)


def gated_score(contributions: Iterable[tuple[str, float]], counted: bool) -> float:
    """The fused score from `(arm, contribution)` pairs, prior arms dropped unless `counted`."""
    return math.fsum(c for arm, c in contributions if counted or arm not in PRIOR_ARMS)


def gated_order(
    parts: Mapping[str, list[tuple[str, float]]], counted: Callable[[str], bool]
) -> list[tuple[float, str]]:
    """`(score, path)` best first (ties on path ascending, as the fused statement orders them)."""
    scored = ((gated_score(parts[p], counted(p)), p) for p in parts)
    return sorted(scored, key=lambda sp: (-sp[0], sp[1]))


def why_not_counted(cosine: float | None, floor: float) -> str:
    """A sentence for a memory whose priors did not count."""
    measured = "no cosine" if cosine is None else f"cosine {cosine:.2f}"
    return (
        f"recency and salience not counted: it does not hold every query word and its {measured} "
        f"is below the relevance floor {floor:.2f}"
    )
