"""The write core's front door: plan a change, apply it, undo and redo its own, recover a crash.

`Curator(store)` is what the CLI and the window call. Every command has a request record
(`requests.py`); `plan(request)` validates it against the store as it is and returns the `Plan`
(files, moves, commit subject, result) without touching anything; `apply(plan)` takes the write
lock, re-plans the same request with the clock at that moment, refuses if the store moved under
the preview, and carries it out (`executor.py`). `run(request)` is plan + apply in one step.

Also here: `undo()` reverts one of this app's own recent changes (the newest, or one chosen from
`undo_choices()`; while none of its paths changed since, and they are clean) and `undo(redo=True)`
gives an undone one back (own_commits.py keeps the list), `recover()` finishes or rolls back a write a crash interrupted, in any process
(the journal is in the store's git directory), and state rows that could not follow a move are
retried on every write and every recovery.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from memhtml_desktop.domain.changes import StoreChange
from memhtml_desktop.domain.paths import is_indexable
from memhtml_desktop.index.curation import follow_move, state_mode
from memhtml_desktop.write import dismissals, own_commits
from memhtml_desktop.write import journal as journal_mod

# The rest of the door (front ends import these from here, never from the modules behind it:
# an import contract in pyproject.toml holds ui/ and cli/ to it).
from memhtml_desktop.write.batch import (
    ApplyRequest,
    BatchOp,  # noqa: E402,F401
    plan_apply,
)
from memhtml_desktop.write.committer import (
    Committed,  # noqa: E402,F401
    Committer,
)
from memhtml_desktop.write.context import PlanContext
from memhtml_desktop.write.dismissals import DismissRequest  # noqa: E402,F401
from memhtml_desktop.write.errors import GitFailed, Refused, Stale, WriteError
from memhtml_desktop.write.executor import (
    Landed,
    RollbackIncomplete,
    finish_index,
    land_plan,
    plan_paths,
    prune_rows,
    remove_own_index_lock,
    rollback,
)
from memhtml_desktop.write.git import (
    Git,  # noqa: E402,F401
    GitError,
)
from memhtml_desktop.write.journal import Journal, LockTimeout, PendingMoves, cheap_git_dir
from memhtml_desktop.write.leftovers import remove_stale_temp_files, survey  # noqa: E402,F401
from memhtml_desktop.write.plan import Plan
from memhtml_desktop.write.planner_edit import plan_archive, plan_correct, plan_link, plan_supersede, plan_task_status
from memhtml_desktop.write.planner_new import plan_write
from memhtml_desktop.write.planner_repair import plan_doctor_fix, plan_state_export
from memhtml_desktop.write.preflight import (
    check_paths,
    check_repository,  # noqa: E402,F401
    wait_for_index_lock,
)
from memhtml_desktop.write.prose import split_prose  # noqa: E402,F401
from memhtml_desktop.write.requests import (
    ArchiveRequest,
    CorrectRequest,
    DoctorFixRequest,
    LinkRequest,
    RevertRequest,
    StateExportRequest,
    SupersedeRequest,
    TaskStatusRequest,
    WriteRequest,
)
from memhtml_desktop.write.template import js_number_text  # noqa: E402,F401
from memhtml_desktop.write.text_rules import text_problem  # noqa: E402,F401
from memhtml_desktop.write.undo import plan_revert, undo_plan

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import CuratorStore

log = logging.getLogger(__name__)


def _now_iso() -> str:
    import datetime as _dt

    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _instant(text: str | None):
    """A plan's `now` (`2026-12-01T11:02:31Z`) as the aware datetime a PlanContext takes; None if absent."""
    import datetime as _dt

    return _dt.datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def _moves(plan: Plan) -> list[tuple[str, str]]:
    """(old path, new path) of each file `plan` moves."""
    return [(c.source, c.path) for c in plan.changes if c.action == "move"]


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
    RevertRequest: plan_revert,
    dismissals.DismissRequest: dismissals.plan_dismiss,
}


