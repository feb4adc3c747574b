"""The relevance workbench's assembly: one presenter per tab or concern, over one shared `Bench`,
and the window (made on first show) wired to them.

| presenter | module | tabs and gestures |
| --- | --- | --- |
| `Bench` | `bench.py` | the top bar (set, A, B, busy bar, status), the listing, running jobs, commits |
| `RunsPresenter` | `runs.py` | Probes, Side by side, History: runs, comparisons, a query under A and B |
| `OptimizerPresenter`, `DiagnosticsPresenter` | `tuning.py` | Optimizer; Diagnostics |
| `ShapesPresenter` | `shapes_tab.py` | Shapes |
| `PinPresenter`, `JudgmentsPresenter` | `gestures.py` | a result row's pin dialog; implicit judgments and their tab |

The controller is handed the PaneContext, the session driver (the last answer: the position of an
opened memory, the hits above a pinned one) and the implicit-judgments setting with a callback that
persists it; it never reaches into another pane. Each presenter's signals are reachable here under
the same names (`ran`, `compared`, `pinned`, `saved`, …) for the shell, the screenshots and tests.
`StoreEvents.changed` drops the core's cached reading of the probe sets when the index changed, and
starts over on another store.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from memhtml_desktop.ops import workbench as J
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.ui.workbench.bench import Bench
from memhtml_desktop.ui.workbench.gestures import JudgmentsPresenter, PinPresenter
from memhtml_desktop.ui.workbench.runs import RunsPresenter
from memhtml_desktop.ui.workbench.shapes_tab import ShapesPresenter
from memhtml_desktop.ui.workbench.tuning import DiagnosticsPresenter, OptimizerPresenter

LONG_KINDS = ("wb-run", "wb-compare", "wb-floor", "wb-crowders", "wb-unreachable", "wb-shapes")


class WorkbenchController(QObject):
    """Makes the presenters and the window; `show`, `pin`, `rerun_search` and `follow_setting` are
    what the shell calls."""

    def __init__(
        self,
        ctx: PaneContext,
        parent: QWidget,
        driver: Any,
        *,
        judgments: bool = False,
        on_judgments: Callable[[bool], Any] | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        b = self.bench = Bench(ctx, parent, judgments=judgments)
        self.runs = RunsPresenter(b, self.show)
        self.optimizer, self.diagnostics = OptimizerPresenter(b), DiagnosticsPresenter(b)
        self.shapes = ShapesPresenter(b)
        self.pins = PinPresenter(b, driver)
        self.judgments = JudgmentsPresenter(b, self.pins, on_judgments)
        self.listed, self.saved, self.failed = b.listed, b.saved, b.failed
        self.ran, self.compared, self.query_compared = self.runs.ran, self.runs.compared, self.runs.query_compared
        self.optimized = self.optimizer.optimized
        self.floor_scanned, self.crowders_found = self.diagnostics.floor_scanned, self.diagnostics.crowders_found
        self.unreachable_found, self.shapes_compared = self.diagnostics.unreachable_found, self.shapes.shapes_compared
        self.pinned, self.pin_dialog_opened = self.pins.pinned, self.pins.pin_dialog_opened
        self.judged = self.judgments.judged
        self.pin, self.rerun_search, self.refresh = self.pins.pin, self.runs.rerun_search, b.refresh
        self.follow_setting = self.judgments.follow_setting
        ctx.session.on("query", self._query)
        ctx.events.changed.connect(self._store_changed)

    @property
    def window(self) -> Any:
        return self.bench.window

    @property
    def listing(self) -> Any:
        return self.bench.listing

    @property
    def judgments_on(self) -> bool:
        return self.bench.judgments_on

    def show(self, tab: str = "") -> Any:
        if self.bench.window is None:
            self._make_window()
        w = self.bench.window
        w.show()
        w.raise_()
        w.activateWindow()
        if tab:
            w.tabs.setCurrentWidget(getattr(w, tab))
        self.bench.refresh()
        return w

    def _make_window(self) -> None:
        from memhtml_desktop.ui.workbench.window import WorkbenchWindow

        w = self.bench.window = WorkbenchWindow(self.bench.parent_widget)
        w.cancel_requested.connect(self.cancel)
        w.set_changed.connect(self.bench.set_changed)
        for tab in (w.probes, w.compare, w.diagnostics, w.judgments):
            tab.open_requested.connect(self.ctx.session.open)
        w.configs.use_requested.connect(w.use)
        w.configs.save_requested.connect(self.bench.save_config)
        for presenter in (self.runs, self.optimizer, self.diagnostics, self.shapes, self.judgments):
            presenter.wire(w)
        w.compare.set_query(self.ctx.session.query)

    def cancel(self) -> None:
        """Cancel: every long job of the workbench dropped, the optimizer stopped (it still answers)."""
        for kind in LONG_KINDS:
            self.ctx.runner.cancel(kind)
        self.optimizer.stop()
        if self.bench.window is not None:
            self.bench.window.set_busy(False)
            self.bench.window.say("Cancelled.")

    # -- following the session and the store ----------------------------------------------------------

    def _query(self, text: str, *_: Any) -> None:
        if self.bench.window is not None:
            self.bench.window.compare.set_query(text)

    def _store_changed(self, change: StoreChange) -> None:
        store, b = self.ctx.store, self.bench
        if change.reopened:
            b.listing = None
            self.pins.forget()
            for kind in (*LONG_KINDS, "wb-optimize", "wb-list", "wb-set"):
                self.ctx.runner.cancel(kind)
            if b.window is not None and b.window.isVisible():
                b.window.probes.model.set_rows([])
                b.window.probes.run = None
                b.refresh()
            return
        if change.index and store is not None:
            self.ctx.runner.run(J.ForgetCachedJob())
