"""Curation's wiring: the reader's and the menus' curation actions open dialogs; writes come back
as one `StoreChange`; Undo; the recovery of an interrupted write when a store opens.

Before a dialog opens, the file it will edit is read on a worker (a draft for Correct, the blob id
for the others) so the write is pinned to the file as the dialog showed it. After a write the
reader opens where the memory now is (the correction, the archived copy) without counting a read;
the list, the filters and the other panes follow the StoreChange the write announced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from memhtml_desktop.domain.paths import is_archived
from memhtml_desktop.ui.curate import dialogs
from memhtml_desktop.ops.curate import Attempt, DraftJob, HashesJob, RecoverJob, UndoJob, UndoStatusJob
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ui.session.context import PaneContext

TITLES = {"correct": "Correct", "archive": "Archive", "link": "Link", "doing": "Mark task", "done": "Mark task",
          "new": "New memory", "undo": "Undo last change"}

#: Where the reader goes after each kind of write: the result field holding the memory's new path.
OPEN_AFTER = {"correct": "path", "write": "path", "task.add": "path", "archive": "archive_path",
              "task.status": "archive_path", "supersede": "winner"}  # fmt: skip


class CurateController(QObject):
    """Opens the curation dialogs and reports their writes (see the module docstring)."""

    written = Signal(object)  # the write core's Applied, after a write or an undo committed
    dialog_opened = Signal(object)  # the dialog now showing (tests and screenshots wait on it)
    undo_refused = Signal(str)  # why Undo cannot run now
    recovered = Signal(str)  # what recovery did when a store opened

    def __init__(self, ctx: PaneContext, parent: QWidget, *, current: Callable[[], Any] = lambda: None,
                 refresh_index: Callable[[], bool] = lambda: False) -> None:  # fmt: skip
        super().__init__(parent)
        self.ctx, self.parent_widget = ctx, parent
        self.current = current  # the MemoryDetail in the reader, or None
        self.refresh_index = refresh_index
        self.dialog: Any = None
        self.undo_box: QMessageBox | None = None
        ctx.events.changed.connect(self._store_changed)

    # -- opening dialogs ----------------------------------------------------------------------

    def _options(self) -> dict:
        return {"refresh_index": self.refresh_index}

    def _show(self, dialog: Any) -> Any:
        if self.dialog is not None:
            try:
                self.dialog.close()
            except RuntimeError:  # already deleted
                pass
        self.dialog = dialog
        dialog.applied.connect(self._applied)
        dialog.destroyed.connect(lambda *_: self._forget(dialog))
        dialog.open()
        self.dialog_opened.emit(dialog)
        return dialog

    def _forget(self, dialog: Any) -> None:
        if self.dialog is dialog:
            self.dialog = None

    def _refused(self, title: str) -> Callable[[Any], None]:
        return lambda message: self.ctx.notify(title, str(message), QMessageBox.Icon.Warning)

    def _with_hashes(self, paths: tuple[str, ...], then: Callable[[dict], Any], title: str) -> None:
        job = HashesJob(kind="curate-hashes", paths=paths).success(then)
        self.ctx.runner.run(job.failure(self._refused(title)))

    def off(self) -> str | None:
        """Why this store cannot be curated (no git of its own: `StoreCheck.git_problem`), or None."""
        return getattr(self.ctx.store, "curation_off", None)

    def _refuse_off(self, title: str) -> bool:
        """Say why curation is off before any form is filled; True when it is."""
        reason = self.off()
        if reason:
            self.ctx.notify(title, f"Curation is off in this store: {reason}.", QMessageBox.Icon.Information)
        return bool(reason)

    def correct(self, path: str) -> None:
        if self._refuse_off("Correct"):
            return

        def drafted(result: Attempt) -> None:
            if not result.ok:
                self._refused("Correct")(result.error)
                return
            self._show(dialogs.CorrectDialog(self.ctx.runner, result.value, self.parent_widget, **self._options()))

        self.ctx.runner.run(DraftJob(kind="curate-draft", path=path).success(drafted).failure(self._refused("Correct")))

    def archive(self, path: str, title: str = "") -> None:
        if self._refuse_off("Archive"):
            return
        self._with_hashes((path,), lambda h: self._show(dialogs.ArchiveDialog(
            self.ctx.runner, path, title, h.get(path), self.parent_widget, **self._options())), "Archive")

    def link(self, path: str, title: str = "", *, is_task: bool = False, target: str = "", rel: str | None = None) -> None:
        if self._refuse_off("Link"):
            return
        self._with_hashes((path,), lambda h: self._show(dialogs.LinkDialog(
            self.ctx.runner, path, title, h.get(path), is_task=is_task, target=target, rel=rel,
            parent=self.parent_widget, **self._options())), "Link")  # fmt: skip

    def mark_task(self, path: str, status: str, title: str = "") -> None:
        if self._refuse_off("Mark task"):
            return
        self._with_hashes((path,), lambda h: self._show(dialogs.TaskStatusDialog(
            self.ctx.runner, path, title, status, h.get(path), self.parent_widget, **self._options())), "Mark task")

    def new_memory(self) -> None:
        if self._refuse_off("New memory"):
            return
        self._show(dialogs.NewMemoryDialog(self.ctx.runner, self.parent_widget, **self._options()))

    def supersede(self, winner: tuple[str, str], loser: tuple[str, str]) -> None:
        """The conflicts view's "this one is right": `winner` = (path, title) supersedes `loser`."""
        if self._refuse_off("This one is right"):
            return
        paths = (winner[0], loser[0])
        self._with_hashes(paths, lambda h: self._show(dialogs.SupersedeDialog(
            self.ctx.runner, winner, loser, h, self.parent_widget, **self._options())), "This one is right")

    # -- acting on the reader's memory (menus) ------------------------------------------------

    def current_memory(self) -> Any:
        detail = self.current()
        return detail if detail is not None and getattr(detail, "indexed", False) else None

    def can(self, action: str) -> bool:
        """Whether `action` applies to the memory in the reader now (the menus grey it out if not)."""
        detail = self.current_memory()
        if self.off():
            return False
        if action in ("new", "undo"):
            return True
        if detail is None or detail.archived or is_archived(detail.path):
            return False
        if action in ("doing", "done"):
            return detail.memory_type == "task"
        return action in ("correct", "archive", "link")

    def trigger(self, action: str, path: str | None = None) -> None:
        """Run `action` ("correct", "archive", "link", "doing", "done", "new", "undo") for `path`
        (default: the memory in the reader)."""
        if self._refuse_off(TITLES.get(action, "Curate")):
            return
        if action == "new":
            self.new_memory()
            return
        if action == "undo":
            self.undo()
            return
        detail = self.current_memory()
        if path is None:
            if not self.can(action):
                self.ctx.status("Open a memory that is not archived in the reader first"
                                + (" (a task, to change its status)" if action in ("doing", "done") else ""), 8000)
                return
            path = detail.path
        title = detail.title if detail is not None and detail.path == path else ""
        is_task = detail is not None and detail.path == path and detail.memory_type == "task"
        if action == "correct":
            self.correct(path)
        elif action == "archive":
            self.archive(path, title)
        elif action == "link":
            self.link(path, title, is_task=is_task)
        elif action in ("doing", "done"):
            self.mark_task(path, action, title)

    # -- after a write ----------------------------------------------------------------------------

    def _applied(self, applied: Any) -> None:
        plan = applied.plan
        sha = (applied.commit_sha or "")[:12]
        self.ctx.status(f"{plan.subject} \u2014 committed {sha}" if sha else "Nothing was written.", 15000)
        if applied.notices:
            self.ctx.notify("Written, with a note", "\n".join(applied.notices), QMessageBox.Icon.Warning)
        self.written.emit(applied)
        key = OPEN_AFTER.get(plan.op)
        target = applied.result.get(key) if key else None
        if plan.op == "task.status" and not target:
            target = applied.result.get("path")
        if target:
            self.ctx.session.open(target, bump=False)

    # -- undo -------------------------------------------------------------------------------------

    def undo(self) -> None:
        """Edit → Undo last change: ask the write core whether it can, confirm, revert."""
        if self._refuse_off("Undo last change"):
            return
        job = UndoStatusJob().success(self._undo_status)
        self.ctx.runner.run(job.failure(self._refused("Undo last change")))

    def _undo_status(self, status: tuple[bool, str]) -> None:
        ok, text = status
        if not ok:
            self.undo_refused.emit(text)
            self.ctx.notify("Undo last change", f"Nothing can be undone now: {text}.", QMessageBox.Icon.Information)
            return
        box = QMessageBox(QMessageBox.Icon.Question, "Undo last change",
                          f"Undo this app's last change: {text}?\n\nA new commit reverts it; salience follows "
                          "any move back.", QMessageBox.StandardButton.Cancel, self.parent_widget)  # fmt: skip
        box.setTextFormat(Qt.TextFormat.PlainText)
        undo_button = box.addButton("Undo", QMessageBox.ButtonRole.AcceptRole)
        undo_button.setObjectName("undoButton")
        box.setDefaultButton(undo_button)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.accepted.connect(self._undo_now)
        self.undo_box = box
        box.open()

    def _undo_now(self) -> None:
        self.undo_box = None
        self.ctx.runner.run(UndoJob().success(self._undone).failure(self._refused("Undo last change")))

    def _undone(self, result: Attempt) -> None:
        if not result.ok:
            self.undo_refused.emit(result.error)
            self.ctx.notify("Undo last change", result.error, QMessageBox.Icon.Warning)
            return
        applied, existing = result.value
        self.ctx.status(f"Undone: {applied.plan.subject} \u2014 committed {(applied.commit_sha or '')[:12]}", 15000)
        self.written.emit(applied)
        detail = self.current()
        shown = detail.path if detail is not None else None
        if shown not in existing:
            live = [p for p in existing if not is_archived(p)]
            if live:
                self.ctx.session.open(live[0], bump=False)

    # -- the store ------------------------------------------------------------------------------

    def _store_changed(self, change: StoreChange) -> None:
        if change.reopened and change.store is not None:
            job = RecoverJob().success(self._recovered)
            self.ctx.runner.run(job.failure(lambda msg: self.ctx.status(f"Recovery check failed: {msg}", 15000)),
                                change.store)  # fmt: skip

    def _recovered(self, result: Attempt) -> None:
        if result.ok and result.value:
            self.recovered.emit(result.value)
            self.ctx.notify("An interrupted write", result.value, QMessageBox.Icon.Information)
        elif not result.ok:
            self.ctx.status(f"An interrupted write could not be recovered: {result.error}", 20000)
