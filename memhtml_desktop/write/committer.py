"""The write core's commit door for one store directory, under every write this app makes.

A `Committer` holds what a commit needs that is not the index: the store's `git`, its write lock
(shared by every writer of this app, across threads and processes, so they take turns) and the
errors every write speaks (`_locked`: a lock not had in time is Refused, a git failure GitFailed,
a journal or storage failure a WriteError). `commit(changes, subject)` is its whole pipeline for
files that are not memories (the workbench's probe sets and configurations): under the lock, an
interrupted write settled first, the repository checked (a work tree on a branch, no merge, an
identity), git's index lock awaited, the changes built from the files as they are now, then the one
commit pipeline (`executor.land_plan`: the paths checked, written, committed through a private
index, rolled back exactly on any failure, another writer's staged or committed work never swept).

`Curator` (curator.py) is a Committer with a Store: its memory writes plan against the index,
bring it current after the commit and can finish an interrupted write; a bare Committer cannot
(a crashed memory write needs the index to finish), so it refuses while one is pending.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from memhtml_desktop.write import journal as journal_mod
from memhtml_desktop.write.errors import GitFailed, Refused, WriteError
from memhtml_desktop.write.executor import land_plan
from memhtml_desktop.write.git import Git, GitError
from memhtml_desktop.write.journal import Journal, JournalError, LockTimeout, WriteLock
from memhtml_desktop.write.plan import FileChange, Plan
from memhtml_desktop.write.preflight import check_repository, wait_for_index_lock

T = TypeVar("T")


@dataclass(frozen=True)
class Committed:
    """A commit `Committer.commit` made: its sha and the store paths it carried, in plan order."""

    sha: str
    paths: tuple[str, ...]


class Committer:
    """Commits for one store directory; share it between threads (its writes take turns).

    `checkpoint`: called with a step's name between the executor's steps (tests inject another
    writer there); None in the app."""

    def __init__(self, root: str | Path, *, lock_wait_s: float = journal_mod.LOCK_WAIT_S,
                 git_lock_wait_s: float | None = None) -> None:  # fmt: skip
        self.root = Path(root)
        self.git = Git(self.root) if git_lock_wait_s is None else Git(self.root, lock_wait_s=git_lock_wait_s)
        self.directory = journal_mod.write_dir(self.root)
        self.lock = WriteLock(self.directory, wait_s=lock_wait_s)
        self.checkpoint: Callable[[str], None] | None = None

    def commit(self, build: Callable[[], Sequence[FileChange]], subject: str, *,
               trailers: tuple[tuple[str, str], ...] = (), op: str = "files") -> Committed:  # fmt: skip
        """Commit the changes `build()` makes from the files as they are under the lock (none:
        Refused "nothing to change"); all or nothing: the commit, its journal finished."""

        def work() -> Committed:
            base = self._preflight()
            changes = tuple(build())
            if not changes:
                raise Refused("nothing to change")
            plan = Plan(op=op, request=None, changes=changes, subject=subject, trailers=trailers)
            landed = land_plan(self.git, self.root, plan, base, checkpoint=self.checkpoint)
            landed.journal.finish()
            return Committed(landed.sha, plan.paths)

        return self._locked(work)

    # -- the pieces every write shares ----------------------------------------------------------

    def _preflight(self) -> str | None:
        """The repository as a write needs it (its HEAD returned), and git's index lock free."""
        base = check_repository(self.git)
        wait_for_index_lock(self.git)
        return base

    def _settle(self) -> str | None:
        """Under the lock, before the work: an interrupted write of this store. A bare Committer
        cannot finish one (the index must follow it), so it refuses until the window or a write
        command has."""
        if _has_orphans(self.git.git_dir()):
            raise Refused("an interrupted write is pending in this store: open it in the window "
                          "(or run any write command) to finish it first")  # fmt: skip
        return None

    def _locked(self, work: Callable[[], T]) -> T:
        """`work()` under the store's write lock, after `_settle`, its failures in the core's words."""
        try:
            with self.lock:
                said = self._settle()
                done = work()
                notices = getattr(done, "notices", None)
                if said and isinstance(notices, list):
                    notices.insert(0, said)
                return done
        except LockTimeout as exc:
            raise Refused(str(exc)) from exc
        except GitError as exc:
            raise GitFailed(str(exc)) from exc
        except JournalError as exc:
            raise WriteError(str(exc.strerror)) from exc
        except OSError as exc:
            raise WriteError(f"storage operation failed: {exc.strerror or exc}") from exc


def _has_orphans(git_dir: Any) -> bool:
    orphans = Journal.orphans(git_dir)
    for journal in orphans:
        journal.release()
    return bool(orphans)
