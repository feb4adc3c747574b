"""The workbench's typed jobs: every call into the Qt-free core (`memhtml_desktop/workbench/`)
runs on a pool thread, because each one reads files, SQLite or git.

Short reads (listing, a query side by side, a recorded run, a memory's twins) run on the read
pool; the long ones (runs, comparisons, the optimizer, the floor scan, coverage) on a one-thread
pool of their own (`LONG_POOL`), so the window's searches never queue behind them;
writes to the store (a probe pinned, a configuration saved, a probe removed) on the "curate"
one-thread pool the curation dialogs use, so they take turns with memory writes and never wait
behind an integrity check. The core's own `Cancelled` becomes the runner's, so a cancelled run's
answer is dropped like any other. All of them run in the store's engine (engine/), the long ones
on its workbench lane. The optimizer also has a Stop of its own (`stoppable`: the window's
`Runner.stop`): a stopped search still answers with the best so far.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

from memhtml_desktop.index.doors import StoreDoors, StoreFacts, WorkbenchStore
from memhtml_desktop.ops.curators import curator_for
from memhtml_desktop.ops.jobs import Cancelled, Cancelled_, Job, Progress, check

if TYPE_CHECKING:
    from memhtml_desktop.workbench import Workbench

LONG_POOL = "workbench"
"""The long reads (a run, a comparison, the optimizer, the scans) take turns on a one-thread pool
of their own, so a 500-probe run or an optimizer search never holds a read-pool thread that a
search, the counts or the reader wait for."""

KEY = "workbench"
"""The name the Workbench is kept under by its store (`Store.kept`: the store's own state)."""


def workbench_for(store: WorkbenchStore, *, judgments: bool = False) -> Workbench:
    """The core's `Workbench` of `store`, made once on the first worker that needs it (making one
    resolves the store's data directory); `judgments` is the setting's current value."""
    from memhtml_desktop.workbench import Workbench

    wb: Workbench = store.kept(KEY, lambda: Workbench(store, implicit_judgments=judgments))
    wb.judgments.enabled = judgments
    return wb


def existing_workbench(store: StoreFacts) -> Workbench | None:
    """The workbench of `store` if one was made (None otherwise); touches nothing."""
    return store.kept(KEY)


@dataclass
class ForgetCachedJob(Job[None]):
    """The index changed: the workbench's cached per-arm candidate lists (made in the engine) are
    stale. Nothing when no workbench was made for the store."""

    kind: ClassVar[str] = "wb-forget"
    replace: ClassVar[bool] = False

    def run(self, store: StoreFacts, cancelled: Cancelled_, progress: Progress) -> None:
        wb = existing_workbench(store)
        if wb is not None:
            wb.invalidate()


def _core_cancelled(fn):
    """Run `fn()`, turning the core's Cancelled into the runner's."""
    from memhtml_desktop.workbench import Cancelled as CoreCancelled

    try:
        return fn()
    except CoreCancelled:
        raise Cancelled() from None


@dataclass
class WbJob(Job[Any]):
    """Base: the setting for implicit judgments travels with every job (the workbench is shared)."""

    judgments: bool = field(default=False, kw_only=True)

    def wb(self, store: WorkbenchStore) -> Workbench:
        return workbench_for(store, judgments=self.judgments)


@dataclass(frozen=True)
class Listing:
    """What the workbench window lists: sets, configurations (and their problems), the history,
    the pending implicit judgments, and this store's embedder."""

    sets: tuple[str, ...]
    configs: Any  # ConfigListing
    history: tuple[Any, ...]  # RunSummary, oldest first
    judgments: tuple[Any, ...]  # Judgment
    model_id: str | None


@dataclass
class ListJob(WbJob):
    kind: ClassVar[str] = "wb-list"

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Listing:
        wb = self.wb(store)
        check(cancelled)
        return Listing(
            tuple(wb.files.probe_sets()),
            wb.files.configurations(),
            tuple(wb.history.list()),
            tuple(wb.judgments.candidates()),
            getattr(store.embedder, "model_id", None),
        )


@dataclass
class SetJob(WbJob):
    """One probe set as read (its probes and problems), for the Probes tab before any run."""

    kind: ClassVar[str] = "wb-set"
    set_name: str = ""

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        return self.wb(store).files.read_probe_set(self.set_name)


@dataclass
class SetTaskJob(WbJob):
    """Base of the long jobs over one probe set: read the set, then one core call that reports
    progress and can be cancelled (`task`), on the workbench's own one-thread pool."""

    pool: ClassVar[str] = LONG_POOL
    process: ClassVar[bool] = True
    set_name: str = ""

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        wb = self.wb(store)
        probe_set = wb.files.read_probe_set(self.set_name)
        return _core_cancelled(lambda: self.task(wb, probe_set, progress, cancelled))

    def task(self, wb: Any, probe_set: Any, progress: Any, cancelled: Any) -> Any:
        raise NotImplementedError


@dataclass
class RunJob(SetTaskJob):
    """One configuration on one probe set, recorded in the history."""

    kind: ClassVar[str] = "wb-run"
    config: Any = None

    def task(self, wb, probe_set, progress, cancelled) -> Any:
        return wb.run(probe_set, self.config, progress=progress, cancelled=cancelled)


@dataclass
class CompareJob(SetTaskJob):
    """Two configurations on one probe set: both runs (recorded) and the probes that moved."""

    kind: ClassVar[str] = "wb-compare"
    a: Any = None
    b: Any = None

    def task(self, wb, probe_set, progress, cancelled) -> Any:
        return wb.compare(probe_set, self.a, self.b, progress=progress, cancelled=cancelled)


@dataclass
class QueryCompareJob(WbJob):
    """One query under two configurations, the two lists and the links between them."""

    kind: ClassVar[str] = "wb-query"
    query: str = ""
    scope: Any = None
    a: Any = None
    b: Any = None
    limit: int = 10

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        check(cancelled)
        return self.wb(store).compare_query(self.query, self.a, self.b, scope=self.scope, limit=self.limit)


@dataclass
class OptimizeJob(WbJob):
    """The optimizer on a set from a base configuration. `stop` is the window's Stop button
    (`Runner.stop`, the engine's `Stop` message: the engine gives the job an Event as `stop`): the
    search ends and answers with the best so far; the runner's own cancel still drops the answer.
    Stopped before it tried anything (the core's Cancelled), it answers None."""

    kind: ClassVar[str] = "wb-optimize"
    pool: ClassVar[str] = LONG_POOL
    process: ClassVar[bool] = True
    stoppable: ClassVar[bool] = True
    set_name: str = ""
    base: Any = None
    trials: int = 200
    holdout: float = 0.3
    seed: int = 1
    stop: threading.Event | None = field(default=None, compare=False)

    def portable(self) -> OptimizeJob:
        return replace(super().portable(), stop=None)  # an Event does not cross; the engine gives its own

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        """The result; None when Stop came while the store was still being read (nothing tried)."""
        stop = self.stop
        flag = cancelled if stop is None else (lambda: cancelled() or stop.is_set())
        try:
            return self.search(store, flag, progress)
        except Cancelled:
            if stop is not None and stop.is_set() and not cancelled():
                return None
            raise

    def search(self, store, cancelled, progress) -> Any:
        wb = self.wb(store)
        probe_set = wb.files.read_probe_set(self.set_name)
        return _core_cancelled(
            lambda: wb.optimize(
                probe_set,
                self.base,
                trials=self.trials,
                seed=self.seed,
                holdout=self.holdout,
                progress=progress,
                cancelled=cancelled,
            )
        )


@dataclass
class FloorJob(SetTaskJob):
    kind: ClassVar[str] = "wb-floor"
    config: Any = None

    def task(self, wb, probe_set, progress, cancelled) -> Any:
        return wb.floor_scan(probe_set, self.config, progress=progress, cancelled=cancelled)


@dataclass
class CrowdersJob(SetTaskJob):
    kind: ClassVar[str] = "wb-crowders"
    config: Any = None
    min_share: float = 0.5

    def task(self, wb, probe_set, progress, cancelled) -> Any:
        return wb.crowders(probe_set, self.config, min_share=self.min_share, progress=progress, cancelled=cancelled)


@dataclass
class UnreachableJob(WbJob):
    kind: ClassVar[str] = "wb-unreachable"
    pool: ClassVar[str] = LONG_POOL
    process: ClassVar[bool] = True
    config: Any = None
    sample: int | None = 500

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        wb = self.wb(store)
        return _core_cancelled(
            lambda: wb.unreachable(self.config, sample=self.sample, progress=progress, cancelled=cancelled)
        )


@dataclass
class LoadRunJob(WbJob):
    """A recorded run in full (the history's selection)."""

    kind: ClassVar[str] = "wb-load-run"
    run_id: str = ""

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        return self.wb(store).history.load(self.run_id)


@dataclass
class DiffJob(WbJob):
    """Two recorded runs probe by probe (which probe broke between which commits)."""

    kind: ClassVar[str] = "wb-diff"
    before: str = ""
    after: str = ""

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        return self.wb(store).history.diff(self.before, self.after)


@dataclass(frozen=True)
class Twin:
    path: str
    title: str
    claim: str


@dataclass
class TwinsJob(WbJob):
    """The controls a pinned probe offers: the target's near-twins among the query's candidates
    (the core's `suggest_controls`, under `default`), then its near-twins anywhere in the store
    whose claims differ from it (the conflicts scan of that one memory, `write/conflicts.py`)."""

    kind: ClassVar[str] = "wb-twins"
    path: str = ""
    query: str = ""
    scope: Any = None

    def run(self, store: StoreDoors, cancelled: Cancelled_, progress: Progress) -> tuple[Twin, ...]:
        from memhtml_desktop.domain.configs import shipped

        out: dict[str, Twin] = {}
        if self.query.strip():
            config = next(c for c in shipped() if c.name == "default")
            for s in self.wb(store).suggest_controls(self.query, self.path, config, scope=self.scope):
                out.setdefault(s.path, Twin(s.path, s.title, s.claim))
        check(cancelled)
        report = curator_for(store).conflicts(cancelled=cancelled, paths=[self.path])
        if report.cancelled:
            raise Cancelled()
        for pair in report.pairs:
            other = pair.b if pair.a.path == self.path else pair.a
            if other.path != self.path:
                out.setdefault(other.path, Twin(other.path, other.title, other.claim))
        return tuple(out.values())


@dataclass
class RecordJudgmentJob(WbJob):
    """(query, memory, position) remembered in the app's data directory, when the setting is on."""

    kind: ClassVar[str] = "wb-judgment"
    replace: ClassVar[bool] = False
    query: str = ""
    path: str = ""
    position: int = 0
    scope: Any = None

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        return self.wb(store).judgments.record(self.query, self.path, self.position, self.scope)


@dataclass
class DecideJudgmentJob(WbJob):
    """Accept a candidate into a set (one commit) or discard it."""

    kind: ClassVar[str] = "wb-decide"
    pool: ClassVar[str] = "curate"
    replace: ClassVar[bool] = False
    judgment_id: str = ""
    accept_into: str = ""  # "": discard

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        wb = self.wb(store)
        if not self.accept_into:
            wb.judgments.discard(self.judgment_id)
            return None
        probe = wb.judgments.get(self.judgment_id).to_probe()
        saved = wb.files.add_probe(self.accept_into, probe)
        wb.judgments.accept(self.judgment_id)
        return saved


# -- writes to the store (each one commit) -----------------------------------------------------


@dataclass
class PinJob(WbJob):
    """Add a probe to a set: one commit of the set's file (`WorkbenchFiles.add_probe`)."""

    kind: ClassVar[str] = "wb-pin"
    pool: ClassVar[str] = "curate"
    replace: ClassVar[bool] = False
    set_name: str = ""
    probe: Any = None

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        return self.wb(store).files.add_probe(self.set_name, self.probe)


@dataclass
class RemoveProbeJob(WbJob):
    kind: ClassVar[str] = "wb-remove"
    pool: ClassVar[str] = "curate"
    replace: ClassVar[bool] = False
    set_name: str = ""
    key: str = ""

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        return self.wb(store).files.remove_probe(self.set_name, self.key)


@dataclass
class SaveConfigJob(WbJob):
    """Save a what-if configuration (the knobs that differ from its base), one commit."""

    kind: ClassVar[str] = "wb-save-config"
    pool: ClassVar[str] = "curate"
    replace: ClassVar[bool] = False
    name: str = ""
    profile: Any = None
    base: str = "default"
    note: str = ""

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        return self.wb(store).files.save_configuration(self.name, self.profile, base=self.base, note=self.note)


@dataclass
class SaveFloorJob(WbJob):
    kind: ClassVar[str] = "wb-save-floor"
    pool: ClassVar[str] = "curate"
    replace: ClassVar[bool] = False
    config: Any = None
    floor: float = 0.0

    def run(self, store: WorkbenchStore, cancelled: Cancelled_, progress: Progress) -> Any:
        return self.wb(store).save_floor(self.config, self.floor)


@dataclass
class CompareShapesJob(SetTaskJob):
    """The pack shapes compared over a probe set (the workbench's Shapes tab)."""

    kind: ClassVar[str] = "wb-shapes"
    budget: int = 16_000
    k: int = 10

    def task(self, wb, probe_set, progress, cancelled) -> Any:
        from memhtml_desktop.workbench import check_probe_paths, compare_shapes

        store = wb.store
        probes, _, _ = check_probe_paths(store, probe_set)
        return compare_shapes(
            store,
            probes,
            budget=self.budget,
            k=self.k,
            ledgers=store.ledger_map(lenient=True),
            progress=progress,
            cancelled=cancelled,
        )
