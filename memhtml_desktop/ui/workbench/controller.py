"""The relevance workbench's wiring: the window's requests into jobs, the jobs' answers into tabs,
the search's gestures (pin a probe, implicit judgments, re-run a search under two configurations).

Every call into the core (`memhtml_desktop/workbench/`) is a job (`jobs.py`): the GUI thread
never reads a file, SQLite or git. The controller is handed the PaneContext, the session driver
(for the last answer: the position of an opened memory, the hits above a pinned one) and the
implicit-judgments setting with a callback that persists it; it never reaches into another pane.
`StoreEvents.changed` drops the core's cached reading of the probe sets when the index changed,
and starts over on another store.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from memhtml_desktop.ui.kit.row_actions import RowAction
from memhtml_desktop.ui.session.changes import StoreChange
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.ui.workbench import jobs as J
from memhtml_desktop.ui.workbench.shapes_tab import wire as wire_shapes

LONG_KINDS = ("wb-run", "wb-compare", "wb-floor", "wb-crowders", "wb-unreachable", "wb-shapes")


class WorkbenchController(QObject):
    """Owns the workbench window (made on first show) and the pin dialog."""

    listed = Signal(object)  # Listing
    ran = Signal(object)  # Run
    compared = Signal(object)  # SetComparison
    query_compared = Signal(object)  # QueryComparison
    optimized = Signal(object)  # OptimizeResult
    pinned = Signal(object)  # Saved
    saved = Signal(object)  # Saved: any commit the workbench made (a probe, a configuration, a floor)
    pin_dialog_opened = Signal(object)  # PinDialog
    floor_scanned = Signal(object)
    crowders_found = Signal(object)
    shapes_compared = Signal(object)  # a workbench.shapes.ShapeReport
    unreachable_found = Signal(object)
    judged = Signal(object)  # the id of a recorded judgment (None: the setting is off)
    failed = Signal(str)

    def __init__(self, ctx: PaneContext, parent: QWidget, driver: Any, *, judgments: bool = False,
                 on_judgments: Callable[[bool], Any] | None = None) -> None:
        super().__init__(parent)
        self.ctx, self.parent_widget = ctx, parent
        self.judgments_on = judgments
        self.on_judgments = on_judgments
        self.window: Any = None
        self.listing: Any = None
        self.dialog: Any = None
        self.last_result: Any = None
        self._optimize: Any = None
        driver.searched.connect(self._searched)
        ctx.row_actions.add(RowAction(
            "pin_probe", "&Expect this memory for this query\u2026", lambda row: self.pin(row.path), group="judge",
            order=50, tip="Pin a probe: this query should bring this memory first (one commit in the store)"))
        ctx.session.on("open", self._opened)
        ctx.session.on("query", self._query)
        ctx.events.changed.connect(self._store_changed)

    def _job(self, job: Any) -> Any:
        job.judgments = self.judgments_on
        return job

    def _run(self, job: Any, done: Callable[[Any], Any], *, busy: str = "", failure: Callable[[str], Any] | None = None) -> None:
        def failed(message: str) -> None:
            if self.window is not None:
                self.window.set_busy(False)
                self.window.say(f"Failed: {message}")
            self.ctx.status(f"Workbench: {message}", 10000)
            self.failed.emit(message)
            if failure is not None:
                failure(message)

        def finished(value: Any) -> None:
            if busy and self.window is not None:
                self.window.set_busy(False)
            done(value)

        job = self._job(job).success(finished).failure(failed)
        if busy and self.window is not None:
            self.window.set_busy(True, busy)
            job.progress(self.window.set_progress)
        self.ctx.runner.run(job)

    # -- the window --------------------------------------------------------------------------------

    def show(self, tab: str = "") -> Any:
        if self.window is None:
            self._make_window()
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()
        if tab:
            self.window.tabs.setCurrentWidget(getattr(self.window, tab))
        self.refresh()
        return self.window

    def _make_window(self) -> None:
        from memhtml_desktop.ui.workbench.window import WorkbenchWindow

        w = self.window = WorkbenchWindow(self.parent_widget)
        w.run_requested.connect(self.run)
        w.compare_requested.connect(self.compare)
        w.cancel_requested.connect(self.cancel)
        w.set_changed.connect(self._set_changed)
        for tab in (w.probes, w.compare, w.diagnostics, w.judgments):
            tab.open_requested.connect(self._open_memory)
        w.probes.remove_requested.connect(self._remove_probe)
        w.probes.compare_requested.connect(lambda q: self.compare_query(q, reveal=True))
        w.compare.query_requested.connect(self.compare_query)
        w.configs.use_requested.connect(w.use)
        w.configs.save_requested.connect(self._save_config)
        w.history.show_run_requested.connect(self._show_run)
        w.history.diff_requested.connect(self._diff)
        w.optimizer.start_requested.connect(self.optimize)
        w.optimizer.stop_requested.connect(self.stop_optimizer)
        w.optimizer.use_requested.connect(lambda c: w.use(c, "B"))
        w.optimizer.save_requested.connect(lambda name, c: self._save_config(name, c.profile, c.base, c.note))
        w.diagnostics.floor_requested.connect(self.floor)
        w.diagnostics.save_floor_requested.connect(self._save_floor)
        w.diagnostics.crowders_requested.connect(self.crowders)
        w.diagnostics.unreachable_requested.connect(self.unreachable)
        w.judgments.enabled_changed.connect(self.set_judgments)
        w.judgments.accept_requested.connect(lambda j: self._decide(j, accept=True))
        w.judgments.discard_requested.connect(lambda j: self._decide(j, accept=False))
        w.judgments.set_enabled(self.judgments_on)
        w.compare.set_query(self.ctx.session.query)
        wire_shapes(self, w)

    def refresh(self) -> None:
        """List sets, configurations, history and judgments again."""
        self._run(J.ListJob(), self._listed)

    def _listed(self, listing: Any) -> None:
        self.listing = listing
        if self.window is not None:
            w = self.window
            before = w.sets.currentText()
            w.set_sets(list(listing.sets))
            w.set_configurations(list(listing.configs.configurations))
            w.configs.set_configurations(listing.configs, listing.model_id)
            self._fill_history()
            w.judgments.set_candidates(listing.judgments, self.set_name())
            if listing.sets and w.sets.currentText() != before or (listing.sets and w.probes.run is None
                                                                    and not w.probes.model.rows):
                self._set_changed(w.sets.currentText())
        self.listed.emit(listing)

    def _fill_history(self) -> None:
        if self.window is None or self.listing is None:
            return
        name = self.set_name()
        self.window.history.set_history([s for s in self.listing.history if s.set_name == name])

    def set_name(self) -> str:
        return self.window.sets.currentText() if self.window is not None else ""

    def _set_changed(self, name: str) -> None:
        if not name:
            return
        self._fill_history()
        self._run(J.SetJob(set_name=name), self._set_read)

    def _set_read(self, probe_set: Any) -> None:
        if self.window is not None and (self.window.probes.run is None or self.window.probes.run.set_name != probe_set.name):
            self.window.probes.show_set(probe_set)

    # -- runs and comparisons ----------------------------------------------------------------------

    def _ready(self, *sides: str) -> list[Any] | None:
        w = self.window
        if w is None or not self.set_name():
            return None
        chosen = [w.chosen(s) for s in sides]
        if any(c is None for c in chosen):
            w.say("Choose a configuration first.")
            return None
        return chosen

    def run(self) -> None:
        chosen = self._ready("A")
        if chosen is None:
            return
        self._run(J.RunJob(set_name=self.set_name(), config=chosen[0]), self._ran,
                  busy=f"Running {chosen[0].name} on {self.set_name()}\u2026")

    def _ran(self, run: Any) -> None:
        w = self.window
        w.probes.show_run(run)
        w.tabs.setCurrentWidget(w.probes)
        w.say(f"Ran {run.config_name} on {run.set_name}: {run.figures.failed} of {run.figures.probes} probes fail."
              + (f" \u26a0 {run.not_recorded[:1].upper()}{run.not_recorded[1:]}." if run.not_recorded else ""))
        self.ran.emit(run)
        self.refresh()

    def compare(self) -> None:
        chosen = self._ready("A", "B")
        if chosen is None:
            return
        a, b = chosen
        self._run(J.CompareJob(set_name=self.set_name(), a=a, b=b), self._compared,
                  busy=f"Comparing {a.name} with {b.name} on {self.set_name()}\u2026")

    def _compared(self, comparison: Any) -> None:
        w = self.window
        w.compare.show_comparison(comparison)
        w.probes.show_run(comparison.b)
        w.tabs.setCurrentWidget(w.compare)
        w.say(f"{comparison.moved} probes moved between {comparison.a.config_name} and {comparison.b.config_name}.")
        self.compared.emit(comparison)
        self.refresh()
        query = w.compare.query_field.text().strip()
        if query:
            self.compare_query(query)

    def compare_query(self, query: str, *, reveal: bool = False) -> None:
        """`query` under A and under B (the window's current filters), side by side."""
        if self.window is None:
            self.show("compare")
        chosen = self._ready("A", "B") if self.set_name() else [self.window.chosen("A"), self.window.chosen("B")]
        if not chosen or any(c is None for c in chosen) or not query.strip():
            return
        if reveal:
            self.window.tabs.setCurrentWidget(self.window.compare)
        a, b = chosen
        self._run(J.QueryCompareJob(query=query.strip(), scope=self.ctx.session.scope, a=a, b=b,
                                    limit=self.ctx.session.limit), self._query_compared)

    def _query_compared(self, comparison: Any) -> None:
        self.window.compare.show_query(comparison)
        self.query_compared.emit(comparison)

    def rerun_search(self) -> None:
        """The window's current search under A and B, side by side (View menu)."""
        self.show("compare")
        self.window.compare.query_field.setText(self.ctx.session.query)
        if self.listing is None:
            self.listed.connect(self._rerun_once)
        else:
            self.compare_query(self.ctx.session.query)

    def _rerun_once(self, _: Any) -> None:
        self.listed.disconnect(self._rerun_once)
        self.compare_query(self.ctx.session.query)

    def cancel(self) -> None:
        for kind in LONG_KINDS:
            self.ctx.runner.cancel(kind)
        self.stop_optimizer()
        if self.window is not None:
            self.window.set_busy(False)
            self.window.say("Cancelled.")

    def _show_run(self, run_id: str) -> None:
        self._run(J.LoadRunJob(run_id=run_id), lambda run: (self.window.probes.show_run(run),
                                                            self.window.tabs.setCurrentWidget(self.window.probes)))

    def _diff(self, before: str, after: str) -> None:
        self._run(J.DiffJob(before=before, after=after), self.window.history.show_diff)

    # -- the optimizer, the floor, coverage ----------------------------------------------------------

    def optimize(self, trials: int = 200, holdout: float = 0.3) -> None:
        chosen = self._ready("A")
        if chosen is None:
            return
        tab = self.window.optimizer
        job = J.OptimizeJob(set_name=self.set_name(), base=chosen[0], trials=trials, holdout=holdout)
        self._optimize = job
        tab.set_running(True, trials)
        self._job(job).success(self._optimized).failure(self._optimize_failed).progress(tab.set_progress)
        self.ctx.runner.run(job)

    def stop_optimizer(self) -> None:
        if self._optimize is not None:
            self._optimize.stop.set()

    def _optimized(self, result: Any) -> None:
        self._optimize = None
        if result is None:
            self.window.optimizer.show_failure("stopped while the probe set was being read; nothing was tried")
        else:
            self.window.optimizer.show_result(result)
        self.optimized.emit(result)

    def _optimize_failed(self, message: str) -> None:
        self._optimize = None
        self.window.optimizer.show_failure(message)
        self.failed.emit(message)

    def floor(self) -> None:
        chosen = self._ready("A")
        if chosen is not None:
            self._run(J.FloorJob(set_name=self.set_name(), config=chosen[0]), self._floor,
                      busy="Scanning floors on the probe set\u2026")

    def _floor(self, scan: Any) -> None:
        self.window.diagnostics.show_floor(scan)
        self.window.say(f"Floor scan done: suggested {scan.suggested:.2f} (now {scan.current:.2f}).")
        self.floor_scanned.emit(scan)

    def _save_floor(self, floor: float) -> None:
        chosen = self._ready("A")
        if chosen is not None:
            self._run(J.SaveFloorJob(config=chosen[0], floor=floor), self._saved)

    def crowders(self) -> None:
        chosen = self._ready("A")
        if chosen is not None:
            self._run(J.CrowdersJob(set_name=self.set_name(), config=chosen[0]), self._crowders,
                      busy="Looking for memories that crowd the probe queries\u2026")

    def _crowders(self, crowders: Any) -> None:
        probes = len(self.window.probes._all)
        self.window.diagnostics.show_crowders(crowders, probes)
        self.window.say(f"{len(crowders)} crowders found.")
        self.crowders_found.emit(crowders)

    def unreachable(self) -> None:
        config = self.window.chosen("A") if self.window is not None else None
        if config is not None:
            self._run(J.UnreachableJob(config=config), self._unreachable,
                      busy="Searching each memory's own claim (a sample of 500)\u2026")

    def _unreachable(self, reach: Any) -> None:
        self.window.diagnostics.show_unreachable(reach)
        self.window.say(f"{len(reach.unreachable)} of {reach.checked} memories unreachable by their own claim.")
        self.unreachable_found.emit(reach)

    # -- writes --------------------------------------------------------------------------------------

    def _saved(self, saved: Any) -> None:
        text = f"Committed {saved.commit_sha[:10]}: {saved.subject}"
        self.ctx.status(text, 10000)
        if self.window is not None:
            self.window.say(text)
        self.saved.emit(saved)
        self.refresh()

    def _save_config(self, name: str, profile: Any, base: str, note: str) -> None:
        self._run(J.SaveConfigJob(name=name, profile=profile, base=base if base in ("memhtml", "default") else "default",
                                  note=note), self._saved)

    def _remove_probe(self, probe: Any) -> None:
        name = self.set_name()
        box = QMessageBox(QMessageBox.Icon.Question, "Remove probe",
                          f"Remove \u201c{probe.query}\u201d \u2192 {probe.target} from {name}? (one commit)",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self.window)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.accepted.connect(lambda: self._run(J.RemoveProbeJob(set_name=name, key=probe.key), self._saved))
        box.open()
        self._question = box

    # -- pinning a probe from a search ---------------------------------------------------------------

    def pin(self, path: str) -> Any:
        """"Expect this memory for this query" on a result row: the dialog, its twins asked for."""
        from memhtml_desktop.ui.workbench.pin_dialog import PinDialog

        hits = list(self.last_result.hits) if self.last_result is not None else []
        paths = [h.path for h in hits]
        at = paths.index(path) if path in paths else len(hits)
        title = hits[at].title if at < len(hits) else path
        above = [(h.path, h.title) for h in hits[:at]]
        sets = list(self.listing.sets) if self.listing is not None else []
        query = self.last_result.query if self.last_result is not None else self.ctx.session.query
        if self.dialog is not None:
            self.dialog.close()
        scope = self.last_result.scope if self.last_result is not None else self.ctx.session.scope
        dialog = self.dialog = PinDialog(query, path, title, above, sets, scope=scope,
                                         current_set=self.set_name(), parent=self.parent_widget)
        dialog.pin_requested.connect(self._pin)
        dialog.open()
        if self.listing is None:  # the workbench was never opened: the store's sets, for the combo
            self._run(J.ListJob(), lambda listing: (self._listed(listing), dialog.add_sets(listing.sets)))
        self._run(J.TwinsJob(path=path, query=query, scope=scope), dialog.set_twins,
                  failure=lambda msg: dialog.twins_note.setText(f"Near-twins could not be read: {msg}"))
        self.pin_dialog_opened.emit(dialog)
        return dialog

    def _pin(self, set_name: str, probe: Any) -> None:
        dialog = self.dialog

        def done(saved: Any) -> None:
            if dialog is not None:
                dialog.accept()
            self._saved(saved)
            if self.window is not None and not self.set_name():
                self.window.sets.setCurrentText(set_name)
            self.pinned.emit(saved)

        self._run(J.PinJob(set_name=set_name, probe=probe), done,
                  failure=lambda msg: dialog.say(msg) if dialog is not None else None)

    # -- implicit judgments --------------------------------------------------------------------------

    def set_judgments(self, on: bool) -> None:
        self.judgments_on = bool(on)
        if self.on_judgments is not None:
            self.on_judgments(self.judgments_on)
        self.ctx.status("Searches followed by an opened memory are " + ("remembered on this computer."
                        if on else "no longer remembered."), 6000)

    def follow_setting(self, on: bool) -> None:
        """The setting changed in the Settings dialog (already saved): follow it, say it in the tab."""
        self.judgments_on = bool(on)
        if self.window is not None:
            self.window.judgments.set_enabled(self.judgments_on)

    def _searched(self, result: Any) -> None:
        self.last_result = result

    def _opened(self, path: str, bump: bool) -> None:
        """A memory opened as a read after a search: remember (query, memory, position) if allowed."""
        result = self.last_result
        if not self.judgments_on or not bump or result is None or not result.query.strip():
            return
        position = next((i + 1 for i, h in enumerate(result.hits) if h.path == path), None)
        if position is None:
            return
        self._run(J.RecordJudgmentJob(query=result.query, path=path, position=position, scope=result.scope),
                  self.judged.emit)

    def _decide(self, judgment: Any, *, accept: bool) -> None:
        into = (self.set_name() or "probes") if accept else ""
        self._run(J.DecideJudgmentJob(judgment_id=judgment.id, accept_into=into),
                  lambda saved: self._saved(saved) if saved is not None else self.refresh())

    # -- following the session and the store ----------------------------------------------------------

    def _query(self, text: str, *_: Any) -> None:
        if self.window is not None:
            self.window.compare.set_query(text)

    def _open_memory(self, path: str) -> None:
        self.ctx.session.open(path)

    def _store_changed(self, change: StoreChange) -> None:
        store = self.ctx.store
        if change.reopened:
            self.listing = None
            self.last_result = None
            for kind in (*LONG_KINDS, "wb-optimize", "wb-list", "wb-set"):
                self.ctx.runner.cancel(kind)
            if self.window is not None and self.window.isVisible():
                self.window.probes.model.set_rows([])
                self.window.probes.run = None
                self.refresh()
            return
        if change.index and store is not None:
            wb = J.existing_workbench(store)
            if wb is not None:
                wb.invalidate()
