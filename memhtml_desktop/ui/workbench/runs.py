"""The Probes, Side by side and History tabs' presenter: runs and comparisons on the probe set, a
query under A and B, a recorded run shown again, the diff of two runs, and removing a probe.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ops import workbench as J
from memhtml_desktop.ui.workbench.bench import Bench


class RunsPresenter(QObject):
    ran = Signal(object)  # Run
    compared = Signal(object)  # SetComparison
    query_compared = Signal(object)  # QueryComparison

    def __init__(self, bench: Bench, show: Any) -> None:
        super().__init__(bench)
        self.bench, self.show = bench, show  # show(tab): the window made, shown, on that tab
        self._question: Any = None

    def wire(self, w: Any) -> None:
        w.run_requested.connect(self.run)
        w.compare_requested.connect(self.compare)
        w.probes.remove_requested.connect(self.remove_probe)
        w.probes.compare_requested.connect(lambda q: self.compare_query(q, reveal=True))
        w.compare.query_requested.connect(self.compare_query)
        w.history.show_run_requested.connect(self.show_run)
        w.history.diff_requested.connect(self.diff)

    def run(self) -> None:
        b = self.bench
        chosen = b.ready("A")
        if chosen is None:
            return
        b.run(
            J.RunJob(set_name=b.set_name(), config=chosen[0]),
            self._ran,
            busy=f"Running {chosen[0].name} on {b.set_name()}\u2026",
        )

    def _ran(self, run: Any) -> None:
        w = self.bench.window
        w.probes.show_run(run)
        w.tabs.setCurrentWidget(w.probes)
        w.say(
            f"Ran {run.config_name} on {run.set_name}: {run.figures.failed} of {counted(run.figures.probes, 'probe')} fail."
            + (f" \u26a0 {run.not_recorded[:1].upper()}{run.not_recorded[1:]}." if run.not_recorded else "")
        )
        self.ran.emit(run)
        self.bench.refresh()

    def compare(self) -> None:
        b = self.bench
        chosen = b.ready("A", "B")
        if chosen is None:
            return
        a, c = chosen
        b.run(
            J.CompareJob(set_name=b.set_name(), a=a, b=c),
            self._compared,
            busy=f"Comparing {a.name} with {c.name} on {b.set_name()}\u2026",
        )

    def _compared(self, comparison: Any) -> None:
        w = self.bench.window
        w.compare.show_comparison(comparison)
        w.probes.show_run(comparison.b)
        w.tabs.setCurrentWidget(w.compare)
        w.say(
            f"{counted(comparison.moved, 'probe')} moved between {comparison.a.config_name} and {comparison.b.config_name}."
        )
        self.compared.emit(comparison)
        self.bench.refresh()
        query = w.compare.query_field.text().strip()
        if query:
            self.compare_query(query)

    def compare_query(self, query: str, *, reveal: bool = False) -> None:
        """`query` under A and under B (the window's current filters), side by side."""
        b, session = self.bench, self.bench.ctx.session
        if b.window is None:
            self.show("compare")
        chosen = b.ready("A", "B") if b.set_name() else [b.window.chosen("A"), b.window.chosen("B")]
        if not chosen or any(c is None for c in chosen) or not query.strip():
            return
        if reveal:
            b.window.tabs.setCurrentWidget(b.window.compare)
        a, c = chosen
        b.run(
            J.QueryCompareJob(query=query.strip(), scope=session.scope, a=a, b=c, limit=session.limit),
            self._query_compared,
        )

    def _query_compared(self, comparison: Any) -> None:
        self.bench.window.compare.show_query(comparison)
        self.query_compared.emit(comparison)

    def rerun_search(self) -> None:
        """The window's current search under A and B, side by side (View menu)."""
        self.show("compare")
        self.bench.window.compare.query_field.setText(self.bench.ctx.session.query)
        if self.bench.listing is None:
            self.bench.listed.connect(self._rerun_once)
        else:
            self.compare_query(self.bench.ctx.session.query)

    def _rerun_once(self, _: Any) -> None:
        self.bench.listed.disconnect(self._rerun_once)
        self.compare_query(self.bench.ctx.session.query)

    def show_run(self, run_id: str) -> None:
        w = self.bench.window
        self.bench.run(
            J.LoadRunJob(run_id=run_id), lambda run: (w.probes.show_run(run), w.tabs.setCurrentWidget(w.probes))
        )

    def diff(self, before: str, after: str) -> None:
        self.bench.run(J.DiffJob(before=before, after=after), self.bench.window.history.show_diff)

    def remove_probe(self, probe: Any) -> None:
        b = self.bench
        name = b.set_name()
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Remove probe",
            f"Remove \u201c{probe.query}\u201d \u2192 {probe.target} from {name}? (one commit)",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            b.window,
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.accepted.connect(lambda: b.run(J.RemoveProbeJob(set_name=name, key=probe.key), b.report_saved))
        box.open()
        self._question = box
