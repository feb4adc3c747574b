"""The relevance workbench's core, Qt-free: probe sets, configurations, runs, history, comparisons,
the optimizer, implicit judgments, floor calibration and coverage (issue 16; docs/workbench.md).

Beside `write/` in the layers: it reads the store through `Store` and `index/arm_lists.py` (SQL
stays in `index/`), commits its files through the write core's git layer, and keeps the maths in
`domain/` (`probes`, `configs`, `judging`, `refusion`). The window (`ui/workbench/`) and the CLI
(`eval --config/--compare/--optimize/--history`, `probes …`) are two front ends over it; every
call here may touch disk, SQLite or git, so the window runs them as jobs, never on the GUI thread.

    from memhtml_desktop.workbench import Workbench
    wb = Workbench(store)                       # one per open store
    wb.files.probe_sets()                       # ["gate", "oncall"]
    probe_set = wb.files.read_probe_set("gate") # ProbeSet(probes, problems: file and line)
    wb.files.add_probe("gate", EvalProbe(query, target, controls, note=...))   # one commit
    wb.suggest_controls(query, target, config); wb.pin("gate", query, target, controls=[...])
    configs = wb.files.configurations()         # memhtml, default, then the store's what-ifs
    run = wb.run(probe_set, configs.named("memhtml"), progress=..., cancelled=...)  # recorded
    wb.history.list(set_name="gate"); wb.history.diff(old_id, new_id)
    wb.compare(probe_set, a, b); wb.compare_query("drain the vip", a, b)
    wb.optimize(probe_set, base, trials=200, progress=..., cancelled=...)
    wb.judgments.record(query, path, position)  # only when the setting is on
    wb.floor_scan(probe_set, config); wb.crowders(probe_set, config); wb.unreachable(config)
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Callable

from memhtml_desktop.domain.configs import ConfigError, Configuration, shipped
from memhtml_desktop.domain.judging import ProbeVerdict, RunFigures
from memhtml_desktop.domain.probes import EvalProbe, ProbeProblem, ProbeSet
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.workbench.compare import QueryComparison, SetComparison, compare_query
from memhtml_desktop.workbench.coverage import Crowder, Reachability, Unreachable, crowders_prepared, unreachable
from memhtml_desktop.workbench.floor import FloorRow, FloorScan, configuration_with_floor, scan_prepared
from memhtml_desktop.workbench.history import ProbeChange, RunDiff, RunHistory, RunSummary, diff_runs
from memhtml_desktop.workbench.judgments import Judgment, JudgmentLog
from memhtml_desktop.workbench.locations import BadName, check_name, store_data_dir
from memhtml_desktop.workbench.optimizer import OptimizeResult, optimize_prepared, split_probes
from memhtml_desktop.workbench.pinning import ControlSuggestion, suggest_controls
from memhtml_desktop.workbench.qa_import import resolve_pairs
from memhtml_desktop.workbench.runs import (
    RUN_LIMIT,
    STREAM_PROBES,
    Cancelled,
    PreparedSet,
    Progress,
    Run,
    check_probe_paths,
    prepare_set,
    run_configuration,
    run_streamed,
)
from memhtml_desktop.workbench.shapes import compare_shapes
from memhtml_desktop.workbench.store_files import (
    ConfigListing,
    Saved,
    WorkbenchFiles,
    read_config_file,
    read_probe_file,
)

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import WorkbenchStore

__all__ = [
    "BadName",
    "Cancelled",
    "ConfigError",
    "ConfigListing",
    "Configuration",
    "ControlSuggestion",
    "Crowder",
    "EvalProbe",
    "FloorRow",
    "FloorScan",
    "Judgment",
    "JudgmentLog",
    "OptimizeResult",
    "PreparedSet",
    "ProbeChange",
    "ProbeProblem",
    "ProbeSet",
    "ProbeVerdict",
    "QueryComparison",
    "Reachability",
    "Run",
    "RunDiff",
    "RunFigures",
    "RunHistory",
    "RunSummary",
    "Saved",
    "SetComparison",
    "Unreachable",
    "Workbench",
    "WorkbenchFiles",
    "configuration_with_floor",
    "check_name",
    "check_probe_paths",
    "compare_shapes",
    "diff_runs",
    "read_config_file",
    "read_probe_file",
    "resolve_pairs",
    "shipped",
    "split_probes",
    "store_data_dir",
]


class Workbench:
    """The workbench of one open store: its files, its history, its judgments, and the operations
    over them. Holds one cached reading of the last probe set per lexical form, so running several
    configurations (or the optimizer after a run) reads the store once; `invalidate()` drops it
    (the window calls it on every `StoreChange` that touched the index)."""

    def __init__(self, store: WorkbenchStore, *, implicit_judgments: bool = False, data_dir=None) -> None:
        self.store = store
        self.data_dir = data_dir if data_dir is not None else store_data_dir(store.root)
        self.files = WorkbenchFiles(store.root)
        self.history = RunHistory(self.data_dir)
        self.judgments = JudgmentLog(self.data_dir, enabled=implicit_judgments)
        self._cache: dict[tuple, PreparedSet] = {}
        self._lock = threading.Lock()

    # -- reading the store once ----------------------------------------------------------------

    def invalidate(self) -> None:
        with self._lock:
            self._cache.clear()

    def prepared(
        self,
        probe_set: ProbeSet,
        config: Configuration,
        *,
        with_cosines: bool = False,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> PreparedSet:
        """The set read for `config` (cached by set contents, lexical form and window)."""
        key = (probe_set.source, probe_set.probes, config.profile.lexical_key, with_cosines)
        with self._lock:
            hit = self._cache.get(key)
        if hit is not None and hit.serves(config.profile):
            return hit
        prepared = prepare_set(
            self.store, probe_set, config.profile, with_cosines=with_cosines, progress=progress, cancelled=cancelled
        )
        with self._lock:
            # one set at a time (both lexical forms of it): an edited or another set replaces it
            self._cache = {k: v for k, v in self._cache.items() if k[:2] == key[:2]}
            self._cache[key] = prepared
        return prepared

    # -- operations ----------------------------------------------------------------------------

    def run(
        self,
        probe_set: ProbeSet,
        config: Configuration,
        *,
        limit: int = RUN_LIMIT,
        record: bool = True,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Run:
        """Run `config` on `probe_set` and (by default) record it in the history.

        A set of more than `STREAM_PROBES` is run streamed (`run_streamed`: bounded memory, not
        cached). A history that cannot be written (a read-only data directory, a full disk) loses
        nothing: the run comes back with `not_recorded` saying why."""
        if len(probe_set.probes) > STREAM_PROBES:
            run = run_streamed(self.store, probe_set, config, limit=limit, progress=progress, cancelled=cancelled)
        else:
            prepared = self.prepared(probe_set, config, progress=progress, cancelled=cancelled)
            run = run_configuration(
                self.store, probe_set, config, limit=limit, prepared=prepared, progress=progress, cancelled=cancelled
            )
        return self.record(run) if record else run

    def record(self, run: Run) -> Run:
        """Keep `run` in the history; when the data directory cannot be written, the run itself is
        kept in hand and says it was not recorded (`Run.not_recorded`)."""
        try:
            self.history.record(run)
        except OSError as exc:
            return replace(
                run,
                not_recorded=f"the run was not recorded: the history in {self.history.directory} "
                f"cannot be written ({exc.strerror or exc})",
            )
        return run

    def suggest_controls(
        self, query: str, target: str, config: Configuration, *, scope: Scope | None = None, limit: int = 5
    ) -> list[ControlSuggestion]:
        """The target's near-twins among the query's candidates: the controls to offer when a
        probe is pinned from a search row ("expect this memory for this query")."""
        return suggest_controls(self.store, query, target, config, scope=scope, limit=limit)

    def pin(
        self, set_name: str, query: str, target: str, *, controls=(), scope: Scope | None = None, note: str = ""
    ) -> Saved:
        """Add the probe (query, target, the chosen controls) to `set_name`: one commit."""
        return self.files.add_probe(
            set_name, EvalProbe(query=query, target=target, controls=tuple(controls), scope=scope, note=note)
        )

    def compare(
        self,
        probe_set: ProbeSet,
        a: Configuration,
        b: Configuration,
        *,
        limit: int = RUN_LIMIT,
        record: bool = True,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> SetComparison:
        """Two configurations on one set (both runs recorded by default)."""
        run_a = self.run(probe_set, a, limit=limit, record=record, progress=progress, cancelled=cancelled)
        run_b = self.run(probe_set, b, limit=limit, record=record, progress=progress, cancelled=cancelled)
        return SetComparison(run_a, run_b, diff_runs(run_a, run_b).changes)

    def compare_query(
        self, query: str, a: Configuration, b: Configuration, *, scope: Scope | None = None, limit: int = 10
    ) -> QueryComparison:
        return compare_query(self.store, query, a, b, scope=scope, limit=limit)

    def optimize(
        self,
        probe_set: ProbeSet,
        base: Configuration,
        *,
        trials: int = 200,
        seed: int = 1,
        holdout: float = 0.3,
        limit: int = RUN_LIMIT,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> OptimizeResult:
        """`limit`: the list length MRR is measured on (40 as a run; 10, the first page an agent
        gets from a default search, makes each trial several times cheaper: a pool of 30, not 120)."""
        prepared = self.prepared(probe_set, base, progress=progress, cancelled=cancelled)
        return optimize_prepared(
            prepared,
            base,
            trials=trials,
            seed=seed,
            holdout=holdout,
            limit=limit,
            progress=progress,
            cancelled=cancelled,
            prepare=lambda profile: prepare_set(self.store, probe_set, profile, cancelled=cancelled),
        )

    def floor_scan(
        self,
        probe_set: ProbeSet,
        config: Configuration,
        *,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> FloorScan:
        prepared = self.prepared(probe_set, config, with_cosines=True, progress=progress, cancelled=cancelled)
        return scan_prepared(prepared, config)

    def save_floor(self, config: Configuration, floor: float, *, name: str | None = None) -> Saved:
        """Save `config` with this store's embedder's floor set to `floor`, as what-if `name`
        (default: the configuration's own name; a shipped one is saved as `<name>-floor`)."""
        model = getattr(self.store.embedder, "model_id", None)
        updated = configuration_with_floor(config, model, floor)
        target = name or (config.name if config.source else f"{config.name}-floor")
        return self.files.save_configuration(
            target,
            updated.profile,
            base=config.base if config.source else config.name,
            note=config.note or f"relevance floor {floor:g} for {model}",
        )

    def crowders(
        self,
        probe_set: ProbeSet,
        config: Configuration,
        *,
        min_share: float = 0.5,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> list[Crowder]:
        prepared = self.prepared(probe_set, config, progress=progress, cancelled=cancelled)
        return crowders_prepared(prepared, config, min_share=min_share)

    def unreachable(
        self,
        config: Configuration,
        *,
        sample: int | None = 500,
        seed: int = 1,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Reachability:
        return unreachable(self.store, config, sample=sample, seed=seed, progress=progress, cancelled=cancelled)
