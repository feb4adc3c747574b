"""Judging a ranked list against a probe, and a probe set's figures: the relevance workbench's maths.

A probe (`domain.probes.EvalProbe`) names the memories that should come first (its targets), the
near-twins that must rank below them (its controls) and how high "first" is (`within`). Against
one ranked list a probe gets a `ProbeVerdict`:

- `rank`: the 1-based position of its best-placed target in the list, None when no target is in
  it (the list is `limit` long: 40 by default, as memhtml's gate searches);
- `inverted`: the controls placed above that target (every control when no target is in the list,
  as memhtml's gate counts it);
- `passed`: a target within the first `within` hits and no inversion;
- `rr`, `ndcg`, `recall`: reciprocal rank (0 when absent), nDCG@10 and recall@10 with the targets
  as the relevant memories (binary gains, `1 / log2(position + 1)`);
- `gate_rank`: the primary target's rank among {target} ∪ controls (memhtml's gate measure);
- `lost_by`: why a failing probe failed, read from the fusion itself: the arm whose contributions
  put the winner (the control above the target, else the first hit) ahead of the target, or the
  post-fusion step that moved the target below it; `unreached` when no arm ranked the target
  within its window, `tie` when the fused scores were equal and path order decided.

`figures` sums a run: MRR, nDCG@10, recall@10, passed and failed probes, inversions, degraded
probes, gate MRR. Pure: lists in, numbers out, so each figure is checked against hand-computed
values in tests/domain/test_judging.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from memhtml_desktop.domain.metrics import inverted_controls, mean, probe_rank
from memhtml_desktop.domain.priors import PRIOR_ARMS

TOP_K = 10
"""nDCG and recall are measured on the first page."""


def dcg(positions: Sequence[int], k: int = TOP_K) -> float:
    """Σ 1 / log2(p + 1) over the relevant items' 1-based positions within the first k."""
    return math.fsum(1.0 / math.log2(p + 1) for p in positions if 1 <= p <= k)


def ndcg_at(positions: Sequence[int], relevant: int, k: int = TOP_K) -> float:
    """nDCG@k with binary gains: DCG of the relevant items found, over the best possible DCG."""
    ideal = dcg(range(1, min(relevant, k) + 1), k)
    return dcg(positions, k) / ideal if ideal > 0 else 0.0


def recall_at(positions: Sequence[int], relevant: int, k: int = TOP_K) -> float:
    """Share of the relevant items found within the first k."""
    return sum(1 for p in positions if 1 <= p <= k) / relevant if relevant else 0.0


@dataclass(frozen=True)
class ProbeVerdict:
    """One probe against one ranked list (see the module docstring)."""

    key: str
    query: str
    targets: tuple[str, ...]
    controls: tuple[str, ...]
    rank: int | None
    inverted: tuple[str, ...]
    passed: bool
    rr: float
    ndcg: float
    recall: float
    gate_rank: int
    degraded: bool = False
    lost_by: str = ""
    lost_to: str = ""
    line: int = 0
    top: tuple[str, ...] = field(default=(), compare=False)  # the first page, for comparisons and coverage

    @property
    def target(self) -> str:
        return self.targets[0] if self.targets else ""

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "line": self.line,
            "query": self.query,
            "targets": list(self.targets),
            "controls": list(self.controls),
            "rank": self.rank,
            "inverted": list(self.inverted),
            "passed": self.passed,
            "rr": round(self.rr, 6),
            "ndcg": round(self.ndcg, 6),
            "recall": round(self.recall, 6),
            "gate_rank": self.gate_rank,
            "degraded": self.degraded,
            "lost_by": self.lost_by,
            "lost_to": self.lost_to,
            "top": list(self.top),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ProbeVerdict":
        return cls(
            key=str(data["key"]),
            query=str(data.get("query", "")),
            targets=tuple(data.get("targets", ())),
            controls=tuple(data.get("controls", ())),
            rank=data.get("rank"),
            inverted=tuple(data.get("inverted", ())),
            passed=bool(data.get("passed")),
            rr=float(data.get("rr", 0.0)),
            ndcg=float(data.get("ndcg", 0.0)),
            recall=float(data.get("recall", 0.0)),
            gate_rank=int(data.get("gate_rank", 1)),
            degraded=bool(data.get("degraded")),
            lost_by=str(data.get("lost_by", "")),
            lost_to=str(data.get("lost_to", "")),
            line=int(data.get("line", 0)),
            top=tuple(data.get("top", ())),
        )


