"""What `.memhtml/state.db` is: known by the file it is, not by the handle once opened (issue 40).

The state plane is one file shared with memhtml's CLI and with whoever else touches the store: an
agent restoring a backup (`mv backup.db state.db`: a new inode), a `rm -rf .memhtml` to reset the
index, a hostile or careless tree in which `state.db` is a FIFO, a device, a folder or a symbolic
link to a database outside the store. An open SQLite handle survives all of these and goes on
reading the old, unlinked file (stale salience; every write then fails with "attempt to write a
readonly database"). So the file is identified by what it is, every time it matters:

* **identity**: `(st_dev, st_ino, file type)` of what the path names now (`stat` follows a link to
  its target). A connection records the identity of the file it attached; a different identity at
  the path (or none) means replaced, moved away, deleted or newly made, and the plane is attached
  again. The type is part of it: a FIFO or a new file can reuse a deleted file's inode number (the
  attached file's own number cannot be reused while SQLite holds it open). What changes inside the
  same file (another process's commit, a backup copied over it in place) SQLite sees itself, and
  `PRAGMA data_version` tells the salience arm (index/salience.py);
* **what may be opened**: a regular file whose real path lies inside the store, and whose SQLite
  companions (`-journal`, `-wal`, `-shm`) are absent or regular files too (SQLite reads a hot
  journal and both WAL files as part of the database, and would write through a link). Anything
  else is refused with a sentence and never opened: nothing blocks on a FIFO, nothing outside the
  store is read or written, and `.memhtml` itself may not lead out (a new `state.db` is not made
  through it).

Nothing here opens the database file: closing any descriptor of it would drop the POSIX locks
SQLite holds on it in this process (see index/salience.py `_file_mark`).
"""

from __future__ import annotations

import os
import stat as _stat
from dataclasses import dataclass
from pathlib import Path

from memhtml_desktop.guarded import kind_of, resolve_within

Ident = tuple[int, int, int]
"""`(st_dev, st_ino, S_IFMT)` of a file."""

COMPANIONS = ("-journal", "-wal", "-shm")


def ident_of(path: str | os.PathLike[str]) -> Ident | None:
    """The identity of what `path` names now (a link followed), or None when nothing is there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, _stat.S_IFMT(st.st_mode))


def signature_of(path: str | os.PathLike[str]) -> tuple | None:
    """The identity plus size and modification time: changes whenever the file is written too."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, _stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns)


def store_of(state_path: str | os.PathLike[str]) -> Path:
    """The store a state plane belongs to: the folder above `.memhtml/` (else the file's own folder)."""
    parent = Path(state_path).parent
    return parent.parent if parent.name == ".memhtml" else parent


@dataclass(frozen=True)
class PlaneFile:
    """The state plane's file as found: `path` is what to attach (the real file when `state.db` is
    a link inside the store), `ident` its identity (None: there is none), `refused` why it must not
    be opened ("" when it may)."""

    path: str
    ident: Ident | None
    refused: str = ""

    @property
    def absent(self) -> bool:
        return self.ident is None and not self.refused


def examine(state_path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> PlaneFile:
    """What is at `state_path` and whether it may be opened (see the module docstring)."""
    named = os.fspath(state_path)
    root = os.fspath(root) if root is not None else os.fspath(store_of(state_path))
    relative = os.path.relpath(named, root)
    try:
        os.lstat(named)
    except FileNotFoundError:
        if resolve_within(root, os.path.dirname(relative) or ".") is None:
            return PlaneFile(named, None, f"{named}: its folder is a symbolic link that leads out of the store; "
                                          "no state.db is made or opened there, so salience is off")  # fmt: skip
        return PlaneFile(named, None)
    except OSError as exc:
        return PlaneFile(named, None, f"{named} cannot be looked at ({exc.strerror or exc}); salience is off")
    real = resolve_within(root, relative)
    if real is None:
        return PlaneFile(named, ident_of(named), f"{named} is a symbolic link (or inside a linked folder) that leads "
                                                 "out of the store: it is not opened, so nothing outside the store is "
                                                 "read or written; salience is off")  # fmt: skip
    ident = ident_of(real)
    if ident is None:  # a link to nothing inside the store: there is no plane (a write makes one at the link)
        return PlaneFile(named, None, f"{named} is a symbolic link to a file that does not exist; salience is off")
    odd = odd_database_file(real, ident)
    if odd:
        return PlaneFile(named, ident, f"{_subject(named, odd)}; salience is off")
    return PlaneFile(real, ident)


def _subject(named: str, odd: str) -> str:
    """`odd` said of the file `named` ("X is a FIFO, …") or beside it ("X: X-wal beside it is …")."""
    return f"{named} {odd}" if odd.startswith("is ") else f"{named}: {odd}"


def odd_database_file(real: str, ident: Ident) -> str:
    """Why SQLite must not open the database at `real` (a resolved path whose identity is `ident`):
    it is not a regular file, or a companion SQLite would open with it (`-journal`, `-wal`, `-shm`)
    is a link or not a regular file. "" when it may be opened."""
    if not _stat.S_ISREG(ident[2]):
        return f"is {kind_of(ident[2])}, not a regular file: it is not opened (nothing waits on it)"
    for suffix in COMPANIONS:
        try:
            st = os.lstat(real + suffix)
        except OSError:
            continue
        if not _stat.S_ISREG(st.st_mode):
            what = "a symbolic link" if _stat.S_ISLNK(st.st_mode) else kind_of(st.st_mode)
            name = os.path.basename(real)
            return (f"{name}{suffix} beside it is {what}, not a regular file: {name} is not opened (SQLite would "
                    "read and write it as part of the database)")  # fmt: skip
    return ""


def refused_index(index_path: str | os.PathLike[str], root: str | os.PathLike[str]) -> str:
    """Why the index at `index_path` must not be opened, or "". It may live anywhere (the cache, a
    `--index` the user names); inside the store it must also resolve inside it, as every store file."""
    named = os.fspath(index_path)
    if named == ":memory:" or named.startswith("file:") or not os.path.lexists(named):
        return ""
    real = os.path.realpath(named)
    relative = os.path.relpath(os.path.abspath(named), os.fspath(root))
    if not relative.startswith(".." + os.sep) and relative != ".." and resolve_within(root, relative) is None:
        return f"the index {named} is inside the store and a symbolic link that leads out of it; it is not opened"
    ident = ident_of(real)
    if ident is None:
        return ""  # a dangling link: SQLite makes the file it names
    odd = odd_database_file(real, ident)
    return _subject(f"the index {named}", odd) if odd else ""


def change_words(before: Ident | None, now: PlaneFile) -> str:
    """What happened at the path, said plainly: from the identity a connection attached to what is there now."""
    if before is None:
        return "appeared (made by memhtml's CLI, or put back)" if now.ident is not None else "is still absent"
    if now.ident is None:
        return "was deleted or moved away"
    if now.refused:
        return f"was replaced by {kind_of(now.ident[2]) if not _stat.S_ISREG(now.ident[2]) else 'a file it cannot use'}"
    return "was replaced by another file (a new inode: a backup put back, a copy moved in)"
