"""Exact nearest-file search over the stored chunk vectors.

The vectors live in SQLite (`embeddings.vec`, float32 little-endian, the format sqlite-vec reads).
Searching them in SQL costs a function call per chunk: measured on this 2-core machine at
100,000 x 384 (bench/search_bench.py), sqlite-vec's `vec_distance_cosine` over the BLOBs took
tens of milliseconds while a numpy matrix-vector product over an in-memory copy took ~3 ms. So
the default path keeps a read-only float32 matrix per index file, shared by every reader thread
of the process, and refreshes it when the writer bumps `index_state.vectors_version`.

The search is exact brute force (no approximate index): one product gives every chunk's cosine
distance, each file collapses to its best (minimum-distance) chunk so a long file cannot spend
several slots of the arm's candidate budget, and ties break on path. The fused statement then
receives the file order through a carray binding and applies the shared scope predicate in SQL,
so the vector arm obeys exactly the same scope as every other arm.

Distance is memhtml's `vector_distance_cos`: 1 - clamp(cos, -1, 1), in [0, 2]; a zero vector has
similarity 0 (distance 1).
"""

from __future__ import annotations

import bisect
import threading
from functools import cached_property
from dataclasses import dataclass, field, replace

import apsw
import numpy as np

from memhtml_desktop.index import changes
from memhtml_desktop.index.changes import IndexMark


def decode_vec(blob: bytes | None, dim: int | None = None) -> np.ndarray | None:
    """A float32 LE BLOB as a vector; None when NULL, empty or not a whole number of floats."""
    if not blob or len(blob) % 4:
        return None
    vec = np.frombuffer(blob, dtype="<f4")
    if dim is not None and vec.shape[0] != dim:
        return None
    return vec


def encode_vec(vec: np.ndarray) -> bytes:
    return np.ascontiguousarray(vec, dtype="<f4").tobytes()


def _normalise_in_place(matrix: np.ndarray, rows: list[int]) -> None:
    """Scale the given rows to unit length (zero rows stay zero), a slice at a time.

    Fancy indexing (`matrix[rows] /= ...`) and `np.linalg.norm` each make whole-matrix temporaries;
    at 100,000 x 384 those were several copies of a 154 MB matrix at the peak.
    """
    if len(rows) == matrix.shape[0]:
        spans = [slice(start, min(start + 8192, matrix.shape[0])) for start in range(0, matrix.shape[0], 8192)]
    else:
        index = np.asarray(rows, dtype=np.int64)
        spans = [index[start : start + 8192] for start in range(0, index.shape[0], 8192)]
    for span in spans:
        block = matrix[span]
        norms = np.sqrt(np.einsum("ij,ij->i", block, block))
        norms[norms == 0] = 1.0
        block /= norms[:, None]
        matrix[span] = block


