"""Carrying out a plan: files, git, state rows, one commit; or, on any failure, none of it.

Order (memhtml's, write-paths §1.3–§1.4): write and stage each file (`git mv` for a move), let the
moved memory's `state.access` row follow it, commit, then bring the index current for the touched
paths. Everything before the commit is journalled (`journal.py`) and undone on failure: files get
their recorded bytes and modes back, git's index entries for our paths go back to HEAD (nothing
else was staged: preflight refused that), state rows move back, directories we created go.
memhtml has no rollback for single writes (G-43, G-44) and leaves the file written and staged.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from memhtml_desktop.atomic import write_atomically
from memhtml_desktop.index import curation
from memhtml_desktop.index.state import StateError, move_access
from memhtml_desktop.write.errors import Conflict, GitFailed
from memhtml_desktop.write.git import Git, GitError
from memhtml_desktop.write.journal import Entry, Journal, JournalState
from memhtml_desktop.write.plan import Plan

log = logging.getLogger(__name__)


def _write_file(full: Path, data: bytes, mode: int | None) -> None:
    """Replace `full` with `data` atomically (`atomic.write_atomically`: an existing file keeps its
    mode, a new one gets the umask's); `mode`, when given, is set after (a moved file keeps its own)."""
    write_atomically(full, data)
    if mode is not None and stat.S_IMODE(os.stat(full).st_mode) != mode:
        os.chmod(full, mode)


def _mkdirs(root: Path, path: str, created: list[str]) -> None:
    missing = []
    parent = (root / path).parent
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    for directory in reversed(missing):
        directory.mkdir()
        created.append(directory.relative_to(root).as_posix())


class Executor:
    def __init__(self, root: Path, git: Git, conn, journal: Journal) -> None:
        self.root = root
        self.git = git
        self.conn = conn
        self.journal = journal

    def run(self, plan: Plan, base_head: str | None) -> str:
        """Write, stage, move rows and commit; returns the commit sha. All or nothing."""
        paths = list(plan.paths)
        state = JournalState(
            base_head=base_head,
            subject=plan.subject,
            entries=[Entry(p, (self.root / p).exists()) for p in paths],
            paths=paths,
            moves=[[c.source, c.path] for c in plan.changes if c.action == "move"],
        )
        self.journal.begin(self.root, state)
        try:
            self._stage(plan, state)
            self._move_rows(plan, state)
            staged = set(self.git.staged())
            foreign = sorted(staged - set(paths))
            if foreign:
                raise Conflict(f"someone staged {', '.join(foreign[:10])} while this change was being written; nothing was committed")
            sha = self._commit(plan)
        except BaseException as exc:
            try:
                rollback(self.root, self.git, self.conn, self.journal, state)
            except Exception:  # noqa: BLE001 - report the original failure; the journal stays for recovery
                log.exception("rollback after a failed write did not complete; the journal is kept")
                raise exc
            raise
        state.commit = sha
        self.journal.save(state)
        return sha

    def _stage(self, plan: Plan, state: JournalState) -> None:
        """Write every file, then stage them all with ONE `git add -A` (one rewrite of git's index).

        A move is the new bytes written at the target and the source removed; git records it as
        the rename memhtml's `git mv` + `git add` produce (the commit is the same tree), at a third
        of the cost on a large repository, where each index rewrite takes ~0.1 s.
        """
        modes = {e.path: e.mode for e in state.entries}
        for change in plan.changes:
            full = self.root / change.path
            if change.action == "delete":
                full.unlink()
                continue
            _mkdirs(self.root, change.path, state.created_dirs)
            self.journal.save(state)
            source_mode = modes.get(change.source) if change.action == "move" else None
            _write_file(full, change.after, source_mode if change.action == "move" else modes.get(change.path))
            if change.action == "move":
                (self.root / change.source).unlink()
        self.git.run("add", "-A", "--", *plan.paths)

    def _move_rows(self, plan: Plan, state: JournalState) -> None:
        for src, dst in plan.state_moves:
            try:
                if move_access(self.conn, src, dst):
                    state.state_moves_done.append([src, dst])
                    self.journal.save(state)
            except (StateError, Exception) as exc:  # noqa: BLE001 - memhtml only logs this too
                log.warning("state.access row for %s did not follow to %s: %s", src, dst, exc)

    def _commit(self, plan: Plan) -> str:
        args = ["commit", "-q", "-m", plan.subject]
        for key, value in plan.trailers:
            args += ["--trailer", f"{key}: {value}"]
        try:
            self.git.run(*args)
        except GitError as exc:
            raise GitFailed(str(exc)) from exc
        head = self.git.head()
        if head is None:  # pragma: no cover - git said it committed
            raise GitFailed("git commit reported success but HEAD has no commit")
        return head


def rollback(root: Path, git: Git, conn, journal: Journal, state: JournalState) -> None:
    """Put every journalled path, git index entry, state row and directory back as it was."""
    for src, dst in reversed(state.state_moves_done):
        try:
            move_access(conn, dst, src)
        except Exception as exc:  # noqa: BLE001
            log.warning("state row did not move back from %s to %s: %s", dst, src, exc)
    paths = [e.path for e in state.entries]
    if paths:
        if state.base_head is not None:
            git.run("reset", "-q", state.base_head, "--", *paths, check=False)
        else:
            git.run("rm", "--cached", "-q", "--ignore-unmatch", "--", *paths, check=False)
    for entry in state.entries:
        full = root / entry.path
        saved = journal.saved_bytes(entry)
        if saved is None:
            if full.exists() or full.is_symlink():
                full.unlink()
            continue
        current = full.read_bytes() if full.exists() else None
        if current != saved or (entry.mode is not None and (os.stat(full).st_mode & 0o7777) != entry.mode):
            full.parent.mkdir(parents=True, exist_ok=True)
            _write_file(full, saved, entry.mode)
    for directory in sorted(state.created_dirs, key=lambda d: d.count("/"), reverse=True):
        try:
            (root / directory).rmdir()
        except OSError:
            pass
    journal.clear()


def prune_rows(conn, paths: tuple[str, ...]) -> list[str]:
    try:
        return curation.delete_access_rows(conn, list(paths))
    except Exception as exc:  # noqa: BLE001 - a busy plane: the rows stay for the next doctor run
        log.warning("orphan access rows were not pruned: %s", exc)
        return []

