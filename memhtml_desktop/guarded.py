"""One way to read a file the app did not write: the guard every read of a store file goes through.

Agents write these trees, and a committed file can be anything: a symbolic link to `/etc/passwd`
or to a secret (which a read-modify-commit would then copy into the repository the user pushes),
a link to `/dev/zero` (which a plain `read()` never finishes), a FIFO (whose `open()` blocks until
a writer appears), a 60 GB file. So a read here:

* resolves the path and refuses one whose target lies outside `root` (every component counts:
  `probes/x.jsonl` inside a linked folder that leads out is refused too);
* opens with `O_NOFOLLOW | O_NONBLOCK` (a link swapped in after the check fails the open; a FIFO
  swapped in does not block it) and checks what was opened with `fstat`: regular files only;
* reads at most `cap + 1` bytes and refuses a larger file, naming its size and the cap.

Memory files (`index/scanner.read_bytes`), probe sets and configurations under `.memhtml-desktop/`,
the state sidecar and the files the write core edits all read through `read_guarded`.
`Unreadable` carries a sentence for the user; a file that is simply absent raises
`FileNotFoundError` as `open()` would, so callers keep their "no such file" branch.
"""

from __future__ import annotations

import errno
import os
import stat as _stat
from pathlib import Path

#: The cap for small files the app reads whole from a store (probe sets, configurations, the
#: sidecar): far above any real one (a 10,000-probe set is ~2 MB), far below what would hurt.
SMALL_FILE_CAP = 16 * 1024 * 1024


class Unreadable(ValueError):
    """A store file the guard refused (outside the store, not a regular file, too large)."""


class TooLarge(Unreadable):
    """A file over the cap; `size` is what it holds (at least what was read), `cap` the limit."""

    def __init__(self, message: str, size: int, cap: int) -> None:
        super().__init__(message)
        self.size = size
        self.cap = cap


def inside(root_real: str, target: str) -> bool:
    return target == root_real or target.startswith(root_real.rstrip(os.sep) + os.sep)


