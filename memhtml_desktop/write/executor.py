"""Carrying out a plan: files, state rows, one commit of this app's own paths; or none of it.

The store is shared with writers that take no lock of this app's: memhtml's CLI and MCP server,
the agent's own `git add && git commit`, a second instance of this app with another cache
directory. So nothing here relies on being alone; each step is guarded against the others:

1. **The working tree**, in memhtml's order (`git mv`, then the new bytes in place): a move is
   a `rename` (refused if the destination exists: no moment shows both paths, so a concurrent
   `memhtml index update` never sees two files with one content), then the new bytes replace the
   moved file (temp file + rename, mode kept); a new file is created only if the path is still
   free; a replaced file is first hard-linked into the journal and checked against the bytes the
   plan read. Each step is journalled before it is done, with the inode it leaves, so a rollback
   undoes exactly this write's own steps and leaves a file someone else changed since alone.
2. **State rows** follow a moved memory before the commit, as memhtml does; one that cannot
   (read-only `.memhtml/`, a locked `state.db`) is reported and kept for retry (`PendingMoves`).
3. **The commit is built from this write's paths alone**, in a private index
   (`GIT_INDEX_FILE=<journal>/index`: `read-tree <parent>`, then `update-index` of our paths), so
   nothing another writer staged is ever swept in. The hooks run as `git commit -m` runs them
   (`pre-commit`, `prepare-commit-msg <file> message`, `commit-msg <file>`, with
   `GIT_INDEX_FILE` and `GIT_EDITOR=:`; `post-commit` once the commit is on the branch), the
   message is `git commit`'s (`--trailer` through `interpret-trailers`, the `whitespace` cleanup),
   `git commit-tree` makes the commit with the user's identity and, when `commit.gpgsign` is on,
   `-S` (commit-tree does not read that setting itself). The sha is commit-tree's answer: this
   app never asks HEAD what it committed.
4. **Landing**: git's `index.lock` is taken (waited for, then refused naming the lock and whether
   its owner is gone), the branch is moved with `git update-ref refs/heads/<b> <new> <old>` (a
   compare-and-swap: it fails if anyone moved the branch), and under the same lock the user's own
   index gets this commit's entries for our paths only (anything else staged stays staged; a path
   someone staged differently meanwhile is left as they staged it). Holding the lock across both
   means no plain `git commit` can run between them and revert our paths from a stale index.
   When the branch moved and the new commits touch none of our paths, the commit is re-parented
   onto the new tip and landed again (hooks are not run again; signing is); when they do touch
   our paths, the write stops and is rolled back.

A failure anywhere before the branch moved rolls back (`rollback`): this write's own steps, in
reverse, each only while the file is still what this write left there; a path another writer
committed since is never touched (a committed file is never deleted); our state rows move back.
The user's index was never touched, so nothing needs a `git reset`. When a step cannot be undone
(the disk refused), the rollback stops, the journal stays, and the error says what is left and how
to finish. memhtml has no rollback for single writes (G-43, G-44) and leaves the file written and staged.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat as _stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from memhtml_desktop.atomic import fsync_dir, sync_filesystem
from memhtml_desktop.html.project import blob_sha_of
from memhtml_desktop.index import curation
from memhtml_desktop.index.curation import RowMove, follow_move
from memhtml_desktop.write.errors import Conflict, GitFailed, Stale, WriteError
from memhtml_desktop.write.git import Entry, Git, GitError, GitLocked
from memhtml_desktop.write.journal import Journal
from memhtml_desktop.write.plan import Plan
from memhtml_desktop.write.rollback import (  # noqa: F401 - RollbackIncomplete and the rest are this module's API too
    SETTLE_S,
    RollbackIncomplete,
    _ino,
    remove_own_index_lock,
    rename_noreplace,
    rollback,
    temp_name,
)
from memhtml_desktop.write.trees import build_tree, dirs_of, hash_blobs, read_trees

log = logging.getLogger(__name__)

ZERO = "0" * 40
#: How many times a commit is re-parented onto a branch that moved under it before giving up.
MOVED_RETRIES = 20
HOOK_ENV = {"GIT_EDITOR": ":"}


class CommitFailed(GitFailed):
    """git refused the commit (a hook, signing, an empty message): nothing landed."""


# -- the working tree, step by step ------------------------------------------------------------------


class Tree:
    """The working-tree half of a write: each step journalled, then done, then checked."""

    def __init__(self, root: Path, journal: Journal, checkpoint: Callable[[str], None]) -> None:
        self.root = root
        self.journal = journal
        self.checkpoint = checkpoint
        self.put_inodes: dict[str, list[int]] = {}
        self.saved_count = 0

    def full(self, path: str) -> Path:
        return self.root / path

    def mkdirs(self, path: str) -> None:
        missing = []
        parent = self.full(path).parent
        while not parent.exists():
            missing.append(parent)
            parent = parent.parent
        for directory in reversed(missing):
            rel = directory.relative_to(self.root).as_posix()
            self.journal.record({"op": "mkdir", "path": rel})
            try:
                directory.mkdir()
            except FileExistsError:
                self.journal.record({"op": "undone"})  # another writer made it meanwhile: not ours to remove

    def save(self, path: str, expected: bytes | None) -> str:
        """Keep `path`'s current file in the journal (a hard link, else a copy) and check it holds
        `expected` (the bytes the plan was made from). Returns the saved name."""
        self.saved_count += 1
        name = str(self.saved_count)
        target = self.journal.saved(name)
        full = self.full(path)
        try:
            os.link(full, target, follow_symlinks=False)
        except FileNotFoundError:
            raise Conflict(
                f"{path} is gone (another writer moved or deleted it meanwhile); nothing was committed"
            ) from None
        except OSError:
            shutil.copy2(full, target, follow_symlinks=False)
            (self.journal.path("saved") / f"{name}.copy").touch()
        if expected is not None and target.read_bytes() != expected:
            raise Stale(f"{path} changed on disk while this change was being written (another writer?); "
                        "nothing was committed")  # fmt: skip
        return name

    def put(self, path: str, data: bytes, *, replace: bool, mode: int | None, expected: bytes | None) -> None:
        """Write `data` at `path` through a temp file; `replace`: the path holds a file now (kept
        in the journal first), else it must still be free."""
        full = self.full(path)
        saved = self.save(path, expected) if replace else None
        temp = self.root / temp_name(path, self.journal.id)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
            st = os.fstat(fd)
        finally:
            os.close(fd)
        ino = [st.st_dev, st.st_ino]
        self.journal.record({"op": "put", "path": path, "saved": saved, "ino": ino, "temp": temp.name,
                             "saved_ino": _ino(self.journal.saved(saved)) if saved else None})  # fmt: skip
        try:
            if replace:
                os.replace(temp, full)
            else:
                try:
                    rename_noreplace(temp, full)
                except FileExistsError:
                    raise Conflict(f"{path} was created by another writer meanwhile; nothing was committed") from None
        except BaseException:
            temp.unlink(missing_ok=True)
            self.journal.record({"op": "undone"})  # the step above did not happen: nothing of it to undo
            raise
        fsync_dir(full.parent)
        self.put_inodes[path] = ino
        self.checkpoint(f"put {path}")

    def rename(self, src: str, dst: str, expected: bytes | None) -> None:
        """`git mv`'s half on disk: `src` becomes `dst` (refused if `dst` exists). The source must
        still hold the bytes the plan read, checked on the very inode that is then moved."""
        ino = self._holds(src, expected)
        self.journal.record({"op": "rename", "src": src, "dst": dst, "ino": ino})
        try:
            rename_noreplace(self.full(src), self.full(dst))
        except BaseException as exc:
            # Not renamed (another writer moved the source, or took the destination): the record
            # above must not lead a rollback to move back a file someone else moved there.
            self.journal.record({"op": "undone"})
            if isinstance(exc, FileNotFoundError):
                raise Conflict(f"{src} is gone (another writer moved or deleted it meanwhile); nothing was "
                               "committed") from None  # fmt: skip
            if isinstance(exc, FileExistsError):
                raise Conflict(f"{dst} was created by another writer meanwhile; nothing was committed") from None
            raise
        moved = _ino(self.full(dst))
        if moved != ino:
            # Another writer replaced the source between our look and our rename: we moved THEIR
            # file. It goes straight back, and this write stops (the source is not what was planned).
            try:
                rename_noreplace(self.full(dst), self.full(src))
                self.journal.record({"op": "undone"})
            except OSError:
                self.journal.record({"op": "rename-ino", "dst": dst, "ino": moved})
            raise Stale(f"{src} was replaced by another writer while this change was being written; "
                        "nothing was committed")  # fmt: skip
        fsync_dir(self.full(dst).parent)
        if self.full(src).parent != self.full(dst).parent:
            fsync_dir(self.full(src).parent)
        self.checkpoint(f"rename {src}")

    def _holds(self, path: str, expected: bytes | None) -> list[int]:
        """`path`'s inode, once its bytes are checked to be `expected` (read through that inode)."""
        try:
            fd = os.open(self.full(path), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            raise Conflict(
                f"{path} is gone (another writer moved or deleted it meanwhile); nothing was committed"
            ) from None
        try:
            st = os.fstat(fd)
            if expected is not None:
                with os.fdopen(os.dup(fd), "rb") as handle:
                    if handle.read() != expected:
                        raise Stale(f"{path} changed on disk while this change was being written (another "
                                    "writer?); nothing was committed")  # fmt: skip
        finally:
            os.close(fd)
        return [st.st_dev, st.st_ino]

    def delete(self, path: str, expected: bytes | None) -> None:
        saved = self.save(path, expected)
        self.journal.record({"op": "delete", "path": path, "saved": saved, "ino": _ino(self.full(path))})
        try:
            os.unlink(self.full(path))
        except BaseException:
            self.journal.record({"op": "undone"})
            raise
        fsync_dir(self.full(path).parent)
        self.checkpoint(f"delete {path}")

    def put_new(self, changes: list) -> None:
        """Many new files at once (apply's batch): each written to its temp file, all announced in
        the journal in one append (one fsync), then renamed into place, then ONE barrier
        (`syncfs`) makes the files and the renames durable before the commit is built. A crash
        before the commit lands is rolled back from those steps (a put whose rename never happened
        finds no file of its inode at its path and leaves it alone)."""
        for change in changes:
            self.mkdirs(change.path)
        steps = []
        for change in changes:
            temp = self.root / temp_name(change.path, self.journal.id)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
            try:
                view = memoryview(change.after)
                while view:
                    view = view[os.write(fd, view) :]
                st = os.fstat(fd)
            finally:
                os.close(fd)
            steps.append({"op": "put", "path": change.path, "saved": None, "ino": [st.st_dev, st.st_ino],
                          "temp": temp.name, "saved_ino": None})  # fmt: skip
        self.journal.record_all(steps)
        for step in steps:
            full = self.full(step["path"])
            try:
                rename_noreplace(full.parent / step["temp"], full)
            except FileExistsError:
                raise Conflict(
                    f"{step['path']} was created by another writer meanwhile; nothing was committed"
                ) from None
            self.put_inodes[step["path"]] = step["ino"]
            self.checkpoint(f"put {step['path']}")
        sync_filesystem(self.root)

    def apply(self, plan: Plan, modes: dict[str, int]) -> None:
        if len(plan.changes) > 1 and all(c.action == "create" for c in plan.changes):
            self.put_new(list(plan.changes))
            return
        for change in plan.changes:
            if change.action == "delete":
                self.delete(change.path, change.before)
                continue
            self.mkdirs(change.path)
            if change.action == "move":
                self.rename(change.source, change.path, change.before)
                if change.after != change.before:
                    self.put(change.path, change.after, replace=True, mode=None, expected=change.before)
                else:
                    self.put_inodes[change.path] = _ino(self.full(change.path))
            elif change.action == "modify":
                self.put(change.path, change.after, replace=True, mode=modes.get(change.path), expected=change.before)
            else:
                self.put(change.path, change.after, replace=False, mode=None, expected=None)

    def verify(self, plan: Plan) -> None:
        """Our files are still ours (their inode, their bytes) and what we removed is still gone:
        checked after the commit's blobs were hashed from them."""
        try:
            self._verify(plan)
        except Conflict:
            time.sleep(SETTLE_S)  # another writer may be putting back a file it moved by mistake
            self._verify(plan)

    def _verify(self, plan: Plan) -> None:
        final = final_bytes(plan)
        for path, data in final.items():
            full = self.full(path)
            if data is None:
                if os.path.lexists(full):
                    raise Conflict(f"{path} was recreated by another writer meanwhile; nothing was committed")
                continue
            if _ino(full) != self.put_inodes.get(path):
                raise Conflict(f"{path} was replaced by another writer meanwhile; nothing was committed")
            with open(full, "rb") as handle:
                if handle.read() != data:
                    raise Conflict(f"{path} was changed by another writer meanwhile; nothing was committed")


def final_bytes(plan: Plan) -> dict[str, bytes | None]:
    """Each path's bytes once the plan is carried out (None: no file there)."""
    out: dict[str, bytes | None] = {}
    for change in plan.changes:
        if change.action == "move":
            out[change.source] = None
        out[change.path] = change.after
    return out


# -- the commit ------------------------------------------------------------------------------------


@dataclass
class Built:
    """A commit made but not yet on the branch."""

    sha: str
    parent: str | None
    tree: str
    message: Path
    entries: dict[str, Entry | None]  # the commit's entry for each path it changes (None: removed)
    old: dict[str, Entry | None]  # the parent's entry for each of them


@dataclass
class Landed:
    """A commit on the branch: its sha (commit-tree's, never HEAD's), its parent, what to tell."""

    sha: str
    parent: str | None
    journal: Journal
    notices: list[str] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)  # state rows that could not move
    paths: list[str] = field(default_factory=list)


