"""What a crashed writer leaves behind, recognised by its owner being gone: git's lock files and
this app's temp files.

**git's locks** (`index.lock`, `HEAD.lock`, `refs/heads/<branch>.lock`, `packed-refs.lock`,
`config.lock`) record no owner. A lock is *held* while some process has it open, or while a `git`
process runs in this repository (git closes a lock before running hooks, so an open file alone
is not enough); it is *stale* when neither is true: a git that crashed, or was killed, left it,
and nothing will ever remove it. Both are read from `/proc` (Linux); where `/proc` cannot tell (a
git of another user whose working directory this process may not read), the lock counts as held.
A stale lock is named, with the command that removes it; this app never removes a git lock it did
not create itself (its own, after a crash, is recorded in the write journal and removed there).

**Temp files** are `.<name>.<pid>.<8 hex>.tmp` (`atomic.write_atomically`) and
`.<name>.<pid>-<8 hex>.tmp` (the write core's), beside the file they were to replace. One whose
pid is no longer running is stale: the write that made it was killed before its rename. memhtml's
doctor reports such a file as a dirty tree.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

GIT_LOCK_NAMES = ("index.lock", "HEAD.lock", "packed-refs.lock", "config.lock", "shallow.lock", "ORIG_HEAD.lock")
TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)[.-](?P<tag>[0-9a-f]{8})\.tmp$")
SKIP_DIRS = frozenset({".git"})


@dataclass(frozen=True)
class Leftover:
    """A lock or temp file: where, how old, and whether its owner is gone (`stale`)."""

    path: Path
    kind: str  # "git lock" | "temp file"
    age_s: float
    stale: bool
    owner: str  # who holds it, or why it is thought stale

    def describe(self, root: Path | None = None) -> str:
        where = self.path
        if root is not None:
            try:
                where = self.path.relative_to(root)
            except ValueError:
                pass
        state = "stale" if self.stale else "held"
        return f"{self.kind} {where} ({state}: {self.owner}; {self.age_s:.0f} s old)"

    def to_json(self) -> dict:
        return {"path": str(self.path), "kind": self.kind, "age_s": round(self.age_s, 1), "stale": self.stale,
                "owner": self.owner}  # fmt: skip


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


def _procs() -> list[str]:
    try:
        return [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _opened_by(path: Path) -> list[int]:
    """Processes with `path` open (from /proc/<pid>/fd; those we may not read are skipped)."""
    want = os.fspath(path)
    holders = []
    for pid in _procs():
        fd_dir = f"/proc/{pid}/fd"
        try:
            for fd in os.listdir(fd_dir):
                try:
                    if os.readlink(f"{fd_dir}/{fd}") == want:
                        holders.append(int(pid))
                        break
                except OSError:
                    continue
        except OSError:
            continue
    return holders


def git_processes_in(places: list[Path]) -> tuple[list[int], list[int]]:
    """(git processes whose working directory is inside one of `places`, git processes whose
    working directory this process cannot read: they might be)."""
    reals = [os.path.realpath(p) for p in places]
    inside, unknown = [], []
    me = os.getpid()
    for pid in _procs():
        if int(pid) == me:
            continue
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as handle:
                comm = handle.read().strip()
        except OSError:
            continue
        if comm != "git" and not comm.startswith("git-"):
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except FileNotFoundError:
            continue  # it has left (or is a zombie) since the listing: it runs nowhere
        except OSError:
            unknown.append(int(pid))
            continue
        if any(cwd == r or cwd.startswith(r.rstrip(os.sep) + os.sep) for r in reals):
            inside.append(int(pid))
    return inside, unknown


def lock_owner(lock: Path, root: Path, git_dir: Path) -> tuple[bool, str]:
    """(stale, who holds it or why it is stale) for a git lock file."""
    if not Path("/proc/self").exists():
        return False, "cannot tell who holds it on this system"
    holders = _opened_by(lock)
    if holders:
        return False, f"open in pid {', '.join(map(str, holders[:3]))}"
    inside, unknown = git_processes_in([root, git_dir])
    if inside:
        return False, f"a git process is running in this repository (pid {', '.join(map(str, inside[:3]))})"
    if unknown:
        return False, f"a git process this user cannot inspect is running (pid {', '.join(map(str, unknown[:3]))})"
    return True, "no process has it open and no git process is running in this repository"


def git_locks(git_dir: Path, root: Path, common_dir: Path | None = None) -> list[Leftover]:
    """Every git lock file present in this repository's git directory (and its common directory,
    where a linked worktree's refs live), with its owner state."""
    found: list[Path] = []
    for base in {git_dir, common_dir or git_dir}:
        for name in GIT_LOCK_NAMES:
            if (base / name).exists():
                found.append(base / name)
        refs = base / "refs"
        if refs.is_dir():
            found.extend(sorted(refs.rglob("*.lock")))
    now = time.time()
    out = []
    for lock in sorted(set(found)):
        try:
            age = now - lock.stat().st_mtime
        except OSError:
            continue
        stale, owner = lock_owner(lock, root, git_dir)
        out.append(Leftover(lock, "git lock", max(age, 0.0), stale, owner))
    return out


