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

import threading
from dataclasses import dataclass, field

import apsw
import numpy as np


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
    chunk_ids: list[str]
    chunk_file: np.ndarray  # int64 file rowid per chunk row
    chunk_ordinal: np.ndarray  # int32
    matrix: np.ndarray  # float32 (n_chunks, dim), rows unit-norm (or zero)
    file_rowids: np.ndarray  # int64, unique, ascending
    file_starts: np.ndarray  # index of each file's first chunk row
    file_path_rank: np.ndarray  # rank of each file's path in path order (tie-break)
    first_chunk_row: np.ndarray  # per file: row of its lowest-ordinal chunk
    chunk_row: dict[str, int] = field(default_factory=dict)
    rowid_to_file: dict[int, int] = field(default_factory=dict)

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
        spans = []
        for rowid in file_rowids:
            index = self.rowid_to_file.get(int(rowid))
            if index is None:
                continue
            start = int(self.file_starts[index])
            stop = int(self.file_starts[index + 1]) if index + 1 < self.file_starts.shape[0] else self.size
            spans.append((int(rowid), start, stop))
        if not spans or norm == 0.0:
            return {rowid: 0.0 for rowid, _, _ in spans}
        rows = np.concatenate([np.arange(a, b) for _, a, b in spans])
        sims = np.clip(self.matrix[rows] @ (q / norm), -1.0, 1.0)
        out, at = {}, 0
        for rowid, a, b in spans:
            out[rowid] = float(sims[at : at + (b - a)].max())
            at += b - a
        return out

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
        chunk_ids=[],
        chunk_file=np.zeros(0, dtype=np.int64),
        chunk_ordinal=np.zeros(0, dtype=np.int32),
        matrix=np.zeros((0, dim), dtype=np.float32),
        file_rowids=np.zeros(0, dtype=np.int64),
        file_starts=np.zeros(0, dtype=np.int64),
        file_path_rank=np.zeros(0, dtype=np.int64),
        first_chunk_row=np.zeros(0, dtype=np.int64),
    )


def _build(conn: apsw.Connection, version: int, space: str, dim: int, previous: VectorSnapshot | None) -> VectorSnapshot:
    rows = conn.execute(
        # Chunks join on content, not on chunks.path: two files with one body share a chunk row
        # (its path names only one of them), and both deserve their vector rank.
        "SELECT f.rowid, f.path, c.chunk_id, c.ordinal FROM files f "
        "JOIN chunks c ON c.content_hash = f.content_hash "
        "JOIN embeddings e ON e.chunk_id = c.chunk_id "
        "WHERE e.model = ? AND e.dim = ? "
        "ORDER BY f.rowid, c.ordinal",
        (space, dim),
    ).fetchall()
    if not rows:
        return _empty(version, space, dim)
    chunk_ids = [r[2] for r in rows]
    matrix = np.empty((len(rows), dim), dtype=np.float32)
    reuse = previous if previous is not None and previous.space == space and previous.matrix.shape[1:] == (dim,) else None
    missing: list[int] = []
    for i, chunk_id in enumerate(chunk_ids):
        old = reuse.chunk_row.get(chunk_id) if reuse is not None else None
        if old is None:
            missing.append(i)
        else:
            matrix[i] = reuse.matrix[old]
    if missing:
        # Decode straight into the matrix rows and normalise them in place: no per-vector arrays
        # and no second copy of the matrix (at 100,000 chunks the copies cost ~600 MB of peak RSS).
        row_of: dict[str, list[int]] = {}  # one body can back several files: several rows
        for i in missing:
            row_of.setdefault(chunk_ids[i], []).append(i)
        wanted = tuple(row_of)
        for start in range(0, len(missing), 8192):
            matrix[missing[start : start + 8192]] = 0.0
        for start in range(0, len(wanted), 20000):
            batch = wanted[start : start + 20000]
            for chunk_id, blob in conn.execute(
                "SELECT e.chunk_id, e.vec FROM embeddings e WHERE e.chunk_id IN carray(?1)",
                (apsw.carray(batch),),
            ):
                vec = decode_vec(blob, dim)
                if vec is not None:
                    matrix[row_of[chunk_id]] = vec
        _normalise_in_place(matrix, missing)
    chunk_file = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    chunk_ordinal = np.fromiter((r[3] for r in rows), dtype=np.int32, count=len(rows))
    file_rowids, file_starts = np.unique(chunk_file, return_index=True)
    paths = [rows[s][1] for s in file_starts]
    path_order = sorted(range(len(paths)), key=paths.__getitem__)
    path_rank = np.empty(len(paths), dtype=np.int64)
    path_rank[path_order] = np.arange(len(paths))
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
        chunk_row={cid: i for i, cid in enumerate(chunk_ids)},
        rowid_to_file={int(rid): i for i, rid in enumerate(file_rowids)},
    )


class VectorCache:
    """Process-wide snapshots keyed by index file; refreshed lazily, never on the GUI thread.

    Readers call `snapshot(conn, space, dim)` at the start of a search: one cheap read of
    `vectors_version`, and a rebuild (reusing unchanged vectors by chunk id) only when it moved.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshots: dict[tuple[str, str], VectorSnapshot] = {}
        self._coverage: dict[tuple[str, str], tuple[int, tuple[int, int]]] = {}

    def snapshot(self, conn: apsw.Connection, key: str, space: str, dim: int) -> VectorSnapshot:
        (version,) = conn.execute("SELECT vectors_version FROM index_state WHERE id = 1").fetchone()
        with self._lock:
            current = self._snapshots.get((key, space))
            if current is not None and current.version == version:
                return current
            snap = _build(conn, version, space, dim, current)
            self._snapshots[(key, space)] = snap
            return snap

    def coverage(self, conn: apsw.Connection, key: str, space: str) -> tuple[int, int]:
        """(memories, memories with every chunk's vector in `space`), recounted only when the
        version moved (a cold store's vectors arrive batch by batch, newest memories first).

        Counting scans every memory; per search that was ~10 ms at 20,000 files for a number
        that changes only when the writer commits.
        """
        (version,) = conn.execute("SELECT vectors_version FROM index_state WHERE id = 1").fetchone()
        memo_key = (key, space)
        with self._lock:
            memo = self._coverage.get(memo_key)
            if memo is not None and memo[0] == version:
                return memo[1]
        row = conn.execute(
            "SELECT count(*), coalesce(sum(NOT EXISTS (SELECT 1 FROM chunks c LEFT JOIN embeddings e "
            "ON e.chunk_id = c.chunk_id WHERE c.content_hash = f.content_hash AND e.model IS NOT ?)), 0) FROM files f",
            (space,),
        ).fetchone()
        counts = (int(row[0]), int(row[1]))
        with self._lock:
            self._coverage[memo_key] = (version, counts)
        return counts

    def clear(self) -> None:
        with self._lock:
            self._snapshots.clear()
            self._coverage.clear()


CACHE = VectorCache()
