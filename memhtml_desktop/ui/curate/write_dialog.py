"""The shape every curation dialog shares: a form, a live preview of the write, one confirm button.

Editing a field restarts a short timer; when it fires the dialog builds its request and asks the
write core to PLAN it on a worker (nothing is touched). The preview shows the commit and each
file's diff, or the refusal in the write core's own words; the confirm button is enabled only
while the preview on screen is the plan of the fields as they are. Confirming APPLIES that plan
on the writer thread; the write core re-plans it under its lock and refuses if the store moved in
between. A refusal stays in the dialog (never a traceback); a stale preview — the file changed on
disk since the dialog read it — is explained, with a button that reads the files again and
re-plans. On success the dialog closes and emits `applied` with the write core's `Applied`.

The GUI thread never waits: planning, applying and reloading are jobs on the window's Runner.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.ops.curate import ApplyJob, Attempt, HashesJob, PlanJob, Preview
from memhtml_desktop.ui.curate.preview import PlanPreview
from memhtml_desktop.ui.kit.palette import warning_color
from memhtml_desktop.ui.kit.screen_fit import fit_to_screen

PLAN_DELAY_MS = 250
_serial = itertools.count(1)

STALE_TEXT = (
    "{error}\n\nSomeone (an agent, an editor, memhtml's CLI) changed the store after this dialog "
    "read it. Nothing was written. Reload to read the files again: your entries stay, and the "
    "preview shows the change against the files as they are now."
)


class WriteDialog(QDialog):
    """Base of the curation dialogs. Subclasses fill `self.form`, implement `request()`, call
    `changed()` when a field changes, and may name `expected_paths()` (reloaded on a stale preview)."""

    applied = Signal(object)  # the write core's Applied
    planned = Signal(object)  # an Attempt[Preview]: a preview or a refusal is on screen

    confirm_text = "Write"
    side_by_side = False

    def __init__(self, runner: Any, parent: QWidget | None = None, *, title: str,
                 refresh_index: Callable[[], bool] = lambda: False) -> None:  # fmt: skip
        super().__init__(parent)
        self.runner = runner
        self.refresh_index = refresh_index
        self.setWindowTitle(title)
        self.setObjectName(type(self).__name__)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        serial = next(_serial)
        self._plan_kind, self._hash_kind = f"plan-{serial}", f"hashes-{serial}"
        self.expected: dict[str, str | None] = {}
        self._request: Any = None
        self._answered: Any = None  # the request whose plan (or refusal) the dialog shows
        self._busy = False
        self._note = ""  # said again once the next plan arrives (after a reload)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(PLAN_DELAY_MS)
        self.timer.timeout.connect(self.replan)

        self.form_box = QWidget(self)
        self.form = QFormLayout(self.form_box)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.message = QLabel(self)
        self.message.setObjectName("writeMessage")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setFrameShape(QFrame.Shape.StyledPanel)
        self.message.hide()
        self.reload_button = QPushButton("Reload from disk", self)
        self.reload_button.setObjectName("reloadButton")
        self.reload_button.clicked.connect(self.reload)
        self.reload_button.hide()
        self.preview = PlanPreview(self)
        self.buttons = QDialogButtonBox(self)
        self.confirm_button = self.buttons.addButton(self.confirm_text, QDialogButtonBox.ButtonRole.AcceptRole)
        self.confirm_button.setObjectName("confirmButton")
        self.confirm_button.setEnabled(False)
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.confirm)
        self.buttons.rejected.connect(self.reject)

    def finish_layout(self, intro: str = "") -> None:
        """Lay the dialog out once the subclass has filled the form."""
        layout = QVBoxLayout(self)
        if intro:
            label = QLabel(intro, self)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
            layout.addWidget(label)
        status = QHBoxLayout()
        status.addWidget(self.message, 1)
        status.addWidget(self.reload_button, 0, Qt.AlignmentFlag.AlignTop)
        if self.side_by_side:
            scroll = QScrollArea(self)
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setWidget(self.form_box)
            split = QSplitter(Qt.Orientation.Horizontal, self)
            split.addWidget(scroll)
            split.addWidget(self.preview)
            split.setStretchFactor(0, 2)
            split.setStretchFactor(1, 3)
            split.setChildrenCollapsible(False)
            layout.addWidget(split, 1)
            fit_to_screen(self, 1100, 720)
        else:
            layout.addWidget(self.form_box)
            layout.addWidget(self.preview, 1)
            fit_to_screen(self, 820, 600)
        layout.addLayout(status)
        layout.addWidget(self.buttons)

    # -- what subclasses provide ---------------------------------------------------------------

    def request(self) -> Any:
        """The write request the fields describe; ValueError with a message when incomplete."""
        raise NotImplementedError

    def expected_paths(self) -> tuple[str, ...]:
        return tuple(self.expected)

    def with_expected(self) -> None:
        """Hook: the expected hashes were reloaded (the next `request()` uses `self.expected`)."""

    # -- the cycle ------------------------------------------------------------------------------

    def changed(self, *_: Any) -> None:
        """A field changed: the preview is out of date until the next plan arrives."""
        if self._busy:
            return
        self.confirm_button.setEnabled(False)
        self.timer.start()

    def replan(self) -> None:
        self.timer.stop()
        try:
            request = self.request()
        except ValueError as exc:
            self._request = None
            self.preview.clear("The preview appears here once the form says what to write.")
            self.show_message(str(exc), "info")
            self.confirm_button.setEnabled(False)
            return
        self._request = request
        job = PlanJob(kind=self._plan_kind, request=request, refresh_index=self.refresh_index())
        self.runner.run(job.success(lambda result, r=request: self._planned(r, result)).failure(self._failed))

    def planning(self) -> bool:
        """Whether what the dialog shows is older than its fields (a plan is due or on its way)."""
        return self.timer.isActive() or (self._request is not None and self._answered is not self._request)

    def _planned(self, request: Any, result: Attempt) -> None:
        if request is not self._request or self._busy:
            return  # the fields moved on meanwhile; a newer plan is coming
        self._answered = request
        if result.ok:
            preview: Preview = result.value
            self.preview.show_preview(preview)
            self.hide_message()
            if self._note:
                self.show_message(self._note, "info")
                self._note = ""
            self.confirm_button.setEnabled(not preview.plan.noop)
        else:
            self.preview.clear("Nothing will be written:")
            self.show_refusal(result)
            self.confirm_button.setEnabled(False)
        self.planned.emit(result)

    def confirm(self) -> None:
        preview = self.preview.preview()
        if preview is None or self._busy or not self.confirm_button.isEnabled():
            return
        self._set_busy(True)
        self.show_message("Writing\u2026", "info")
        self.runner.run(ApplyJob(plan=preview.plan).success(self._applied).failure(self._failed))

    def _applied(self, result: Attempt) -> None:
        self._set_busy(False)
        if result.ok:
            self.applied.emit(result.value)
            self.accept()
            return
        self.show_refusal(result)
        self.confirm_button.setEnabled(False)
        if not result.stale:
            self.changed()  # the refusal may depend on the store: plan again for a fresh answer
        self.planned.emit(result)

    def _failed(self, message: str) -> None:
        self._set_busy(False)
        self.show_message(f"Something went wrong: {message}", "error")
        self.confirm_button.setEnabled(False)

    def reload(self) -> None:
        """Read the files again (their hashes), then plan against them as they are now."""
        self.reload_button.setEnabled(False)
        job = HashesJob(kind=self._hash_kind, paths=self.expected_paths())
        self.runner.run(job.success(self._reloaded).failure(self._failed))

    def _reloaded(self, hashes: dict) -> None:
        self.reload_button.setEnabled(True)
        self.reload_button.hide()
        self.expected.update(hashes)
        self.with_expected()
        self._note = "Reloaded: the preview is against the files as they are now."
        self.show_message(self._note, "info")
        self.replan()

    # -- showing ---------------------------------------------------------------------------------

    def show_refusal(self, result: Attempt) -> None:
        if result.stale:
            self.show_message(STALE_TEXT.format(error=result.error), "stale")
            self.reload_button.show()
        else:
            self.show_message(result.error, "error")
            self.reload_button.hide()

    def show_message(self, text: str, kind: str) -> None:
        accent = {"error": "#D55E00", "stale": "#E69F00"}.get(kind)
        if accent:
            self.message.setStyleSheet(f"QLabel#writeMessage {{ background: {warning_color()}; border-left: 4px solid {accent};"
                                       " padding: 6px; }")  # fmt: skip
        else:
            self.message.setStyleSheet("QLabel#writeMessage { padding: 6px; }")
        self.message.setProperty("kind", kind)
        self.message.setText(text)
        self.message.show()

    def hide_message(self) -> None:
        self.message.hide()
        self.message.setProperty("kind", "")
        self.reload_button.hide()

    def message_kind(self) -> str:
        return str(self.message.property("kind") or "") if self.message.isVisible() else ""

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.form_box.setEnabled(not busy)
        self.cancel_button.setEnabled(not busy)
        if busy:
            self.confirm_button.setEnabled(False)

    def reject(self) -> None:
        if self._busy:
            return  # a confirmed write finishes first (it takes well under a second)
        super().reject()

    def done(self, result: int) -> None:
        """Closing drops the answers still on their way (this dialog is deleted on close)."""
        self.timer.stop()
        for kind in (self._plan_kind, self._hash_kind, *self.extra_kinds()):
            self.runner.cancel(kind)
        super().done(result)

    def extra_kinds(self) -> tuple[str, ...]:
        """Job kinds of a subclass's own lookups, cancelled on close."""
        return ()
