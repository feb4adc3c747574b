"""Coverage diagnostics: memories that crowd nearly every query, memories no query can reach.

- **Crowders**: memories in the first page of most probe queries while being none of those
  probes' targets. Usually recency and salience put them there (a memory read every day, the
  newest note), so each crowder lists which arms ranked it on those pages and how often recency and
  salience alone did: the curator can archive it, lower its importance, or weigh the arms down.
- **Unreachable memories**: a memory's own claim, used as the query, does not bring it onto the
  first page. Something above it always wins (a near-duplicate, a crowder) or its claim does not
  say what it is about; either way no agent will be handed it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from memhtml_desktop.domain.configs import Configuration
from memhtml_desktop.domain.probes import EvalProbe, ProbeSet
from memhtml_desktop.domain.refusion import rerank
from memhtml_desktop.index.arm_lists import live_claims
from memhtml_desktop.workbench.runs import PreparedSet, Progress, prepare_set

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import WorkbenchStore

PAGE = 10
QUERY_ARMS = frozenset({"fts", "vector"})


@dataclass(frozen=True)
class Crowder:
    path: str
    pages: int  # probe queries with this memory on their first page (not as a target)
    share: float  # of the set's probes
    arms: dict[str, int]  # arm -> pages on which that arm ranked it
    without_query_arms: int  # pages reached through recency/salience alone (no lexical or vector rank)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "pages": self.pages,
            "share": round(self.share, 4),
            "arms": self.arms,
            "without_query_arms": self.without_query_arms,
        }


def crowders_prepared(
    prepared: PreparedSet, config: Configuration, *, min_share: float = 0.5, page: int = PAGE
) -> list[Crowder]:
    """Memories on the first page of at least `min_share` of the probes, most pages first."""
    n = len(prepared.probes)
    pages: Counter[str] = Counter()
    arms: dict[str, Counter[str]] = {}
    alone: Counter[str] = Counter()
    for probe, query in zip(prepared.probes, prepared.queries):
        ranked = rerank(query, config.profile, page, prepared.model_id)
        for path in ranked.paths:
            if path in probe.targets:
                continue
            pages[path] += 1
            by = {arm for arm, ranks in ranked.trace.arm_ranks.items() if path in ranks}
            arms.setdefault(path, Counter()).update(by)
            if not by & QUERY_ARMS:
                alone[path] += 1
    out = [
        Crowder(p, c, c / n, dict(sorted(arms[p].items())), alone[p])
        for p, c in pages.items()
        if n and c / n >= min_share
    ]
    out.sort(key=lambda c: (-c.pages, c.path))
    return out


def crowders(
    store: WorkbenchStore,
    probe_set: ProbeSet,
    config: Configuration,
    *,
    min_share: float = 0.5,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> list[Crowder]:
    prepared = prepare_set(store, probe_set, config.profile, progress=progress, cancelled=cancelled)
    return crowders_prepared(prepared, config, min_share=min_share)


@dataclass(frozen=True)
class Unreachable:
    path: str
    query: str  # its claim, as searched
    rank: int | None  # where it landed within `limit` hits, None beyond
    above: tuple[str, ...]  # the first hits that stood above it

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "query": self.query, "rank": self.rank, "above": list(self.above)}


@dataclass(frozen=True)
class Reachability:
    checked: int
    unreachable: tuple[Unreachable, ...]

    def to_json(self) -> dict[str, Any]:
        return {"checked": self.checked, "unreachable": [u.to_json() for u in self.unreachable]}


def unreachable(
    store: WorkbenchStore,
    config: Configuration,
    *,
    sample: int | None = 500,
    seed: int = 1,
    page: int = PAGE,
    limit: int = 40,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Reachability:
    """Memories (all live ones, or a seeded `sample`) whose own claim does not bring them onto the
    first page under `config`. Raises runs.Cancelled."""
    claims = live_claims(store, sample=sample, seed=seed)
    probes = tuple(EvalProbe(query=claim, target=path) for path, claim in claims if claim.strip())
    prepared = prepare_set(
        store, ProbeSet("claims", probes, (), "claims"), config.profile, progress=progress, cancelled=cancelled
    )
    out = []
    for probe, query in zip(prepared.probes, prepared.queries):
        paths = rerank(query, config.profile, limit, prepared.model_id).paths
        rank = paths.index(probe.target) + 1 if probe.target in paths else None
        if rank is None or rank > page:
            out.append(Unreachable(probe.target, probe.query, rank, tuple(paths[:3])))
    out.sort(key=lambda u: (u.rank is not None, -(u.rank or 0), u.path))
    return Reachability(len(prepared.probes), tuple(out))
