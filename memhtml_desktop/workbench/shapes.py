"""Comparing the pack shapes over a probe set: how often each lands the target, at what cost.

For every probe, `Store.shapes` builds memhtml's pack, the quota ledgers and the catalogue for the
probe's query and scope at one budget; `domain.shapes.landings` says where the target landed in
each (its text in the pack, only a pointer, or missing) and what that shape handed over. The
figures per shape are the share of probes whose target arrived with its content, the share that
got a pointer only, and the mean cost in characters. Table 6-3's fourth row ("results right but do
not fit: switch to catalogue plus expansion") is read off these: a target the pack lists only as
an index line is a budget problem, not a ranking one.

Reads only (no commit, no history entry, no salience); the window runs it as a job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from memhtml_desktop.domain.probes import EvalProbe
from memhtml_desktop.domain.quotas import LedgerMap
from memhtml_desktop.domain.ranking import RankingProfile
from memhtml_desktop.domain.shapes import PROBE_SHAPES, Landing, landings
from memhtml_desktop.workbench.runs import Cancelled  # the core's one: the window's jobs turn it into theirs

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import WorkbenchStore


@dataclass(frozen=True)
class ProbeShapes:
    query: str
    target: str
    landings: tuple[Landing, ...]
    indistinct: int = 0  # catalogue entries that share their title and summary with another
    cheaper: str = ""  # "direct" or "catalog" for this query (ShapeComparison.cheaper)
    question: str = ""
    controls_listed: int = 0  # the probe's near-twin controls the catalogue listed beside its entries

    def landing(self, shape: str) -> Landing:
        return next(x for x in self.landings if x.shape == shape)

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "target": self.target,
            "question": self.question,
            "cheaper": self.cheaper,
            "indistinct": self.indistinct,
            "controls_listed": self.controls_listed,
            "landings": [x.to_json() for x in self.landings],
        }


@dataclass(frozen=True)
class ShapeFigures:
    shape: str
    probes: int
    content: int
    pointer: int
    mean_cost: float
    mean_charged: float = 0.0

    @property
    def content_rate(self) -> float:
        return self.content / self.probes if self.probes else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "probes": self.probes,
            "content": self.content,
            "pointer": self.pointer,
            "missing": self.probes - self.content - self.pointer,
            "content_rate": round(self.content_rate, 4),
            "mean_cost": round(self.mean_cost, 1),
            "mean_charged": round(self.mean_charged, 1),
        }


@dataclass(frozen=True)
class ShapeReport:
    budget: int
    k: int
    rows: tuple[ProbeShapes, ...]

    @property
    def figures(self) -> tuple[ShapeFigures, ...]:
        out = []
        for shape in PROBE_SHAPES:
            picked = [row.landing(shape) for row in self.rows]
            n = len(picked)
            charged = [x.cost if x.charged is None else x.charged for x in picked]
            out.append(
                ShapeFigures(
                    shape,
                    n,
                    sum(x.outcome == "content" for x in picked),
                    sum(x.outcome == "pointer" for x in picked),
                    sum(x.cost for x in picked) / n if n else 0.0,
                    sum(charged) / n if n else 0.0,
                )
            )
        return tuple(out)

    @property
    def controls_listed_probes(self) -> int:
        """Probes whose catalogue listed one of their near-twin controls: told apart by a word or two."""
        return sum(1 for row in self.rows if row.controls_listed)

    @property
    def indistinct_probes(self) -> int:
        """Probes whose catalogue listed entries it could not tell apart."""
        return sum(1 for row in self.rows if row.indistinct)

    def rule(self) -> dict[str, dict[str, int]]:
        """Per question kind ("specific", "vague"), how often direct recall and the catalogue were cheaper."""
        out: dict[str, dict[str, int]] = {}
        for row in self.rows:
            if row.question and row.cheaper:
                counts = out.setdefault(row.question, {"direct": 0, "catalog": 0})
                counts[row.cheaper] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "k": self.k,
            "figures": [f.to_json() for f in self.figures],
            "indistinct_probes": self.indistinct_probes,
            "controls_listed_probes": self.controls_listed_probes,
            "rule": self.rule(),
            "probes": [row.to_json() for row in self.rows],
        }


def compare_shapes(
    store: WorkbenchStore,
    probes: Sequence[EvalProbe],
    *,
    budget: int | None = None,
    limit: int = 10,
    k: int = 10,
    ranking: RankingProfile | None = None,
    ledgers: LedgerMap | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> ShapeReport:
    """Every shape for every probe (see the module docstring)."""
    profile = ranking or store.ranking
    spend = profile.recall_budget if budget is None else max(0, int(budget))
    rows = []
    for n, probe in enumerate(probes):
        if cancelled is not None and cancelled():
            raise Cancelled()
        comparison = store.shapes(
            probe.query, probe.scope, budget=spend, limit=limit, k=k, ranking=profile, ledgers=ledgers
        )
        listed = {e.path for e in comparison.catalogue.listed}
        rows.append(
            ProbeShapes(
                probe.query,
                probe.target,
                landings(comparison, probe.targets),
                sum(len(g) for g in comparison.catalogue.indistinct),
                comparison.cheaper,
                comparison.catalogue.question,
                len(listed.intersection(probe.controls)),
            )
        )
        if progress is not None:
            progress("shapes", n + 1, len(probes))
    return ShapeReport(spend, k, tuple(rows))
