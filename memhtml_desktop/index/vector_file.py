"""The vector snapshot kept in a file beside the index, so a new process maps it instead of rebuilding it.

A `memhtml-desktop search` is a new process every time, and rebuilding the snapshot (index/vectors.py)
from SQLite is one query over every chunk and one decode per stored vector: 3 s of a 3.6 s CLI call at
100,000 memories. The file holds the snapshot's arrays as they lie in memory, so a process maps them
(`mmap`, read-only: no copy, no decode) and checks the header against the index; index/vectors.py
decides what the file is worth (`VectorCache`): the same index at the same version is used as it is,
an older version of the same index is patched through the change log and written again, anything
else is rebuilt from SQL and written again.

Layout, little-endian: a 4096-byte header (magic, the header's length, the header as JSON, its
CRC-32), then each array at an offset the header names (the matrix on a page boundary, the others
on 64 bytes). The header names the index it was made from (its `uid`, `vectors_version` and the
change log's start, and the index file's device and inode) and the space; the file's size must be
exactly what the header says.

What makes it safe beside other processes:
- It is written whole to a temporary file, fsynced and renamed over the old one
  (`atomic.write_atomically`): a reader sees the old file or the whole new one, and a reader that
  mapped the old one keeps reading it (the rename leaves its inode alone). A writer killed midway
  leaves only its temporary file, which no reader opens and the next writer removes.
- A file whose header does not parse, whose CRC or size does not match, or which names another
  index file, another index (`uid`), another space or a version the index has not reached is never
  used (index/vectors.py rebuilds).
- It is a cache: failing to write it (a full disk, a read-only folder) costs the next process the
  rebuild, never the search; `write` raises and the caller logs and goes on.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
import re
import weakref
import zlib
from pathlib import Path

import numpy as np

MAGIC = b"MHDVECS\x00"
FORMAT = 1
HEADER_BYTES = 4096
PAGE = mmap.PAGESIZE


def path_for(index_file: str | os.PathLike[str], space: str) -> Path:
    """The file beside `index_file` for one vector space (`model@dim`): a readable name and a hash."""
    slug = re.sub(r"[^A-Za-z0-9.@-]+", "_", space)[:60]
    digest = hashlib.sha1(space.encode("utf-8", "replace")).hexdigest()[:8]
    return Path(f"{index_file}.vectors-{slug}-{digest}")


def beside(index_file: str | os.PathLike[str], what: str) -> Path:
    """Another cache kept beside `index_file` in this file's format (the salience list's index half)."""
    return Path(f"{index_file}.{what}")


def identity(index_file: str | os.PathLike[str]) -> list[int] | None:
    """The index file's (device, inode): a copy or a replacement of it is another index."""
    try:
        st = os.stat(index_file)
    except OSError:
        return None
    return [st.st_dev, st.st_ino]


