"""What every presenter of the workbench shares: the pane context, the window once it is made, the
store's listing (probe sets, configurations, history, judgments) and the chosen set, and one way to
run a job — the window's busy bar and progress for a long one, a failure said in the window and the
status bar. Each tab's presenter (`runs.py`, `tuning.py`, `gestures.py`) is handed the one `Bench`;
`controller.py` makes them and the window.

Every call into the core is a job (`jobs.py`): the GUI thread never reads a file, SQLite or git.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from memhtml_desktop.ops import workbench as J
from memhtml_desktop.ui.session.context import PaneContext


class Bench(QObject):
    listed = Signal(object)  # Listing
    saved = Signal(object)  # Saved: any commit the workbench made (a probe, a configuration, a floor)
    failed = Signal(str)

    def __init__(self, ctx: PaneContext, parent: QWidget, *, judgments: bool = False) -> None:
        super().__init__(parent)
        self.ctx, self.parent_widget = ctx, parent
        self.judgments_on = judgments
        self.window: Any = None
        self.listing: Any = None

    # -- running jobs --------------------------------------------------------------------------------

    def job(self, job: Any) -> Any:
        job.judgments = self.judgments_on
        return job

    def run(
        self, job: Any, done: Callable[[Any], Any], *, busy: str = "", failure: Callable[[str], Any] | None = None
    ) -> None:
        """Run `job`; `busy` names a long one (the busy bar and its progress while it runs)."""

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

        job = self.job(job).success(finished).failure(failed)
        if busy and self.window is not None:
            self.window.set_busy(True, busy)
            job.progress(self.window.set_progress)
        self.ctx.runner.run(job)

    def set_name(self) -> str:
        return self.window.sets.currentText() if self.window is not None else ""

    def ready(self, *sides: str) -> list[Any] | None:
        """The configurations chosen as `sides` ("A", "B"), or None (said) when a set or one is missing."""
        w = self.window
        if w is None or not self.set_name():
            return None
        chosen = [w.chosen(s) for s in sides]
        if any(c is None for c in chosen):
            w.say("Choose a configuration first.")
            return None
        return chosen

    # -- the listing and the chosen set --------------------------------------------------------------

    def refresh(self) -> None:
        """List sets, configurations, history and judgments again."""
        self.run(J.ListJob(), self.take_listing)

    def take_listing(self, listing: Any) -> None:
        self.listing = listing
        if self.window is not None:
            w = self.window
            before = w.sets.currentText()
            w.set_sets(list(listing.sets))
            w.set_configurations(list(listing.configs.configurations))
            w.configs.set_configurations(listing.configs, listing.model_id)
            self.fill_history()
            w.judgments.set_candidates(listing.judgments, self.set_name())
            if (
                listing.sets
                and w.sets.currentText() != before
                or (listing.sets and w.probes.run is None and not w.probes.model.rows)
            ):
                self.set_changed(w.sets.currentText())
        self.listed.emit(listing)

    def fill_history(self) -> None:
        if self.window is None or self.listing is None:
            return
        name = self.set_name()
        self.window.history.set_history([s for s in self.listing.history if s.set_name == name])

    def set_changed(self, name: str) -> None:
        if not name:
            return
        self.fill_history()
        self.run(J.SetJob(set_name=name), self._set_read)

    def _set_read(self, probe_set: Any) -> None:
        if self.window is not None and (
            self.window.probes.run is None or self.window.probes.run.set_name != probe_set.name
        ):
            self.window.probes.show_set(probe_set)

    # -- commits -------------------------------------------------------------------------------------

    def report_saved(self, saved: Any) -> None:
        """A commit the workbench made: said, announced (`saved`), and the listing read again."""
        text = f"Committed {saved.commit_sha[:10]}: {saved.subject}"
        self.ctx.status(text, 10000)
        if self.window is not None:
            self.window.say(text)
        self.saved.emit(saved)
        self.refresh()

    def save_config(self, name: str, profile: Any, base: str, note: str) -> None:
        """A what-if from the Configurations tab or the optimizer, committed."""
        self.run(
            J.SaveConfigJob(
                name=name, profile=profile, base=base if base in ("memhtml", "default") else "default", note=note
            ),
            self.report_saved,
        )
