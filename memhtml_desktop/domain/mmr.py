"""Maximal marginal relevance: reorder the fused pool so near-duplicates stop crowding the top.

Greedy: at each step pick the pool item maximising `lam * relevance - (1 - lam) * penalty`, where
the penalty is the item's highest cosine to anything already picked (floored at 0). A diversifier
can only reorder what it was given, which is why search fetches three times its limit.

Relevance is the real fused RRF score the caller passes in, normalised here by the pool's maximum
so it lies in (0, 1] like the cosine it is traded against: raw RRF scores are ~0.01-0.05, and
`0.5 * 0.03 - 0.5 * 0.4` would let similarity swamp relevance entirely. memhtml feeds the proxy
`1 / (position + 1)`, whose top item is already 1.0, so the normalisation leaves its behaviour on
that proxy unchanged and the spec's test cases hold verbatim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

MMR_LAMBDA = 0.5
"""Weight on relevance; 1 - lambda weighs redundancy. At >= 1 MMR is the identity."""


@dataclass(frozen=True)
class MmrCandidate:
    """A pool item: `relevance` > 0 (higher is better) and its vector, or None when unknown."""

    key: str
    relevance: float
    vector: np.ndarray | None


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine similarity in double precision, clamped to [-1, 1].

    On a length mismatch only the shorter prefix is walked (for both the dot and the norms). A
    zero magnitude, including one that underflows to zero when squared, gives 0: an unknown angle
    is read as unrelated, not as identical. The clamp absorbs rounding past 1 on tiny values.
    """
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    n = min(x.size, y.size)
    x, y = x[:n], y[:n]
    return _cos(float((x * y).sum()), float((x * x).sum()), float((y * y).sum()))


def _cos(dot: float, xx: float, yy: float) -> float:
    if xx == 0.0 or yy == 0.0 or not (math.isfinite(xx) and math.isfinite(yy)):
        return 0.0
    value = dot / (math.sqrt(xx) * math.sqrt(yy))
    if math.isnan(value):
        return 0.0
    return max(-1.0, min(1.0, value))


class CosineTable:
    """`cosine` between members of a fixed pool, each vector and squared norm converted once."""

    def __init__(self, vectors: Sequence[np.ndarray | None]) -> None:
        self._vecs = [None if v is None else np.asarray(v, dtype=np.float64).ravel() for v in vectors]
        self._sq = [None if v is None else float((v * v).sum()) for v in self._vecs]

    def has_vector(self, i: int) -> bool:
        return self._vecs[i] is not None

    def __call__(self, i: int, j: int) -> float:
        x, y = self._vecs[i], self._vecs[j]
        if x is None or y is None:
            return 0.0
        if x.size != y.size:
            return cosine(x, y)
        return _cos(float((x * y).sum()), self._sq[i], self._sq[j])


def _normalised(relevance: Sequence[float]) -> list[float]:
    values = [r if math.isfinite(r) else 0.0 for r in map(float, relevance)]
    top = max(values, default=0.0)
    return [r / top for r in values] if top > 0 else values


def apply_mmr(candidates: Sequence[MmrCandidate], limit: int, lam: float = MMR_LAMBDA) -> list[int]:
    """Indexes into `candidates` in selection order, `min(limit, len(candidates))` of them.

    `limit <= 0` gives []. At `lam >= 1`, or with at most one candidate, the first `limit` in input
    order come back without any cosine work. An item without a vector takes penalty 0, the honest
    reading of an unknown similarity, so such items keep their relative order. The comparison is a
    strict `>`, so a tie goes to the earliest pool position and the result is deterministic.
    """
    n = len(candidates)
    if limit <= 0:
        return []
    if lam >= 1 or n <= 1:
        return list(range(min(limit, n)))
    relevance = _normalised([c.relevance for c in candidates])
    sim = CosineTable([c.vector for c in candidates])
    penalty = [0.0] * n
    pool = list(range(n))
    picked: list[int] = []
    while pool and len(picked) < limit:
        best_at, best_score = 0, -math.inf
        for at, i in enumerate(pool):
            score = lam * relevance[i] - (1 - lam) * penalty[i]
            if score > best_score:
                best_at, best_score = at, score
        chosen = pool.pop(best_at)
        picked.append(chosen)
        if sim.has_vector(chosen):
            for i in pool:
                if sim.has_vector(i):
                    penalty[i] = max(penalty[i], sim(i, chosen))
    return picked
