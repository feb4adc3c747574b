"""The review inbox's wiring: the count in the status bar, the inbox read page by page, the actions.

**The count** ("12 to review", a button in the status bar that opens the inbox) is asked of a pool
thread whenever the store changes (a watcher batch, a write) and every few seconds, since a commit
of a file already saved changes nothing on disk the watcher sees: the job reads HEAD and the mark
(one git process) and recounts only when one moved, and only the new commits when HEAD just moved on.

**The inbox** reads the range (`ReviewRangeJob`), then its commits a page at a time
(`ReviewPageJob`, 200 commits), each page appended to the list as it arrives: the GUI thread only
inserts rows. New commits while it is open are appended the same way. **Actions** (keys on the
window): Accept marks a change (or a group) reviewed (`AcceptJob`: the mark moves past every commit
whose changes are all accepted); Correct… and Archive… open the curation dialogs, and the change is
accepted with the commit they made; Revert… previews a `RevertRequest` through the write core and
asks before it commits; Open shows the memory in the reader without counting a read; Skip moves on.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QToolButton, QWidget

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.curate import ApplyJob, PlanJob
from memhtml_desktop.ops.review import (
    PAGE,
    UNAVAILABLE,
    AcceptJob,
    ActivityJob,
    ChangeDetailJob,
    FullCountJob,
    NewCommitsJob,
    ReviewCountJob,
    ReviewDoneJob,
    ReviewPageJob,
    ReviewRangeJob,
)  # fmt: skip
from memhtml_desktop.ui.kit.turns import turn_timer
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.write.requests import RevertRequest

POLL_MS = 4000


class ReviewController(QObject):
    counted = Signal(int)  # the number to review, each time it is known anew
    loaded = Signal(object)  # the ReviewRange, once every page of it is listed
    accepted = Signal(object)  # the keys accepted

    def __init__(self, ctx: PaneContext, parent: QWidget, curate: Any, *, reader: Any = None,
                 shown: Any = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.ctx, self.parent_widget, self.curate = ctx, parent, curate
        self.window: Any = None
        self.rng: Any = None
        self.loaded_upto = 0  # how many of rng.shas are listed
        self.pending: dict[str, set[str]] = {}
        self.count: int | None = None
        self.known: Any = None
        self.acting: tuple[str, str] | None = None  # (key, path) of the change a dialog from the inbox is about
        self.button = QToolButton(parent)
        self.button.setObjectName("reviewCount")
        self.button.setAutoRaise(True)
        self.button.setToolTip("What changed since you last looked (View \u2192 Review inbox, Ctrl+Shift+R)")
        self.button.clicked.connect(self.show)
        self.button.hide()
        status = getattr(parent, "status", None)  # the window's StatusBar (made before the controllers)
        if status is not None and hasattr(status, "addPermanentWidget"):
            status.addPermanentWidget(self.button)
        self.poll = QTimer(self)
        self.poll.setInterval(POLL_MS)
        self.poll.timeout.connect(self.recount)
        self.poll.start()
        ctx.events.changed.connect(self._store_changed)
        curate.written.connect(self._written)
        self.provenance = None
        if reader is not None and shown is not None:
            from memhtml_desktop.ui.review.follow import ProvenanceFollower

            self.provenance = ProvenanceFollower(ctx, reader, shown, self)

    # -- the count -------------------------------------------------------------------------------

    def recount(self) -> None:
        if self.ctx.store is None or self.ctx.runner.is_busy(ReviewCountJob.kind) or \
                self.ctx.runner.is_busy(FullCountJob.kind):  # fmt: skip
            return
        job = ReviewCountJob(known=self.known, known_count=self.count or 0).success(self._counted)
        self.ctx.runner.run(job.failure(lambda msg: self.button.setToolTip(f"The history could not be read: {msg}")))

    def _counted(self, answer: Any) -> None:
        if answer is None:
            return
        state, count = answer
        if state == UNAVAILABLE:  # no history to count here: no button, no more looks until another store
            self.poll.stop()
            self.button.hide()
            self.button.setToolTip(f"No review inbox here: {count}")
            return
        if count is None:  # a long range: counted in a child process
            if not self.ctx.runner.is_busy(FullCountJob.kind):
                self.ctx.runner.run(FullCountJob().success(self._counted).failure(lambda msg: None))
            return
        self.known = state
        self._set_count(count)
        if self.window is not None and self.window.isVisible() and self.rng is not None:
            if self.known.head != self.rng.head or self.known.mark != self.rng.mark:
                self._follow_head()

    def _set_count(self, count: int) -> None:
        self.count = max(0, count)
        self.button.setText(f"{self.count:,} to review" if self.count else "Nothing to review")
        self.button.setAccessibleName(self.button.text())
        self.button.show()
        self.counted.emit(self.count)

    # -- the inbox -----------------------------------------------------------------------------

    def show(self) -> Any:
        from memhtml_desktop.ui.review.review_window import ReviewWindow

        if self.window is None:  # built in this turn, shown and listed in the next
            self.window = window = ReviewWindow(self.parent_widget)
            window.action.connect(self.act)
            window.current_changed.connect(self._chosen)
            window.done_requested.connect(self.done)
            window.tabs.currentChanged.connect(self._tab)
            self.present = turn_timer(self, self._present)
        self.present.start()
        return self.window

    def _present(self) -> None:
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()
        self.reload()

    def activity_view(self) -> Any:
        """The Activity tab (built on first use), wired."""
        made = self.window.activity is None
        view = self.window.ensure_activity()
        if made:
            view.unit_requested.connect(self.load_activity)
            view.open_requested.connect(lambda path: self.ctx.session.open(path, bump=False))
        return view

    def reload(self) -> None:
        """List again from the range as it is now."""
        self.rng, self.loaded_upto, self.pending = None, 0, {}
        self.window.model.clear()
        self.window.set_heading("Reading the store's history\u2026", [])
        self.window.show_caught_up(False)
        self.ctx.runner.run(ReviewRangeJob().success(self._ranged).failure(self._failed))

    def _failed(self, message: str) -> None:
        if self.window is not None:
            self.window.set_heading("The history could not be read", [message])

    def _ranged(self, rng: Any) -> None:
        self.rng = rng
        self._next_page()

    def _next_page(self) -> None:
        rng = self.rng
        if self.loaded_upto >= len(rng.shas):
            self._listed()
            return
        page = tuple(rng.shas[self.loaded_upto : self.loaded_upto + PAGE])
        job = ReviewPageJob(shas=page, shallow=rng.shallow, accepted=rng.accepted)
        self.ctx.runner.run(
            job.success(lambda changes, r=rng, n=len(page): self._paged(r, n, changes)).failure(self._failed)
        )

    def _paged(self, rng: Any, n: int, changes: list) -> None:
        if rng is not self.rng:
            return
        self.loaded_upto += n
        for change in changes:
            self.pending.setdefault(change.commit, set()).add(change.key)
        self.window.model.add(changes)
        self.window.fill_filters()
        self._say()
        self._next_page()

    def _listed(self) -> None:
        self._say()
        self._set_count(len(self.window.model.changes))
        if self.known is None or (self.known.head, self.known.mark) != (self.rng.head, self.rng.mark):
            self.known = None  # the count now is the list's: the next look counts again from the mark
        self.loaded.emit(self.rng)

    def _say(self) -> None:
        rng, model = self.rng, self.window.model
        reading = self.loaded_upto < len(rng.shas)
        n = len(model.changes)
        more = f" (reading {self.loaded_upto:,} of {len(rng.shas):,} commits\u2026)" if reading else ""
        self.window.set_heading(f"{counted(n, 'change')} to review {rng.since}{more}", rng.notes)
        if not reading and n == 0:
            self.window.show_caught_up(True, f"All caught up\nNothing to review {rng.since}.")
        else:
            self.window.show_caught_up(False)

    def _follow_head(self) -> None:
        if self.rng is None or self.rng.head is None or self.loaded_upto < len(self.rng.shas):
            self.reload()
            return
        self.ctx.runner.run(NewCommitsJob(old=self.rng.head).success(self._new_commits).failure(self._failed))

    def _new_commits(self, answer: Any) -> None:
        head, added = answer
        if added is None or self.known is None or self.known.mark != self.rng.mark:
            self.reload()
            return
        self.rng.head = head
        self.rng.shas = list(self.rng.shas) + list(added)
        self._next_page()

    # -- one change --------------------------------------------------------------------------

    def _chosen(self, change: Any) -> None:
        if change is not None:
            job = ChangeDetailJob(change=change).success(self.window.detail.show_detail)
            self.ctx.runner.run(job.failure(lambda msg: self.window.detail.show_refusal(f"Not read: {msg}")))

    def act(self, name: str, target: Any) -> None:
        change = target if hasattr(target, "kind") else None
        if name == "accept":
            self.accept([c.key for c in target.changes] if change is None else [change.key])
        elif name == "open" and change is not None:
            self.ctx.session.open(change.path, bump=False)
            self.ctx.status(f"Opened {change.path} in the reader (not counted as a read)", 6000)
        elif name in ("correct", "archive") and change is not None:
            self.acting = (change.key, change.path)
            if name == "correct":
                self.curate.correct(change.path)
            else:
                self.curate.archive(change.path, change.title)
            self.curate.dialog_opened.connect(self._watch_dialog)
        elif name == "revert" and change is not None:
            self.revert(change)

    def _watch_dialog(self, dialog: Any) -> None:
        self.curate.dialog_opened.disconnect(self._watch_dialog)
        dialog.finished.connect(lambda *_: setattr(self, "acting", None))

    def _written(self, applied: Any) -> None:
        """A curation dialog opened from the inbox wrote: its change is reviewed, and so is the commit."""
        request = getattr(applied.plan, "request", None)
        about = getattr(request, "target", None) or getattr(request, "path", None)
        if self.acting is not None and applied.commit_sha and about == self.acting[1]:
            key, self.acting = self.acting[0], None
            self.accept([key], also=(applied.commit_sha,))

    def accept(self, keys: list[str], also: tuple[str, ...] = ()) -> None:
        if self.rng is None:
            return
        job = AcceptJob(keys=tuple(keys), order=tuple(self.rng.shas[: self.loaded_upto]),
                        pending={k: frozenset(v) for k, v in self.pending.items()}, mark=self.rng.mark, also=also)  # fmt: skip
        self.ctx.runner.run(job.success(self._accepted).failure(self._refused))

    def _accepted(self, answer: Any) -> None:
        mark, keys, state = answer
        window, gone = self.window, set(keys)
        current = window.current_change()
        shown = [c.key for c in window.model.shown_changes()]
        place = shown.index(current.key) if current is not None and current.key in shown else 0
        self.rng.mark = mark
        for commit in list(self.pending):
            self.pending[commit] -= gone
        window.model.remove(gone)
        if current is not None and current.key in gone:
            window.select_key(None, place)
        else:
            window.select_key(current.key if current is not None else None, place)
        removed = len(set(shown) & gone)
        self.known = state
        self._set_count(
            (self.count or 0) - removed if self.loaded_upto < len(self.rng.shas) else len(window.model.changes)
        )
        self._say()
        self.accepted.emit(gone)

    def _refused(self, message: str) -> None:
        if self.window is not None:
            self.window.detail.show_refusal(message)

    def done(self) -> None:
        if self.rng is None or self.rng.head is None:
            return
        self.ctx.runner.run(ReviewDoneJob(upto=self.rng.head).success(lambda _: self.reload()).failure(self._refused))

    # -- revert --------------------------------------------------------------------------------

    def revert(self, change: Any) -> None:
        request = RevertRequest(change.commit, tuple(change.paths))
        job = PlanJob(kind="review-revert-plan", request=request).success(
            lambda a, c=change: self._revert_planned(c, a)
        )
        self.ctx.runner.run(job.failure(self._refused))

    def _revert_planned(self, change: Any, attempt: Any) -> None:
        if not attempt.ok:
            self.window.detail.show_refusal(f"Not reverted: {attempt.error}")
            return
        plan = attempt.value.plan
        box = QMessageBox(QMessageBox.Icon.Question, "Revert this change",
                          f"{plan.subject}\n\n" + "\n".join(plan.describe()) + "\n\nA new commit reverts only these "
                          "paths; a later change to them would have refused it.", QMessageBox.StandardButton.Cancel,
                          self.window)  # fmt: skip
        box.setTextFormat(Qt.TextFormat.PlainText)  # a subject is anyone's text, never markup
        button = box.addButton("Revert", QMessageBox.ButtonRole.AcceptRole)
        button.setObjectName("revertButton")
        box.setDefaultButton(button)
        box.accepted.connect(lambda p=plan, c=change: self._revert_now(c, p))
        self.revert_box = box
        box.open()

    def _revert_now(self, change: Any, plan: Any) -> None:
        job = ApplyJob(plan=plan).success(lambda a, c=change: self._reverted(c, a))
        self.ctx.runner.run(job.failure(self._refused))

    def _reverted(self, change: Any, attempt: Any) -> None:
        self.window.activateWindow()  # back to the inbox after the question
        if not attempt.ok:
            self.window.detail.show_refusal(f"Not reverted: {attempt.error}")
            return
        sha = attempt.value.commit_sha
        self.ctx.status(f"Reverted {change.kind} {change.path} \u2014 committed {(sha or '')[:12]}", 12000)
        self.accept([change.key], also=(sha,) if sha else ())

    # -- activity ------------------------------------------------------------------------------

    def _tab(self, index: int) -> None:
        if index == 1:
            view = self.activity_view()
            if view.activity is None:
                self.load_activity(view.unit.currentData())

    def load_activity(self, unit: str) -> None:
        view = self.activity_view()
        view.set_loading()
        job = ActivityJob(unit=unit).success(view.set_activity)
        self.ctx.runner.run(job.failure(lambda msg: view.summary.setText(f"Not read: {msg}")))

    # -- the store -----------------------------------------------------------------------------

    def _store_changed(self, change: StoreChange) -> None:
        if change.reopened:
            self.known, self.count, self.rng = None, None, None
            self.button.hide()
            self.poll.start()
            if self.window is not None and self.window.isVisible():
                if self.window.activity is not None:
                    self.window.activity.activity = None
                self.reload()
        if change.content or change.reopened:
            self.recount()