def stripspace(text: str) -> str:
    """`git stripspace` (the `whitespace` cleanup `git commit -m` applies), without a process:
    trailing whitespace cut from every line, runs of blank lines made one, none at either end,
    and a final newline."""
    lines: list[str] = []
    blank = False
    for line in text.split("\n"):
        line = line.rstrip(" \t\n\v\f\r")
        if not line:
            blank = bool(lines)
            continue
        if blank:
            lines.append("")
            blank = False
        lines.append(line)
    return "".join(line + "\n" for line in lines)


class Executor:
    def __init__(self, root: Path, git: Git, conn, *, checkpoint: Callable[[str], None] | None = None,
                 state_file: Path | None = None) -> None:  # fmt: skip
        self.root = root
        self.git = git
        self.conn = conn
        self.checkpoint = checkpoint or (lambda name: None)
        self.state_file = state_file

    def run(self, plan: Plan, base_head: str | None) -> Landed:
        """Write, move rows, commit and land; returns the commit. All or nothing (see the docstring)."""
        git_dir = self.git.git_dir()
        branch = self.git.branch()
        if branch is None:
            raise GitFailed("HEAD is detached: check out a branch first (git switch <branch>), then try again")
        journal = Journal.begin(git_dir, {
            "base": base_head, "branch": branch, "subject": plan.subject, "paths": list(plan.paths),
            "moves": [[c.source, c.path] for c in plan.changes if c.action == "move"],
        })  # fmt: skip
        pending: list[dict[str, Any]] = []
        try:
            self.checkpoint("journal")
            modes = self._modes(plan)
            tree = Tree(self.root, journal, self.checkpoint)
            tree.apply(plan, modes)
            pending = self._move_rows(plan, journal)
            self.checkpoint("rows")
            built = self._build(plan, base_head, journal, tree)
            built, notices = self._land(built, branch, journal, plan.paths)
        except BaseException as exc:
            try:
                left = rollback(self.root, self.git, self.conn, journal).left
            except RollbackIncomplete as stuck:
                journal.release()
                raise RollbackIncomplete(f"{exc}; and the rollback could not finish: {stuck}") from exc
            if left and isinstance(exc, WriteError) and exc.args:
                exc.args = (f"{exc.args[0]} ({'; '.join(left)})", *exc.args[1:])  # what was left alone, said
            raise
        self.hook("post-commit", env={"GIT_INDEX_FILE": str(git_dir / "index")})
        return Landed(built.sha, built.parent, journal, notices, pending, list(built.entries))

    # -- pieces ----------------------------------------------------------------------------------

    def _modes(self, plan: Plan) -> dict[str, int]:
        modes = {}
        for change in plan.changes:
            if change.action == "modify":
                try:
                    modes[change.path] = _stat.S_IMODE(os.stat(self.root / change.path).st_mode)
                except OSError:
                    pass
        return modes

    def _move_rows(self, plan: Plan, journal: Journal) -> list[dict[str, Any]]:
        """Each moved memory's `state.access` row follows it, before the commit (memhtml's order)."""
        pending = []
        for src, dst in plan.state_moves:
            journal.record(
                {"op": "row", "src": src, "dst": dst}
            )  # before the move: a crash right after it is undone too
            outcome = follow_move(self.conn, src, dst) if self.conn is not None else RowMove("nothing")
            if outcome.status != "moved":
                journal.record({"op": "undone"})
            if outcome.status == "pending":
                if self.state_file is not None and not self.state_file.exists():
                    continue  # no state plane at all: no row to move
                pending.append({"src": src, "dst": dst, "reason": outcome.reason})
        if pending:
            journal.update(pending_rows=pending)
        return pending

    def hook(self, name: str, *args: str, env: dict[str, str]) -> None:
        """Run hook `name` as `git commit` does (`git hook run`, core.hooksPath honoured); only a
        hook that exists and is executable runs (git skips the others the same way)."""
        if not self._has_hook(name):
            return
        result = self.git.run("hook", "run", "--ignore-missing", name, "--", *args, check=False, retry_lock=False,
                              env={**HOOK_ENV, **env})  # fmt: skip
        if result.code != 0 and name != "post-commit":
            detail = " / ".join(
                line.strip() for line in (result.err + result.out).strip().splitlines()[:3] if line.strip()
            )
            raise CommitFailed(
                f"git commit failed (exit 1): the {name} hook refused" + (f": {detail}" if detail else "")
            )

    def _message(self, plan: Plan, journal: Journal) -> Path:
        text = plan.subject + "\n" + (f"\n{plan.body}\n" if plan.body else "")
        if plan.trailers:
            args = [arg for key, value in plan.trailers for arg in ("--trailer", f"{key}: {value}")]
            text = self.git.run("interpret-trailers", "--no-divider", *args, input_text=text).out
        path = journal.path("COMMIT_EDITMSG")
        path.write_bytes(text.encode("utf-8"))
        return path

    INDEX_HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg")

    def _hooks_dir(self) -> Path | None:
        if not hasattr(self, "_hooks"):
            try:
                self._hooks = self.git.hooks_dir(cached=True)
            except GitError:
                self._hooks = None
        return self._hooks

    def _has_hook(self, name: str) -> bool:
        hooks = self._hooks_dir()
        return hooks is not None and (hooks / name).is_file() and os.access(hooks / name, os.X_OK)

    def _build(self, plan: Plan, parent: str | None, journal: Journal, tree: Tree) -> Built:
        """The commit, made but not landed: from the changed folders alone (`trees.py`) when no
        hook looks at an index, else in a private index the hooks see."""
        try:
            built = None
            if not any(self._has_hook(name) for name in self.INDEX_HOOKS):
                built = self._build_from_trees(plan, parent, journal, tree)
            if built is None:
                built = self._build_in_index(plan, parent, journal, tree)
        except GitError as exc:
            raise CommitFailed(_commit_words(exc)) from exc
        journal.update(commit=built.sha, parent=parent)
        self.checkpoint("commit-tree")
        return built

    def _build_from_trees(self, plan: Plan, parent: str | None, journal: Journal, tree: Tree) -> Built | None:
        final = final_bytes(plan)
        shas = hash_blobs(self.git, final)
        tree.verify(plan)
        sources = {c.path: c.source for c in plan.changes if c.action == "move"}
        base = read_trees(self.git, parent, dirs_of(final))  # every folder build_tree needs, in one read
        if base is None:
            return None

        def mode(path: str) -> str:
            for candidate in (path, sources.get(path)):
                if candidate:
                    entry = base.get(candidate.rpartition("/")[0], {}).get(candidate.rpartition("/")[2])
                    if entry is not None and entry.mode in ("100644", "100755"):
                        return entry.mode
            return "100644"

        changes = {p: (Entry(mode(p), shas[p]) if data is not None else None) for p, data in final.items()}
        made = build_tree(self.git, parent, changes, trees=base)
        if made is None:
            return None
        tree_sha, old = made
        self.checkpoint("index")
        message = self._message(plan, journal)
        self._cleanup(message)
        if parent and all(e == old.get(p) for p, e in changes.items()):  # the parent's tree, unchanged
            raise CommitFailed("git commit failed (exit 1): nothing to commit")
        built = self._commit_tree(tree_sha, parent, message)
        built.entries = {p: e for p, e in changes.items() if e != old.get(p)}
        built.old = {p: old.get(p) for p in built.entries}
        return built

    def _build_in_index(self, plan: Plan, parent: str | None, journal: Journal, tree: Tree) -> Built:
        index = journal.path("index")
        env = {"GIT_INDEX_FILE": str(index)}
        self.git.run("read-tree", parent or "--empty", env=env)
        paths = list(plan.paths)
        self.git.run("update-index", "--add", "--remove", "-z", "--stdin", input_text="\0".join(paths) + "\0", env=env)
        self._exactly_ours(plan, index)
        tree.verify(plan)
        self.checkpoint("index")
        self.hook("pre-commit", env=env)
        message = self._message(plan, journal)
        self.hook("prepare-commit-msg", str(message), "message", env=env)
        self.hook("commit-msg", str(message), env=env)
        self._cleanup(message)
        tree_sha = self.git.run("write-tree", env=env).out.strip()
        old_tree = self.git.tree_of(parent) if parent else None
        if tree_sha == old_tree:
            raise CommitFailed("git commit failed (exit 1): nothing to commit (the hooks left no change)")
        built = self._commit_tree(tree_sha, parent, message)
        built.entries, built.old = self._diff(parent, built.sha)
        return built

    def _cleanup(self, message: Path) -> None:
        """`git commit -m`'s `whitespace` cleanup of the message; an empty one is refused as git does."""
        cleaned = stripspace(message.read_bytes().decode("utf-8", "replace"))
        if not cleaned.strip():
            raise CommitFailed("git commit failed (exit 1): Aborting commit due to empty commit message.")
        message.write_bytes(cleaned.encode("utf-8"))

    def _exactly_ours(self, plan: Plan, index: Path) -> None:
        """The private index must hold this write's bytes, not whatever the working tree held when
        `update-index` read it (another writer may have been moving a file that very moment).
        Checked against the bytes' own blob ids; where they differ (a clean filter or `autocrlf`
        applies, or the tree changed), the entry is made from our bytes with the path's filters."""
        env = {"GIT_INDEX_FILE": str(index)}
        final = final_bytes(plan)
        entries = self.git.index_entries(list(final), index_file=index)
        lines = []
        for path, data in final.items():
            entry = entries.get(path)
            if data is None:
                if entry is not None:
                    lines.append(f"0 {ZERO}\t{path}")
                continue
            if entry is not None and entry.sha == blob_sha_of(data):
                continue
            sha = self.git.run("hash-object", "-w", "--stdin", f"--path={path}", input_bytes=data).out.strip()
            mode = entry.mode if entry is not None else "100644"
            lines.append(f"{mode} {sha}\t{path}")
        if lines:
            self.git.run("update-index", "-z", "--index-info", input_text="\0".join(lines) + "\0", env=env)

    def _commit_tree(self, tree: str, parent: str | None, message: Path) -> Built:
        args = ["commit-tree", tree]
        if parent:
            args += ["-p", parent]
        if self.git.config_bool("commit.gpgsign", cached=True):
            args.append("-S")
        sha = self.git.run(*args, "-F", str(message), retry_lock=False).out.strip()
        return Built(sha, parent, tree, message, {}, {})

    def _diff(self, parent: str | None, sha: str) -> tuple[dict[str, Entry | None], dict[str, Entry | None]]:
        """The commit's changes: (new entries, old entries) per path, from `diff-tree --raw`."""
        base = parent or self.git.run("hash-object", "-t", "tree", "--stdin", input_text="").out.strip()
        out = self.git.run("diff-tree", "-r", "-z", "--no-renames", "--raw", base, sha).out.split("\0")
        new: dict[str, Entry | None] = {}
        old: dict[str, Entry | None] = {}
        for meta, path in zip(out[0::2], out[1::2]):
            if not meta.startswith(":"):
                continue
            old_mode, new_mode, old_sha, new_sha, _status = meta[1:].split(" ")
            old[path] = None if old_sha == ZERO else Entry(old_mode, old_sha)
            new[path] = None if new_sha == ZERO else Entry(new_mode, new_sha)
        return new, old

    def _reparent(self, built: Built, tip: str, journal: Journal) -> Built:
        """The same change on top of `tip` (the branch moved; the paths do not overlap)."""
        made = build_tree(self.git, tip, built.entries)
        if made is not None:
            tree_sha = made[0]
        else:
            index = journal.path("index")
            env = {"GIT_INDEX_FILE": str(index)}
            self.git.run("read-tree", tip, env=env)
            lines = [f"{e.mode} {e.sha}\t{p}" if e else f"0 {ZERO}\t{p}" for p, e in built.entries.items()]
            self.git.run("update-index", "-z", "--index-info", input_text="\0".join(lines) + "\0", env=env)
            tree_sha = self.git.run("write-tree", env=env).out.strip()
        moved = self._commit_tree(tree_sha, tip, built.message)
        moved.entries, moved.old = built.entries, built.old
        journal.update(commit=moved.sha, parent=tip)
        return moved

    # -- landing ---------------------------------------------------------------------------------

    def _land(self, built: Built, branch: str, journal: Journal, paths: tuple[str, ...]) -> tuple[Built, list[str]]:
        """Move the branch to `built` (re-parented while it moved elsewhere); returns the commit that
        landed and what to tell about git's index."""
        deadline = time.monotonic() + self.git.lock_wait_s
        delay = 0.02
        for _attempt in range(MOVED_RETRIES):
            lock = IndexLock(self.git, journal)
            lock.take(deadline)
            try:
                self.checkpoint("index-lock")
                if self.git.branch() != branch:
                    raise Conflict(f"HEAD was switched away from {branch} while this change was being written; "
                                   "nothing was committed")  # fmt: skip
                left = lock.stage(built)
                self.checkpoint("update-ref")
                subject = built.message.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
                result = self.git.run("update-ref", "-m", f"commit{'' if built.parent else ' (initial)'}: {subject}",
                                      branch, built.sha, built.parent or ZERO, check=False, retry_lock=False)  # fmt: skip
                if result.code == 0:
                    journal.update(landed=built.sha)
                    lock.commit()
                    self.checkpoint("landed")
                    return built, [f"{p} was staged differently by someone else meanwhile; git's index keeps "
                                   "their version" for p in left]  # fmt: skip
            except BaseException:
                lock.release()
                raise
            lock.release()
            tip = self.git.run("rev-parse", "-q", "--verify", branch, check=False).out.strip() or None
            if tip == built.parent or tip is None:
                # not moved: a ref lock (HEAD.lock, the branch's .lock) held by someone
                if time.monotonic() >= deadline:
                    raise GitLocked(f"git update-ref failed: {self.git.lock_sentence(result.err)}", subcommand="update-ref",
                                    exit_code=result.code, stderr=result.err)  # fmt: skip
                time.sleep(delay)
                delay = min(delay * 2, 0.4)
                continue
            overlap = self.git.changed_between(built.parent, tip, sorted(set(paths) | set(built.entries)))
            if overlap:
                subject = self.git.commit_subject(tip)
                raise Conflict(
                    f"another writer committed {', '.join(overlap[:5])} meanwhile ({tip[:12]} “{subject}”); "
                    "this change was not committed, nothing of theirs was touched"
                )
            log.info("the branch moved to %s under the write; re-parenting onto it", tip[:12])
            built = self._reparent(built, tip, journal)
        raise Conflict(f"the branch kept moving ({MOVED_RETRIES} times) while this change was being committed; "
                       "nothing was committed: try again")  # fmt: skip


