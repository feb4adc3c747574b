"""Side by side: two configurations on one probe set, and two configurations on one query.

"memhtml vs default" is the first comparison a curator sees: what an agent on memhtml receives
against this app's ranking. On a set, the answer is the probes that moved (rank deltas, which
broke, which were fixed) and both runs' figures; on one query, the two lists next to each other
with the same memory linked across them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from memhtml_desktop.domain.configs import Configuration
from memhtml_desktop.domain.probes import ProbeSet
from memhtml_desktop.domain.types import Scope, SearchResult
from memhtml_desktop.workbench.history import ProbeChange, diff_runs
from memhtml_desktop.workbench.runs import RUN_LIMIT, PreparedSet, Progress, Run, prepare_set, run_configuration

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import WorkbenchStore


@dataclass(frozen=True)
class SetComparison:
    """Configuration `a` against `b` on one set: both runs, and every probe that moved
    (`ProbeChange`, "before" being `a`, "after" `b`; delta > 0: the target ranks higher under `b`)."""

    a: Run
    b: Run
    changes: tuple[ProbeChange, ...]

    @property
    def moved(self) -> int:
        return len(self.changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "a": {"config": self.a.config_name, "figures": self.a.figures.to_json()},
            "b": {"config": self.b.config_name, "figures": self.b.figures.to_json()},
            "changes": [c.to_json() for c in self.changes],
        }


def compare_configurations(
    store: WorkbenchStore,
    probe_set: ProbeSet,
    a: Configuration,
    b: Configuration,
    *,
    limit: int = RUN_LIMIT,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> SetComparison:
    """Run `a` and `b` on `probe_set` (one reading of the store when they share a lexical form)."""
    prepared: PreparedSet | None = None
    if a.profile.lexical_key == b.profile.lexical_key:
        window = max(a.profile.arm_window, b.profile.arm_window)
        prepared = prepare_set(store, probe_set, a.profile, window=window, progress=progress, cancelled=cancelled)
    run_a = run_configuration(
        store, probe_set, a, limit=limit, prepared=prepared, progress=progress, cancelled=cancelled
    )
    run_b = run_configuration(
        store, probe_set, b, limit=limit, prepared=prepared, progress=progress, cancelled=cancelled
    )
    return SetComparison(run_a, run_b, diff_runs(run_a, run_b).changes)


@dataclass(frozen=True)
class QueryComparison:
    """One query under two configurations: both results (full hits, for the two lists) and the
    links between them: `links[i]` is the position (0-based) in `b` of `a`'s hit i, or None."""

    a_name: str
    b_name: str
    a: SearchResult
    b: SearchResult
    links: tuple[int | None, ...]

    @property
    def only_a(self) -> tuple[str, ...]:
        return tuple(h.path for h, at in zip(self.a.hits, self.links) if at is None)

    @property
    def only_b(self) -> tuple[str, ...]:
        here = {h.path for h in self.a.hits}
        return tuple(h.path for h in self.b.hits if h.path not in here)

    def rank_deltas(self) -> dict[str, int]:
        """Path -> positions gained under `b` (positive: higher under b), for paths in both lists."""
        return {h.path: i - at for i, (h, at) in enumerate(zip(self.a.hits, self.links)) if at is not None}

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.a.query,
            "a": {"config": self.a_name, "paths": [h.path for h in self.a.hits]},
            "b": {"config": self.b_name, "paths": [h.path for h in self.b.hits]},
            "links": list(self.links),
        }


def compare_query(
    store: WorkbenchStore,
    query: str,
    a: Configuration,
    b: Configuration,
    *,
    scope: Scope | None = None,
    limit: int = 10,
) -> QueryComparison:
    """`query` searched under `a` and under `b` (`Store.search`, so the hits carry their explanations)."""
    ra = store.search(query, scope, limit=limit, ranking=a.profile)
    rb = store.search(query, scope, limit=limit, ranking=b.profile)
    at = {h.path: i for i, h in enumerate(rb.hits)}
    return QueryComparison(a.name, b.name, ra, rb, tuple(at.get(h.path) for h in ra.hits))
