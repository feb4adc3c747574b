"""The search's gestures into the workbench, and the Judgments tab's presenter: pinning a probe from
a result row ("Expect this memory for this query…", the pin dialog with the memory's near-twins),
and implicit judgments (a search followed by an opened memory, remembered when the setting allows;
each one accepted into a set or discarded).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from memhtml_desktop.ops import workbench as J
from memhtml_desktop.ui.kit.row_actions import RowAction
from memhtml_desktop.ui.workbench.bench import Bench


class PinPresenter(QObject):
    pinned = Signal(object)  # Saved
    pin_dialog_opened = Signal(object)  # PinDialog

    def __init__(self, bench: Bench, driver: Any) -> None:
        super().__init__(bench)
        self.bench = bench
        self.dialog: Any = None
        self.last_result: Any = None
        driver.answered.connect(lambda answer: self._searched(answer.result))
        bench.ctx.row_actions.add(
            RowAction(
                "pin_probe",
                "&Expect this memory for this query\u2026",
                lambda row: self.pin(row.path),
                group="judge",
                order=50,
                tip="Pin a probe: this query should bring this memory first (one commit in the store)",
            )
        )

    def _searched(self, result: Any) -> None:
        self.last_result = result

    def pin(self, path: str) -> Any:
        """ "Expect this memory for this query" on a result row: the dialog, its twins asked for."""
        from memhtml_desktop.ui.workbench.pin_dialog import PinDialog

        b, last = self.bench, self.last_result
        hits = list(last.hits) if last is not None else []
        paths = [h.path for h in hits]
        at = paths.index(path) if path in paths else len(hits)
        title = hits[at].title if at < len(hits) else path
        above = [(h.path, h.title) for h in hits[:at]]
        sets = list(b.listing.sets) if b.listing is not None else []
        query = last.query if last is not None else b.ctx.session.query
        if self.dialog is not None:
            self.dialog.close()
        scope = last.scope if last is not None else b.ctx.session.scope
        dialog = self.dialog = PinDialog(
            query, path, title, above, sets, scope=scope, current_set=b.set_name(), parent=b.parent_widget
        )
        dialog.pin_requested.connect(self._pin)
        dialog.open()
        if b.listing is None:  # the workbench was never opened: the store's sets, for the combo
            b.run(J.ListJob(), lambda listing: (b.take_listing(listing), dialog.add_sets(listing.sets)))
        b.run(
            J.TwinsJob(path=path, query=query, scope=scope),
            dialog.set_twins,
            failure=lambda msg: dialog.twins_note.setText(f"Near-twins could not be read: {msg}"),
        )
        self.pin_dialog_opened.emit(dialog)
        return dialog

    def _pin(self, set_name: str, probe: Any) -> None:
        b, dialog = self.bench, self.dialog

        def done(saved: Any) -> None:
            if dialog is not None:
                dialog.accept()
            b.report_saved(saved)
            if b.window is not None and not b.set_name():
                b.window.sets.setCurrentText(set_name)
            self.pinned.emit(saved)

        b.run(
            J.PinJob(set_name=set_name, probe=probe),
            done,
            failure=lambda msg: dialog.say(msg) if dialog is not None else None,
        )

    def forget(self) -> None:
        """Another store: the last answer was not its."""
        self.last_result = None


class JudgmentsPresenter(QObject):
    judged = Signal(object)  # the id of a recorded judgment (None: the setting is off)

    def __init__(self, bench: Bench, pins: PinPresenter, on_judgments: Callable[[bool], Any] | None = None) -> None:
        super().__init__(bench)
        self.bench, self.pins, self.on_judgments = bench, pins, on_judgments
        bench.ctx.session.on("open", self._opened)

    def wire(self, w: Any) -> None:
        w.judgments.enabled_changed.connect(self.set_enabled)
        w.judgments.accept_requested.connect(lambda j: self._decide(j, accept=True))
        w.judgments.discard_requested.connect(lambda j: self._decide(j, accept=False))
        w.judgments.set_enabled(self.bench.judgments_on)

    def set_enabled(self, on: bool) -> None:
        """The tab's check box: follow it, save it (`on_judgments`), say it."""
        self.bench.judgments_on = bool(on)
        if self.on_judgments is not None:
            self.on_judgments(self.bench.judgments_on)
        self.bench.ctx.status(
            "Searches followed by an opened memory are "
            + ("remembered on this computer." if on else "no longer remembered."),
            6000,
        )

    def follow_setting(self, on: bool) -> None:
        """The setting changed in the Settings dialog (already saved): follow it, say it in the tab."""
        self.bench.judgments_on = bool(on)
        if self.bench.window is not None:
            self.bench.window.judgments.set_enabled(self.bench.judgments_on)

    def _opened(self, path: str, bump: bool) -> None:
        """A memory opened as a read after a search: remember (query, memory, position) if allowed."""
        result = self.pins.last_result
        if not self.bench.judgments_on or not bump or result is None or not result.query.strip():
            return
        position = next((i + 1 for i, h in enumerate(result.hits) if h.path == path), None)
        if position is None:
            return
        self.bench.run(
            J.RecordJudgmentJob(query=result.query, path=path, position=position, scope=result.scope), self.judged.emit
        )

    def _decide(self, judgment: Any, *, accept: bool) -> None:
        b = self.bench
        into = (b.set_name() or "probes") if accept else ""
        b.run(
            J.DecideJudgmentJob(judgment_id=judgment.id, accept_into=into),
            lambda saved: b.report_saved(saved) if saved is not None else b.refresh(),
        )
