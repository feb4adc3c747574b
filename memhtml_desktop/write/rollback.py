"""Undoing a write that did not land: this write's own steps, and nothing anyone else did.

The executor journals each change to the working tree before making it (`journal.Journal.record`),
with what it leaves there (an inode) and what it replaced (kept in the journal's `saved/`). The
rollback walks those steps newest first, each only while its file is still what this write left:
see `rollback`. The filesystem helpers both sides share live here too (`rename_noreplace`, the
inode of a path, the name of a write's temp file).
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memhtml_desktop.atomic import fsync_dir
from memhtml_desktop.html.project import blob_sha_of
from memhtml_desktop.index.curation import move_access
from memhtml_desktop.write.errors import WriteError
from memhtml_desktop.write.git import Entry, Git
from memhtml_desktop.write.journal import Journal, PendingMoves

#: How long a check that found a file moved away looks again (another writer that moved it by
#: mistake puts it straight back; see executor.Tree.rename).
SETTLE_S = 0.05


class RollbackIncomplete(WriteError):
    """The rollback stopped: the message says what is left and how to finish (the journal stays)."""


_RENAME_NOREPLACE = 1


def _renameat2():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        func = libc.renameat2
    except (OSError, AttributeError):
        return None
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    func.restype = ctypes.c_int
    return func


_RENAMEAT2 = _renameat2()
_AT_FDCWD = -100


def rename_noreplace(src: Path, dst: Path) -> None:
    """`rename(src, dst)` that fails with FileExistsError when `dst` exists (renameat2's
    RENAME_NOREPLACE where the kernel and filesystem have it; else a check, then the rename)."""
    if _RENAMEAT2 is not None:
        if _RENAMEAT2(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), _RENAME_NOREPLACE) == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
            raise OSError(err, os.strerror(err), str(src), None, str(dst)) if err != errno.EEXIST else \
                FileExistsError(err, os.strerror(err), str(dst))  # fmt: skip
    if os.path.lexists(dst):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(dst))
    os.rename(src, dst)


def _ino(path: Path) -> list[int] | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return [st.st_dev, st.st_ino]


def temp_name(path: str, journal_id: str) -> str:
    """The temp file a write of journal `journal_id` writes `path`'s bytes to (beside it):
    `.<name>.<pid>-<tag>.tmp`, which `leftovers.py` recognises by its dead pid."""
    directory, _, name = path.rpartition("/")
    return (directory + "/" if directory else "") + f".{name}.{journal_id}.tmp"


def remove_own_index_lock(git_dir: Path, header: dict[str, Any]) -> bool:
    """A write killed while it held git's `index.lock` left it: the journal knows its inode."""
    recorded = header.get("index_lock")
    lock = git_dir / "index.lock"
    if recorded and _ino(lock) == list(recorded):
        lock.unlink(missing_ok=True)
        return True
    return False


def _step_paths(step: dict[str, Any]) -> list[str]:
    return [p for p in (step.get("path"), step.get("src"), step.get("dst")) if p]


@dataclass
class Head:
    """What the branch holds now for the write's paths, where another writer committed them
    (and, asked for, what the write's base commit held)."""

    git: Git
    committed: set[str]
    entries: dict[str, Entry]
    base: str | None = None

    def has(self, path: str) -> bool:
        return path in self.entries

    def in_base(self, path: str) -> Entry | None:
        return self.git.entries(self.base, [path]).get(path) if self.base else None

    def blob(self, path: str) -> bytes | None:
        entry = self.entries.get(path)
        if entry is None:
            return None
        proc = subprocess.run([self.git.executable or "git", "-C", str(self.git.root), "cat-file", "blob", entry.sha],
                              capture_output=True, check=False)  # fmt: skip
        return proc.stdout if proc.returncode == 0 else None


@dataclass
class RolledBack:
    """What a rollback found and did, so what is said about it is what happened.

    `undone`: the write's changes taken back (a file put back or removed, a rename or a row move
    reversed). `committed`: the write's paths another writer committed since it began, which stay
    as the branch holds them (`commits`: those commits, newest first, as (sha, subject)); `temps`:
    the write's own temp files among them (an agent's `git add -A` sweeps them in). `left`:
    sentences about what someone else changed and was left alone."""

    undone: int = 0
    committed: list[str] = field(default_factory=list)
    temps: list[str] = field(default_factory=list)
    commits: list[tuple[str, str]] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


