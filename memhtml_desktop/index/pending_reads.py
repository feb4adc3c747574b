"""Reads and judgements the state plane could not take yet, kept until it can (issue 40).

A read's salience bump (or a Helpful / Not helpful) that cannot be written — the plane locked
through every retry, its disk full, the file replaced under an open handle, deleted and not yet
made again, refused (a FIFO at its place), of a schema this app does not know — is not lost: it is
appended to `.memhtml/state.db-pending.jsonl`, one line `{path, signal, at, reason}`, and written
with its own instant (`at`) by the next command, job or check that finds the plane writable
(`Store.reinforce`, a connection opened, the window's state check). Replaying is idempotent: a line
that already landed (a crash between the write and the line's removal) meets its own cooldown at
the same instant and moves nothing, so a read is never counted twice.

Why beside `state.db` and not in the index or the git directory: the index is disposable (deleting
it must lose nothing), a store need not be a git repository, and memhtml's `.gitignore` pattern
(`.memhtml/state.db*`) already keeps the file out of commits. It goes where the plane goes (a moved
store takes it along; `rm .memhtml/state.db*` to reset salience resets it too).

The file is inside the store, so it is opened as every store file is (`O_NOFOLLOW | O_NONBLOCK`,
`fstat`-checked: a link or a FIFO there is refused, nothing waits), read at most 16 MB, and every
change to it is made under an `flock` on it, by any process.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat as _stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memhtml_desktop.guarded import SMALL_FILE_CAP, kind_of

SUFFIX = "-pending.jsonl"
#: Lines kept at most: a read a second for half a day. Past it a bump is lost, and said to be.
MAX_LINES = 50_000


class PendingUnavailable(OSError):
    """The pending file cannot be used (a link, a FIFO, a read-only folder): what it is, in words."""


@dataclass(frozen=True)
class Replayed:
    """What a replay did: lines written (`landed`: moved a count or a score; `cooled`: met a
    cooldown, as a read inside 15 minutes does), and lines still waiting (`left`, with the reason)."""

    landed: int = 0
    cooled: int = 0
    left: int = 0
    reason: str = ""


class PendingReads:
    """The pending file beside one state plane."""

    def __init__(self, state_path: str | os.PathLike[str]) -> None:
        self.file = Path(os.fspath(state_path) + SUFFIX)

    def exists(self) -> bool:
        return os.path.lexists(self.file)

    def _open(self, create: bool) -> int | None:
        """The file, open and locked (None: there is none and `create` is off). A file a replay
        emptied and unlinked while this waited for the lock is let go and opened afresh."""
        flags = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_CREAT if create else 0)
        for _ in range(5):
            try:
                fd = os.open(self.file, flags, 0o644)
            except FileNotFoundError:
                return None
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise PendingUnavailable(
                        exc.errno, f"{self.file.name} is a symbolic link, not a regular file"
                    ) from None
                raise PendingUnavailable(
                    exc.errno, f"{self.file.name} cannot be opened ({exc.strerror or exc})"
                ) from None
            st = os.fstat(fd)
            if not _stat.S_ISREG(st.st_mode):
                os.close(fd)
                raise PendingUnavailable(errno.EINVAL, f"{self.file.name} is {kind_of(st.st_mode)}, not a regular file")
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                here = os.lstat(self.file)
            except OSError:
                here = None
            if here is not None and (here.st_dev, here.st_ino) == (st.st_dev, st.st_ino):
                return fd
            os.close(fd)
        raise PendingUnavailable(errno.EAGAIN, f"{self.file.name} kept being replaced")

    @staticmethod
    def _read(fd: int) -> list[dict[str, Any]]:
        os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, SMALL_FILE_CAP + 1)[:SMALL_FILE_CAP]
        out = []
        for line in data.decode("utf-8", "replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line cut by a crash: the bump it announced is the one lost
            if (
                isinstance(entry, dict)
                and isinstance(entry.get("path"), str)
                and entry.get("path")
                and entry.get("signal") in ("neutral", "positive", "negative")
                and isinstance(entry.get("at"), str)
            ):
                out.append(entry)
        return out

    @staticmethod
    def _write(fd: int, entries: list[dict[str, Any]]) -> None:
        data = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries).encode("utf-8")
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)

    def _change(
        self, edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]], *, create: bool
    ) -> list[dict[str, Any]]:
        fd = self._open(create)
        if fd is None:
            return []
        try:
            before = self._read(fd)
            after = edit(before)
            if after != before:
                self._write(fd, after)
            if not after:
                try:
                    self.file.unlink()  # under the lock: an adder waiting on it re-creates the file
                except OSError:
                    pass
            return after
        finally:
            os.close(fd)

    def add(self, paths: Sequence[str], signal: str, at: str, reason: str) -> None:
        """Keep these bumps for later; PendingUnavailable (or OSError) when they cannot be kept."""
        new = [{"path": p, "signal": signal, "at": at, "reason": reason} for p in paths]

        def edit(current: list[dict[str, Any]]) -> list[dict[str, Any]]:
            if len(current) + len(new) > MAX_LINES:
                raise PendingUnavailable(errno.ENOSPC, f"{MAX_LINES:,} reads are waiting already")
            return current + new

        try:
            self.file.parent.mkdir(exist_ok=True)
        except OSError as exc:
            raise PendingUnavailable(
                exc.errno or errno.EIO, f"{self.file.parent} cannot be made ({exc.strerror})"
            ) from None
        self._change(edit, create=True)

    def waiting(self) -> int:
        """How many bumps wait (0 when the file is absent or unusable)."""
        try:
            fd = self._open(False)
        except OSError:
            return 0
        if fd is None:
            return 0
        try:
            return len(self._read(fd))
        finally:
            os.close(fd)

    def take_back(self, path: str, previous: str, signal: str) -> bool:
        """A second click within the cooldown, while the first waits here: the waiting signal is
        replaced (withdrawn when `signal` is neutral: the read it came with stays). True if found."""
        found = [False]

        def edit(current: list[dict[str, Any]]) -> list[dict[str, Any]]:
            out = [dict(entry) for entry in current]  # a new list: what is written is compared with what was read
            for entry in reversed(out):
                if entry["path"] == path and entry["signal"] == previous:
                    entry["signal"] = signal
                    found[0] = True
                    break
            return out

        try:
            self._change(edit, create=False)
        except OSError:
            return False
        return found[0]

    def replay(self, write: Callable[[list[str], str, str], tuple[int, int]]) -> Replayed:
        """Write what waits, oldest first, through `write(paths, signal, at)` -> (landed, cooled);
        a write that raises stops the replay and keeps that line and every later one."""
        done = {"landed": 0, "cooled": 0, "reason": ""}

        def edit(current: list[dict[str, Any]]) -> list[dict[str, Any]]:
            ordered = sorted(range(len(current)), key=lambda i: (current[i]["at"], i))
            kept_from = len(ordered)
            groups: list[tuple[str, str, list[int]]] = []
            for i in ordered:
                entry = current[i]
                if groups and groups[-1][0] == entry["signal"] and groups[-1][1] == entry["at"]:
                    groups[-1][2].append(i)
                else:
                    groups.append((entry["signal"], entry["at"], [i]))
            taken = 0
            for signal, at, members in groups:
                try:
                    landed, cooled = write([current[i]["path"] for i in members], signal, at)
                except Exception as exc:  # noqa: BLE001 - the plane refused again: keep the rest for later
                    done["reason"] = str(exc) or type(exc).__name__
                    kept_from = taken
                    break
                done["landed"] += landed
                done["cooled"] += cooled
                taken += len(members)
            return [current[i] for i in ordered[kept_from:]] if kept_from < len(ordered) else []

        try:
            left = self._change(edit, create=False)
        except OSError as exc:
            return Replayed(reason=str(exc))
        return Replayed(done["landed"], done["cooled"], len(left), done["reason"])