def resolve_within(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> str | None:
    """The real file `path` (relative to `root`, '/'-separated, or absolute) names, or None when
    any component leads out of `root`."""
    full = os.path.join(os.fspath(root), os.fspath(path))
    target = os.path.realpath(full)
    key = os.fspath(root)
    if inside(_real_root(key), target):
        return target
    _REAL_ROOTS.pop(key, None)  # the same directory may be reached by another path now: ask afresh
    return target if inside(_real_root(key), target) else None


_REAL_ROOTS: dict[str, tuple[int, int, str]] = {}


def _real_root(root: str) -> str:
    """`realpath(root)`, remembered while `root` still names the same directory (device and inode
    by one `stat`): resolving it for every file was a tenth of a cold index's parsing (six
    `lstat`s a file, 20,000 files). A root re-pointed elsewhere names another directory and is
    resolved again; a target outside the remembered path is judged against a fresh resolution
    (`resolve_within`), so nothing is refused for a path the root no longer has."""
    try:
        st = os.stat(root)
    except OSError:
        return os.path.realpath(root)
    known = _REAL_ROOTS.get(root)
    if known is not None and known[:2] == (st.st_dev, st.st_ino):
        return known[2]
    real = os.path.realpath(root)
    _REAL_ROOTS[root] = (st.st_dev, st.st_ino, real)
    return real


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words ("a FIFO", "a device", "a directory")."""
    if _stat.S_ISFIFO(mode):
        return "a FIFO"
    if _stat.S_ISCHR(mode) or _stat.S_ISBLK(mode):
        return "a device"
    if _stat.S_ISDIR(mode):
        return "a directory"
    if _stat.S_ISSOCK(mode):
        return "a socket"
    return "a regular file" if _stat.S_ISREG(mode) else "not a regular file"


def _size_text(size: int) -> str:
    if size >= 1_048_576:
        return f"{size / 1_048_576:.1f} MB"
    return f"{size:,} bytes"


def read_guarded(
    file: str | os.PathLike[str],
    *,
    root: str | os.PathLike[str] | None = None,
    cap: int = SMALL_FILE_CAP,
    what: str = "file",
) -> bytes:
    """The bytes of `file`, read through the guard (see the module docstring).

    `root`: the file must resolve inside it (None: a file the user named on the command line,
    which may live anywhere, but is still a regular file under the cap). Raises Unreadable with
    the reason, FileNotFoundError when there is no file, OSError for anything else the OS says.
    """
    if root is not None:
        target = resolve_within(root, file)
        if target is None:
            raise Unreadable(
                f"{what} is a symbolic link (or inside a linked folder) that leads out of the store; not read"
            )
    else:
        target = os.fspath(file)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if root is not None:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Unreadable(f"{what} was replaced by a symbolic link while it was being read; not read") from None
        raise
    try:
        st = os.fstat(fd)  # before fdopen: it refuses a directory's descriptor with IsADirectoryError
        if not _stat.S_ISREG(st.st_mode):
            raise Unreadable(f"{what} is {kind_of(st.st_mode)}, not a regular file; not read")
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        if st.st_size > cap:
            raise TooLarge(
                f"{what} is {_size_text(st.st_size)}; files over {_size_text(cap)} are not read", st.st_size, cap
            )
        data = handle.read(cap + 1)
    if len(data) > cap:
        size = max(st.st_size, len(data))
        raise TooLarge(f"{what} is over {_size_text(cap)} (it grew while being read); not read", size, cap)
    return data


def is_regular_inside(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """True when `path` is a regular file (not a link) whose real path lies inside `root`: what
    a listing of store files offers (a `probes/*.jsonl` that is a link out is not a probe set)."""
    full = Path(root) / path
    try:
        st = os.lstat(full)
    except OSError:
        return False
    if _stat.S_ISLNK(st.st_mode):
        target = resolve_within(root, path)
        return target is not None and os.path.isfile(target)
    return _stat.S_ISREG(st.st_mode) and resolve_within(root, path) is not None


class FolderReader:
    """`read_guarded` for many files below one root, each folder opened once (a cold index reads
    20,000 files; the full guard resolved every one's path, a fifth of reading it).

    A file is reached from the root's own descriptor one component at a time, every folder and the
    file itself opened with `O_NOFOLLOW` relative to the folder before it: what is reached that way
    lies inside the root with no link on the way, which is what the full guard's resolution proves,
    and a link or a FIFO swapped in is refused by the open itself as there. Anything else (a link
    anywhere on the path, a name with `..`, a file that is not regular or is over the cap, any
    error) is handed to `read_guarded`, which says why, so the outcome and its words are the full
    guard's. The folders' descriptors are this reader's alone: close it (or use it as a context
    manager) when the batch is read."""

    def __init__(self, root: str | os.PathLike[str], *, cap: int = SMALL_FILE_CAP) -> None:
        self.root = os.fspath(root)
        self.cap = cap
        self._folders: dict[str, int | None] = {}

    def __enter__(self) -> "FolderReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        folders, self._folders = self._folders, {}
        for fd in folders.values():
            if fd is not None:
                os.close(fd)

    def read(self, path: str, *, what: str = "file") -> bytes:
        """The bytes of `path` (relative to the root, '/'-separated); raises as `read_guarded`."""
        folder, _, name = path.rpartition("/")
        data = None
        if name not in ("", ".", ".."):
            parent = self._folder(folder)
            if parent is not None:
                data = self._quick(parent, name)
        if data is not None:
            return data
        return read_guarded(os.path.join(*path.split("/")), root=self.root, cap=self.cap, what=what)

    def _quick(self, parent: int, name: str) -> bytes | None:
        """The file's bytes when it is a plain regular file under the cap; None for the full guard."""
        try:
            fd = os.open(name, _FILE_FLAGS, dir_fd=parent)
        except (OSError, ValueError):
            return None
        try:
            st = os.fstat(fd)
            if not _stat.S_ISREG(st.st_mode) or st.st_size > self.cap:
                return None
            data = os.read(fd, st.st_size + 1)
        except OSError:
            return None
        finally:
            os.close(fd)
        return data if len(data) <= st.st_size else None  # grown since its stat: the full guard reads it

    def _folder(self, folder: str) -> int | None:
        """The descriptor of `folder` ('' for the root), reached without following a link; None
        when it cannot be (a link, `..`, gone)."""
        if folder in self._folders:
            return self._folders[folder]
        fd = None
        try:
            if folder == "":
                fd = os.open(self.root, _FOLDER_FLAGS)
            else:
                up, _, name = folder.rpartition("/")
                parent = self._folder(up) if name not in ("", ".", "..") else None
                if parent is not None:
                    fd = os.open(name, _FOLDER_FLAGS | getattr(os, "O_NOFOLLOW", 0), dir_fd=parent)
        except (OSError, ValueError):
            fd = None
        self._folders[folder] = fd
        return fd


_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
