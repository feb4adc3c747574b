"""The write core's front door: plan a change, apply it, undo the last one, recover a crash.

`Curator(store)` is what the CLI and the window call. Every command has a request record
(`requests.py`); `plan(request)` validates it against the store as it is and returns the `Plan`
(files, moves, commit subject, result) without touching anything; `apply(plan)` takes the write
lock, re-plans the same request with the clock at that moment, refuses if the store moved under
the preview, and carries it out (`executor.py`). `run(request)` is plan + apply in one step.

Also here: `undo()` reverts this app's own last commit (only while it is still HEAD and the tree
is clean), and `recover()` finishes or rolls back a write a crash interrupted.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from memhtml_desktop.domain.paths import is_indexable
from memhtml_desktop.index.state import move_access
from memhtml_desktop.write import journal as journal_mod
from memhtml_desktop.write.batch import ApplyRequest, plan_apply
from memhtml_desktop.write.context import PlanContext
from memhtml_desktop.write.errors import GitFailed, Refused, Stale, WriteError
from memhtml_desktop.write.executor import Executor, prune_rows, rollback
from memhtml_desktop.write.git import Git, GitError
from memhtml_desktop.write.journal import Journal, LockTimeout, WriteLock
from memhtml_desktop.write.plan import Plan
from memhtml_desktop.write.planner_edit import plan_archive, plan_correct, plan_link, plan_supersede, plan_task_status
from memhtml_desktop.write.planner_new import plan_write
from memhtml_desktop.write.planner_repair import plan_doctor_fix, plan_state_export
from memhtml_desktop.write.preflight import check_paths, check_repository, check_staged, wait_for_index_lock
from memhtml_desktop.write.requests import (
    ArchiveRequest,
    CorrectRequest,
    DoctorFixRequest,
    LinkRequest,
    StateExportRequest,
    SupersedeRequest,
    TaskStatusRequest,
    WriteRequest,
)

log = logging.getLogger(__name__)


def _instant(text: str | None):
    """A plan's `now` (`2026-12-01T11:02:31Z`) as the aware datetime a PlanContext takes; None if absent."""
    import datetime as _dt

    return _dt.datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None

PLANNERS: dict[type, Callable[[PlanContext, Any], Plan]] = {
    WriteRequest: plan_write,
    CorrectRequest: plan_correct,
    ArchiveRequest: plan_archive,
    TaskStatusRequest: plan_task_status,
    LinkRequest: plan_link,
    DoctorFixRequest: plan_doctor_fix,
    StateExportRequest: plan_state_export,
    ApplyRequest: plan_apply,
    SupersedeRequest: plan_supersede,
}


@dataclass
class Applied:
    """A finished write: the plan carried out, its commit (None: nothing to write), the result."""

    plan: Plan
    commit_sha: str | None
    result: dict[str, Any]
    notices: list[str] = field(default_factory=list)