@dataclass
class Applied:
    """A finished write: the plan carried out, its commit (None: nothing to write), the result."""

    plan: Plan
    commit_sha: str | None
    result: dict[str, Any]
    notices: list[str] = field(default_factory=list)
    change: StoreChange | None = None
    """What the write changed, from the paths its commits carried (None: it committed nothing):
    what the window announces to its panes, as Anki's operations return their `OpChanges`."""


def pending_sentence(moves: list[dict[str, Any]]) -> str:
    first = moves[0]
    more = f" (and {len(moves) - 1} more)" if len(moves) > 1 else ""
    return (f"the access row of {first['src']} could not follow it to {first['dst']}{more}: {first['reason']}. "
            "It is recorded and moves on the next write or when the store is opened again; "
            "`doctor --fix` will not prune it")  # fmt: skip


class Curator(Committer):
    """The write core for one open Store. Share it between threads; its writes take turns.

    `refresh_index`: bring the whole index in step with the tree before each plan (the duplicate
    check and the link checks read it). The CLI does this once per command; the window keeps the
    index current with its watcher and leaves it off (a full pass costs ~0.7 s at 20,000 files).

    `checkpoint`: called with a step's name between the executor's steps (tests inject another
    writer there); None in the app.
    """

    def __init__(self, store: CuratorStore, *, lock_wait_s: float = journal_mod.LOCK_WAIT_S,
                 git_lock_wait_s: float | None = None,
                 refresh_index: bool = False) -> None:  # fmt: skip
        super().__init__(store.root, lock_wait_s=lock_wait_s, git_lock_wait_s=git_lock_wait_s)
        self.store = store
        self.refresh_index = refresh_index

    # -- the git directory (journals, pending row moves) ---------------------------------------

    def git_dir(self) -> Path | None:
        try:
            return self.git.git_dir()
        except GitError:
            return None

    def interrupted(self) -> list[Journal]:
        """Journals of writes whose process is gone (each held while returned: release or finish)."""
        git_dir = self.git_dir()
        return Journal.orphans(git_dir) if git_dir is not None else []

    def pending_moves(self) -> list[dict[str, Any]]:
        git_dir = self.git_dir()
        return PendingMoves(git_dir).load() if git_dir is not None else []

    # -- planning ------------------------------------------------------------------------------

    def context(self, now=None) -> PlanContext:
        return PlanContext(self.root, self.store.reader(), now or self.store.clock())

    def plan(self, request: Any) -> Plan:
        """What `request` would do, validated; nothing on disk, in git or in state.db changes.

        The repository is checked too (a git work tree on a branch, no merge under way, an
        identity, nothing staged on the paths it writes), so a preview already says when the
        write cannot happen. (A write a crash interrupted earlier is recovered first, under the lock.)
        """
        self.recover()
        if type(request) not in PLANNERS:
            raise TypeError(f"not a write request: {type(request).__name__}")
        try:
            plan, base = self._checked_plan(request)
            if plan.op in dismissals.OPS:  # a commit on the app's own ref: no store path to check
                return plan
            check_paths(self.git, self.root, *plan_paths(plan))  # what the commit checks; not again unless HEAD moves
            self.git.hooks_dir(cached=True)  # asked here, remembered while git's config files stay as they are
            self.git.config_bool("commit.gpgsign", cached=True)
            return replace(plan, checked_on=(base,))
        except GitError as exc:
            raise GitFailed(str(exc)) from exc

    # -- writing -------------------------------------------------------------------------------

    def run(self, request: Any, *, planned: Plan | None = None) -> Applied:
        """Plan and apply in one step (what the CLI does); `planned`, this request's plan made a
        moment ago, is carried out as it is when nothing it rests on moved (else planned again)."""

        def work() -> Applied:
            if isinstance(request, dismissals.DismissRequest):
                return self._dismiss(self._checked_plan(request)[0])
            if planned is not None and self._unmoved(planned):
                return self._execute((planned, planned.checked_on[0]))
            return self._execute(self._checked_plan(request))

        return self._locked(work)

    def _dismiss(self, plan: Plan) -> Applied:
        """A dismissal (or a restore) of a conflicting pair: one commit on the app's own ref, never on
        the branch (write/dismissals.py); it changes no memory, so it announces no StoreChange."""
        if plan.noop:
            return Applied(plan, None, dict(plan.result))
        sha = dismissals.land_dismiss(self.git, plan)
        return Applied(plan, sha, {**plan.result, "commit_sha": sha})

    def _unmoved(self, plan: Plan) -> bool:
        """The previewed plan still stands: made on the HEAD the branch is at now, with git's index
        free (the executor re-checks each file's bytes as it writes)."""
        if plan.checked_on is None or self.git.head() != plan.checked_on[0]:
            return False
        wait_for_index_lock(self.git)
        return True

    def apply(self, plan: Plan) -> Applied:
        """Carry out a previewed plan: as it is when the store did not move since the preview, else
        re-planned now; Conflict when the store moved in a way that changes it."""

        def work() -> Applied:
            if plan.op in dismissals.OPS:
                return self._dismiss(plan)  # refused as stale when the ref moved since the preview
            if self._unmoved(plan):
                return self._execute((plan, plan.checked_on[0]))
            # at the preview's instant: the stamps committed are the ones the preview showed
            fresh, base = self._checked_plan(plan.request, now=_instant(plan.now))
            if fresh.shape() != plan.shape():
                raise Stale("the store changed since this change was previewed (a file was edited or "
                               "written meanwhile); nothing was written: review it again")  # fmt: skip
            return self._execute((fresh, base))

        return self._locked(work)

    def _settle(self) -> str | None:
        """A write a crash interrupted is finished or rolled back first (this door has the index)."""
        return self._recover_locked()

    def _checked_plan(self, request: Any, now=None) -> tuple[Plan, str | None]:
        base = self._preflight()
        if self.refresh_index:
            self.store.index()
        planner = PLANNERS[type(request)]
        return planner(self.context(now), request), base

    def _execute(self, planned: tuple[Plan, str | None]) -> Applied:
        plan, base = planned
        notices: list[str] = []
        if plan.noop:
            notices += self._follow_rows(plan.state_follows)
            pruned = prune_rows(self.store.reader(), plan.state_deletes) if plan.state_deletes else []
            return Applied(plan, None, self._result(plan, None, pruned), notices)
        sha, notices, paths = self._commit(plan, base)
        notices += self._follow_rows(plan.state_follows)
        pruned = prune_rows(self.store.reader(), plan.state_deletes) if plan.state_deletes else []
        result = self._result(plan, sha, pruned)
        moves = _moves(plan)
        if plan.followup is not None:
            try:
                follow_sha, more, also = self._commit(plan.followup, sha)
                notices += more
                paths += also
                moves += _moves(plan.followup)
            except (WriteError, GitError, OSError) as exc:
                # memhtml logs a failed consolidation and only drops superseded_path; same here.
                notices.append(f"the batch is committed, but its consolidation was not: {exc}")
                for item in result.get("results", []):
                    item["superseded_path"] = None
        return Applied(plan, sha, result, notices, StoreChange.of_commit(paths, moves))

    def _commit(
        self, plan: Plan, base: str | None, *, remember: bool | dict = True
    ) -> tuple[str, list[str], list[str]]:
        """Check the paths, write, commit, reindex, remember the commit for undo; (its sha, what
        to tell, the store paths the commit carried)."""
        landed = land_plan(self.git, self.root, plan, base, conn=self.store.reader(), checkpoint=self.checkpoint,
                           state_file=self.store.state_path)  # fmt: skip
        return landed.sha, self._landed(plan.subject, landed, _moves(plan), remember,
                                        plan.projections, rows=plan.state_moves), list(landed.paths)  # fmt: skip

    def _landed(
        self,
        subject: str,
        landed: Landed,
        moves: list[tuple[str, str]],
        remember: bool | dict,
        projections: dict[str, Any] | None = None,
        rows=(),
    ) -> list[str]:
        """After the branch moved: pending rows recorded, index brought current, undo remembered,
        the journal dropped (a crash before this point is finished by recovery)."""
        notices = list(landed.notices)
        if landed.pending:
            PendingMoves(landed.journal.directory.parents[2]).add([{**m, "commit": landed.sha} for m in landed.pending])
            notices.append(pending_sentence(landed.pending))
        notices += self._update_index([p for p in landed.paths if is_indexable(p)], moves, projections)
        record = {"sha": landed.sha, "subject": subject, "paths": list(landed.paths), "moves": [list(m) for m in moves]}
        if rows:  # the state rows it moved (a correction's reads may follow the new version, not a file move)
            record["rows"] = [list(m) for m in rows]
        git_dir = landed.journal.directory.parents[2]
        if remember is True:
            journal_mod.write_last(git_dir, record, legacy=self.directory)
        try:
            own_commits.append(
                git_dir, {**record, "when": _now_iso(), **(remember if isinstance(remember, dict) else {"op": "write"})}
            )
        except OSError as exc:  # the commit stands; only the Undo list misses it
            notices.append(f"the commit is not in this app's Undo list ({exc})")
        landed.journal.finish()
        return notices

    def _result(self, plan: Plan, sha: str | None, pruned: list[str]) -> dict[str, Any]:
        result = dict(plan.result)
        if "repaired" in result:
            result["repaired"] = {**result["repaired"], "commit_sha": sha, "pruned_access_rows": len(pruned)}
        elif "commit_sha" in result:
            result["commit_sha"] = sha
        pending = [m for m in self.pending_moves() if m.get("commit") == sha] if sha else []
        if pending:
            result["state_pending"] = [{"src": m["src"], "dst": m["dst"], "reason": m["reason"]} for m in pending]
        return result

    def _update_index(
        self, paths: list[str], moves: list[tuple[str, str]], projections: dict[str, Any] | None = None
    ) -> list[str]:
        if not paths:
            return []
        try:
            self.store.update_paths(paths, moves, projections=projections)
        except Exception as exc:  # noqa: BLE001 - the commit stands; the index is a cache
            log.warning("the index was not brought up to date after the write: %s", exc)
            return [f"the write is committed, but the index was not updated ({exc}); run `memhtml-desktop index`"]
        return []

    # -- state rows ------------------------------------------------------------------------------

    def _follow_rows(self, moves) -> list[str]:
        """Rows whose memory moved outside this app (doctor's finds) follow it now, or are recorded."""
        pending = []
        for src, dst in moves:
            outcome = follow_move(self.store.reader(), src, dst)
            if outcome.status == "pending":
                pending.append({"src": src, "dst": dst, "reason": outcome.reason, "commit": None})
        git_dir = self.git_dir()
        if pending and git_dir is not None:
            PendingMoves(git_dir).add(pending)
            return [pending_sentence(pending)]
        return []

    def retry_pending_moves(self) -> list[str]:
        """Move the rows that could not follow their memory earlier, if the plane can be written now."""
        git_dir = self.git_dir()
        if git_dir is None or not PendingMoves(git_dir).load():
            return []
        conn = self.store.reader()
        if state_mode(conn) != "rw":
            return []
        done: list[dict[str, Any]] = []

        def edit(current: list[dict[str, Any]]) -> list[dict[str, Any]]:
            keep = []
            for move in current:
                outcome = follow_move(conn, move["src"], move["dst"])
                if outcome.status == "pending":
                    keep.append({**move, "reason": outcome.reason})
                elif outcome.status == "moved":
                    done.append(move)
            return keep

        try:
            PendingMoves(git_dir).change(edit)
        except OSError as exc:
            log.warning("pending state-row moves could not be retried: %s", exc)
            return []
        return [f"the access row of {m['src']} has now followed it to {m['dst']}" for m in done]

    # -- reading for the curation views -------------------------------------------------------

    def conflicts(self, **kwargs):
        """Every conflicting near-twin pair in the store (see `conflicts.scan_conflicts`)."""
        from memhtml_desktop.write.conflicts import scan_conflicts

        return scan_conflicts(self.store, **kwargs)

    def graph(self, path: str):
        """The graph around one memory: its links, entities, the memories linking to it, its reads
        (`graph.memory_graph`): what a correction or a supersession would lose."""
        from memhtml_desktop.write.graph import memory_graph

        return memory_graph(self.store, path)

    def keeping_graph(self, request: Any) -> Any:
        """`request` (a CorrectRequest or a SupersedeRequest) made to keep the memory's place in the
        graph with everything carried (the CLI's `--keep-graph`; write/graph.py)."""
        from memhtml_desktop.write.graph import keeping_correct, keeping_supersede

        if isinstance(request, CorrectRequest):
            return keeping_correct(self.store, request)
        if isinstance(request, SupersedeRequest):
            return keeping_supersede(self.store, request)
        raise TypeError(f"nothing to keep for {type(request).__name__}")

    def history(self, path: str):
        """The supersession chain around one memory (see `history.supersession_chain`)."""
        from memhtml_desktop.write.context import clean_path
        from memhtml_desktop.write.history import supersession_chain

        return supersession_chain(self.store, clean_path(path))

    # -- undo and redo --------------------------------------------------------------------------
    # `remember` (in `_commit`) is True for a write, or the record's undo/redo fields: the app's
    # own commits log (own_commits.py) lists both, `last.json` only writes (earlier versions).

    def own_changes(self, limit: int = 20) -> list[own_commits.OwnChange]:
        """The app's own changes in this store, newest first: each write with its undos and redos."""
        git_dir = self.git_dir()
        legacy = journal_mod.read_last(git_dir, legacy=self.directory)
        return own_commits.changes(own_commits.load(git_dir), legacy)[:limit]

    def undo_choices(self, limit: int = 20) -> list[tuple[own_commits.OwnChange, str | None]]:
        """The app's own changes, newest first, each with why Undo (or Redo) is refused now (None:
        it would run). Nothing is touched: each is planned, as a preview would be."""
        out = []
        for change in self.own_changes(limit):
            try:
                self._undo_plan(change)
                out.append((change, None))
            except (WriteError, GitError) as exc:
                out.append((change, str(exc)))
        return out

    def plan_undo(self, sha: str | None = None, *, redo: bool = False) -> Plan:
        """What undoing (or redoing) a change would commit, nothing touched: the newest change Undo
        (Redo) applies to, or the one named by `sha`. Refused with the reason when it cannot run."""
        self.recover()
        return self._undo_plan(self._own_change(sha, redo))

    def _own_change(self, sha: str | None, redo: bool) -> own_commits.OwnChange:
        action = "redo" if redo else "undo"
        change = own_commits.find(self.own_changes(own_commits.KEEP), sha, action)
        if change is None:
            if sha is not None:
                raise Refused(f"{sha} is not one of this app's own recent changes to this store: nothing to {action}")
            if redo:
                raise Refused("nothing to redo: no change of this app's to this store is undone")
            raise Refused("nothing to undo: this app has made no change to this store since its last undo")
        if change.action != action:
            state = "undone already (Redo gives it back)" if change.undone else "not undone (Undo reverts it)"
            raise Refused(f"“{change.subject}” ({change.sha[:12]}) is {state}: nothing to {action}")
        return change

    def _undo_plan(self, change: own_commits.OwnChange) -> Plan:
        """Revert the change's newest commit: the write (Undo), or the undo (Redo)."""
        latest = change.latest
        plan, base = undo_plan(self.git, self.root, {**latest, "subject": change.subject})
        if change.undone:
            subject, op = f'Reapply "{change.subject}"', "redo"
        else:
            subject, op = f'Revert "{change.subject}"', "undo"
        result = {
            "reverted": latest["sha"],
            "change": change.sha,
            "action": op,
            "commit_sha": None,
            "paths": list(change.paths),
        }
        return replace(plan, op=op, subject=subject, result=result, checked_on=(base,))

    def undo_status(self) -> tuple[bool, str]:
        """Whether `undo()` would run now, and what it would undo or why it cannot."""
        try:
            change = self._own_change(None, False)
            self._undo_plan(change)
        except (WriteError, GitError) as exc:
            return False, str(exc)
        return True, f"revert “{change.subject}” ({change.latest['sha'][:12]})"

    def undo(self, sha: str | None = None, *, redo: bool = False, expect: Plan | None = None) -> Applied:
        """Undo (or redo) one of this app's own changes with a commit of its own: the newest one
        Undo (Redo) applies to, or the one named by `sha`. The same pipeline as every write (only
        its paths, each step checked, all or nothing); moved state rows move back. With `expect`
        (the plan a preview showed), Stale when the revert would no longer be that plan."""

        def work() -> Applied:
            wait_for_index_lock(self.git)
            change = self._own_change(sha, redo)
            plan = self._undo_plan(change)
            if expect is not None and plan.shape() != expect.shape():
                raise Stale("the store changed since this undo was previewed; nothing was written: review it again")
            base = plan.checked_on[0] if plan.checked_on else None
            git_dir = self.git.git_dir()
            if not any(r.get("sha") == change.sha for r in own_commits.load(git_dir)):
                # an earlier version's last commit (last.json): logged, so its undo has a change to belong to
                own_commits.append(git_dir, {**change.latest, "op": "write", "when": change.when or _now_iso()})
            record = {"op": plan.op, "of": change.sha, "reverts": plan.result["reverted"]}
            sha_, notices, paths = self._commit(plan, base, remember=record)
            last = journal_mod.read_last(git_dir, legacy=self.directory)
            if last and last.get("sha") == change.sha and plan.op == "undo":
                journal_mod.write_last(git_dir, None, legacy=self.directory)  # what earlier versions would offer
            result = {**plan.result, "commit_sha": sha_}
            return Applied(plan, sha_, result, notices, StoreChange.of_commit(paths, _moves(plan)))

        return self._locked(work)

    # -- recovery ------------------------------------------------------------------------------

    def recover(self) -> str | None:
        """Finish or roll back writes a crash interrupted (in any process, from any cache
        directory), and move state rows that could not follow their memory; returns what was done."""
        if not self.interrupted_quick() and not self.pending_moves():
            return None
        try:
            with self.lock:
                return self._recover_locked()
        except LockTimeout as exc:
            raise Refused(str(exc)) from exc

    def interrupted_quick(self) -> bool:
        git_dir = self.git_dir()
        if git_dir is None:
            return False
        try:
            return bool(os.listdir(git_dir / journal_mod.JOURNALS))
        except OSError:
            return False

    def _recover_locked(self) -> str | None:
        said = [self._recover_one(journal) for journal in self.interrupted()]
        said += self.retry_pending_moves()
        return "; ".join(s for s in said if s) or None

    def _recover_one(self, journal: Journal) -> str:
        header = journal.header()
        subject = header.get("subject", "")
        sha, branch = header.get("commit"), header.get("branch") or "HEAD"
        moves = [tuple(m) for m in header.get("moves", [])]
        if sha and self.git.is_ancestor(sha, branch):
            remove_own_index_lock(journal.directory.parents[2], header)
            try:
                left = finish_index(self.git, journal, sha, header.get("parent"))
            except GitError as exc:
                journal.release()
                return (f"an interrupted write was committed ({sha[:12]}), but git's index could not follow it yet "
                        f"({exc}); `git status` shows its paths as changed until it does")  # fmt: skip
            landed = Landed(sha, header.get("parent"), journal, [], header.get("pending_rows", []),
                            list(dict.fromkeys([*header.get("paths", []), *[p for m in moves for p in m]])))  # fmt: skip
            notices = self._landed(subject, landed, moves, True)
            log.warning("an interrupted write had committed (%s); it was finished", sha)
            extra = [f"{p} was staged differently by someone else; git's index keeps their version" for p in left]
            return f"finished an interrupted write: {subject} ({sha[:12]})" + _also(extra + notices)
        try:
            done = rollback(self.root, self.git, self.store.reader(), journal)
        except RollbackIncomplete as exc:
            journal.release()
            return f"an interrupted write ({subject}) could not be rolled back completely: {exc}"
        paths = header.get("paths", [])
        self._update_index([p for p in paths if is_indexable(p)], [(dst, src) for src, dst in moves])
        said = rolled_back_sentence(subject, done)
        log.warning("%s", said)
        return said


