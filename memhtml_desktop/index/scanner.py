"""Walking a store: which indexable files are on disk, and which of them may have changed.

Only the four PARA buckets are walked; `.git/` and `.memhtml/` are never entered. Symlinks are
resolved and anything whose target lies outside the store is skipped (agents write these trees,
and a link to ~/.ssh must never be read). Directories reached through a symlink are not followed,
which also makes a symlink loop harmless.
"""

from __future__ import annotations

import os
import stat as _stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from memhtml_desktop.domain.paths import BUCKETS, NOT_MEMORIES, is_indexable
from memhtml_desktop.guarded import FolderReader, TooLarge, Unreadable, read_guarded

# A memory is one fact. Anything this large is not one, and reading it would cost memory and time
# for every scan; it is listed as a problem instead.
MAX_FILE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class DiskFile:
    path: str  # store-relative, '/'-separated
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


def _inside(root_real: str, target: str) -> bool:
    return target == root_real or target.startswith(root_real + os.sep)


def walk_store(
    root: Path,
    *,
    on_skip: Callable[[Skipped], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Iterator[DiskFile]:
    """Yield every indexable regular file under the store's buckets, with its size and mtime."""
    for rel, size, mtime_ns in stat_walk(root, on_skip=on_skip, cancelled=cancelled):
        yield DiskFile(rel, size, mtime_ns)


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def stat_walk(
    root: Path,
    *,
    on_skip: Callable[[Skipped], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Iterator[tuple[str, int, int]]:
    """`walk_store` as plain (path, size, mtime_ns) tuples, in the same order: what a scan compares
    with the index. One `stat` per entry is the floor (an in-place save moves only the file's own
    mtime, not its folder's); the rest is kept to what a regular file with an ASCII name needs: its
    name checked, one `fstatat` relative to its folder's descriptor (no path to resolve again, and
    the type from the same call), one tuple. A folder is opened without following a link, so one
    swapped for a symlink after it was listed is not entered.
    """
    root_real = os.path.realpath(root)
    skip = on_skip or (lambda s: None)
    for bucket in BUCKETS:
        top = os.path.join(root, bucket)
        if not os.path.isdir(top) or os.path.islink(top):
            if os.path.islink(top):
                skip(Skipped(bucket, "symlinked bucket directory is not followed"))
            continue
        stack = [(top, bucket)]
        while stack:
            if cancelled is not None and cancelled():
                return
            directory, rel_dir = stack.pop()
            try:
                fd = os.open(directory, _DIR_FLAGS)
            except OSError as exc:
                skip(Skipped(rel_dir, f"directory unreadable: {exc.strerror or exc}"))
                continue
            try:
                try:
                    names = os.listdir(fd)
                except OSError as exc:
                    skip(Skipped(rel_dir, f"directory unreadable: {exc.strerror or exc}"))
                    continue
                names.sort()
                prefix = rel_dir + "/"
                for name in names:
                    if not name.isascii() and not _utf8(name):
                        # Agents can write any bytes; such a name could never be bound, stored or shown.
                        skip(
                            Skipped(
                                f"{prefix}{name.encode('utf-8', 'replace').decode('utf-8')}",
                                "file name is not valid UTF-8; not indexed",
                            )
                        )
                        continue
                    try:
                        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    except FileNotFoundError:
                        continue  # vanished mid-walk: nothing to index
                    except OSError as exc:
                        if is_indexable(prefix + name):
                            skip(Skipped(prefix + name, f"cannot stat: {exc.strerror or exc}"))
                        continue
                    mode = st.st_mode
                    if _stat.S_ISDIR(mode):
                        stack.append((os.path.join(directory, name), prefix + name))
                        continue
                    if _stat.S_ISLNK(mode):
                        found = _linked(root_real, os.path.join(directory, name), prefix + name, skip)
                        if found is not None:
                            yield found
                        continue
                    if not name.endswith(".html") or name in NOT_MEMORIES:
                        continue  # (the first segment is a bucket: what is_indexable asks beside this)
                    if not _stat.S_ISREG(mode):
                        skip(Skipped(prefix + name, "not a regular file"))
                        continue
                    yield prefix + name, st.st_size, st.st_mtime_ns
            finally:
                os.close(fd)


def _linked(root_real: str, path: str, rel: str, skip: Callable[[Skipped], None]) -> tuple[str, int, int] | None:
    """A symlink met in the walk: the file it names when that is a regular file inside the store."""
    target = os.path.realpath(path)
    if not _inside(root_real, target):
        if is_indexable(rel):
            skip(Skipped(rel, "symlink points outside the store; not read"))
        return None
    if os.path.isdir(target):
        if is_indexable(rel):
            skip(Skipped(rel, "symlink to a directory; not followed"))
        return None
    if not is_indexable(rel):
        return None
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return None  # a dangling link: nothing to index
    except OSError as exc:
        skip(Skipped(rel, f"cannot stat: {exc.strerror or exc}"))
        return None
    if not _stat.S_ISREG(st.st_mode):
        skip(Skipped(rel, "not a regular file"))
        return None
    return rel, st.st_size, st.st_mtime_ns


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def resolve_inside(root: Path, path: str) -> str | None:
    """The real file a store path names, or None when any component leads out of the store.

    Every component counts, not only the last: `areas/linkdir/x.html` with `areas/linkdir` a link
    to /elsewhere must not be read.
    """
    if not _utf8(path):
        return None
    full = os.path.join(root, *path.split("/"))
    target = os.path.realpath(full)
    return target if _inside(os.path.realpath(root), target) else None


def stat_one(root: Path, path: str) -> DiskFile | None:
    """The disk state of one store path, or None when it is gone, outside, or not an indexable file."""
    if not is_indexable(path):
        return None
    target = resolve_inside(root, path)
    if target is None:
        return None
    try:
        st = os.stat(target)
    except OSError:
        return None
    if not _stat.S_ISREG(st.st_mode):
        return None
    return DiskFile(path, st.st_size, st.st_mtime_ns)


def store_reader(root: Path) -> FolderReader:
    """A reader for many `read_bytes` of one store (close it when the batch is read)."""
    return FolderReader(root, cap=MAX_FILE_BYTES)


def read_bytes(root: Path, path: str, reader: FolderReader | None = None) -> bytes:
    """Read a store file, refusing anything over MAX_FILE_BYTES (raises ValueError).

    Through the one guard every store read uses (`guarded.read_guarded`): inside the store only,
    `O_NOFOLLOW | O_NONBLOCK` and an `fstat` of what was opened (a link or a FIFO swapped in after
    the scan's stat is refused, not followed or blocked on), regular files only, the size cap.
    `reader`: a `store_reader(root)` for a batch of files (each folder opened once)."""
    if not _utf8(path):
        raise ValueError("the path leads out of the store; not read")
    try:
        if reader is not None:
            return reader.read(path, what=path)
        return read_guarded(os.path.join(*path.split("/")), root=root, cap=MAX_FILE_BYTES, what=path)
    except TooLarge as exc:
        raise ValueError(
            f"file is {exc.size / 1_048_576:.1f} MB; memory files over {MAX_FILE_BYTES // 1_048_576} MB are not indexed"
        ) from None
    except Unreadable as exc:
        if "leads out of the store" in str(exc):
            raise ValueError("the path leads out of the store; not read") from None
        raise ValueError("not a regular file (it was replaced after the store was listed); not read") from None