@dataclass
class VectorSnapshot:
    """An immutable view of one vector space at one `vectors_version`.

    Chunks are sorted by file rowid so `np.minimum.reduceat` collapses them per file.
    """

    version: int
    space: str
    chunk_ids: np.ndarray  # object: the chunk id of each row
    chunk_file: np.ndarray  # int64 file rowid per chunk row
    chunk_ordinal: np.ndarray  # int32
    matrix: np.ndarray  # float32 (n_chunks, dim), rows unit-norm (or zero)
    file_rowids: np.ndarray  # int64, unique, ascending
    file_starts: np.ndarray  # index of each file's first chunk row
    file_path_rank: np.ndarray  # rank of each file's path in path order (tie-break)
    first_chunk_row: np.ndarray  # per file: row of its lowest-ordinal chunk
    chunk_row: dict[str, int] = field(default_factory=dict)
    rowid_to_file: dict[int, int] = field(default_factory=dict)
    file_paths: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=object))  # aligned with file_rowids
    mark: IndexMark | None = None  # the index it was read from (None: not followable by the change log)

    @property
    def size(self) -> int:
        return int(self.matrix.shape[0])

    def file_similarities(self, query: np.ndarray) -> np.ndarray:
        """Best-chunk cosine similarity per file, aligned with `file_rowids` (unclamped)."""
        if self.size == 0:
            return np.zeros(0, dtype=np.float32)
        q = np.asarray(query, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        if norm == 0.0:
            return np.zeros(self.file_rowids.shape[0], dtype=np.float32)
        sims = self.matrix @ (q / norm)
        if self.file_rowids.shape[0] == self.size:
            return sims
        return np.maximum.reduceat(sims, self.file_starts)

    def ranked_files(self, query: np.ndarray, top: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """File rowids ordered by (distance, path) and their distances; the first `top` only if set.

        Works on similarities so the only full-length passes are the product itself, one
        argpartition and one comparison (files tied at the cut are all kept, then ordered by
        path, so the cut never depends on argpartition's arbitrary choice among equals).
        """
        sims = self.file_similarities(query)
        n = sims.shape[0]
        if n == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if top is not None and top < n:
            cut = sims[np.argpartition(sims, n - top)[n - top :]].min()
            pool = np.flatnonzero(sims >= cut)
        else:
            pool = np.arange(n)
        order = pool[np.lexsort((self.file_path_rank[pool], -sims[pool]))]
        if top is not None:
            order = order[:top]
        return self.file_rowids[order], (1.0 - np.clip(sims[order], -1.0, 1.0)).astype(np.float32)

    def best_similarities(self, query: np.ndarray, file_rowids: list[int]) -> dict[int, float]:
        """Best-chunk cosine for a few files only (the fused pool): their chunks, not the matrix.

        A file with no vector in this snapshot is left out.
        """
        q = np.asarray(query, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        files = self.file_positions(file_rowids)
        wanted = np.asarray(file_rowids, dtype=np.int64)[files >= 0]
        files = files[files >= 0]
        if not files.shape[0] or norm == 0.0:
            return dict.fromkeys(wanted.tolist(), 0.0)
        starts = self.file_starts[files]
        stops = np.append(self.file_starts, self.size)[files + 1]
        lengths = stops - starts
        # every wanted file's chunk rows, file after file (what concatenating their ranges gives)
        offsets = np.cumsum(lengths) - lengths
        rows = np.repeat(starts - offsets, lengths) + np.arange(int(lengths.sum()))
        sims = np.clip(self.matrix[rows] @ (q / norm), -1.0, 1.0)
        best = np.maximum.reduceat(sims, offsets) if rows.shape[0] != files.shape[0] else sims
        return dict(zip(wanted.tolist(), best.astype(np.float64).tolist()))

    def file_positions(self, file_rowids) -> np.ndarray:
        """Each rowid's position in `file_rowids` (the snapshot's files), -1 for a file it lacks."""
        wanted = np.asarray(file_rowids, dtype=np.int64).reshape(-1)
        if not self.file_rowids.shape[0] or not wanted.shape[0]:
            return np.full(wanted.shape[0], -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.file_rowids, wanted), self.file_rowids.shape[0] - 1)
        return np.where(self.file_rowids[at] == wanted, at, -1)

    def chunk_distances(self, query: np.ndarray, rows: np.ndarray) -> np.ndarray:
        q = np.asarray(query, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        if norm == 0.0 or rows.size == 0:
            return np.ones(rows.shape[0], dtype=np.float32)
        sims = self.matrix[rows] @ (q / norm)
        return 1.0 - np.clip(sims, -1.0, 1.0)

    def file_vector(self, file_rowid: int) -> np.ndarray | None:
        """The vector of a file's lowest-ordinal embedded chunk (what MMR and polarity compare)."""
        index = self.rowid_to_file.get(int(file_rowid))
        if index is None:
            return None
        return self.matrix[self.first_chunk_row[index]]


def _empty(version: int, space: str, dim: int) -> VectorSnapshot:
    return VectorSnapshot(
        version=version,
        space=space,
        chunk_ids=np.empty(0, dtype=object),
        chunk_file=np.zeros(0, dtype=np.int64),
        chunk_ordinal=np.zeros(0, dtype=np.int32),
        matrix=np.zeros((0, dim), dtype=np.float32),
        file_rowids=np.zeros(0, dtype=np.int64),
        file_starts=np.zeros(0, dtype=np.int64),
        file_path_rank=np.zeros(0, dtype=np.int64),
        first_chunk_row=np.zeros(0, dtype=np.int64),
    )


_JOIN = (
    # Chunks join on content, not on chunks.path: two files with one body share a chunk row
    # (its path names only one of them), and both deserve their vector rank.
    "SELECT f.rowid, f.path, c.chunk_id, c.ordinal FROM {source} "
    "{join} chunks c ON c.content_hash = f.content_hash "
    "{join} embeddings e ON e.chunk_id = c.chunk_id "
    "WHERE e.model = ?1 AND e.dim = ?2 "
    "ORDER BY f.rowid, c.ordinal"
)


def _read_vectors(conn: apsw.Connection, matrix: np.ndarray, chunk_ids, rows: list[int], dim: int) -> None:
    """Fill `matrix[rows]` with the stored vectors of `chunk_ids[row]`, unit-normalised in place.

    Decoded straight into the matrix rows: no per-vector arrays and no second copy of the matrix
    (at 100,000 chunks the copies cost ~600 MB of peak RSS). A row whose vector is unreadable stays zero.
    """
    row_of: dict[str, list[int]] = {}  # one body can back several files: several rows
    for i in rows:
        row_of.setdefault(chunk_ids[i], []).append(i)
    wanted = tuple(row_of)
    for start in range(0, len(rows), 8192):
        matrix[rows[start : start + 8192]] = 0.0
    for start in range(0, len(wanted), 20000):
        batch = wanted[start : start + 20000]
        for chunk_id, blob in conn.execute(
            "SELECT e.chunk_id, e.vec FROM embeddings e WHERE e.chunk_id IN carray(?1)",
            (apsw.carray(batch),),
        ):
            vec = decode_vec(blob, dim)
            if vec is not None:
                matrix[row_of[chunk_id]] = vec
    _normalise_in_place(matrix, rows)


def _objects(items) -> np.ndarray:
    """A 1-d object array of `items` (strings stay Python strings; fancy indexing stays in C)."""
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _index_of(keys: np.ndarray) -> dict:
    return dict(zip(keys.tolist(), range(len(keys))))


def _snapshot(version: int, space: str, mark: IndexMark | None, chunk_ids: np.ndarray, chunk_file: np.ndarray,
              chunk_ordinal: np.ndarray, matrix: np.ndarray, paths: np.ndarray, path_rank: np.ndarray,
              chunk_row: dict | None = None, rowid_to_file: dict | None = None) -> VectorSnapshot:  # fmt: skip
    file_rowids, file_starts = np.unique(chunk_file, return_index=True)
    return VectorSnapshot(
        version=version,
        space=space,
        chunk_ids=chunk_ids,
        chunk_file=chunk_file,
        chunk_ordinal=chunk_ordinal,
        matrix=matrix,
        file_rowids=file_rowids,
        file_starts=file_starts,
        file_path_rank=path_rank,
        first_chunk_row=file_starts.copy(),  # rows are ordinal-sorted within a file
        chunk_row=_index_of(chunk_ids) if chunk_row is None else chunk_row,
        rowid_to_file=_index_of(file_rowids) if rowid_to_file is None else rowid_to_file,
        file_paths=paths,
        mark=mark,
    )


def _build(conn: apsw.Connection, version: int, space: str, dim: int, previous: VectorSnapshot | None,
           mark: IndexMark | None = None) -> VectorSnapshot:  # fmt: skip
    """Every file's embedded chunks, read whole (vectors reused from `previous` by chunk id)."""
    rows = conn.execute(_JOIN.format(source="files f", join="JOIN"), (space, dim)).fetchall()
    if not rows:
        return replace(_empty(version, space, dim), mark=mark)
    chunk_ids = _objects([r[2] for r in rows])
    matrix = np.empty((len(rows), dim), dtype=np.float32)
    reuse = previous if previous is not None and previous.space == space and previous.matrix.shape[1:] == (dim,) else None
    missing: list[int] = []
    for i, chunk_id in enumerate(chunk_ids.tolist()):
        old = reuse.chunk_row.get(chunk_id) if reuse is not None else None
        if old is None:
            missing.append(i)
        else:
            matrix[i] = reuse.matrix[old]
    if missing:
        _read_vectors(conn, matrix, chunk_ids, missing, dim)
    chunk_file = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    chunk_ordinal = np.fromiter((r[3] for r in rows), dtype=np.int32, count=len(rows))
    _, starts = np.unique(chunk_file, return_index=True)
    paths = [rows[s][1] for s in starts.tolist()]
    path_rank = np.empty(len(paths), dtype=np.int64)
    path_rank[sorted(range(len(paths)), key=paths.__getitem__)] = np.arange(len(paths))
    return _snapshot(version, space, mark, chunk_ids, chunk_file, chunk_ordinal, matrix, _objects(paths), path_rank)


def _merge(old: np.ndarray, keep: np.ndarray, fresh: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where `old[keep]` (ascending) and `fresh` (ascending, none equal to a kept value) land in
    their merge: (positions of the kept entries, positions of the fresh ones)."""
    kept = old[keep]
    fresh_at = np.searchsorted(kept, fresh) + np.arange(fresh.shape[0])
    landed = np.ones(kept.shape[0] + fresh.shape[0], dtype=bool)
    landed[fresh_at] = False
    return np.flatnonzero(landed), fresh_at


def _ranks(kept_rank: np.ndarray, kept_paths: np.ndarray, fresh_paths: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Path-order ranks after `fresh_paths` join files whose ranks were `kept_rank` (a subset of
    the ranks of all files before): what sorting every path again gives, without sorting them."""
    order = np.argsort(kept_rank, kind="stable")
    compressed = np.empty(order.shape[0], dtype=np.int64)
    compressed[order] = np.arange(order.shape[0])
    ordered = kept_paths[order]
    by_path = sorted(range(len(fresh_paths)), key=fresh_paths.__getitem__)
    below = np.array([bisect.bisect_left(ordered, fresh_paths[j]) for j in by_path], dtype=np.int64)
    fresh_rank = np.empty(len(fresh_paths), dtype=np.int64)
    fresh_rank[by_path] = below + np.arange(len(fresh_paths))
    return compressed + np.searchsorted(below, compressed, side="right"), fresh_rank


def _patch(conn: apsw.Connection, previous: VectorSnapshot, version: int, dim: int, changed: np.ndarray,
           mark: IndexMark) -> VectorSnapshot:  # fmt: skip
    """`previous` with the chunks of the `changed` files read again (their vectors from SQL); every
    other row is copied as it is, or shared when only names moved. What `_build` returns for the
    index as it stands (tests/index/test_incremental_caches.py holds them equal)."""
    space = previous.space
    fresh = conn.execute(
        # CROSS JOIN: from the few changed rowids outwards (left to itself the planner walked every
        # vector of the space first: 0.2-0.3 s for two files)
        _JOIN.format(source="carray(?3) d CROSS JOIN files f ON f.rowid = d.value", join="CROSS JOIN"),
        (space, dim, apsw.carray(np.ascontiguousarray(changed, dtype=np.int64))),
    ).fetchall()
    fresh_ids = _objects([r[2] for r in fresh])
    fresh_file = np.fromiter((r[0] for r in fresh), dtype=np.int64, count=len(fresh))
    fresh_ordinal = np.fromiter((r[3] for r in fresh), dtype=np.int32, count=len(fresh))
    fresh_matrix = np.empty((len(fresh), dim), dtype=np.float32)
    if fresh:
        _read_vectors(conn, fresh_matrix, fresh_ids, list(range(len(fresh))), dim)
    gone = np.isin(previous.chunk_file, changed)
    old_rows = np.flatnonzero(gone)
    # Files: those left keep their path and relative rank, the changed ones come in afresh.
    file_gone = np.isin(previous.file_rowids, changed)
    fresh_rowids, fresh_starts = np.unique(fresh_file, return_index=True)
    fresh_paths = [fresh[s][1] for s in fresh_starts.tolist()]
    kept_file_at, fresh_file_at = _merge(previous.file_rowids, ~file_gone, fresh_rowids)
    files = kept_file_at.shape[0] + fresh_file_at.shape[0]
    paths = np.empty(files, dtype=object)
    paths[kept_file_at] = previous.file_paths[~file_gone]
    paths[fresh_file_at] = fresh_paths
    kept_rank, fresh_rank = _ranks(previous.file_path_rank[~file_gone], previous.file_paths[~file_gone], fresh_paths)
    path_rank = np.empty(files, dtype=np.int64)
    path_rank[kept_file_at] = kept_rank
    path_rank[fresh_file_at] = fresh_rank
    same_files = np.array_equal(previous.file_rowids[file_gone], fresh_rowids)
    # Only names or flags moved (an archive, a move): the same chunks with the same vectors stay
    # where they were, and the matrix and its indexes are shared instead of copied.
    if (
        old_rows.shape[0] == len(fresh)
        and np.array_equal(previous.chunk_ids[old_rows], fresh_ids)
        and np.array_equal(previous.chunk_file[old_rows], fresh_file)
        and np.array_equal(previous.chunk_ordinal[old_rows], fresh_ordinal)
        and np.array_equal(previous.matrix[old_rows], fresh_matrix)
    ):
        return _snapshot(version, space, mark, previous.chunk_ids, previous.chunk_file, previous.chunk_ordinal,
                         previous.matrix, paths, path_rank, previous.chunk_row, previous.rowid_to_file)  # fmt: skip
    kept_at, fresh_at = _merge(previous.chunk_file, ~gone, fresh_file)
    total = kept_at.shape[0] + fresh_at.shape[0]
    chunk_ids = np.empty(total, dtype=object)
    chunk_file = np.empty(total, dtype=np.int64)
    chunk_ordinal = np.empty(total, dtype=np.int32)
    for out, old, new in ((chunk_ids, previous.chunk_ids, fresh_ids), (chunk_file, previous.chunk_file, fresh_file),
                          (chunk_ordinal, previous.chunk_ordinal, fresh_ordinal)):  # fmt: skip
        out[kept_at] = old[~gone]
        out[fresh_at] = new
    matrix = np.empty((total, dim), dtype=np.float32)
    source = np.full(total, -1, dtype=np.int64)
    source[kept_at] = np.flatnonzero(~gone)
    _copy_runs(matrix, previous.matrix, source)
    matrix[fresh_at] = fresh_matrix
    return _snapshot(version, space, mark, chunk_ids, chunk_file, chunk_ordinal, matrix, paths, path_rank,
                     rowid_to_file=previous.rowid_to_file if same_files else None)  # fmt: skip


def _copy_runs(out: np.ndarray, old: np.ndarray, source: np.ndarray) -> None:
    """`out[i] = old[source[i]]` for every `source[i] >= 0`, a contiguous run at a time (slice
    copies: a fancy-index gather would build a temporary as large as the matrix)."""
    kept = np.flatnonzero(source >= 0)
    if kept.shape[0] == 0:
        return
    src = source[kept]
    breaks = np.flatnonzero((np.diff(kept) != 1) | (np.diff(src) != 1)) + 1
    for a, b in zip(np.concatenate(([0], breaks)).tolist(), np.concatenate((breaks, [kept.shape[0]])).tolist()):
        out[kept[a] : kept[b - 1] + 1] = old[src[a] : src[b - 1] + 1]


class VectorCache:
    """Process-wide snapshots keyed by index file; refreshed lazily, never on the GUI thread.

    Readers call `snapshot(conn, space, dim)` at the start of a search: one cheap read of
    `vectors_version`, and when it moved, the rows of the memories the change log names since the
    snapshot's version patched in (index/changes.py); a rebuild (reusing unchanged vectors by chunk
    id) only when the log cannot say or names too many.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshots: dict[tuple[str, str], VectorSnapshot] = {}
        self._coverage: dict[tuple[str, str], _Coverage] = {}
        self.patched = 0  # how many refreshes were patches, not rebuilds (the tests read it)

    def snapshot(self, conn: apsw.Connection, key: str, space: str, dim: int) -> VectorSnapshot:
        with conn:  # one read: the version, the change log and the rows agree
            now = changes.mark(conn)
            with self._lock:
                current = self._snapshots.get((key, space))
                if current is not None and current.version == now.version and current.mark is not None \
                        and current.mark.uid == now.uid:  # fmt: skip
                    return current
                changed = None
                if current is not None and current.mark is not None and current.matrix.shape[1:] == (dim,):
                    changed = changes.changed_files(conn, current.mark, now)
                if changed is not None:
                    # nothing logged (a version moved by a write that touched no memory): the same rows
                    snap = _patch(conn, current, now.version, dim, changed, now) if changed.shape[0] \
                        else replace(current, version=now.version, mark=now)  # fmt: skip
                    self.patched += 1
                else:
                    snap = _build(conn, now.version, space, dim, current, now)
                self._snapshots[(key, space)] = snap
                return snap

    def coverage(self, conn: apsw.Connection, key: str, space: str) -> tuple[int, int]:
        """(live memories, live memories with every chunk's vector in `space`): counted once, then
        followed through the change log (a cold store's vectors arrive batch by batch, newest
        memories first). Archived memories are not counted: the header speaks of the live store.
        A memory with no chunk counts as having its vectors (there is nothing to embed).
        """
        with conn:
            now = changes.mark(conn)
            memo_key = (key, space)
            with self._lock:
                memo = self._coverage.get(memo_key)
            if memo is not None and memo.mark == now:
                return memo.counts
            changed = changes.changed_files(conn, memo.mark, now) if memo is not None else None
            if changed is None:
                fresh = _Coverage.count(conn, space, now)
            else:
                fresh = memo.patched(conn, space, now, changed) if changed.shape[0] else _Coverage(now, memo.live, memo.uncovered)
        with self._lock:
            self._coverage[memo_key] = fresh
        return fresh.counts

    def clear(self) -> None:
        with self._lock:
            self._snapshots.clear()
            self._coverage.clear()


_LIVE_SQL = "SELECT rowid FROM files WHERE archived = 0"
# Memories with a chunk lacking a vector in the space, found from the chunks that lack one: two
# narrow indexes walked (the chunk ids; which chunk has a vector in which space), not the memories'
# rows (counting memory by memory walked the files, chunks and embeddings tables: 0.3-0.7 s at 20,000).
_UNCOVERED_SQL = (
    "SELECT f.rowid FROM files f WHERE f.content_hash IN (SELECT c2.content_hash FROM chunks c2 WHERE c2.chunk_id IN "
    "(SELECT c.chunk_id FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM embeddings e INDEXED BY embeddings_space "
    "WHERE e.chunk_id = c.chunk_id AND e.model = ?1)))"
)
_CHANGED_SQL = (
    "SELECT f.rowid, f.archived = 0, EXISTS (SELECT 1 FROM chunks c WHERE c.content_hash = f.content_hash AND NOT EXISTS "
    "(SELECT 1 FROM embeddings e WHERE e.chunk_id = c.chunk_id AND e.model = ?1)) "
    "FROM carray(?2) d CROSS JOIN files f ON f.rowid = d.value"
)


@dataclass(frozen=True)
class _Coverage:
    """The live memories and the memories (live or not) with a chunk lacking a vector."""

    mark: IndexMark
    live: frozenset[int]
    uncovered: frozenset[int]

    @cached_property
    def counts(self) -> tuple[int, int]:
        return len(self.live), len(self.live) - len(self.live & self.uncovered)

    @classmethod
    def count(cls, conn: apsw.Connection, space: str, mark: IndexMark) -> "_Coverage":
        live = frozenset(r[0] for r in conn.execute(_LIVE_SQL))
        return cls(mark, live, frozenset(r[0] for r in conn.execute(_UNCOVERED_SQL, (space,))))

    def patched(self, conn: apsw.Connection, space: str, mark: IndexMark, changed: np.ndarray) -> "_Coverage":
        live, uncovered = set(self.live), set(self.uncovered)
        live.difference_update(changed.tolist())
        uncovered.difference_update(changed.tolist())
        binding = apsw.carray(np.ascontiguousarray(changed, dtype=np.int64))
        for rowid, is_live, lacking in conn.execute(_CHANGED_SQL, (space, binding)):
            if is_live:
                live.add(rowid)
            if lacking:
                uncovered.add(rowid)
        return _Coverage(mark, frozenset(live), frozenset(uncovered))


CACHE = VectorCache()