def describe_lock(lock: Path, root: Path, git_dir: Path) -> str:
    """A sentence for a write refused on `lock`: whether it is stale, and what to do."""
    stale, owner = lock_owner(lock, root, git_dir)
    if stale:
        return (f"git's lock {lock} is stale ({owner}: a git that crashed or was killed left it); "
                f"remove it (rm '{lock}') and try again")  # fmt: skip
    return f"another git command holds git's lock {lock} ({owner}); try again when it is done"


def temp_owner(name: str) -> int | None:
    match = TEMP_NAME.match(name)
    return int(match.group("pid")) if match else None


def temp_files(root: Path, *, under: list[str] | None = None) -> list[Leftover]:
    """This app's temp files in the store's working tree (`.git` is not entered), with their state.

    `under`: only these store folders (the folders a write touched); None walks the whole tree."""
    now = time.time()
    out: list[Leftover] = []
    tops = [root / d for d in under] if under is not None else [root]
    seen: set[str] = set()
    for top in tops:
        if not top.is_dir():
            continue
        for directory, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not os.path.islink(os.path.join(directory, d))]
            for name in files:
                pid = temp_owner(name)
                if pid is None:
                    continue
                full = Path(directory) / name
                if str(full) in seen:
                    continue
                seen.add(str(full))
                try:
                    age = now - full.lstat().st_mtime
                except OSError:
                    continue
                alive = pid_alive(pid)
                owner = f"pid {pid} is running" if alive else f"pid {pid}, which wrote it, is gone"
                out.append(Leftover(full, "temp file", max(age, 0.0), not alive, owner))
            if under is not None:
                dirs[:] = []  # the folders named, not their subtrees
    return sorted(out, key=lambda item: str(item.path))


def lock_in_message(stderr: str) -> Path | None:
    """The lock file git's message names (`Unable to create '…/HEAD.lock': File exists.`)."""
    match = re.search(r"Unable to create '([^']+\.lock)'", stderr)
    return Path(match.group(1)) if match else None


@dataclass(frozen=True)
class Survey:
    """What `doctor` reports beside the index: interrupted writes, writes in progress, this app's
    temp files, git's locks, and state rows waiting to follow their memory."""

    interrupted: tuple[dict, ...] = ()  # {id, subject, commit, landed?}
    in_progress: tuple[str, ...] = ()
    temp_files: tuple[Leftover, ...] = ()
    git_locks: tuple[Leftover, ...] = ()
    pending_moves: tuple[dict, ...] = ()

    def to_json(self) -> dict:
        return {
            "interrupted_writes": list(self.interrupted),
            "writes_in_progress": list(self.in_progress),
            "temp_files": [t.to_json() for t in self.temp_files],
            "git_locks": [lock.to_json() for lock in self.git_locks],
            "pending_state_moves": [dict(m) for m in self.pending_moves],
        }

    def lines(self, root: Path) -> list[str]:
        out = []
        for item in self.interrupted:
            state = "its commit landed" if item.get("landed") else "nothing committed"
            out.append(f"interrupted write {item['id']}: {item['subject']} ({state}; `doctor --fix` finishes it)")
        out += [f"write in progress: journal {name}" for name in self.in_progress]
        for leftover in (*self.temp_files, *self.git_locks):
            fix = ""
            if leftover.stale and leftover.kind == "temp file":
                fix = " (`doctor --fix` removes it)"
            elif leftover.stale:
                fix = f" (remove it: rm '{leftover.path}')"
            out.append(leftover.describe(root) + fix)
        for move in self.pending_moves:
            out.append(f"state row {move['src']} waits to follow its memory to {move['dst']}: {move.get('reason', '')}")
        return out


def survey(root: Path) -> Survey:
    """Everything a crashed or concurrent writer may have left in the store (see Survey)."""
    from memhtml_desktop.write.git import Git, GitError
    from memhtml_desktop.write.journal import Journal, PendingMoves

    git = Git(root)
    try:
        git_dir = git.git_dir()
        common = git.common_dir()
    except GitError:
        return Survey(temp_files=tuple(temp_files(root)))
    interrupted = []
    for journal in Journal.orphans(git_dir):
        header = journal.header()
        commit = header.get("commit")
        landed = bool(commit) and git.is_ancestor(commit, header.get("branch") or "HEAD")
        interrupted.append({"id": journal.id, "subject": header.get("subject", ""), "commit": commit,
                            "landed": landed})  # fmt: skip
        journal.release()
    return Survey(tuple(interrupted), tuple(Journal.live(git_dir)), tuple(temp_files(root)),
                  tuple(git_locks(git_dir, root, common)), tuple(PendingMoves(git_dir).load()))  # fmt: skip


def remove_stale_temp_files(root: Path) -> list[Path]:
    """This app's temp files whose writer is gone, removed; returns them."""
    removed = []
    for leftover in temp_files(root):
        if leftover.stale:
            try:
                leftover.path.unlink()
                removed.append(leftover.path)
            except OSError:
                continue
    return removed
