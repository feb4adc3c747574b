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
    """`cosine` between members of a fixed pool, computed once for every pair.

    When the vectors share one length (the normal case: one embedder) the whole table is one
    matrix product, with `_cos`'s rules applied elementwise (a zero or non-finite magnitude gives
    0, the result is clamped): the post-fusion steps ask for most of the ~450 pairs of a 30-item
    pool, and asking numpy one pair at a time cost milliseconds a search. Mixed lengths fall back
    to `cosine` pair by pair.
    """

    def __init__(self, vectors: Sequence[np.ndarray | None]) -> None:
        self._vecs = [None if v is None else np.asarray(v, dtype=np.float64).ravel() for v in vectors]
        present = [i for i, v in enumerate(self._vecs) if v is not None]
        self.matrix: np.ndarray | None = None  # the whole table, when one length allows it
        self._table: list[list[float]] | None = None
        if present and len({self._vecs[i].size for i in present}) == 1:
            size = self._vecs[present[0]].size
            stacked = np.zeros((len(self._vecs), size), dtype=np.float64)
            for i in present:
                stacked[i] = self._vecs[i]
            self.matrix = _cosine_matrix(stacked)

    @classmethod
    def subset(cls, base: "CosineTable", indexes: Sequence[int]) -> "CosineTable":
        """The table of `base`'s items `indexes`, in that order, without computing a cosine again
        (the same numbers: entries are copied, so a comparison against a threshold cannot flip)."""
        out = cls.__new__(cls)
        out._vecs = [base._vecs[i] for i in indexes]
        out.matrix, out._table = None, None
        if base.matrix is not None:
            index = np.asarray(list(indexes), dtype=np.int64)
            out.matrix = base.matrix[np.ix_(index, index)] if index.size else np.zeros((0, 0))
        return out

    def __len__(self) -> int:
        return len(self._vecs)

    def has_vector(self, i: int) -> bool:
        return self._vecs[i] is not None

    def __call__(self, i: int, j: int) -> float:
        x, y = self._vecs[i], self._vecs[j]
        if x is None or y is None:
            return 0.0
        if self.matrix is not None:
            if self._table is None:  # Python floats for pair lookups, made on the first one
                self._table = self.matrix.tolist()
            return self._table[i][j]
        return cosine(x, y)

    def view(self, order: Sequence[int], hidden: Sequence[bool] | None = None) -> "CosineView":
        """The same table seen in another order (position p is item `order[p]`); a `hidden`
        position has no vector. Lets polarity, twin resolution and MMR share one computation."""
        return CosineView(self, list(order), list(hidden) if hidden is not None else None)

    def pairs_at_least(self, threshold: float) -> list[tuple[int, int]]:
        """Every (i, j), i < j, both with vectors, at cosine >= `threshold`."""
        return self.view(range(len(self))).pairs_at_least(threshold)

    def dense(self) -> np.ndarray:
        """The whole table as an (n, n) array, 0 where either side has no vector."""
        return self.view(range(len(self))).dense()


class CosineView:
    """A `CosineTable` re-indexed (see `CosineTable.view`)."""

    def __init__(self, base: CosineTable, order: list[int], hidden: list[bool] | None) -> None:
        self.base, self.order, self.hidden = base, order, hidden

    def __len__(self) -> int:
        return len(self.order)

    def has_vector(self, p: int) -> bool:
        return not (self.hidden and self.hidden[p]) and self.base.has_vector(self.order[p])

    def __call__(self, p: int, q: int) -> float:
        if self.hidden and (self.hidden[p] or self.hidden[q]):
            return 0.0
        return self.base(self.order[p], self.order[q])

    def dense(self) -> np.ndarray:
        """This view as an (n, n) array, 0 where either side has no vector (or is hidden)."""
        n = len(self.order)
        live = np.array([self.has_vector(p) for p in range(n)], dtype=bool)
        if self.base.matrix is not None:
            index = np.asarray(self.order, dtype=np.int64)
            out = self.base.matrix[np.ix_(index, index)].copy() if n else np.zeros((0, 0))
        else:
            out = np.array([[self(p, q) for q in range(n)] for p in range(n)], dtype=np.float64).reshape(n, n)
        out[~live, :] = 0.0
        out[:, ~live] = 0.0
        return out

    def pairs_at_least(self, threshold: float) -> list[tuple[int, int]]:
        live = [p for p in range(len(self.order)) if self.has_vector(p)]
        if self.base.matrix is None:
            return [(p, q) for a, p in enumerate(live) for q in live[a + 1 :] if self(p, q) >= threshold]
        index = np.asarray([self.order[p] for p in live], dtype=np.int64)
        sub = self.base.matrix[np.ix_(index, index)]
        rows, cols = np.nonzero(np.triu(sub >= threshold, k=1))
        return [(live[r], live[c]) for r, c in zip(rows.tolist(), cols.tolist())]