def _also(notes: list[str]) -> str:
    return f" ({'; '.join(notes)})" if notes else ""


def rolled_back_sentence(subject: str, done) -> str:
    """What a recovery that found an uncommitted write did, in words that match what happened
    (`done`: rollback.RolledBack). "rolled back" only when something was: after an agent's `git add
    -A && git commit` of the half-written files, every file stays as that commit holds it, and
    saying "rolled back" about a store still holding all of them misled (issue 40)."""
    from memhtml_desktop.domain.plural import counted, noun_for

    notes = list(done.left)
    if done.committed or done.temps:
        sha, title = done.commits[0] if done.commits else ("", "")
        where = f", in {sha[:12]} “{title}”" if sha else ""
        if len(done.commits) > 1:
            where += f" and {counted(len(done.commits) - 1, 'earlier commit')}"
        parts = [f"{counted(len(done.committed), 'file')} of it"] if done.committed else []
        if done.temps:
            parts.append(f"{len(done.temps):,} of its {noun_for(len(done.temps), 'temp file')}")
        total = len(done.committed) + len(done.temps)
        notes.insert(0, f"another writer committed {' and '.join(parts)} since{where}, and "
                        f"{noun_for(total, 'it stays', 'they stay')} as committed")  # fmt: skip
        if done.temps:
            shown = " ".join(done.temps[:3]) + (" …" if len(done.temps) > 3 else "")
            notes.append(f"remove the {noun_for(len(done.temps), 'temp file')} with `git rm {shown}`")
        if not done.undone:
            return f"an interrupted write ({subject}) had not committed: {'; '.join(notes)}; nothing was rolled back"
        undone = f"{done.undone:,} of its {noun_for(done.undone, 'change')} undone"
        return f"rolled back part of an interrupted write: {subject} ({undone}; {'; '.join(notes)})"
    if not done.undone and not notes:
        return f"an interrupted write ({subject}) had changed nothing yet: there was nothing to roll back"
    return f"rolled back an interrupted write: {subject}" + _also(notes)


def recover_interrupted(store: CuratorStore) -> None:
    """Before a read: a write a crash interrupted is finished or rolled back (a notice says which),
    so the read does not answer from a half-written store. A journal whose writer is still running
    is left to it. Costs a directory listing when there is nothing to do."""
    git_dir = cheap_git_dir(Path(store.root))
    if git_dir is None:
        return
    orphans = Journal.orphans(git_dir)
    for journal in orphans:
        journal.release()
    if not orphans and not (git_dir / journal_mod.PENDING_MOVES).exists():
        return
    try:
        said = Curator(store, lock_wait_s=2.0).recover()
    except (WriteError, GitError, OSError) as exc:
        if orphans:
            store.notice(f"a write a crash interrupted is pending in this store and could not be finished now "
                         f"({exc}); until it is, what is read may show it half-written: run "
                         "`memhtml-desktop doctor --fix`")  # fmt: skip
        return
    if said:
        store.notice(said)
