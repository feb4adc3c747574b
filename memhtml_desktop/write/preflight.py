"""What must hold before a write touches anything: a git work tree in a state a commit can land in.

Each check names the problem and what to do about it. They run before the first byte is written
(and again, cheaply, under the write lock), so a refusal never leaves anything behind: memhtml
instead writes the file first and fails at `git add` (not a repository, G-44) or `git commit` (no
identity, G-43), leaving the file behind, staged.

What someone else staged is no longer a reason to refuse: the commit is built from this write's
own paths (`executor.py`), so their staged work is neither swept in nor disturbed. Only a path of
this write that someone staged (or edited without committing) is refused: committing over it
would take their change under this app's subject, or throw it away.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from memhtml_desktop.guarded import resolve_within
from memhtml_desktop.write.errors import Conflict, GitFailed, Refused
from memhtml_desktop.write.git import Git, GitError

IN_PROGRESS = (
    ("MERGE_HEAD", "a merge"),
    ("rebase-merge", "a rebase"),
    ("rebase-apply", "a rebase or `git am`"),
    ("CHERRY_PICK_HEAD", "a cherry-pick"),
    ("REVERT_HEAD", "a revert"),
)
MAX_NAMED = 10


def check_repository(git: Git) -> str | None:
    """Refuse a store git cannot commit to now; returns HEAD's sha (None on an unborn branch)."""
    try:
        top, why = git.toplevel()
    except GitError as exc:
        raise GitFailed(str(exc)) from exc
    if top is None and "dubious ownership" in why:
        raise GitFailed(
            f"git refuses to work in {git.root}: it belongs to another user (dubious ownership). "
            f"If you trust it: git config --global --add safe.directory {git.root}"
        )
    if top is None:
        raise GitFailed(
            f"not a git repository: {git.root} (memhtml-desktop commits every change through git; "
            "run `git init` there, or `memhtml init`)"
        )
    if os.path.realpath(top) != os.path.realpath(git.root):
        raise GitFailed(
            f"{git.root} is inside the git repository {top}, not its root: a memory written here would "
            "be committed to that repository under another path"
        )
    # Before the detached-HEAD check: a rebase detaches HEAD, and "HEAD is detached" would send a
    # person to `git switch` in the middle of their rebase.
    for name, what in IN_PROGRESS:
        if git.git_path(name).exists():
            raise GitFailed(f"{what} is in progress in this repository: finish it (or abort it) first, then try again")
    if git.branch() is None:
        raise GitFailed("HEAD is detached: check out a branch first (git switch <branch>), then try again")
    problem = git.identity_problem()
    if problem:
        raise GitFailed(identity_message(problem))
    return git.head()


def identity_message(problem: str) -> str:
    """One sentence for a missing git identity (git's own lines, "*** Please tell me who you are…",
    are a screenful; what is missing and the two commands that fix it are all a person needs)."""
    lowered = problem.lower()
    missing = ("no name" if "empty ident name" in lowered
               else "no email address" if "email" in lowered and "who you are" not in lowered
               else "no name and email address")  # fmt: skip
    return (
        f"git has no identity to commit with ({missing}): set one with "
        '`git config --global user.name "Your Name"` and `git config --global user.email you@example.com`, '
        "then try again"
    )


def wait_for_index_lock(git: Git) -> None:
    """Another git holding `index.lock`: wait briefly for it, then refuse (nothing touched yet),
    saying whether the lock is stale (its owner gone) and how to remove it."""
    lock = git.lock_path()
    deadline = time.monotonic() + git.lock_wait_s
    while lock.exists():
        if time.monotonic() >= deadline:
            raise GitFailed(f"git's index is locked: {git.lock_sentence(lock=lock)}")
        time.sleep(0.05)


def _named(paths: list[str]) -> str:
    return ", ".join(paths[:MAX_NAMED]) + (f" and {len(paths) - MAX_NAMED} more" if len(paths) > MAX_NAMED else "")


def path_status(git: Git, paths: list[str]) -> dict[str, str]:
    """`git status` of these paths alone (one call): {path: XY} for each that is not clean and
    tracked (`??` untracked, `!!` ignored; X: the index against HEAD, Y: the tree against the index)."""
    if not paths:
        return {}
    out = git.run("status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=matching", "--no-renames",
                  "--", *paths).out  # fmt: skip
    return {entry[3:]: entry[:2] for entry in out.split("\0") if len(entry) > 3}


def _refuse_staged(staged: list[str]) -> None:
    if staged:
        raise Conflict(
            f"{_named(staged)} has changes staged in git's index by someone else; this change would replace "
            "them. Commit or unstage them first (git restore --staged <path>)"
        )


def check_staged(git: Git, ours: tuple[str, ...] | list[str]) -> None:
    """Refuse when one of this write's own paths has staged changes (someone's work in progress
    on the very file); anything else staged is left alone and out of the commit."""
    status = path_status(git, list(ours))
    _refuse_staged(sorted(p for p, xy in status.items() if xy[0] not in " ?!"))


def check_paths(git: Git, root: Path, existing: list[str], created: list[str], *, git_status: bool = True) -> None:
    """Files to edit, move or delete: tracked, regular files (not links), no unsaved-to-git edits,
    nothing staged on them, writable; new ones: free, in folders inside the store. One `git status`
    (`git_status=False`: the plan was checked so on a HEAD that has not moved since, and the files
    still hold the bytes it read (the executor checks them): only the checks on disk are made again)."""
    status = path_status(git, list(dict.fromkeys([*existing, *created]))) if git_status else {}
    _refuse_staged(sorted(p for p, xy in status.items() if xy[0] not in " ?!"))
    for path in existing:
        if os.path.islink(root / path):
            raise Refused(f"{path} is a symbolic link: this app edits regular files only; nothing was written")
    for path in created:
        if resolve_within(root, os.path.dirname(path) or ".") is None:
            raise Refused(
                f"{path} is inside a folder that leads out of the store (a symbolic link); nothing was written"
            )
    untracked = sorted(p for p in existing if status.get(p) in ("??", "!!"))
    if untracked:
        raise Refused(f"{', '.join(untracked)} is not tracked by git: add and commit it first")
    dirty = [p for p in existing if status.get(p, "  ")[1] not in " ?!"]
    if dirty:
        raise Conflict(
            f"{', '.join(dirty)} has changes git has not committed; they would be committed under this "
            "change's subject. Commit or discard them first"
        )
    if not os.access(root, os.W_OK) or not os.access(git.git_dir(), os.W_OK):
        raise Refused(f"the store is read-only ({root}): nothing can be written")
    for path in existing:
        full = root / path
        if not os.access(full, os.W_OK) or not os.access(full.parent, os.W_OK):
            raise Refused(f"{path} is read-only: nothing was written")
    for path in created:
        parent = (root / path).parent
        while not parent.exists():
            parent = parent.parent
        if not os.access(parent, os.W_OK):
            raise Refused(
                f"{parent.relative_to(root) if parent != root else 'the store'} is read-only: {path} cannot be written"
            )
