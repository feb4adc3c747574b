"""Re-ranking a probe under another configuration without asking SQLite again.

A search is two halves. The first reads the store: each arm's ranked candidates for the query
(bm25, vector distance, recency, salience), which depend on the query, the scope and the arm
window, never on the weights. The second is arithmetic: fuse the lists (`Σ weight / (rank + k)`,
ties on path, keep `limit × pool_factor`), then polarity, twin resolution and MMR over that pool.

The workbench runs a probe set under many configurations (a run, a comparison, the optimizer's
hundreds of candidates), so it reads the first half once per probe (`PreparedQuery`, made by
`index/arm_lists.py`) and redoes only the second here, in memory. What a configuration may change
this way: arm weights, `rrf_k`, `pool_factor`, an `arm_window` up to the prepared one, polarity,
twin resolution, MMR and their thresholds. The lexical knobs (`fts_forms`, `lexical`,
`field_weights`, `question_words`: `RankingProfile.lexical_key`) change which memories the lexical
arm reads, so a configuration that changes one needs its own preparation.

The arithmetic is the fused statement's (`index/retrieval_sql.py`): weights are inlined in SQL
with four decimals, so they are rounded the same way here; sums are exactly rounded (`math.fsum`,
like `domain.rrf.fused_scores`); the order is score descending, then path. The equality with a
real `Store.search` is tested on sampled probes (tests/workbench/test_runs.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memhtml_desktop.domain.contradiction import Statement
from memhtml_desktop.domain.fusion import convex_parts
from memhtml_desktop.domain.judging import FusionTrace
from memhtml_desktop.domain.mmr import CosineTable
from memhtml_desktop.domain.newer_first import contradicting_pairs
from memhtml_desktop.domain.priors import PRIOR_ARMS, gated_order, matches_query
from memhtml_desktop.domain.ranking import RankingProfile
from memhtml_desktop.domain.reorder import PoolItem, reorder
from memhtml_desktop.domain.rrf import active_arms


@dataclass(frozen=True)
class Candidate:
    """What the post-fusion steps read of a memory: its claim, title, vector, whether it is an arc,
    and what the contradiction rule reads (None: a memory the conflicts scan leaves out)."""

    path: str
    title: str
    claim: str
    arc: bool = False
    vector: np.ndarray | None = field(default=None, compare=False)
    statement: Statement | None = None


@dataclass
class PreparedQuery:
    """One probe's query, read from the store once.

    `lists[arm]`: the arm's candidates, best first, `window` of them at most (rank = index + 1);
    `available`: the arms whose precondition holds (a query vector, the state plane, query words);
    `candidates`: every listed path's `Candidate`; `reasons`: why the search is degraded (as
    `SearchResult.degraded_reasons`); `cosines`: the raw best-chunk cosine of listed paths and the
    probe's targets and controls (the floor calibration reads them).
    """

    query: str
    fts_forms: str
    window: int
    lists: dict[str, tuple[str, ...]]
    available: frozenset[str]
    candidates: dict[str, Candidate]
    reasons: tuple[str, ...] = ()
    cosines: dict[str, float] = field(default_factory=dict)
    fts_form: str | None = None  # the lexical form the arm bound: `all` (every word) or `any`
    lexical_key: tuple = ()  # the preparing profile's `lexical_key` (index, forms, field weights, words)
    every_word: frozenset[str] | None = None  # listed lexical paths holding every query word (None: by the form)
    signals: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # per arm, aligned with `lists`:
    # the raw score a convex fusion normalises (bm25 for fts, the cosine for vector), and for recency
    # and salience the value they rank by (`fusion.prior_signal`: is the window one tie?)
    # listed pairs the newer-first step leaves alone: settled by a curator, or under a frame that is a list
    settled: frozenset[frozenset[str]] = frozenset()
    _table: CosineTable | None = field(default=None, repr=False)
    _index: dict[str, int] = field(default_factory=dict, repr=False)

    @property
    def degraded(self) -> bool:
        return bool(self.reasons)

    def table(self) -> tuple[CosineTable, dict[str, int]]:
        """The cosines between every listed candidate, computed once and reused for each configuration."""
        if self._table is None:
            paths = sorted(self.candidates)
            self._index = {p: i for i, p in enumerate(paths)}
            self._table = CosineTable([self.candidates[p].vector for p in paths])
        return self._table, self._index


@dataclass(frozen=True)
class Reranked:
    """A configuration's answer for one prepared query: the list and how it came about."""

    paths: tuple[str, ...]
    trace: FusionTrace


def _weight(value: float) -> float:
    """The weight as the fused statement inlines it (`{weight:.4f}`)."""
    return float(f"{value:.4f}")