@dataclass(frozen=True)
class FusionTrace:
    """What the ranking did for one query, enough to say which arm or step lost a probe.

    `fused`: the fused order (before the post-fusion steps); `arm_ranks[arm][path]`: each arm's
    rank for the paths it ranked within its window; `weights` and `k` the profile's; `moves[path]`:
    the post-fusion steps that moved that path, in order.
    """

    fused: tuple[str, ...] = ()
    arm_ranks: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    weights: Mapping[str, float] = field(default_factory=dict)
    k: int = 60
    moves: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    ungated: frozenset[str] | None = None  # with `gate_priors`: the paths whose priors counted
    scored: Mapping[str, Mapping[str, float]] | None = None  # a convex fusion's contributions, [arm][path]

    def contribution(self, arm: str, path: str) -> float:
        rank = self.arm_ranks.get(arm, {}).get(path)
        if rank is None or (self.ungated is not None and arm in PRIOR_ARMS and path not in self.ungated):
            return 0.0
        if self.scored is not None and arm in self.scored:
            return self.scored[arm].get(path, 0.0)
        return self.weights.get(arm, 0.0) / (rank + self.k)


def lost_by(target: str, winner: str, trace: FusionTrace) -> str:
    """Why `winner` stands above `target` (see the module docstring)."""
    if not any(target in ranks for ranks in trace.arm_ranks.values()):
        return "unreached"
    at = {p: i for i, p in enumerate(trace.fused)}
    if target in at and winner in at and at[target] < at[winner]:
        steps = list(trace.moves.get(target, ())) or list(trace.moves.get(winner, ()))
        return steps[-1] if steps else "steps"
    margins = [(trace.contribution(arm, winner) - trace.contribution(arm, target), arm) for arm in trace.weights]
    if abs(math.fsum(m for m, _ in margins)) <= 1e-15:
        return "tie"  # equal fused scores: path order decided
    best = max(margins, default=(0.0, ""), key=lambda m: m[0])
    return best[1] if best[0] > 1e-15 else "tie"


def judge(
    probe: Any,
    paths: Sequence[str],
    *,
    trace: FusionTrace | None = None,
    degraded: bool = False,
    k: int = TOP_K,
) -> ProbeVerdict:
    """`probe` (an EvalProbe) against `paths`, the ranked list its query got."""
    targets = tuple(probe.targets)
    at = {p: i + 1 for i, p in enumerate(paths)}
    found = sorted(at[t] for t in targets if t in at)
    rank = found[0] if found else None
    best = paths[rank - 1] if rank is not None else probe.target
    inverted = tuple(inverted_controls(paths, best, probe.controls))
    within = getattr(probe, "within", 1)
    passed = rank is not None and rank <= within and not inverted
    why, winner = "", ""
    if not passed:
        present = [c for c in inverted if c in at]
        winner = min(present, key=at.__getitem__) if present else (paths[0] if paths else "")
        if not paths:
            why = "no hits"
        elif trace is not None and winner:
            why = lost_by(best, winner, trace)
    return ProbeVerdict(
        key=probe.key,
        query=probe.query,
        targets=targets,
        controls=tuple(probe.controls),
        rank=rank,
        inverted=inverted,
        passed=passed,
        rr=1.0 / rank if rank else 0.0,
        ndcg=ndcg_at(found, len(targets), k),
        recall=recall_at(found, len(targets), k),
        gate_rank=probe_rank(list(paths), probe.target, list(probe.controls)),
        degraded=degraded,
        lost_by=why,
        lost_to=winner,
        line=getattr(probe, "line", 0),
        top=tuple(paths[:k]),
    )


@dataclass(frozen=True)
class RunFigures:
    """A probe set's figures under one configuration."""

    probes: int
    passed: int
    mrr: float
    ndcg: float
    recall: float
    inversions: int
    inverted_probes: int
    degraded: int
    gate_mrr: float
    skipped: int = 0

    @property
    def failed(self) -> int:
        return self.probes - self.passed

    def to_json(self) -> dict[str, Any]:
        return {
            "probes": self.probes,
            "passed": self.passed,
            "failed": self.failed,
            "mrr": round(self.mrr, 6),
            "ndcg_at_10": round(self.ndcg, 6),
            "recall_at_10": round(self.recall, 6),
            "inversions": self.inversions,
            "inverted_probes": self.inverted_probes,
            "degraded": self.degraded,
            "gate_mrr": round(self.gate_mrr, 6),
            "skipped": self.skipped,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "RunFigures":
        return cls(
            int(data["probes"]),
            int(data["passed"]),
            float(data["mrr"]),
            float(data["ndcg_at_10"]),
            float(data["recall_at_10"]),
            int(data["inversions"]),
            int(data["inverted_probes"]),
            int(data["degraded"]),
            float(data["gate_mrr"]),
            int(data.get("skipped", 0)),
        )


def figures(verdicts: Sequence[ProbeVerdict], *, skipped: int = 0) -> RunFigures:
    return RunFigures(
        probes=len(verdicts),
        passed=sum(1 for v in verdicts if v.passed),
        mrr=mean([v.rr for v in verdicts]),
        ndcg=mean([v.ndcg for v in verdicts]),
        recall=mean([v.recall for v in verdicts]),
        inversions=sum(len(v.inverted) for v in verdicts),
        inverted_probes=sum(1 for v in verdicts if v.inverted),
        degraded=sum(1 for v in verdicts if v.degraded),
        gate_mrr=mean([1.0 / v.gate_rank for v in verdicts]),
        skipped=skipped,
    )
