"""Floor calibration on the store's own probes: seed 003's scan (§6.2.2) run on a probe set.

The relevance floor marks a hit `low_relevance` when it meets no raw signal; its cosine threshold
was calibrated per embedder on a generated corpus (docs/ranking.md). A store's own probes say
whether that value suits this store: for each candidate floor on a grid, how many probe targets
would fall below it on cosine (dropped: a relevant memory marked irrelevant) and how many
non-target hits of the probes' first pages would clear it (admitted). The seed's rule picks the
lowest floor that admits no non-target while dropping no target; when none does, the one with
the fewest of both together. The non-targets are every first-page hit that is not a target, so
some are relevant memories the probe does not name: read "admitted" as an upper bound.
Cosine only, as the seed's scan: a hit also meets the floor through its words or a named tag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from memhtml_desktop.domain.configs import Configuration, with_floor
from memhtml_desktop.domain.probes import ProbeSet
from memhtml_desktop.domain.refusion import rerank
from memhtml_desktop.workbench.runs import PreparedSet, Progress, prepare_set

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import WorkbenchStore

GRID = tuple(round(0.05 * i, 2) for i in range(0, 20))
PAGE = 10


@dataclass(frozen=True)
class FloorRow:
    floor: float
    targets_dropped: int
    non_targets_admitted: int
    controls_admitted: int


@dataclass(frozen=True)
class FloorScan:
    """The scan, the floor it suggests and the one the configuration has now (this embedder)."""

    model_id: str | None
    rows: tuple[FloorRow, ...]
    suggested: float
    current: float
    targets: int
    non_targets: int

    def row(self, floor: float) -> FloorRow:
        return min(self.rows, key=lambda r: abs(r.floor - floor))

    def to_json(self) -> dict[str, Any]:
        return {
            "embedder": self.model_id,
            "suggested": self.suggested,
            "current": self.current,
            "targets": self.targets,
            "non_targets": self.non_targets,
            "rows": [vars(r) for r in self.rows],
        }


def scan_prepared(prepared: PreparedSet, config: Configuration, *, grid: Sequence[float] = GRID) -> FloorScan:
    """The scan over a preparation read `with_cosines=True`."""
    targets: list[float] = []
    others: list[float] = []
    controls: list[float] = []
    for probe, query in zip(prepared.probes, prepared.queries):
        cos = query.cosines
        page = rerank(query, config.profile, PAGE, prepared.model_id).paths
        targets += [cos.get(t, -1.0) for t in probe.targets]
        for path in page:
            if path in probe.targets:
                continue
            (controls if path in probe.controls else others).append(cos.get(path, -1.0))
    rows = tuple(
        FloorRow(
            f,
            sum(1 for c in targets if c < f),
            sum(1 for c in others + controls if c >= f),
            sum(1 for c in controls if c >= f),
        )
        for f in grid
    )
    clean = [r for r in rows if r.targets_dropped == 0 and r.non_targets_admitted == 0]
    best = clean[0] if clean else min(rows, key=lambda r: (r.targets_dropped + r.non_targets_admitted, r.floor))
    return FloorScan(
        prepared.model_id,
        rows,
        best.floor,
        config.profile.floor_cosine.get(prepared.model_id),
        len(targets),
        len(others) + len(controls),
    )


def floor_scan(
    store: WorkbenchStore,
    probe_set: ProbeSet,
    config: Configuration,
    *,
    grid: Sequence[float] = GRID,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> FloorScan:
    """Read the set with raw cosines and scan (`scan_prepared`)."""
    prepared = prepare_set(store, probe_set, config.profile, with_cosines=True, progress=progress, cancelled=cancelled)
    return scan_prepared(prepared, config, grid=grid)


def configuration_with_floor(config: Configuration, model_id: str | None, floor: float) -> Configuration:
    """`config` with this embedder's floor set to `floor` (save it with `WorkbenchFiles.save_configuration`)."""
    if not -1.0 <= floor <= 1.0:
        raise ValueError(f"a cosine floor lies in [-1, 1], got {floor!r}")
    return Configuration(
        config.name, with_floor(config.profile, model_id, floor), config.note, config.source, config.base, config.knobs
    )