def fuse_prepared(
    prepared: PreparedQuery, profile: RankingProfile, limit: int, model_id: str | None = None
) -> tuple[list[str], dict[str, dict[str, int]], frozenset[str] | None, dict[str, dict[str, float]] | None]:
    """The fused pool (`limit × pool_factor` paths, fused order), each arm's ranks within the
    window, with `gate_priors` the paths whose recency and salience counted (else None), and under
    a convex fusion each scored arm's contributions, `[arm][path]` (else None)."""
    if profile.arm_window > prepared.window:
        raise ValueError(f"arm_window {profile.arm_window} exceeds the prepared window {prepared.window}")
    arms = active_arms(
        profile.arms,
        has_vector="vector" in prepared.available,
        has_state="salience" in prepared.available,
        has_terms="fts" in prepared.available,
    )
    ranks: dict[str, dict[str, int]] = {}
    parts: dict[str, list[tuple[str, float]]] = {}
    for arm in arms:
        listed = prepared.lists.get(arm.name, ())[: profile.arm_window]
        ranks[arm.name] = {p: r for r, p in enumerate(listed, start=1)}
    if profile.fusion == "convex":
        ranked = {
            arm.name: [(p, r, _signal_of(prepared, arm.name, r - 1)) for p, r in ranks[arm.name].items()]
            for arm in arms
        }
        convex = convex_parts(
            ranked,
            {a.name: _weight(a.weight) for a in arms},
            lexical_share=profile.lexical_share.get(model_id),
            how=profile.convex_norm,
            k=profile.rrf_k,
            window=profile.arm_window,
            lexical_confidence=profile.lexical_confidence.get(model_id),
        )
        parts = {path: [(p.arm, p.contribution) for p in v] for path, v in convex.items()}
        scored: dict[str, dict[str, float]] | None = {}
        for path, v in convex.items():
            for p in v:
                if p.norm is not None:
                    scored.setdefault(p.arm, {})[path] = p.contribution
    else:
        scored = None
        for arm in arms:
            weight = _weight(arm.weight)
            for path, rank in ranks[arm.name].items():
                parts.setdefault(path, []).append((arm.name, weight / (rank + profile.rrf_k)))
    counted: frozenset[str] | None = None
    if profile.gate_priors and "vector" in prepared.available and any(a.name in PRIOR_ARMS for a in arms):
        floor = profile.floor_cosine.get(model_id)
        every_word = prepared.fts_form == "all"
        lexical = ranks.get("fts", {})
        holds = prepared.every_word
        counted = frozenset(
            p
            for p in parts
            if matches_query(
                prepared.cosines.get(p), floor, p in holds if holds is not None else every_word and p in lexical
            )
        )
        order = gated_order(parts, counted.__contains__)
    else:
        order = sorted(((math.fsum(c for _, c in v), p) for p, v in parts.items()), key=lambda sp: (-sp[0], sp[1]))
    return [p for _, p in order[: profile.pool_size(limit)]], ranks, counted, scored


def _signal_of(prepared: PreparedQuery, arm: str, index: int) -> Any:
    values = prepared.signals.get(arm, ())
    return values[index] if index < len(values) else None


def rerank(prepared: PreparedQuery, profile: RankingProfile, limit: int, model_id: str | None) -> Reranked:
    """`limit` paths for the prepared query under `profile`, as `Store.search` would list them."""
    fused, ranks, counted, scored = fuse_prepared(prepared, profile, limit, model_id)
    weights = {a.name: _weight(a.weight) for a in profile.arms if a.name in ranks}
    if not fused or limit <= 0:
        return Reranked((), FusionTrace(tuple(fused), ranks, weights, profile.rrf_k, {}, counted, scored))
    base, index = prepared.table()
    table = CosineTable.subset(base, [index[p] for p in fused])
    items = [
        PoolItem(
            p,
            prepared.candidates[p].claim,
            prepared.candidates[p].vector,
            prepared.candidates[p].arc,
            prepared.candidates[p].title,
            prepared.candidates[p].statement,
        )
        for p in fused
    ]
    pairs = None
    if profile.newer_first:
        pairs = contradicting_pairs(
            [it.statement for it in items],
            lambda a, b: frozenset((a, b)) in prepared.settled if prepared.settled else False,
            [it.vector for it in items],
        )
    out = reorder(prepared.query, items, profile, model_id=model_id, limit=limit, table=table, pairs=pairs)
    moves = {fused[i]: tuple(m.step for m in steps) for i, steps in out.moves.items()}
    paths = tuple(fused[i] for i in out.order)
    return Reranked(paths, FusionTrace(tuple(fused), ranks, weights, profile.rrf_k, moves, counted, scored))


def can_rerank(prepared: PreparedQuery, profile: RankingProfile) -> bool:
    """Whether `profile` can be answered from `prepared` (same lexical form, window within reach)."""
    return profile.lexical_key == prepared.lexical_key and profile.arm_window <= prepared.window
