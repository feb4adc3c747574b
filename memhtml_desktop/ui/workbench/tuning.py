"""The Optimizer and Diagnostics tabs' presenters: the optimizer's search (its own Stop flag, so a
stopped search still answers), the floor scan and saving a floor, crowders, unreachable memories.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ops import workbench as J
from memhtml_desktop.ui.workbench.bench import Bench


class OptimizerPresenter(QObject):
    optimized = Signal(object)  # OptimizeResult (None: stopped before anything was tried)

    def __init__(self, bench: Bench) -> None:
        super().__init__(bench)
        self.bench = bench
        self._optimize: Any = None

    def wire(self, w: Any) -> None:
        w.optimizer.start_requested.connect(self.optimize)
        w.optimizer.stop_requested.connect(self.stop)
        w.optimizer.use_requested.connect(lambda c: w.use(c, "B"))
        w.optimizer.save_requested.connect(lambda name, c: self.bench.save_config(name, c.profile, c.base, c.note))

    def optimize(self, trials: int = 200, holdout: float = 0.3) -> None:
        b = self.bench
        chosen = b.ready("A")
        if chosen is None:
            return
        tab = b.window.optimizer
        job = J.OptimizeJob(set_name=b.set_name(), base=chosen[0], trials=trials, holdout=holdout)
        self._optimize = job
        tab.set_running(True, trials)
        b.job(job).success(self._optimized).failure(self._failed).progress(tab.set_progress)
        b.ctx.runner.run(job)

    def stop(self) -> None:
        if self._optimize is not None:
            self.bench.ctx.runner.stop(J.OptimizeJob.kind)

    def _optimized(self, result: Any) -> None:
        self._optimize = None
        if result is None:
            self.bench.window.optimizer.show_failure("stopped while the probe set was being read; nothing was tried")
        else:
            self.bench.window.optimizer.show_result(result)
        self.optimized.emit(result)

    def _failed(self, message: str) -> None:
        self._optimize = None
        self.bench.window.optimizer.show_failure(message)
        self.bench.failed.emit(message)


class DiagnosticsPresenter(QObject):
    floor_scanned = Signal(object)  # FloorScan
    crowders_found = Signal(object)  # [Crowder]
    unreachable_found = Signal(object)  # Reachability

    def __init__(self, bench: Bench) -> None:
        super().__init__(bench)
        self.bench = bench

    def wire(self, w: Any) -> None:
        w.diagnostics.floor_requested.connect(self.floor)
        w.diagnostics.save_floor_requested.connect(self.save_floor)
        w.diagnostics.crowders_requested.connect(self.crowders)
        w.diagnostics.unreachable_requested.connect(self.unreachable)

    def floor(self) -> None:
        b = self.bench
        chosen = b.ready("A")
        if chosen is not None:
            b.run(
                J.FloorJob(set_name=b.set_name(), config=chosen[0]),
                self._floor,
                busy="Scanning floors on the probe set\u2026",
            )

    def _floor(self, scan: Any) -> None:
        self.bench.window.diagnostics.show_floor(scan)
        self.bench.window.say(f"Floor scan done: suggested {scan.suggested:.2f} (now {scan.current:.2f}).")
        self.floor_scanned.emit(scan)

    def save_floor(self, floor: float) -> None:
        chosen = self.bench.ready("A")
        if chosen is not None:
            self.bench.run(J.SaveFloorJob(config=chosen[0], floor=floor), self.bench.report_saved)

    def crowders(self) -> None:
        b = self.bench
        chosen = b.ready("A")
        if chosen is not None:
            b.run(
                J.CrowdersJob(set_name=b.set_name(), config=chosen[0]),
                self._crowders,
                busy="Looking for memories that crowd the probe queries\u2026",
            )

    def _crowders(self, crowders: Any) -> None:
        w = self.bench.window
        w.diagnostics.show_crowders(crowders, len(w.probes._all))
        w.say(f"{len(crowders)} crowders found.")
        self.crowders_found.emit(crowders)

    def unreachable(self) -> None:
        config = self.bench.window.chosen("A") if self.bench.window is not None else None
        if config is not None:
            self.bench.run(
                J.UnreachableJob(config=config),
                self._unreachable,
                busy="Searching each memory's own claim (a sample of 500)\u2026",
            )

    def _unreachable(self, reach: Any) -> None:
        self.bench.window.diagnostics.show_unreachable(reach)
        self.bench.window.say(
            f"{len(reach.unreachable)} of {counted(reach.checked, 'memory')} unreachable by their own claim."
        )
        self.unreachable_found.emit(reach)
