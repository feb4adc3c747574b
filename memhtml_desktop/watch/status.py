"""What the watcher shows the GUI and the health panel: plain frozen snapshots, safe to hand across threads.

`WatchStatus` is rebuilt (never mutated) whenever something changes, so a GUI thread holding one
never sees it change under it. `BatchSummary` is one index pass as the user sees it.
`Health` (domain/results.py) is the comparison of the tree with the index that the health panel
needs; `Store.health` computes it by walking the buckets, so the watcher runs it only when the
store has been quiet.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from memhtml_desktop.domain.results import SAMPLE, Health  # noqa: F401  (re-exported: the watcher's vocabulary)
from memhtml_desktop.index.health import measure_health  # noqa: F401  (re-exported for tests and benches)
from memhtml_desktop.index.indexer import IndexReport

STARTING, LIVE, POLLING, BEHIND, STOPPED = "starting", "live", "polling", "behind", "stopped"
MODES = (STARTING, LIVE, POLLING, BEHIND, STOPPED)


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@dataclass(frozen=True)
class BatchSummary:
    """One index pass the watcher ran: what it did and how long it took (`ms`, wall clock)."""

    added: int
    changed: int
    moved: int
    removed: int
    failed: int
    ms: float
    finished_at: str  # ISO instant, UTC
    paths: int = 0  # paths and moves handed to the pass
    kind: str = "batch"  # "batch" (events) or "reconcile" (a full comparison of tree and index)
    report: IndexReport | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, report: IndexReport, ms: float, *, paths: int = 0, kind: str = "batch") -> BatchSummary:
        return cls(
            report.added,
            report.changed,
            report.moved,
            report.removed,
            report.failed,
            round(ms, 1),
            now_iso(),
            paths,
            kind,
            report,
        )

    def line(self) -> str:
        """The headless command's one line per batch."""
        return (
            f"{self.finished_at} {self.kind}: added {self.added}, changed {self.changed}, moved {self.moved}, "
            f"removed {self.removed}, failed {self.failed} in {self.ms:.0f} ms"
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "added": self.added,
            "changed": self.changed,
            "moved": self.moved,
            "removed": self.removed,
            "failed": self.failed,
            "ms": self.ms,
            "paths": self.paths,
            "finished_at": self.finished_at,
        }
        if self.report is not None:
            out["failures"] = [{"path": p, "reason": r} for p, r in self.report.failures]
            out["moves"] = [{"from": s, "to": d} for s, d in self.report.moves]
        return out


@dataclass(frozen=True)
class WatchStatus:
    """A snapshot of the watcher for the status bar and the health panel.

    mode: "starting" (start-up reconciliation running), "live" (kernel events), "polling" (periodic
    directory scans; `reason` says why), "behind" (changes are still watched, but a reconciliation
    or an index pass failed, so the index is not known to be in step: `reason` says what failed and
    when it is tried again) or "stopped" (`reason` says why; a vanished store directory is watched
    for and the watcher resumes by itself when it returns).
    queue_depth: changes seen but not yet indexed (raw events waiting plus paths in the running pass).
    progress: (phase, done, total) of the running reconciliation or pass, else None.
    """

    mode: str = STARTING
    reason: str = ""
    queue_depth: int = 0
    busy: bool = False
    progress: tuple[str, int, int] | None = None
    last_batch: BatchSummary | None = None
    batches: int = 0
    health: Health = field(default_factory=Health)
    store_root: str = ""
    since: str = ""  # when the current mode began

    @property
    def unindexed_files(self) -> int:
        return self.health.unindexed

    @property
    def orphan_rows(self) -> int:
        return self.health.orphans

    @property
    def failed_files(self) -> int:
        return self.health.failed

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "reason": self.reason,
            "queue_depth": self.queue_depth,
            "busy": self.busy,
            "progress": list(self.progress) if self.progress else None,
            "last_batch": self.last_batch.to_json() if self.last_batch else None,
            "batches": self.batches,
            "unindexed_files": self.health.unindexed,
            "orphan_rows": self.health.orphans,
            "failed_files": self.health.failed,
            "store_root": self.store_root,
            "since": self.since,
        }