def rollback(root: Path, git: Git, conn, journal: Journal) -> RolledBack:
    """Undo this write's own steps, newest first, each only while its file is still what this
    write left there; returns what it undid, what the branch now holds and what was left alone.

    Where another writer committed one of the write's paths since it began, the branch decides:
    a file is never deleted or changed away from what is committed (a rename or a row move that
    the branch now holds stays; our bytes on a committed path give way to the committed bytes;
    a temp file of this write that someone committed stays too: removing it would leave their
    commit's file deleted in the tree).
    Raises RollbackIncomplete, keeping the journal, when a step could not be undone."""
    header = journal.header()
    remove_own_index_lock(journal.directory.parents[2], header)  # <git dir>/memhtml-desktop/journals/<id>
    steps: list[dict[str, Any]] = []
    for step in journal.steps():
        if step.get("op") == "rename-ino" and steps and steps[-1].get("op") == "rename":
            steps[-1] = {**steps[-1], "ino": step["ino"]}  # the inode the rename really moved
        elif step.get("op") == "undone":
            if steps:
                dropped = steps.pop()  # announced, then not done (its temp file is removed below)
                if dropped.get("op") == "put":
                    (root / Path(dropped["path"]).parent / dropped["temp"]).unlink(missing_ok=True)
        else:
            steps.append(step)
    temps = sorted({_temp_path(step) for step in steps if step.get("op") == "put"}
                   | {temp_name(p, journal.id) for p in header.get("paths", [])})  # fmt: skip
    touched = sorted({p for step in steps for p in _step_paths(step)} | set(header.get("paths", [])) | set(temps))
    base = header.get("base")
    branch = header.get("branch") or "HEAD"
    tip = git.run("rev-parse", "-q", "--verify", branch, check=False).out.strip() or None
    committed = set(git.changed_between(base, tip, touched)) if tip != base else set()
    head = Head(git, committed, git.entries(tip, sorted(committed)) if committed else {}, base)
    done = RolledBack()
    failed: list[str] = []
    for step in reversed(steps):
        try:
            outcome, note = _undo(root, conn, journal, step, head)
        except OSError as exc:
            what = (f"the access row of {step['src']} (still at {step['dst']})" if step.get("op") == "row"
                    else ", ".join(_step_paths(step)))  # fmt: skip
            failed.append(f"{what}: {exc.strerror or exc}")
            continue
        if outcome == UNDONE:
            done.undone += 1
        elif outcome == COMMITTED:
            done.committed.extend(p for p in _step_paths(step) if p in committed and p not in done.committed)
        if note:
            done.left.append(note)
    for temp in temps:  # this write's temp files: removed, unless another writer committed one
        if temp in committed and head.has(temp):
            done.temps.append(temp)
        else:
            (root / temp).unlink(missing_ok=True)
    if done.committed or done.temps:
        done.commits = _commits_of(git, base, tip, sorted({*done.committed, *done.temps}))
    if failed:
        raise RollbackIncomplete(
            f"{'; '.join(failed)}: could not be put back now. The journal is kept ({journal.directory}, the "
            "originals in saved/); free the disk (or fix the permission) and run `memhtml-desktop doctor --fix`, "
            "or open the store in the window, to finish the rollback"
        )
    journal.finish()
    done.left = sorted(set(done.left))
    return done


#: What undoing one step came to: the change was taken back; there was nothing of it to take back
#: (never done, done by someone else's hand, a folder still in use); the branch holds it (another
#: writer committed the path since); someone else changed it since and it was left alone.
UNDONE, NOTHING, COMMITTED, LEFT = "undone", "nothing", "committed", "left"


def _temp_path(step: dict[str, Any]) -> str:
    parent = Path(step["path"]).parent.as_posix()
    return step["temp"] if parent == "." else f"{parent}/{step['temp']}"


def _commits_of(git: Git, base: str | None, tip: str | None, paths: list[str]) -> list[tuple[str, str]]:
    """The commits between `base` and `tip` that touched `paths`, newest first, as (sha, subject)."""
    if tip is None or not paths:
        return []
    span = f"{base}..{tip}" if base else tip
    out = git.run("log", "-z", "--format=%H %s", span, "--", *paths, check=False).out
    return [tuple(item.split(" ", 1)) if " " in item else (item, "") for item in out.split("\0") if item]  # type: ignore[misc]