class Curator:
    """The write core for one open Store. Share it between threads; its writes take turns.

    `refresh_index`: bring the whole index in step with the tree before each plan (the duplicate
    check and the link checks read it). The CLI does this once per command; the window keeps the
    index current with its watcher and leaves it off (a full pass costs ~0.7 s at 20,000 files).
    """

    def __init__(self, store, *, lock_wait_s: float = journal_mod.LOCK_WAIT_S, git_lock_wait_s: float | None = None,
                 refresh_index: bool = False) -> None:  # fmt: skip
        self.store = store
        self.refresh_index = refresh_index
        self.root = Path(store.root)
        self.git = Git(self.root) if git_lock_wait_s is None else Git(self.root, lock_wait_s=git_lock_wait_s)
        self.directory = journal_mod.write_dir(self.root)
        self.lock = WriteLock(self.directory, wait_s=lock_wait_s)
        self.journal = Journal(self.directory)

    # -- planning ------------------------------------------------------------------------------

    def context(self, now=None) -> PlanContext:
        return PlanContext(self.root, self.store.reader(), now or self.store.clock())

    def plan(self, request: Any) -> Plan:
        """What `request` would do, validated; nothing on disk, in git or in state.db changes.

        The repository is checked too (a git work tree on a branch, no merge under way, an
        identity, nothing else staged), so a preview already says when the write cannot happen.
        (A write a crash interrupted earlier is recovered first, under the lock.)
        """
        if self.journal.pending:
            self.recover()
        if type(request) not in PLANNERS:
            raise TypeError(f"not a write request: {type(request).__name__}")
        try:
            return self._checked_plan(request)[0]
        except GitError as exc:
            raise GitFailed(str(exc)) from exc

    # -- writing -------------------------------------------------------------------------------

    def run(self, request: Any) -> Applied:
        """Plan and apply in one step (what the CLI does)."""
        return self._locked(lambda: self._execute(self._checked_plan(request)))

    def apply(self, plan: Plan) -> Applied:
        """Carry out a previewed plan, re-planned now; Conflict when the store moved since the preview."""

        def work() -> Applied:
            # at the preview's instant: the stamps committed are the ones the preview showed
            fresh, base = self._checked_plan(plan.request, now=_instant(plan.now))
            if fresh.shape() != plan.shape():
                raise Stale("the store changed since this change was previewed (a file was edited or "
                               "written meanwhile); nothing was written: review it again")  # fmt: skip
            return self._execute((fresh, base))

        return self._locked(work)

    def _locked(self, work: Callable[[], Applied]) -> Applied:
        try:
            with self.lock:
                self._recover_locked()
                return work()
        except LockTimeout as exc:
            raise Refused(str(exc)) from exc
        except GitError as exc:
            raise GitFailed(str(exc)) from exc
        except OSError as exc:
            raise WriteError(f"storage operation failed: {exc.strerror or exc}") from exc

    def _checked_plan(self, request: Any, now=None) -> tuple[Plan, str | None]:
        base = check_repository(self.git)
        wait_for_index_lock(self.git)
        check_staged(self.git)
        if self.refresh_index:
            self.store.index()
        planner = PLANNERS[type(request)]
        return planner(self.context(now), request), base

    def _execute(self, planned: tuple[Plan, str | None]) -> Applied:
        plan, base = planned
        notices: list[str] = []
        if plan.noop:
            pruned = prune_rows(self.store.reader(), plan.state_deletes) if plan.state_deletes else []
            return Applied(plan, None, self._result(plan, None, pruned), notices)
        sha, notices = self._commit(plan, base)
        pruned = prune_rows(self.store.reader(), plan.state_deletes) if plan.state_deletes else []
        result = self._result(plan, sha, pruned)
        if plan.followup is not None:
            try:
                follow_sha, more = self._commit(plan.followup, sha)
                notices += more
            except (WriteError, GitError, OSError) as exc:
                # memhtml logs a failed consolidation and only drops superseded_path; same here.
                notices.append(f"the batch is committed, but its consolidation was not: {exc}")
                for item in result.get("results", []):
                    item["superseded_path"] = None
        return Applied(plan, sha, result, notices)

    def _commit(self, plan: Plan, base: str | None) -> tuple[str, list[str]]:
        """Check the paths, write, commit, reindex, remember the commit for undo."""
        existing = [c.source or c.path for c in plan.changes if c.action in ("modify", "move", "delete")]
        created = [c.path for c in plan.changes if c.action in ("create", "move")]
        check_paths(self.git, self.root, existing, created)
        sha = Executor(self.root, self.git, self.store.reader(), self.journal).run(plan, base)
        notices = self._reindex(plan)
        journal_mod.write_last(self.directory, {
            "sha": sha, "subject": plan.subject, "paths": list(plan.paths),
            "moves": [[c.source, c.path] for c in plan.changes if c.action == "move"],
        })  # fmt: skip
        self.journal.clear()
        return sha, notices

    @staticmethod
    def _result(plan: Plan, sha: str | None, pruned: list[str]) -> dict[str, Any]:
        result = dict(plan.result)
        if "repaired" in result:
            result["repaired"] = {**result["repaired"], "commit_sha": sha, "pruned_access_rows": len(pruned)}
        elif "commit_sha" in result:
            result["commit_sha"] = sha
        return result

    def _reindex(self, plan: Plan) -> list[str]:
        moves = [(c.source, c.path) for c in plan.changes if c.action == "move"]
        paths = [p for p in plan.paths if is_indexable(p)]
        return self._update_index(paths, moves)

    def _update_index(self, paths: list[str], moves: list[tuple[str, str]]) -> list[str]:
        if not paths:
            return []
        try:
            self.store.update_paths(paths, moves)
        except Exception as exc:  # noqa: BLE001 - the commit stands; the index is a cache
            log.warning("the index was not brought up to date after the write: %s", exc)
            return [f"the write is committed, but the index was not updated ({exc}); run `memhtml-desktop index`"]
        return []

    # -- reading for the curation views -------------------------------------------------------

    def conflicts(self, **kwargs):
        """Every conflicting near-twin pair in the store (see `conflicts.scan_conflicts`)."""
        from memhtml_desktop.write.conflicts import scan_conflicts

        return scan_conflicts(self.store, **kwargs)

    def history(self, path: str):
        """The supersession chain around one memory (see `history.supersession_chain`)."""
        from memhtml_desktop.write.context import clean_path
        from memhtml_desktop.write.history import supersession_chain

        return supersession_chain(self.store, clean_path(path))

    # -- undo ----------------------------------------------------------------------------------

    def undo_status(self) -> tuple[bool, str]:
        """Whether `undo()` would run now, and what it would undo or why it cannot."""
        last = journal_mod.read_last(self.directory)
        if not last:
            return False, "nothing to undo: this app has made no change to this store since its last undo"
        try:
            check_repository(self.git)
            head = self.git.head()
            dirty = self.git.dirty_tracked()
        except (WriteError, GitError) as exc:
            return False, str(exc)
        if head != last["sha"] and self.git.run("cat-file", "-e", f"{last['sha']}^{{commit}}", check=False).code != 0:
            return False, (f"“{last['subject']}” ({last['sha'][:12]}) is not in this repository: the store was "
                           "re-created or its history rewritten since this app wrote it")  # fmt: skip
        if head != last["sha"]:
            return False, (f"“{last['subject']}” is no longer the newest commit (something was committed after it): "
                           f"revert {last['sha'][:12]} with git yourself if you still want to")  # fmt: skip
        if dirty:
            return False, f"the working tree has uncommitted changes ({', '.join(dirty[:5])}): commit or discard them first"
        return True, f"revert “{last['subject']}” ({last['sha'][:12]})"

    def undo(self) -> Applied:
        """`git revert` this app's last commit; moved state rows move back; the index follows."""

        def work() -> Applied:
            ok, why = self.undo_status()
            if not ok:
                raise Refused(why)
            last = journal_mod.read_last(self.directory) or {}
            wait_for_index_lock(self.git)
            try:
                self.git.run("revert", "--no-edit", "HEAD")
            except GitError as exc:
                self.git.run("revert", "--abort", check=False)
                raise GitFailed(str(exc)) from exc
            sha = self.git.head()
            conn = self.store.reader()
            for src, dst in reversed(last.get("moves", [])):
                try:
                    move_access(conn, dst, src)
                except Exception as exc:  # noqa: BLE001
                    log.warning("state row did not move back from %s to %s: %s", dst, src, exc)
            moves = [(dst, src) for src, dst in last.get("moves", [])]
            notices = self._update_index([p for p in last.get("paths", []) if is_indexable(p)], moves)
            journal_mod.write_last(self.directory, None)
            plan = Plan(op="undo", request=None, subject=self.git.commit_subject())
            return Applied(plan, sha, {"reverted": last["sha"], "commit_sha": sha, "paths": last.get("paths", [])}, notices)

        return self._locked(work)

    # -- recovery ------------------------------------------------------------------------------

    def recover(self) -> str | None:
        """Finish or roll back a write a crash interrupted; returns what was done, or None."""
        try:
            with self.lock:
                return self._recover_locked()
        except LockTimeout as exc:
            raise Refused(str(exc)) from exc

    def _recover_locked(self) -> str | None:
        if not self.journal.pending:
            return None
        state = self.journal.load()
        if state is None:
            self.journal.clear()
            return None
        head = self.git.head()
        landed = state.commit is not None and head == state.commit
        if not landed and head is not None and head != state.base_head:
            landed = self.git.parent(head) == state.base_head and self.git.commit_subject(head) == state.subject
        if landed:
            self._update_index([p for p in state.paths if is_indexable(p)], [tuple(m) for m in state.moves])
            journal_mod.write_last(self.directory, {"sha": head, "subject": state.subject, "paths": state.paths,
                                                    "moves": state.moves})  # fmt: skip
            self.journal.clear()
            log.warning("an interrupted write had committed (%s); the index was brought up to date", head)
            return f"finished an interrupted write: {state.subject} ({head[:12]})"
        if head == state.base_head:
            rollback(self.root, self.git, self.store.reader(), self.journal, state)
            log.warning("an interrupted write was rolled back: %s", state.subject)
            return f"rolled back an interrupted write: {state.subject}"
        self.journal.clear()
        log.warning("an interrupted write's journal was dropped: the repository has moved on since")
        return "an interrupted write could not be rolled back (the repository moved on since); check `git status`"
