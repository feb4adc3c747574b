"""Ranking quality measures: the discrimination gate's ranks and MRR, and known-item MRR@k.

Pure functions over result lists (paths in rank order), so the gate in the test suite, the
`eval` command and a later relevance workbench all compute the same numbers.

- **Discrimination** (memhtml's gate, seed 001): a probe is a query, the memory that answers it
  (the target) and near-twin controls that must rank below it. `probe_rank` is the target's rank
  among {target} ∪ controls: an absent control counts as beaten, an absent target as beaten by
  every control. An inversion is a control ranked above its target. The gate passes with zero
  inversions and MRR >= `GATE_MRR` over at least one probe.
- **Corpus rank**: the target's position in the whole hit list (reciprocal 0 when absent),
  reported, not gated.
- **Known item**: a query built from words of one memory must find that memory on the first page;
  MRR@k with k the page size.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Sequence

GATE_MRR = 0.85


def probe_rank(paths: Sequence[str], target: str, controls: Sequence[str]) -> int:
    """Rank of `target` among {target} ∪ `controls` in `paths` (1 is best)."""
    if target not in paths:
        return 1 + len(controls)
    at = paths.index(target)
    return 1 + sum(1 for c in controls if c in paths and paths.index(c) < at)


def inverted_controls(paths: Sequence[str], target: str, controls: Sequence[str]) -> list[str]:
    """The controls that beat the target: those above it, or every control when it is absent."""
    if target not in paths:
        return list(controls)
    at = paths.index(target)
    return [c for c in controls if c in paths and paths.index(c) < at]


def corpus_rank(paths: Sequence[str], target: str) -> int | None:
    """1-based position of `target` in the whole list, or None when absent."""
    return paths.index(target) + 1 if target in paths else None


def reciprocal(rank: int | None, cutoff: int | None = None) -> float:
    """1 / rank, or 0 when absent or beyond `cutoff` (MRR@cutoff)."""
    if rank is None or rank < 1 or (cutoff is not None and rank > cutoff):
        return 0.0
    return 1.0 / rank


def mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


@dataclass(frozen=True)
class ProbeOutcome:
    """One probe's result: the target's rank among its controls and in the list, what beat it."""

    query: str
    target: str
    rank: int
    corpus_rank: int | None
    inverted: tuple[str, ...] = ()
    inverted_families: tuple[str, ...] = ()
    degraded: bool = False
    kind: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "target": self.target,
            "kind": self.kind,
            "rank": self.rank,
            "corpus_rank": self.corpus_rank,
            "inversions": len(self.inverted),
            "inverted": list(self.inverted),
            "inverted_families": list(self.inverted_families),
            "degraded": self.degraded,
        }


def probe_outcome(
    query: str,
    paths: Sequence[str],
    target: str,
    controls: Sequence[str],
    *,
    families: Sequence[str] = (),
    degraded: bool = False,
    kind: str = "",
) -> ProbeOutcome:
    inverted = inverted_controls(paths, target, controls)
    family_of = dict(zip(controls, families))
    return ProbeOutcome(
        query=query,
        target=target,
        rank=probe_rank(paths, target, controls),
        corpus_rank=corpus_rank(paths, target),
        inverted=tuple(inverted),
        inverted_families=tuple(family_of.get(c, "") for c in inverted),
        degraded=degraded,
        kind=kind,
    )


@dataclass(frozen=True)
class GateSummary:
    """The set's figures. `inversions` counts inverted controls; `inverted_probes` the probes
    with at least one."""

    probes: int
    inversions: int
    inverted_probes: int
    mrr: float
    corpus_mrr: float
    degraded_probes: int
    passed: bool
    by_family: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "probes": self.probes,
            "inversions": self.inversions,
            "inverted_probes": self.inverted_probes,
            "mrr": round(self.mrr, 4),
            "corpus_mrr": round(self.corpus_mrr, 4),
            "degraded_probes": self.degraded_probes,
            "passed": self.passed,
            "inversions_by_family": dict(self.by_family),
        }


def summarize(outcomes: Sequence[ProbeOutcome], *, gate_mrr: float = GATE_MRR) -> GateSummary:
    """memhtml's `summarize`: an empty set does not pass; one inversion fails whatever the MRR."""
    inversions = sum(len(o.inverted) for o in outcomes)
    mrr = mean([reciprocal(o.rank) for o in outcomes])
    by_family: dict[str, int] = {}
    for o in outcomes:
        for family in o.inverted_families:
            by_family[family or "?"] = by_family.get(family or "?", 0) + 1
    return GateSummary(
        probes=len(outcomes),
        inversions=inversions,
        inverted_probes=sum(1 for o in outcomes if o.inverted),
        mrr=mrr,
        corpus_mrr=mean([reciprocal(o.corpus_rank) for o in outcomes]),
        degraded_probes=sum(1 for o in outcomes if o.degraded),
        passed=bool(outcomes) and inversions == 0 and mrr >= gate_mrr,
        by_family=dict(sorted(by_family.items())),
    )


@dataclass(frozen=True)
class KnownItemSummary:
    """Known-item MRR@k over `n` queries; `missing` = targets not on the page.

    `twin_free_*` restricts to targets with no near-twin in the store: for a memory with a
    near-identical twin, a few of its words that miss the words the twins differ in name both,
    so which one is "the" known item is a coin toss (and path order, in a generated store).
    """

    source: str
    n: int
    k: int
    mrr: float
    missing: int
    twin_free_n: int = 0
    twin_free_mrr: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "n": self.n,
            "k": self.k,
            "mrr_at_k": round(self.mrr, 4),
            "missing": self.missing,
            "twin_free_n": self.twin_free_n,
            "twin_free_mrr_at_k": round(self.twin_free_mrr, 4),
        }


def known_item_summary(
    source: str, ranks: Sequence[int | None], k: int, twinned: Sequence[bool] | None = None
) -> KnownItemSummary:
    twinned = list(twinned) if twinned is not None else [False] * len(ranks)
    free = [r for r, t in zip(ranks, twinned) if not t]
    return KnownItemSummary(
        source=source,
        n=len(ranks),
        k=k,
        mrr=mean([reciprocal(r, k) for r in ranks]),
        missing=sum(1 for r in ranks if r is None or r > k),
        twin_free_n=len(free),
        twin_free_mrr=mean([reciprocal(r, k) for r in free]),
    )


@dataclass
class GateReport:
    """A probe set run under one profile: each probe's outcome and the set's figures."""

    ranking: str
    limit: int
    outcomes: list[ProbeOutcome]
    summary: GateSummary

    def to_json(self) -> dict[str, Any]:
        return {
            "ranking": self.ranking,
            "limit": self.limit,
            "summary": self.summary.to_json(),
            "probes": [o.to_json() for o in self.outcomes],
        }


@dataclass(frozen=True)
class KnownItem:
    """A known-item query: words of one memory's claim or title, and that memory."""

    source: str  # "claim" or "title"
    query: str
    target: str
    twinned: bool = False  # the target has a near-twin in the store (see KnownItemSummary)


@dataclass
class KnownItemReport:
    """Known-item MRR@k per source under one profile, and where each query's memory landed."""

    ranking: str
    summaries: dict[str, KnownItemSummary]
    ranks: list[tuple[KnownItem, int | None]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"ranking": self.ranking, **{k: v.to_json() for k, v in self.summaries.items()}}