def _undo(root: Path, conn, journal: Journal, step: dict[str, Any], head: Head) -> tuple[str, str | None]:
    """Undo one step; (what it came to, a sentence about something left alone or None)."""
    op = step.get("op")
    if op == "mkdir":
        try:
            (root / step["path"]).rmdir()
        except OSError:
            pass  # not empty (someone else's file is in it), or already gone
        return NOTHING, None  # a folder is no change of its own: its files are counted
    if op == "row":
        src, dst = step["src"], step["dst"]
        if {src, dst} & head.committed and head.has(dst) and not head.has(src):
            return COMMITTED, None  # the branch holds the move (another writer committed it): the row stays with it
        if conn is not None:
            try:
                return (UNDONE if move_access(conn, dst, src) else NOTHING), None
            except Exception as exc:  # noqa: BLE001 - the rest of the rollback still runs
                # Kept for retry (a locked plane); on a full disk even that fails: the rollback is
                # then incomplete and its journal stays, so recovery moves the row once there is room.
                PendingMoves(journal.directory.parents[2]).add(
                    [{"src": dst, "dst": src, "reason": f"moving back after a failed write: {exc}", "commit": None}]
                )
                return LEFT, (f"the access row of {src} is still at {dst} ({exc}); it is recorded and moves back on "
                              "the next write or when the store is opened")  # fmt: skip
        return NOTHING, None
    if op == "put":
        return _undo_put(root, journal, step, head)
    if op == "rename":
        src, dst = root / step["src"], root / step["dst"]
        if _ino(dst) == step["ino"] and not os.path.lexists(src):
            if step["dst"] in head.committed and head.has(step["dst"]):
                return COMMITTED, None
            src.parent.mkdir(parents=True, exist_ok=True)
            rename_noreplace(dst, src)
            fsync_dir(src.parent)
            return UNDONE, None
        if _ino(src) == step["ino"]:
            return NOTHING, None  # never renamed
        if _ino(dst) == step["ino"] and step["dst"] not in head.committed:
            # Someone wrote a new file at the source meanwhile. Our moved copy is the source's old
            # file: when its bytes are the base commit's (git keeps them), it goes, theirs stays.
            entry = head.in_base(step["src"])
            if entry is not None and blob_sha_of(dst.read_bytes()) == entry.sha:
                os.unlink(dst)
                fsync_dir(dst.parent)
                return LEFT, f"{step['src']} was written anew by another writer meanwhile and is left as theirs"
        return LEFT, f"{step['dst']} was changed by another writer meanwhile; {step['src']} was not moved back"
    if op == "delete":
        full = root / step["path"]
        if os.path.lexists(full):
            if _ino(full) == step.get("ino"):
                return NOTHING, None  # never deleted
            return LEFT, f"{step['path']} was recreated by another writer meanwhile and is left as it is"
        if step["path"] in head.committed and not head.has(step["path"]):
            return COMMITTED, None  # the branch holds the deletion
        _restore(journal, step["saved"], full)
        fsync_dir(full.parent)
        return UNDONE, None
    return NOTHING, None


def _undo_put(root: Path, journal: Journal, step: dict[str, Any], head: Head) -> tuple[str, str | None]:
    full = root / step["path"]
    saved = journal.saved(step["saved"]) if step.get("saved") else None
    current = _ino(full)
    if current is None and saved is not None:
        time.sleep(SETTLE_S)  # moved away this instant: another writer may be putting it back
        current = _ino(full)
    if current != step["ino"]:
        if current is None and saved is None:
            return NOTHING, None  # never created
        if saved is not None and current is not None and current in (_ino(saved), step.get("saved_ino")):
            return NOTHING, None  # the put never happened, or was undone already: the original is in place
        return LEFT, f"{step['path']} was changed by another writer meanwhile and is left as they left it"
    if step["path"] in head.committed:
        committed = head.blob(step["path"])
        if committed is None and not head.has(step["path"]):
            os.unlink(full)  # our file, on a path the branch has no file at
            fsync_dir(full.parent)
            return UNDONE, None
        if committed is not None and full.read_bytes() != committed:
            if saved is not None and saved.read_bytes() == committed:
                _restore(journal, step["saved"], full)
            else:
                temp = full.with_name(f".{full.name}.{journal.id}.tmp")
                temp.write_bytes(committed)
                shutil.copymode(full, temp)
                os.replace(temp, full)
        fsync_dir(full.parent)
        return COMMITTED, None  # as committed
    if saved is not None:
        _restore(journal, step["saved"], full)
    else:
        os.unlink(full)
    fsync_dir(full.parent)
    return UNDONE, None


def _restore(journal: Journal, name: str, full: Path) -> None:
    saved = journal.saved(name)
    if (journal.path("saved") / f"{name}.copy").exists():
        temp = full.with_name(f".{full.name}.{journal.id}.tmp")
        shutil.copy2(saved, temp)
        os.replace(temp, full)
    else:
        os.replace(saved, full)