def _aligned(offset: int, to: int) -> int:
    return -(-offset // to) * to


def write(path: Path, header: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write `arrays` (the first one page-aligned: the matrix) and `header` to `path`, atomically.

    Raises OSError when it cannot (the caller decides that a cache not written is no failure)."""
    from memhtml_desktop.atomic import write_atomically

    sections: dict[str, list] = {}
    offset = HEADER_BYTES
    for i, (name, array) in enumerate(arrays.items()):
        offset = _aligned(offset, PAGE if i == 0 else 64)
        array = np.ascontiguousarray(array)
        sections[name] = [offset, array.dtype.str, list(array.shape)]
        offset += array.nbytes
    head = dict(header, format=FORMAT, sections=sections, size=offset)
    text = json.dumps(head, sort_keys=True, separators=(",", ":")).encode("utf-8")
    prefix = MAGIC + len(text).to_bytes(4, "little") + text + zlib.crc32(text).to_bytes(4, "little")
    if len(prefix) > HEADER_BYTES:
        raise OSError(f"vector file header too long ({len(prefix)} bytes)")
    remove_leftovers(path)

    def chunks():
        at = len(prefix)
        yield prefix
        for name, array in arrays.items():
            start = sections[name][0]
            yield bytes(start - at)
            data = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
            for piece in range(0, data.shape[0], 1 << 24):  # 16 MB at a time: no second copy of the matrix
                yield data[piece : piece + (1 << 24)]
            at = start + data.shape[0]

    write_atomically(path, chunks())


def read(path: Path) -> tuple[dict, dict[str, np.ndarray], "Mapping"] | None:
    """The header and the arrays of the file at `path`, mapped read-only, and the mapping; None when
    there is no such file or it is not a whole one of ours (never an exception for what it holds)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size < HEADER_BYTES:
            os.close(fd)
            return None
        mapped = mmap.mmap(fd, size, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        os.close(fd)
        return None
    header = _header(mapped, size)
    if header is None:
        mapped.close()
        os.close(fd)
        return None
    arrays = {}
    try:
        for name, (offset, dtype, shape) in header["sections"].items():
            kind = np.dtype(dtype)
            count = int(np.prod(shape, dtype=np.int64)) if shape else 1
            if offset < HEADER_BYTES or offset + count * kind.itemsize > size or kind.hasobject:
                raise ValueError(f"section {name} out of bounds")
            arrays[name] = np.frombuffer(mapped, dtype=kind, count=count, offset=offset).reshape(shape)
    except (TypeError, ValueError, KeyError):
        mapped.close()
        os.close(fd)
        return None
    return header, arrays, Mapping(mapped, fd)


class Mapping:
    """The file as read: its mapping and a descriptor of the same inode (for `pread`), which stays
    open for the mapping's life (a rename over the file leaves both on this inode)."""

    def __init__(self, mapped: mmap.mmap, fd: int) -> None:
        self.mapped, self.fd = mapped, fd
        weakref.finalize(self, os.close, fd)

    def pages(self, offset: int) -> "Pages":
        return Pages(self.mapped, offset, os.dup(self.fd))


class Pages:
    """The pages of a mapped matrix, given back to the kernel as a product passes over them — in a
    one-shot process (the command line: `give_back`).

    A process's peak memory counts the file's pages it has mapped: the whole 150 MB matrix at
    100,000 memories once a product has read it, on top of the process's own. `product` reads it a
    block of rows at a time and drops each block's pages from the process (`MADV_DONTNEED`; they
    stay in the page cache), so a search holds one block at a time. A long-lived process (the
    engine, a benchmark's warm store) keeps them instead: mapping them again costs every search a
    page fault per few pages of the matrix — 20,000 memories, 40 searches interleaved on a loaded
    machine: p50 38.4 ms giving back, 28.6 ms keeping — and what it keeps is the file's size, once,
    in page cache the kernel can take back, not a growth.

    Blocks only where that changes no bit: with BLAS on one thread (as the command runs it,
    memhtml_desktop/threads.py) each row's dot product is computed alone, and the blocks' row counts
    (8,192; a gather's 256) are multiples of the rows a kernel groups, so every row comes out as in
    one product over the whole matrix (tests/index/test_vector_file.py holds them byte-equal). With
    several BLAS threads the rows are shared out by count, differently for a block than for the
    whole: the product is then made whole, as an in-memory snapshot makes it, and its pages given
    back after.
    """

    #: Whether products and gathers give the file's pages back (the command line sets it: a CLI
    #: process's peak memory is its user's figure; `cli/common.py` `open_store`).
    give_back = False

    BLOCK = 8192
    #: Scattered rows up to this many are read with `pread` into memory of their own: touching a
    #: mapping maps whole page-cache folios (up to 2 MB each on a recent kernel, whatever
    #: `madvise` says): 159 scattered rows mapped 110 MB of the file into the process.
    SCATTERED = 4096

    def __init__(self, mapped: mmap.mmap, offset: int, fd: int | None = None) -> None:
        from memhtml_desktop.threads import blas_threads

        self._mapped, self._offset = mapped, offset
        self.blocked = blas_threads() == 1
        self._fd = fd
        if fd is not None:
            weakref.finalize(self, os.close, fd)

    def _release(self, start: int, end: int) -> None:
        """Drop the process's mapping of the file's pages in [start, end) (rounded to whole pages),
        when this process gives them back (`give_back`)."""
        if not self.give_back:
            return
        start, end = start // PAGE * PAGE, -(-end // PAGE) * PAGE
        if end > start:
            with contextlib.suppress(OSError, ValueError):
                self._mapped.madvise(mmap.MADV_DONTNEED, start, end - start)

    def _end(self, matrix: np.ndarray) -> int:
        return self._offset + matrix.shape[0] * matrix.shape[1] * matrix.itemsize

    def product(self, matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
        """`matrix @ query`, the same bits."""
        if not self.blocked or not self.give_back:
            out = matrix @ query
            self._release(self._offset, self._end(matrix))
            return out
        n = matrix.shape[0]
        out = np.empty(n, dtype=np.float32)
        row_bytes = matrix.shape[1] * matrix.itemsize
        done = self._offset
        for start in range(0, n, self.BLOCK):
            stop = min(start + self.BLOCK, n)
            out[start:stop] = matrix[start:stop] @ query
            # whole pages only: the one shared with the next block goes with it
            upto = (self._offset + stop * row_bytes) // PAGE * PAGE if stop < n else self._end(matrix)
            if upto > done:
                self._release(done, upto)
                done = upto
        return out

    def rows(self, matrix: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """A copy of `matrix[rows]` that maps none of the file into the process (see SCATTERED)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if self._fd is None or rows.shape[0] > self.SCATTERED or not self.give_back:
            out = np.array(matrix[rows])
            self._release(self._offset, self._end(matrix))
            return out
        width = matrix.shape[1] * matrix.itemsize
        out = np.empty((rows.shape[0], matrix.shape[1]), dtype=matrix.dtype)
        flat = out.reshape(-1).view(np.uint8)
        for i, row in enumerate(rows.tolist()):
            data = os.pread(self._fd, width, self._offset + row * width)
            if len(data) != width:
                raise OSError(f"short read of the vector file at row {row}")
            flat[i * width : (i + 1) * width] = np.frombuffer(data, dtype=np.uint8)
        return out


def remove_leftovers(path: Path) -> None:
    """Remove the temporary files a killed writer of `path` left (`.NAME.PID.TOKEN.tmp`, PID gone)."""
    prefix = f".{path.name}."
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            if not (entry.name.startswith(prefix) and entry.name.endswith(".tmp")):
                continue
            pid = entry.name[len(prefix) :].split(".", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and not process_alive(int(pid)):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def process_alive(pid: int) -> bool:
    """Whether a process of this id is there (another user's counts: it exists)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive, and not ours to judge
    return True


def _header(mapped: mmap.mmap, size: int) -> dict | None:
    if mapped[: len(MAGIC)] != MAGIC:
        return None
    length = int.from_bytes(mapped[8:12], "little")
    if 12 + length + 4 > HEADER_BYTES:
        return None
    text = mapped[12 : 12 + length]
    if zlib.crc32(text) != int.from_bytes(mapped[12 + length : 16 + length], "little"):
        return None
    try:
        header = json.loads(text)
    except ValueError:
        return None
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("size") != size:
        return None
    if not isinstance(header.get("sections"), dict):
        return None
    return header
