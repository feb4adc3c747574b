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

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from memhtml_desktop.domain.paths import is_archived
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.curate import Attempt, DraftJob, HashesJob, RecoverJob, SupersedeDraftJob
from memhtml_desktop.ui.curate import dialogs
from memhtml_desktop.ui.session.context import PaneContext

TITLES = {
    "correct": "Correct",
    "archive": "Archive",
    "link": "Link",
    "doing": "Mark task",
    "done": "Mark task",
    "new": "New memory",
    "undo": "Undo",
    "redo": "Redo",
}

#: Where the reader goes after each kind of write: the result field holding the memory's new path.
OPEN_AFTER = {"correct": "path", "write": "path", "task.add": "path", "archive": "archive_path",
              "task.status": "archive_path", "supersede": "winner"}  # fmt: skip


class CurateController(QObject):
    """Opens the curation dialogs and reports their writes (see the module docstring)."""

    written = Signal(object)  # the write core's Applied, after a write or an undo committed
    dialog_opened = Signal(object)  # the dialog now showing (tests and screenshots wait on it)
    recovered = Signal(str)  # what recovery did when a store opened

    def __init__(self, ctx: PaneContext, parent: QWidget, *, reader: Any = None,
                 refresh_index: Callable[[], bool] = lambda: False) -> None:  # fmt: skip
        super().__init__(parent)
        self.ctx, self.parent_widget = ctx, parent
        # The reader, through three calls only: the memory it shows (`detail`, None unless shown),
        # the path it shows or is opening (`current_path`), and `show_note` (an undo removed it).
        self.reader = reader
        self.refresh_index = refresh_index
        self.dialog: Any = None
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

        job = DraftJob(kind="curate-draft", path=path, graph=True)
        self.ctx.runner.run(job.success(drafted).failure(self._refused("Correct")))

    def archive(self, path: str, title: str = "") -> None:
        if self._refuse_off("Archive"):
            return
        self._with_hashes(
            (path,),
            lambda h: self._show(
                dialogs.ArchiveDialog(self.ctx.runner, path, title, h.get(path), self.parent_widget, **self._options())
            ),
            "Archive",
        )

    def link(
        self, path: str, title: str = "", *, is_task: bool = False, target: str = "", rel: str | None = None
    ) -> None:
        if self._refuse_off("Link"):
            return
        self._with_hashes((path,), lambda h: self._show(dialogs.LinkDialog(
            self.ctx.runner, path, title, h.get(path), is_task=is_task, target=target, rel=rel,
            parent=self.parent_widget, **self._options())), "Link")  # fmt: skip

    def mark_task(self, path: str, status: str, title: str = "") -> None:
        if self._refuse_off("Mark task"):
            return
        self._with_hashes(
            (path,),
            lambda h: self._show(
                dialogs.TaskStatusDialog(
                    self.ctx.runner, path, title, status, h.get(path), self.parent_widget, **self._options()
                )
            ),
            "Mark task",
        )

    def new_memory(self) -> None:
        if self._refuse_off("New memory"):
            return
        self._show(dialogs.NewMemoryDialog(self.ctx.runner, self.parent_widget, **self._options()))

    def supersede(self, winner: tuple[str, str], loser: tuple[str, str]) -> None:
        """The conflicts view's "this one is right": `winner` = (path, title) supersedes `loser`."""
        if self._refuse_off("This one is right"):
            return

        def drafted(result: Attempt) -> None:
            if not result.ok:
                self._refused("This one is right")(result.error)
                return
            self._show(dialogs.SupersedeDialog(self.ctx.runner, winner, loser, result.value, self.parent_widget,
                                               **self._options()))  # fmt: skip

        job = SupersedeDraftJob(winner=winner[0], loser=loser[0]).success(drafted)
        self.ctx.runner.run(job.failure(self._refused("This one is right")))

    def dismiss(self, a: tuple[str, str], b: tuple[str, str], restore: bool = False) -> None:
        """The conflicts queue's "not a conflict" (or its restore): one commit on the app's own ref."""
        title = "Restore" if restore else "Not a conflict"
        if self._refuse_off(title):
            return
        from memhtml_desktop.ui.curate.dismiss_dialog import DismissDialog

        self._show(DismissDialog(self.ctx.runner, a, b, restore=restore, parent=self.parent_widget, **self._options()))

    # -- acting on the reader's memory (menus) ------------------------------------------------

    def current(self) -> Any:
        """The MemoryDetail in the reader, or None."""
        return self.reader.detail() if self.reader is not None else None

    def current_memory(self) -> Any:
        detail = self.current()
        return detail if detail is not None and getattr(detail, "indexed", False) else None

    def can(self, action: str) -> bool:
        """Whether `action` applies to the memory in the reader now (the menus grey it out if not)."""
        detail = self.current_memory()
        if self.off():
            return False
        if action in ("new", "undo", "redo"):
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
        if action in ("undo", "redo"):
            self.undo(redo=action == "redo")
            return
        detail = self.current_memory()
        if path is None:
            if not self.can(action):
                self.ctx.status(
                    "Open a memory that is not archived in the reader first"
                    + (" (a task, to change its status)" if action in ("doing", "done") else ""),
                    8000,
                )
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

    # -- undo and redo ----------------------------------------------------------------------------

    def undo(self, *, redo: bool = False) -> None:
        """Edit → Undo… (Redo…): the app's own recent changes, the chosen one's revert previewed."""
        if self._refuse_off("Redo" if redo else "Undo"):
            return
        from memhtml_desktop.ui.curate.undo_dialog import UndoDialog

        dialog = UndoDialog(self.ctx.runner, self.parent_widget, redo=redo)
        dialog.applied.connect(self._undone)
        self._show_undo(dialog)

    def redo(self) -> None:
        self.undo(redo=True)

    def _show_undo(self, dialog: Any) -> None:
        if self.dialog is not None:
            try:
                self.dialog.close()
            except RuntimeError:
                pass
        self.dialog = dialog
        dialog.destroyed.connect(lambda *_: self._forget(dialog))
        dialog.open()
        dialog.load()
        self.dialog_opened.emit(dialog)

    def _undone(self, applied: Any) -> None:
        """An undo or redo committed: say so, and the reader follows the memory (undo_follow)."""
        from memhtml_desktop.ui.curate.undo_follow import follow

        done = "Redone" if applied.plan.op == "redo" else "Undone"
        self.ctx.status(f"{done}: {applied.plan.subject} \u2014 committed {(applied.commit_sha or '')[:12]}", 15000)
        if applied.notices:
            self.ctx.notify("Written, with a note", "\n".join(applied.notices), QMessageBox.Icon.Warning)
        self.written.emit(applied)
        shown = self.reader.current_path() if self.reader is not None else None
        what, path = follow(applied.plan, shown)
        if what == "open":
            self.ctx.session.open(path, bump=False)
        elif what == "gone" and self.reader is not None:
            again = "Redo" if applied.plan.op == "undo" else "Undo"
            self.reader.show_note(
                f"{path} is no longer in the store: {applied.plan.subject} (commit "
                f"{(applied.commit_sha or '')[:12]}) removed it. Edit \u2192 {again}\u2026 gives it back."
            )

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
