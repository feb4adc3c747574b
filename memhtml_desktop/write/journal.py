"""The write lock and the recovery journal, kept beside the index (never inside the store).

The lock serialises this app's own writes to one store across threads and processes (the window,
a CLI in a terminal, a second window): `fcntl.flock` on a file under the user cache directory, so
it needs nothing from git and nothing in the store. An agent or memhtml's CLI does not take it;
against those, git's `index.lock` and the content-hash checks are the guard.

The journal makes a write all-or-nothing even when the process is killed (`kill -9`, a power cut)
between writing files and committing them. Before the first file is touched it records the
commit it starts from and the original bytes of every path it will touch; each state-row move is
recorded as it happens; the commit sha once the commit exists. The next write (or the window, on
opening the store) finds a leftover journal and finishes the job: a commit that landed is kept
and indexed, anything short of one is rolled back to the recorded bytes.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LOCK_WAIT_S = 10.0


class LockTimeout(Exception):
    """Another write of this app held the store's write lock for the whole wait."""


def write_dir(store_root: Path) -> Path:
    """`<cache>/writes/<store>-<hash>/`: the lock, the journal, the last commit for undo."""
    from memhtml_desktop.settings import default_index_path

    return default_index_path(store_root).parent.parent / "writes" / default_index_path(store_root).stem


class WriteLock:
    """An exclusive lock on one store's writes: across processes (`flock`) and across the threads
    sharing this object (an RLock, so one thread may nest it, as apply nests recover)."""

    def __init__(self, directory: Path, *, wait_s: float = LOCK_WAIT_S) -> None:
        self.directory = directory
        self.wait_s = wait_s
        self._fd: int | None = None
        self._depth = 0
        self._threads = threading.RLock()

    def __enter__(self) -> "WriteLock":
        deadline = time.monotonic() + self.wait_s
        if not self._threads.acquire(timeout=self.wait_s):
            raise LockTimeout("another write to this store (from this app) is still running; try again in a moment")
        if self._depth:
            self._depth += 1
            return self
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.directory / "lock", os.O_RDWR | os.O_CREAT, 0o644)
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() >= deadline:
                        os.close(fd)
                        raise LockTimeout(
                            "another write to this store (from this app) is still running; try again in a moment"
                        ) from exc
                    time.sleep(0.05)
        except BaseException:
            self._threads.release()
            raise
        self._fd = fd
        self._depth = 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
        self._threads.release()


@dataclass
class Entry:
    """A touched path's state before the write: its bytes (None when absent) and file mode."""

    path: str
    existed: bool
    mode: int | None = None
    saved: str | None = None  # file name of the saved bytes inside the journal directory


@dataclass
class JournalState:
    base_head: str | None
    subject: str
    entries: list[Entry]
    created_dirs: list[str] = field(default_factory=list)
    state_moves_done: list[list[str]] = field(default_factory=list)
    commit: str | None = None
    paths: list[str] = field(default_factory=list)
    moves: list[list[str]] = field(default_factory=list)


class Journal:
    """One pending write's journal in `<write dir>/journal/` (absent when no write is pending)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory / "journal"

    @property
    def pending(self) -> bool:
        return (self.directory / "journal.json").exists()

    def begin(self, root: Path, state: JournalState) -> None:
        if self.directory.exists():
            shutil.rmtree(self.directory)
        self.directory.mkdir(parents=True)
        for i, entry in enumerate(state.entries):
            full = root / entry.path
            if entry.existed:
                entry.saved = f"{i}.bin"
                entry.mode = os.stat(full).st_mode & 0o7777
                _write_durably(self.directory / entry.saved, full.read_bytes())
        self.save(state)

    def save(self, state: JournalState) -> None:
        payload = {
            "base_head": state.base_head,
            "subject": state.subject,
            "entries": [vars(e) for e in state.entries],
            "created_dirs": state.created_dirs,
            "state_moves_done": state.state_moves_done,
            "commit": state.commit,
            "paths": state.paths,
            "moves": state.moves,
        }
        _write_durably(self.directory / "journal.json.tmp", json.dumps(payload).encode("utf-8"))
        os.replace(self.directory / "journal.json.tmp", self.directory / "journal.json")

    def load(self) -> JournalState | None:
        try:
            raw: dict[str, Any] = json.loads((self.directory / "journal.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return JournalState(
            base_head=raw.get("base_head"),
            subject=raw.get("subject", ""),
            entries=[Entry(**e) for e in raw.get("entries", [])],
            created_dirs=list(raw.get("created_dirs", [])),
            state_moves_done=[list(m) for m in raw.get("state_moves_done", [])],
            commit=raw.get("commit"),
            paths=list(raw.get("paths", [])),
            moves=[list(m) for m in raw.get("moves", [])],
        )

    def saved_bytes(self, entry: Entry) -> bytes | None:
        return (self.directory / entry.saved).read_bytes() if entry.saved else None

    def clear(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


def _write_durably(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def read_last(directory: Path) -> dict[str, Any] | None:
    """The app's last commit in this store (for undo), or None."""
    try:
        return json.loads((directory / "last.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write_last(directory: Path, record: dict[str, Any] | None) -> None:
    target = directory / "last.json"
    if record is None:
        target.unlink(missing_ok=True)
        return
    directory.mkdir(parents=True, exist_ok=True)
    _write_durably(directory / "last.json.tmp", json.dumps(record).encode("utf-8"))
    os.replace(directory / "last.json.tmp", target)
