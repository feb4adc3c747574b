"""The write lock, and the journal that makes a write all-or-nothing across crashes and processes.

**The lock** serialises this app's own writes to one store across the threads and processes that
share a cache directory (the window, a CLI in a terminal, a second window): `fcntl.flock` on
`<cache>/writes/<store>-<hash>/lock`. It is a courtesy, not the guard: a second instance with
another cache directory, `sudo`, another user, memhtml's CLI and the agent's own `git` never take
it. Against all of those the commit protocol itself is the guard (`executor.py`). The lock itself
lives in `memhtml_desktop/write_lock.py`: the watcher waits on it too.

**The journal** lives in the store's own git directory, `<git dir>/memhtml-desktop/journals/<id>/`,
so any instance of the app finds it, whatever its cache directory (and git never shows it: it is
not in the working tree). Each write has its own (`<id>` = pid and a random tag: two writers that
share no lock never share a journal) and holds an `flock` on its `owner` file for its whole life;
a journal whose `owner` lock can be taken is an interrupted write (its process is gone: `kill -9`,
a power cut), which the next write, the window opening the store, a read command or `doctor
--fix` finishes (its commit landed) or rolls back (it did not). `journal.json` holds the write
(base commit, branch, subject, paths) and what the commit reached (`commit`, `landed`);
`steps.jsonl` is appended, with an fsync, before each change to the working tree, and says
enough to undo exactly that change and nothing else (`rollback.py`); `saved/` holds the
bytes each replaced or removed file had (a hard link to the very inode when the filesystem
allows, so putting it back needs no free space).

`state-moves.json` beside the journals lists `state.access` rows that could not follow their
memory when it moved (a read-only `.memhtml/`, a locked `state.db`): retried on every write and
whenever a store is opened, reported until they have moved, and never pruned by `doctor --fix`.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import shutil
import time
from pathlib import Path
from typing import Any, Callable

from memhtml_desktop.atomic import fsync_dir
from memhtml_desktop.write_lock import LOCK_WAIT_S, LockTimeout, WriteLock, write_dir  # noqa: F401 - their old home

JOURNALS = "memhtml-desktop/journals"
#: A journal folder with no `owner` file yet is a write being born, unless it is this old.
ABANDONED_S = 60.0
PENDING_MOVES = "memhtml-desktop/state-moves.json"


class JournalError(OSError):
    """The journal could not be written (a read-only or full git directory): nothing was touched."""


def app_git_dir(git_dir: Path) -> Path:
    return git_dir / "memhtml-desktop"


class Journal:
    """One write's journal in `<git dir>/memhtml-desktop/journals/<id>/` (see the module docstring)."""

    def __init__(self, directory: Path, fd: int | None = None) -> None:
        self.directory = directory
        self._fd = fd

    @property
    def id(self) -> str:
        return self.directory.name

    @classmethod
    def begin(cls, git_dir: Path, header: dict[str, Any]) -> "Journal":
        parent = git_dir / JOURNALS
        try:
            parent.mkdir(parents=True, exist_ok=True)
            while True:
                directory = parent / f"{os.getpid()}-{secrets.token_hex(4)}"
                try:
                    directory.mkdir()
                    break
                except FileExistsError:
                    continue
            (directory / "saved").mkdir()
            fd = os.open(directory / "owner", os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX)
            journal = cls(directory, fd)
            journal.update(**header, pid=os.getpid(), started=time.time())
            fsync_dir(parent)
        except OSError as exc:
            raise JournalError(exc.errno, f"the write journal could not be written in {parent} "
                                          f"({exc.strerror or exc}); nothing was written") from exc  # fmt: skip
        return journal

    @staticmethod
    def orphans(git_dir: Path) -> list["Journal"]:
        """Journals whose writer is gone (their `owner` lock could be taken: it is now held by the
        Journal returned, so two recoveries never work on one)."""
        parent = git_dir / JOURNALS
        try:
            names = sorted(os.listdir(parent))
        except OSError:
            return []
        found = []
        for name in names:
            directory = parent / name
            try:
                fd = os.open(directory / "owner", os.O_RDWR)
            except OSError:
                try:
                    stale = time.time() - directory.stat().st_mtime > ABANDONED_S
                except OSError:
                    continue
                if stale and not (directory / "journal.json").exists():
                    shutil.rmtree(directory, ignore_errors=True)  # a journal that never began (its writer died)
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue  # its writer is alive
            found.append(Journal(directory, fd))
        return found

    @staticmethod
    def live(git_dir: Path) -> list[str]:
        """Ids of journals whose writer is still running."""
        parent = git_dir / JOURNALS
        out = []
        try:
            names = sorted(os.listdir(parent))
        except OSError:
            return []
        for name in names:
            try:
                fd = os.open(parent / name / "owner", os.O_RDWR)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError:
                out.append(name)
            finally:
                os.close(fd)
        return out

    # -- the record ----------------------------------------------------------------------------

    def header(self) -> dict[str, Any]:
        try:
            return json.loads(_small(self.directory / "journal.json"))
        except (OSError, ValueError):
            return {}

    def update(self, **fields: Any) -> None:
        """Merge `fields` into `journal.json` (written whole, fsynced, renamed into place)."""
        current = self.header()
        current.update(fields)
        _write_durably(self.directory / "journal.json.tmp", json.dumps(current).encode("utf-8"))
        os.replace(self.directory / "journal.json.tmp", self.directory / "journal.json")

    def record(self, step: dict[str, Any]) -> None:
        """Append one step to `steps.jsonl` and fsync it: it is on disk before the step is done."""
        self.record_all([step])

    def record_all(self, steps: list[dict[str, Any]]) -> None:
        """Append steps to `steps.jsonl` in one write and one fsync (a batch's puts, announced at once)."""
        line = "".join(json.dumps(step) + "\n" for step in steps).encode("utf-8")
        fd = os.open(self.directory / "steps.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)

    def steps(self) -> list[dict[str, Any]]:
        try:
            text = _small(self.directory / "steps.jsonl", cap=256 * 1024 * 1024)
        except (OSError, ValueError):
            return []
        out = []
        for line in text.splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                break  # a line cut by the crash: the step it announced was never started
        return out

    def saved(self, name: str) -> Path:
        return self.directory / "saved" / name

    def path(self, name: str) -> Path:
        return self.directory / name

    # -- the end ---------------------------------------------------------------------------------

    def finish(self) -> None:
        """The write is complete (or fully undone): remove the journal, let go of its lock."""
        shutil.rmtree(self.directory, ignore_errors=True)
        self.release()

    def release(self) -> None:
        """Let go of the owner lock and keep the journal (it is recovered later)."""
        if self._fd is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None


def _write_durably(path: Path, data: bytes) -> None:
    """Write `path` afresh (a temp file beside its target): whatever was at its name is unlinked
    first, and it is created `O_EXCL | O_NOFOLLOW`, so a link planted at a fixed name in the git
    directory (`last.json.tmp`) is never written through."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _small(path: Path, cap: int = 16 * 1024 * 1024) -> str:
    """A file of the app's own in the git directory, read through the guard (a FIFO or a device
    put there is refused, never waited on); ValueError when it is not UTF-8 or over `cap`."""
    from memhtml_desktop.guarded import read_guarded

    return read_guarded(path, cap=cap, what=path.name).decode("utf-8")


class PendingMoves:
    """`state.access` rows waiting to follow their memory: `[{src, dst, commit, reason}]`, kept in
    the git directory beside the journals (read-modify-write under an `flock`)."""

    def __init__(self, git_dir: Path) -> None:
        self.file = git_dir / PENDING_MOVES

    def load(self) -> list[dict[str, Any]]:
        try:
            data = json.loads(_small(self.file))
        except (OSError, ValueError):
            return []
        return (
            [m for m in data if isinstance(m, dict) and m.get("src") and m.get("dst")] if isinstance(data, list) else []
        )

    def change(self, edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """Apply `edit` to the list under the lock; returns the list as written."""
        self.file.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.file.with_suffix(".lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            moves = edit(self.load())
            if moves:
                _write_durably(self.file.with_suffix(".tmp"), json.dumps(moves, indent=1).encode("utf-8"))
                os.replace(self.file.with_suffix(".tmp"), self.file)
            else:
                self.file.unlink(missing_ok=True)
            return moves
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def add(self, moves: list[dict[str, Any]]) -> None:
        def edit(current: list[dict[str, Any]]) -> list[dict[str, Any]]:
            keys = {(m["src"], m["dst"]) for m in moves}
            return [m for m in current if (m["src"], m["dst"]) not in keys] + moves

        self.change(edit)


LAST = "memhtml-desktop/last.json"


def read_last(git_dir: Path | None, legacy: Path | None = None) -> dict[str, Any] | None:
    """The app's last commit in this store (for undo), or None.

    It is kept in the store's git directory (`<git dir>/memhtml-desktop/last.json`), so it goes
    where the repository goes: it used to live in `legacy` (the cache's `writes/<store>-<hash>/`,
    named after the store's path), and a renamed or moved store folder then had "no change to
    undo" with the app's commit at HEAD. A record an earlier version left there is still read."""
    for file in ([git_dir / LAST] if git_dir is not None else []) + ([legacy / "last.json"] if legacy else []):
        try:
            record = json.loads(_small(file))
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and record.get("sha"):
            return record
    return None


def write_last(git_dir: Path, record: dict[str, Any] | None, legacy: Path | None = None) -> None:
    """Remember `record` as the app's last commit (None: forget it), in the git directory; a
    record at the `legacy` place is dropped either way (it is superseded)."""
    if legacy is not None:
        (legacy / "last.json").unlink(missing_ok=True)
    target = git_dir / LAST
    if record is None:
        target.unlink(missing_ok=True)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    _write_durably(target.with_suffix(".json.tmp"), json.dumps(record).encode("utf-8"))
    os.replace(target.with_suffix(".json.tmp"), target)


def cheap_git_dir(root: Path) -> Path | None:
    """The work tree's git directory without running git (`.git` a folder, or a `gitdir:` file)."""
    from memhtml_desktop.guarded import read_guarded

    dot = root / ".git"
    if dot.is_dir():
        return dot
    try:  # a `gitdir:` file, read through the guard: a `.git` that is a FIFO is not waited on
        text = read_guarded(".git", root=root, cap=64 * 1024, what=".git").decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    if text.startswith("gitdir:"):
        target = Path(text[len("gitdir:") :].strip())
        return target if target.is_absolute() else (root / target).resolve()
    return None


def nothing_to_recover(root: Path) -> bool:
    """Whether no write can be waiting for recovery in the store at `root`: no journal and no pending
    moves (a listing; a reader then needs nothing of the write core, whose import costs a CLI call
    about 0.1 s). False says only that `write.curator.recover_interrupted` must look."""
    git_dir = cheap_git_dir(Path(root))
    if git_dir is None:
        return True
    try:
        journals = os.listdir(git_dir / JOURNALS)
    except OSError:
        journals = []
    return not journals and not (git_dir / PENDING_MOVES).exists()