def land_plan(git: Git, root: Path, plan: Plan, base: str | None, *, conn=None, state_file: Path | None = None,
              checkpoint: Callable[[str], None] | None = None) -> Landed:  # fmt: skip
    """The one commit pipeline (memory writes, undo, the workbench's files): the paths checked
    (tracked, clean, nothing staged on them, regular files, writable), then `Executor.run`.
    The caller finishes `Landed.journal` once it has done what follows the commit."""
    from memhtml_desktop.write.preflight import check_paths

    check_paths(git, root, *plan_paths(plan), git_status=plan.checked_on is None or plan.checked_on[0] != base)
    return Executor(root, git, conn, checkpoint=checkpoint, state_file=state_file).run(plan, base)


def plan_paths(plan: Plan) -> tuple[list[str], list[str]]:
    """(existing, created): the files a plan edits, moves or deletes, and the paths it creates."""
    existing = [c.source or c.path for c in plan.changes if c.action in ("modify", "move", "delete")]
    created = [c.path for c in plan.changes if c.action in ("create", "move")]
    return existing, created


def _commit_words(exc: GitError) -> str:
    text = str(exc)
    if exc.subcommand in ("commit-tree", "write-tree") and "failed" in text:
        return "git commit failed" + text[text.index(" failed") + len(" failed") :]
    return text


