"""The store's last walk with nothing to do, kept beside the index: a walk that finds the same
files, sizes and times is known to have nothing to do without reading `sources` again.

`memhtml-desktop index` (and a search that refreshes without a watcher's lease) compares every
memory file's size and mtime with the index's `sources` row. The `stat`s are the floor; reading the
100,000 rows into a dictionary and comparing was a quarter of the rest (about 0.1 s of CPU at
100,000 memories on the shared two-core machine). So a pass that found nothing to do keeps its walk's
digest (BLAKE2b of every path, size and mtime in walk order) in `<index>.walk` (index/vector_file.py's
header), named by the index file's identity, the store and the index mark (`vectors_version`, which
every pass that changes a row moves, and the index's `uid`). The next pass walks as always and, when
its walk has that digest and the mark is the same, has nothing to do; anything
else (a file touched, added, gone; another mark; no file, or not a whole one) is compared with
`sources` as before, and the first pass with nothing to do keeps its walk again.

Why the mark is enough: a pass that changes any file's rows moves `vectors_version`; the one change
to `sources` that does not is a file whose mtime moved while its bytes did not (its row takes the new
mtime; its content is the same). A later walk equal to the kept one then means that file's mtime is
back at the kept value: the pass takes it as unchanged, where the comparison with `sources` would
have read it again. Both miss the same thing, bytes changed at the same size with the mtime set back
by hand to the value compared with; a scan has never caught that (`index --rebuild` does).
"""

from __future__ import annotations

import hashlib
import logging
import marshal
from pathlib import Path

import numpy as np

from memhtml_desktop.index import vector_file

log = logging.getLogger(__name__)

_FILE = "walk"
Walk = list[tuple[str, int, int]]


def digest(walked: Walk) -> str:
    """The walk's digest: BLAKE2b-128 of its marshal form (version 2, which writes no back-references,
    so equal walks give equal bytes; marshal is exact for str and int, so equal bytes are equal walks)."""
    return hashlib.blake2b(marshal.dumps(walked, 2), digest_size=16).hexdigest()


def _head(index_file: str, root: Path, version: int, uid: str | None) -> dict | None:
    if uid is None:
        return None
    return {"index": vector_file.identity(index_file), "store": str(root), "version": version, "uid": uid}


def same(index_file: str, root: Path, version: int, uid: str | None, walk_digest: str) -> bool:
    """Whether the walk of `walk_digest` is the walk kept for this index at this mark."""
    want = _head(index_file, root, version, uid)
    got = vector_file.read(vector_file.beside(index_file, _FILE)) if want is not None else None
    if got is None:
        return False
    head, _, _ = got
    return all(head.get(name) == value for name, value in want.items()) and head.get("walk") == walk_digest


def keep(index_file: str, root: Path, version: int, uid: str | None, walk_digest: str) -> bool:
    """Keep the digest of a pass's walk that found nothing to do beside the index; False when it
    cannot be (a cache: the next pass compares with `sources`, as without it)."""
    head = _head(index_file, root, version, uid)
    if head is None:
        return False
    head["walk"] = walk_digest
    try:
        vector_file.write(vector_file.beside(index_file, _FILE), head, {"none": np.zeros(0, dtype=np.uint8)})
    except (OSError, ValueError) as exc:
        log.info("the walk was not kept beside the index (%s)", exc)
        return False
    return True