def _cosine_matrix(matrix: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        squares = np.einsum("ij,ij->i", matrix, matrix)
        roots = np.sqrt(squares)
        table = (matrix @ matrix.T) / np.outer(roots, roots)
    bad = (squares == 0.0) | ~np.isfinite(squares)
    table[bad, :] = 0.0
    table[:, bad] = 0.0
    table[~np.isfinite(table)] = 0.0
    return np.clip(table, -1.0, 1.0)


def _normalised(relevance: Sequence[float]) -> list[float]:
    values = [r if math.isfinite(r) else 0.0 for r in map(float, relevance)]
    top = max(values, default=0.0)
    return [r / top for r in values] if top > 0 else values


def redundancy(similarity: float, floor: float) -> float:
    """The penalty a similarity earns: the cosine itself (`floor` 0, memhtml), or only the part
    above `floor`, rescaled to [0, 1] (`(s - floor) / (1 - floor)`), so that two memories merely
    about the same service (a background cosine of 0.5-0.8 with a bag-of-words embedder) are not
    read as repeating each other. Never negative."""
    if floor <= 0.0:
        return max(0.0, similarity)
    if floor >= 1.0 or similarity <= floor:
        return 0.0
    return (similarity - floor) / (1.0 - floor)


def apply_mmr(
    candidates: Sequence[MmrCandidate],
    limit: int,
    lam: float = MMR_LAMBDA,
    *,
    floor: float = 0.0,
    exempt: Sequence[bool] | None = None,
    fixed: Sequence[bool] | None = None,
    table: "CosineTable | CosineView | None" = None,
) -> list[int]:
    """Indexes into `candidates` in selection order, `min(limit, len(candidates))` of them.

    `limit <= 0` gives []. At `lam >= 1`, or with at most one candidate, the first `limit` in input
    order come back without any cosine work. An item without a vector takes penalty 0, the honest
    reading of an unknown similarity, so such items keep their relative order. The comparison is a
    strict `>`, so a tie goes to the earliest pool position and the result is deterministic.

    `floor` is passed to `redundancy`. An `exempt` item neither takes a penalty nor gives one
    (an arc: a synthesis of its evidence, so resembling it is not repeating it). A `fixed` item
    inside the first `limit` keeps its input position (a known item the query names in full);
    the greedy choice fills the other slots, and a fixed item still penalises what resembles it.
    `table` may carry the pool's cosines already computed (in candidate order).
    """
    n = len(candidates)
    if limit <= 0:
        return []
    if lam >= 1 or n <= 1:
        return list(range(min(limit, n)))
    relevance = _normalised([c.relevance for c in candidates])
    free = list(exempt) if exempt is not None else [False] * n
    held = {i for i in range(min(limit, n)) if fixed is not None and fixed[i]}
    if table is None:
        sim: CosineTable | CosineView = CosineTable([None if free[i] else c.vector for i, c in enumerate(candidates)])
    else:
        sim = table.base.view(table.order, free) if isinstance(table, CosineView) else table.view(range(n), free)
    # Vectorised over the pool, with the scalar rules' exact arithmetic: `np.argmax` takes the
    # first maximum, which is the strict `>` scan's earliest position.
    sims = sim.dense()
    if floor <= 0.0:
        penalties = np.maximum(sims, 0.0)
    elif floor >= 1.0:
        penalties = np.zeros_like(sims)
    else:
        penalties = np.where(sims <= floor, 0.0, (sims - floor) / (1.0 - floor))
    rel = np.asarray(relevance, dtype=np.float64)
    penalty = np.zeros(n, dtype=np.float64)
    remaining = np.ones(n, dtype=bool)
    remaining[list(held)] = False
    picked: list[int] = []
    while len(picked) < min(limit, n):
        if len(picked) in held:
            chosen = len(picked)
        else:
            score = lam * rel - (1 - lam) * penalty
            score[~remaining] = -math.inf
            chosen = int(np.argmax(score))
            remaining[chosen] = False
        picked.append(chosen)
        penalty = np.maximum(penalty, penalties[:, chosen])
    return picked
