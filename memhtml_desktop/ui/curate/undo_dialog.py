"""Edit → Undo… / Redo…: the app's own recent changes, and the chosen one's revert previewed.

The list holds only this app's own commits in the store (the write core's log, never another
writer's), newest first: each change's subject, when it was written, whether it is applied or
undone, and — greyed out, with the reason — when it cannot be reverted now (someone committed over
its files since, they have uncommitted edits). Choosing one plans its revert on a worker and shows
the commit and every file's diff with the same preview the curation dialogs use; the button then
says what it will do ("Undo this change" / "Redo this change") and commits exactly that preview
(a store that moved meanwhile is refused as stale and previewed again). The dialog stays open
after each undo or redo, its list read again, so several can be taken back in a row.

The GUI thread never waits: listing, planning and reverting are jobs on the window's Runner.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHeaderView,
    QLabel,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.ops.curate import Attempt, Preview, UndoChoicesJob, UndoJob, UndoPlanJob
from memhtml_desktop.ui.curate.preview import PlanPreview
from memhtml_desktop.ui.kit.palette import muted_color, warning_color
from memhtml_desktop.ui.kit.screen_fit import fit_to_screen

INTRO = (
    "This app's own changes to the store, newest first (another writer's commits are never listed). "
    "Undo reverts a change with a commit of its own; Redo gives an undone change back. A change whose "
    "files someone committed over since cannot be reverted here: it is greyed out, and says why."
)
STATE = {"undo": "applied", "redo": "undone"}


class UndoDialog(QDialog):
    """See the module docstring. `applied(Applied)` after each undo or redo that committed."""

    applied = Signal(object)
    listed = Signal(object)  # the choices now shown: [(OwnChange, why refused or None)]
    planned = Signal(object)  # an Attempt[Preview] now on screen (tests wait on it)

    def __init__(self, runner: Any, parent: QWidget | None = None, *, redo: bool = False) -> None:
        super().__init__(parent)
        self.runner = runner
        self.want = "redo" if redo else "undo"  # what to choose when the list first arrives
        self.setWindowTitle("Redo" if redo else "Undo")
        self.setObjectName("UndoDialog")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.choices: list[tuple[Any, str | None]] = []
        self._preview_for: str | None = None  # the change whose revert the preview shows
        self._busy = False
        self._closed = False  # answers that arrive after the dialog closed are dropped
        self._result = 0
        intro = QLabel(INTRO, self)
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.PlainText)
        self.list = QTreeWidget(self)
        self.list.setObjectName("undoChanges")
        self.list.setAccessibleName("This app's recent changes")
        self.list.setHeaderLabels(["Change", "Written", "State"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setAlternatingRowColors(True)
        header = self.list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.list.currentItemChanged.connect(lambda *_: self._chosen())
        self.message = QLabel(self)
        self.message.setObjectName("undoMessage")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setFrameShape(QFrame.Shape.StyledPanel)
        self.message.hide()
        self.preview = PlanPreview(self)
        self.preview.clear("Choose a change to see the commit that reverts it.")
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.list)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.message)
        right_layout.addWidget(self.preview, 1)
        split.addWidget(right)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setChildrenCollapsible(False)
        self.buttons = QDialogButtonBox(self)
        self.confirm_button = self.buttons.addButton("Undo this change", QDialogButtonBox.ButtonRole.AcceptRole)
        self.confirm_button.setObjectName("confirmButton")
        self.confirm_button.setEnabled(False)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.buttons.accepted.connect(self.confirm)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(split, 1)
        layout.addWidget(self.buttons)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Undo), self, lambda: self._choose_next("undo"))
        QShortcut(QKeySequence("Ctrl+Shift+Z"), self, lambda: self._choose_next("redo"))
        fit_to_screen(self, 1100, 680)

    def done(self, result: int) -> None:  # noqa: D401 - Qt override
        """Closed (its C++ side is deleted soon after): the list and the preview still out answer
        to nobody. An undo in flight is waited for, the dialog hidden: its answer still reaches
        the window (the reader follows the memory), then the dialog goes."""
        self._closed = True
        for kind in ("undo-choices", "undo-plan"):
            self.runner.cancel(kind)
        if self._busy:
            self.hide()
            self._result = result
            return
        super().done(result)

    # -- the list --------------------------------------------------------------------------------

    def load(self) -> None:
        """Read the list again (on opening, and after each undo or redo)."""
        self.list.setEnabled(False)
        job = UndoChoicesJob().success(self._listed)
        self.runner.run(
            job.failure(lambda msg: None if self._closed else self._say(f"The list could not be read: {msg}", "error"))
        )

    def _listed(self, choices: list) -> None:
        if self._closed:
            return
        keep = self.current_sha()
        self.choices = list(choices)
        self.list.blockSignals(True)
        self.list.clear()
        muted = QBrush(muted_color())
        for change, why in self.choices:
            item = QTreeWidgetItem([change.subject, _when(change.when), STATE[change.action]])
            item.setData(0, Qt.ItemDataRole.UserRole, change.sha)
            tip = f"{change.subject}\n{change.sha}\n" + "\n".join(change.paths)
            if why:
                tip += f"\n\nCannot {change.action} now: {why}"
                for column in range(3):
                    item.setForeground(column, muted)
            item.setToolTip(0, tip)
            self.list.addTopLevelItem(item)
        self.list.blockSignals(False)
        self.list.setEnabled(True)
        self.listed.emit(self.choices)
        if not self.choices:
            self.preview.clear("")
            self._say("This app has made no change to this store yet: nothing to undo.", "info")
            self.confirm_button.setEnabled(False)
            return
        row = self._row_of(keep) if keep else -1
        if row < 0:
            wanted = [i for i, (c, why) in enumerate(self.choices) if c.action == self.want and not why]
            row = (
                wanted[0] if wanted else next((i for i, (c, _) in enumerate(self.choices) if c.action == self.want), 0)
            )
        self.list.setCurrentItem(self.list.topLevelItem(row))  # its signal plans the revert
        self.list.setFocus()

    def _row_of(self, sha: str | None) -> int:
        return next((i for i, (c, _) in enumerate(self.choices) if c.sha == sha), -1)

    def current_sha(self) -> str | None:
        item = self.list.currentItem()
        return item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None

    def current(self) -> tuple[Any, str | None] | None:
        row = self._row_of(self.current_sha())
        return self.choices[row] if row >= 0 else None

    def _choose_next(self, action: str) -> None:
        """Ctrl+Z / Ctrl+Shift+Z inside the dialog: the newest change that action applies to."""
        row = next((i for i, (c, why) in enumerate(self.choices) if c.action == action and not why), -1)
        if row >= 0:
            self.list.setCurrentItem(self.list.topLevelItem(row))

    # -- the chosen change -----------------------------------------------------------------------

    def _chosen(self) -> None:
        chosen = self.current()
        self.confirm_button.setEnabled(False)
        self._preview_for = None
        if chosen is None:
            return
        change, why = chosen
        self.confirm_button.setText("Redo this change" if change.undone else "Undo this change")
        if why:
            self.preview.clear("")
            self._say(f"This change cannot be {'redone' if change.undone else 'undone'} now: {why}.", "error")
            return
        self._say("Working out the commit that reverts it\u2026", "info")
        job = UndoPlanJob(sha=change.sha, redo=change.undone)
        self.runner.run(
            job.success(lambda result, sha=change.sha: self._planned(sha, result)).failure(
                lambda msg: None if self._closed else self._say(f"Something went wrong: {msg}", "error")
            )
        )

    def _planned(self, sha: str, result: Attempt) -> None:
        if self._closed or sha != self.current_sha():
            return  # the person chose another change meanwhile
        self.planned.emit(result)
        if not result.ok:
            self.preview.clear("")
            self._say(result.error, "error")
            return
        preview: Preview = result.value
        self.preview.show_preview(preview)
        self._preview_for = sha
        self.message.hide()
        self.confirm_button.setEnabled(not self._busy)

    def confirm(self) -> None:
        chosen, preview = self.current(), self.preview.preview()
        if chosen is None or preview is None or self._busy or self._preview_for != chosen[0].sha:
            return
        change = chosen[0]
        self._busy = True
        self.confirm_button.setEnabled(False)
        self._say("Writing\u2026", "info")
        job = UndoJob(sha=change.sha, redo=change.undone, expect=preview.plan)
        self.runner.run(job.success(self._done).failure(self._failed))

    def _done(self, result: Attempt) -> None:
        self._busy = False
        if self._closed:
            if result.ok:
                self.applied.emit(result.value)  # the write landed: the window still follows it
            super().done(self._result)
            return
        if not result.ok:
            self._say(
                result.error + ("\n\nThe list and the preview have been read again." if result.stale else ""), "error"
            )
            self.load()
            return
        self.applied.emit(result.value)
        self.load()

    def _failed(self, message: str) -> None:
        self._busy = False
        if self._closed:
            super().done(self._result)
            return
        self._say(f"Something went wrong: {message}", "error")
        self.load()

    def _say(self, text: str, kind: str) -> None:
        self.message.setProperty("kind", kind)
        background = warning_color() if kind == "error" else "palette(alternate-base)"
        self.message.setStyleSheet(f"QLabel#undoMessage {{ background: {background}; padding: 6px; }}")
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def message_kind(self) -> str:
        return str(self.message.property("kind") or "") if self.message.isVisible() else ""


def _when(text: str) -> str:
    """ "2026-12-01 11:02" from an ISO instant (UTC), or "?"."""
    return text.replace("T", " ")[:16] + (" UTC" if text else "") if text else "?"