class IndexLock:
    """git's `index.lock`, taken as git takes it (`O_CREAT|O_EXCL`), so no other git writes the
    index (or commits from it) while the branch moves and our paths' entries follow it."""

    def __init__(self, git: Git, journal: Journal) -> None:
        self.git = git
        self.journal = journal
        self.git_dir = git.git_dir()
        self.path = self.git_dir / "index.lock"
        self.fd: int | None = None
        self.copy = journal.path("real-index")
        self.changed = False

    def take(self, deadline: float) -> None:
        delay = 0.02
        while True:
            try:
                self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
                break
            except FileExistsError:
                if time.monotonic() >= deadline:
                    raise GitLocked(f"git's index could not be locked: {self.git.lock_sentence(lock=self.path)}; "
                                    "nothing was committed", subcommand="commit") from None  # fmt: skip
                time.sleep(delay)
                delay = min(delay * 2, 0.25)
        st = os.fstat(self.fd)
        self.journal.update(index_lock=[st.st_dev, st.st_ino])

    def stage(self, built: Built) -> list[str]:
        """Our commit's entries into a copy of the user's index (paths staged differently by
        someone else are left, and returned); the copy's bytes go into the lock."""
        real = self.git_dir / "index"
        self.copy.unlink(missing_ok=True)
        if real.exists():
            shutil.copyfile(real, self.copy)
        current = self.git.index_entries(list(built.entries), index_file=self.copy)
        lines, left = [], []
        for path, new in built.entries.items():
            now = current.get(path)
            if now == new:
                continue
            if now != built.old.get(path):
                left.append(path)
                continue
            lines.append(f"{new.mode} {new.sha}\t{path}" if new else f"0 {ZERO}\t{path}")
        self.changed = bool(lines)
        if lines:
            self.git.run("update-index", "-z", "--index-info", input_text="\0".join(lines) + "\0",
                         env={"GIT_INDEX_FILE": str(self.copy)})  # fmt: skip
            data = self.copy.read_bytes()
            os.lseek(self.fd, 0, os.SEEK_SET)
            os.ftruncate(self.fd, 0)
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view) :]
            os.fsync(self.fd)
        return left

    def commit(self) -> None:
        """The branch moved: the new index replaces the old (or, unchanged, the lock just goes)."""
        os.close(self.fd)
        self.fd = None
        if self.changed:
            os.replace(self.path, self.git_dir / "index")
        else:
            self.path.unlink(missing_ok=True)
        fsync_dir(self.git_dir)
        self.journal.update(index_lock=None)

    def release(self) -> None:
        if self.fd is None:
            return
        os.close(self.fd)
        self.fd = None
        self.path.unlink(missing_ok=True)
        self.journal.update(index_lock=None)


def finish_index(git: Git, journal: Journal, sha: str, parent: str | None) -> list[str]:
    """After a crash between the branch moving and the index following: our commit's entries into
    the user's index (under git's lock), for paths nobody staged differently since."""
    executor = Executor(git.root, git, None)
    new, old = executor._diff(parent, sha)
    built = Built(sha, parent, "", journal.path("COMMIT_EDITMSG"), new, old)
    lock = IndexLock(git, journal)
    lock.take(time.monotonic() + git.lock_wait_s)
    try:
        left = lock.stage(built)
        lock.commit()
    except BaseException:
        lock.release()
        raise
    return left


# -- rollback --------------------------------------------------------------------------------------


def prune_rows(conn, paths: tuple[str, ...]) -> list[str]:
    try:
        return curation.delete_access_rows(conn, list(paths))
    except Exception as exc:  # noqa: BLE001 - a busy plane: the rows stay for the next doctor run
        log.warning("orphan access rows were not pruned: %s", exc)
        return []
