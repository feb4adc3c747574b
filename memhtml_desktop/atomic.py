"""One way to replace a file whole: the helper every writer of a durable file uses.

A reader (memhtml's CLI, git, a second window) must see the old file or the whole new one, never
half of it, and a crash must leave one of the two. So: a temp file beside the target (same
filesystem, so the rename is atomic), the bytes, `fsync`, `os.replace`, then an `fsync` of the
directory so the rename itself survives a power cut. The temp file is removed on any failure.

The new file keeps the mode of the file it replaces; a new file gets `0o666` less the umask, as
`open()` and node's `writeFile` give it. `tempfile.mkstemp` would make it 0600, which silently
hides a shared export from the rest of the team.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path


def write_atomically(target: str | os.PathLike[str], data: bytes | Iterable[bytes]) -> Path:
    """Replace `target` with `data` (bytes, or byte chunks written one by one) atomically (see the
    module docstring); returns the path."""
    target = Path(target)
    directory = target.parent if str(target.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    temp = directory / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask decides
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            if isinstance(data, (bytes, bytearray, memoryview)):
                handle.write(data)
            else:
                handle.writelines(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_dir(directory)
    return target


def fsync_dir(directory: Path) -> None:
    """Make a rename in `directory` durable (POSIX); a filesystem that refuses is left as it is."""
    if os.name != "posix":  # pragma: no cover - Windows cannot open a directory for fsync
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some filesystems refuse; the rename is still done
        pass
    finally:
        os.close(fd)


def sync_filesystem(path: Path) -> None:
    """One barrier for many files: every write to the filesystem holding `path` is on disk when
    this returns (Linux `syncfs`; elsewhere `os.sync`, which flushes every filesystem)."""
    try:
        import ctypes

        syncfs = ctypes.CDLL(None, use_errno=True).syncfs
    except (AttributeError, OSError, ImportError):  # pragma: no cover - not Linux
        os.sync()
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        if syncfs(fd) != 0:  # pragma: no cover - a filesystem that refuses: the slow, sure way
            os.sync()
    finally:
        os.close(fd)
