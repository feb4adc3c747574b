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
import logging
import threading
from dataclasses import dataclass, field, replace
from functools import cached_property

import apsw
import numpy as np

from memhtml_desktop.index import changes, vector_file
from memhtml_desktop.index.changes import IndexMark

log = logging.getLogger(__name__)


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


class Strings:
    """A column of strings (chunk ids, paths): Python objects as a build makes them, or UTF-8 bytes
    and where each string ends, as the snapshot file holds them (index/vector_file.py). Each form is
    made from the other only when asked for: a search on a mapped snapshot decodes a handful of
    chunk ids (`find`), never the 100,000 a patch or a rebuild reads.
    """

    def __init__(self, objects: np.ndarray | None = None, *, data: np.ndarray | None = None,
                 ends: np.ndarray | None = None, order: np.ndarray | None = None) -> None:  # fmt: skip
        if objects is None and (data is None or ends is None):
            raise ValueError("Strings needs objects, or data and ends")
        self._objects = objects
        self._data, self._ends, self._order = data, ends, order

    @classmethod
    def of(cls, items) -> "Strings":
        return cls(items if isinstance(items, np.ndarray) else _objects(list(items)))

    def __len__(self) -> int:
        return len(self._objects) if self._objects is not None else int(self._ends.shape[0])

    @property
    def decoded(self) -> bool:
        return self._objects is not None

    @property
    def objects(self) -> np.ndarray:
        """Every string, as a 1-d object array (decoded once)."""
        if self._objects is None:
            blob = self._data.tobytes()
            stops = self._ends.tolist()
            self._objects = _objects([blob[a:b].decode("utf-8") for a, b in zip([0, *stops[:-1]], stops)])
        return self._objects

    def at(self, i: int) -> str:
        if self._objects is not None:
            return self._objects[i]
        start = int(self._ends[i - 1]) if i else 0
        return self._data[start : int(self._ends[i])].tobytes().decode("utf-8")

    def encoded(self) -> tuple[np.ndarray, np.ndarray]:
        """(UTF-8 bytes of every string, one after another; where each ends), as the file keeps them."""
        if self._data is not None:
            return self._data, self._ends
        parts = [s.encode("utf-8") for s in self._objects.tolist()]
        ends = np.cumsum(np.fromiter(map(len, parts), dtype=np.int64, count=len(parts)), dtype=np.int64)
        return np.frombuffer(b"".join(parts), dtype=np.uint8), ends

    def order(self) -> np.ndarray:
        """Positions in string order (stable: equal strings keep their order)."""
        if self._order is None:
            items = self.objects
            self._order = np.array(sorted(range(len(items)), key=items.__getitem__), dtype=np.int64)
        return self._order

    def find(self, key: str) -> int | None:
        """The position of `key` (the last of equal ones, as a dict built in order keeps), or None."""
        order = self.order()
        lo, hi = 0, order.shape[0]
        while lo < hi:  # bisect_right over the sorted order, decoding only the strings it probes
            mid = (lo + hi) // 2
            if key < self.at(int(order[mid])):
                hi = mid
            else:
                lo = mid + 1
        return int(order[lo - 1]) if lo and self.at(int(order[lo - 1])) == key else None


class _Positions:
    """`chunk_row` of a mapped snapshot: a read-only mapping by lookup in the sorted column."""

    def __init__(self, column: Strings) -> None:
        self._column = column

    def get(self, key: str, default=None):
        found = self._column.find(key) if isinstance(key, str) else None
        return default if found is None else found

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None

    def __getitem__(self, key: str) -> int:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found


@dataclass
class VectorSnapshot:
    """An immutable view of one vector space at one `vectors_version`.

    Chunks are sorted by file rowid so `np.minimum.reduceat` collapses them per file. The arrays
    are in memory (built or patched in this process) or mapped read-only from the file beside the
    index (index/vector_file.py); either way nothing writes to them.
    """

    version: int
    space: str
    chunk_names: Strings  # the chunk id of each row
    chunk_file: np.ndarray  # int64 file rowid per chunk row
    chunk_ordinal: np.ndarray  # int32
    matrix: np.ndarray  # float32 (n_chunks, dim), rows unit-norm (or zero)
    file_rowids: np.ndarray  # int64, unique, ascending
    file_starts: np.ndarray  # index of each file's first chunk row
    file_path_rank: np.ndarray  # rank of each file's path in path order (tie-break)
    first_chunk_row: np.ndarray  # per file: row of its lowest-ordinal chunk
    path_names: Strings = field(default_factory=lambda: Strings(_objects([])))  # aligned with file_rowids
    mark: IndexMark | None = None  # the index it was read from (None: not followable by the change log)
    pages: vector_file.Pages | None = None  # the matrix is the file's pages (index/vector_file.py)

    @property
    def chunk_ids(self) -> np.ndarray:
        """The chunk id of each row (object array)."""
        return self.chunk_names.objects

    @property
    def file_paths(self) -> np.ndarray:
        """Each file's path, aligned with `file_rowids` (object array)."""
        return self.path_names.objects

    @cached_property
    def chunk_row(self):
        """Chunk id -> its row (the last, when one body backs several files: the vectors are equal).
        A dict once the ids are decoded; a lookup in the file's sorted order while they are not."""
        if not self.chunk_names.decoded:
            return _Positions(self.chunk_names)
        return _index_of(self.chunk_ids)

    @cached_property
    def rowid_to_file(self) -> dict[int, int]:
        return _index_of(self.file_rowids)

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
        sims = self.matrix @ (q / norm) if self.pages is None else self.pages.product(self.matrix, q / norm)
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
        sims = np.clip(self._rows(rows) @ (q / norm), -1.0, 1.0)
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
        sims = self._rows(rows) @ (q / norm)
        return 1.0 - np.clip(sims, -1.0, 1.0)

    def file_vector(self, file_rowid: int) -> np.ndarray | None:
        """The vector of a file's lowest-ordinal embedded chunk (what MMR and polarity compare)."""
        index = int(self.file_positions([file_rowid])[0])
        if index < 0:
            return None
        if self.pages is not None:  # a copy: a view would keep the file's pages mapped
            return self.pages.rows(self.matrix, np.array([self.first_chunk_row[index]]))[0]
        return self.matrix[self.first_chunk_row[index]]

    def _rows(self, rows: np.ndarray) -> np.ndarray:
        """`matrix[rows]` (a copy)."""
        return self.matrix[rows] if self.pages is None else self.pages.rows(self.matrix, rows)


def _empty(version: int, space: str, dim: int) -> VectorSnapshot:
    return VectorSnapshot(
        version=version,
        space=space,
        chunk_names=Strings(_objects([])),
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


def _snapshot(version: int, space: str, mark: IndexMark | None, chunk_ids: np.ndarray | Strings,
              chunk_file: np.ndarray, chunk_ordinal: np.ndarray, matrix: np.ndarray, paths: np.ndarray,
              path_rank: np.ndarray, chunk_row=None, rowid_to_file: dict | None = None,
              pages: vector_file.Pages | None = None) -> VectorSnapshot:  # fmt: skip
    file_rowids, file_starts = np.unique(chunk_file, return_index=True)
    snap = VectorSnapshot(
        version=version,
        space=space,
        chunk_names=chunk_ids if isinstance(chunk_ids, Strings) else Strings(chunk_ids),
        chunk_file=chunk_file,
        chunk_ordinal=chunk_ordinal,
        matrix=matrix,
        file_rowids=file_rowids,
        file_starts=file_starts,
        file_path_rank=path_rank,
        first_chunk_row=file_starts.copy(),  # rows are ordinal-sorted within a file
        path_names=Strings(paths),
        mark=mark,
        pages=pages,
    )
    # What a patch shares with the snapshot it patched (the same chunks, or the same files).
    if chunk_row is not None:
        snap.__dict__["chunk_row"] = chunk_row
    if rowid_to_file is not None:
        snap.__dict__["rowid_to_file"] = rowid_to_file
    return snap


def _build(conn: apsw.Connection, version: int, space: str, dim: int, previous: VectorSnapshot | None,
           mark: IndexMark | None = None) -> VectorSnapshot:  # fmt: skip
    """Every file's embedded chunks, read whole (vectors reused from `previous` by chunk id)."""
    rows = conn.execute(_JOIN.format(source="files f", join="JOIN"), (space, dim)).fetchall()
    if not rows:
        return replace(_empty(version, space, dim), mark=mark)
    chunk_ids = _objects([r[2] for r in rows])
    matrix = np.empty((len(rows), dim), dtype=np.float32)
    reuse = (
        previous if previous is not None and previous.space == space and previous.matrix.shape[1:] == (dim,) else None
    )
    # (a dict even for a mapped snapshot: one lookup per row of the store)
    reused = (reuse.chunk_row if reuse.chunk_names.decoded else _index_of(reuse.chunk_ids)) if reuse is not None else {}
    missing: list[int] = []
    for i, chunk_id in enumerate(chunk_ids.tolist()):
        old = reused.get(chunk_id)
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
        and np.array_equal(_objects([previous.chunk_names.at(i) for i in old_rows.tolist()]), fresh_ids)
        and np.array_equal(previous.chunk_file[old_rows], fresh_file)
        and np.array_equal(previous.chunk_ordinal[old_rows], fresh_ordinal)
        and np.array_equal(previous.matrix[old_rows], fresh_matrix)
    ):
        return _snapshot(version, space, mark, previous.chunk_names, previous.chunk_file, previous.chunk_ordinal,
                         previous.matrix, paths, path_rank, previous.__dict__.get("chunk_row"),
                         previous.__dict__.get("rowid_to_file"), pages=previous.pages)  # fmt: skip
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
                     rowid_to_file=previous.__dict__.get("rowid_to_file") if same_files else None)  # fmt: skip


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


def _at(snap: VectorSnapshot | None, now: IndexMark) -> bool:
    """`snap` is of the index at `now` (same index, same version)."""
    return snap is not None and snap.mark is not None and snap.version == now.version and snap.mark.uid == now.uid


def _from_file(conn: apsw.Connection, space: str, dim: int) -> VectorSnapshot | None:
    """The snapshot kept beside this connection's index file, mapped; None when there is none, or
    it is not a whole file of this index file and this space (index/vector_file.py)."""
    index_file = conn.db_filename("main")
    if not index_file:
        return None
    got = vector_file.read(vector_file.path_for(index_file, space))
    if got is None:
        return None
    head, arrays, mapped = got
    try:
        if (head.get("space"), head.get("dim"), head.get("index")) != (space, dim, vector_file.identity(index_file)):
            return None
        mark = IndexMark(int(head["version"]), str(head["uid"]), int(head["logged_from"]))
        snap = VectorSnapshot(
            version=mark.version, space=space,
            chunk_names=Strings(data=arrays["chunk_id_data"], ends=arrays["chunk_id_ends"],
                                order=arrays["chunk_id_order"]),
            chunk_file=arrays["chunk_file"], chunk_ordinal=arrays["chunk_ordinal"], matrix=arrays["matrix"],
            file_rowids=arrays["file_rowids"], file_starts=arrays["file_starts"],
            file_path_rank=arrays["file_path_rank"], first_chunk_row=arrays["file_starts"],
            path_names=Strings(data=arrays["path_data"], ends=arrays["path_ends"]), mark=mark,
            pages=mapped.pages(int(head["sections"]["matrix"][0])),
        )  # fmt: skip
    except (KeyError, TypeError, ValueError):
        return None
    return snap if _whole(snap, dim) else None


def _whole(snap: VectorSnapshot, dim: int) -> bool:
    """The arrays fit together (what a search indexes with cannot point outside them)."""
    n, files = snap.chunk_file.shape[0], snap.file_rowids.shape[0]
    kinds = [(snap.matrix, "<f4", (n, dim)), (snap.chunk_ordinal, "<i4", (n,)), (snap.chunk_file, "<i8", (n,)),
             (snap.file_starts, "<i8", (files,)), (snap.file_path_rank, "<i8", (files,)),
             (snap.chunk_names._ends, "<i8", (n,)), (snap.chunk_names._order, "<i8", (n,)),
             (snap.path_names._ends, "<i8", (files,))]  # fmt: skip
    if any(a.dtype.str != kind or a.shape != shape for a, kind, shape in kinds):
        return False
    for column in (snap.chunk_names, snap.path_names):
        ends = column._ends
        if ends.shape[0] and (ends[-1] != column._data.shape[0] or ends[0] < 0 or np.any(np.diff(ends) < 0)):
            return False
    if not n:
        return files == 0
    order = snap.chunk_names._order
    return bool(
        files
        and snap.file_starts[0] == 0
        and np.all(np.diff(snap.file_starts) > 0)
        and snap.file_starts[-1] < n
        and order.min() >= 0
        and order.max() < n
        and np.all(np.diff(snap.file_rowids) > 0)
        and np.array_equal(snap.chunk_file[snap.file_starts], snap.file_rowids)
    )


def _to_file(conn: apsw.Connection, snap: VectorSnapshot) -> bool:
    """Keep `snap` beside the index for the next process; False (logged) when it could not be: it
    is a cache, and a full disk or a read-only folder must not fail the search that made it."""
    index_file = conn.db_filename("main")
    if not index_file or snap.mark is None or snap.mark.uid is None:
        return False
    chunk_data, chunk_ends = snap.chunk_names.encoded()
    path_data, path_ends = snap.path_names.encoded()
    head = {
        "space": snap.space,
        "dim": int(snap.matrix.shape[1]),
        "index": vector_file.identity(index_file),
        "uid": snap.mark.uid,
        "version": snap.mark.version,
        "logged_from": snap.mark.logged_from,
    }
    arrays = {"matrix": snap.matrix.astype("<f4", copy=False), "chunk_file": snap.chunk_file.astype("<i8", copy=False),
              "chunk_ordinal": snap.chunk_ordinal.astype("<i4", copy=False),
              "file_rowids": snap.file_rowids.astype("<i8", copy=False),
              "file_starts": snap.file_starts.astype("<i8", copy=False),
              "file_path_rank": snap.file_path_rank.astype("<i8", copy=False),
              "chunk_id_data": chunk_data, "chunk_id_ends": chunk_ends,
              "chunk_id_order": snap.chunk_names.order(), "path_data": path_data, "path_ends": path_ends}  # fmt: skip
    try:
        vector_file.write(vector_file.path_for(index_file, snap.space), head, arrays)
    except OSError as exc:
        log.info("the vector snapshot was not kept beside the index (%s); the next process builds it again", exc)
        return False
    return True


class VectorCache:
    """Snapshots keyed by index file, one cache per Store (index/caches.py); refreshed lazily, never
    on the GUI thread.

    Readers call `snapshot(conn, space, dim)` at the start of a search: one cheap read of
    `vectors_version`, and when it moved, the rows of the memories the change log names since the
    snapshot's version patched in (index/changes.py); a rebuild (reusing unchanged vectors by chunk
    id) only when the log cannot say or names too many.
    """

    def __init__(self, *, beside_index: bool = True) -> None:
        self._lock = threading.Lock()
        self._snapshots: dict[tuple[str, str], VectorSnapshot] = {}
        self._coverage: dict[tuple[str, str], _Coverage | _Complete] = {}
        self.patched = 0  # how many refreshes were patches, not rebuilds (the tests read it)
        #: Keep each snapshot a process builds from nothing in a file beside the index, and start
        #: from that file (index/vector_file.py): a new process maps it instead of rebuilding.
        self.beside_index = beside_index
        self.mapped = 0  # snapshots taken from the file as they were (the tests read it)
        self.kept = 0  # snapshots written to the file

    def snapshot(self, conn: apsw.Connection, key: str, space: str, dim: int) -> VectorSnapshot:
        with conn:  # one read: the version, the change log and the rows agree
            now = changes.mark(conn)
            with self._lock:
                current = self._snapshots.get((key, space))
                if _at(current, now):
                    return current
                first = current is None  # this process has none yet: the file's, or one to keep there
                if first and self.beside_index:
                    current = _from_file(conn, space, dim)
                    if _at(current, now):
                        self.mapped += 1
                        self._snapshots[(key, space)] = current
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
                if first and self.beside_index and _to_file(conn, snap):
                    self.kept += 1
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
            changed = changes.changed_files(conn, memo.mark, now) if isinstance(memo, _Coverage) else None
            if changed is None:
                # Every chunk with its vector (the usual case): two counts over narrow indexes say
                # so, without reading every memory (0.1 s of a fresh process at 100,000).
                fresh = _Complete.count(conn, space, now) or _Coverage.count(conn, space, now)
            else:
                fresh = (
                    memo.patched(conn, space, now, changed)
                    if changed.shape[0]
                    else _Coverage(now, memo.live, memo.uncovered)
                )
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
class _Complete:
    """No chunk lacks its vector in the space: the coverage is every live memory (nothing to patch:
    a change is counted again)."""

    mark: IndexMark
    live: int

    @property
    def counts(self) -> tuple[int, int]:
        return self.live, self.live

    @classmethod
    def count(cls, conn: apsw.Connection, space: str, mark: IndexMark) -> "_Complete | None":
        # as many vectors in the space as chunks: none lacks one (a vector's key is its chunk's)
        (lacking,) = conn.execute(_LACKING_SQL, (space,)).fetchone()
        if lacking:
            return None
        (live,) = conn.execute("SELECT count(*) FROM files WHERE archived = 0").fetchone()
        return cls(mark, int(live))


_LACKING_SQL = "SELECT (SELECT count(*) FROM chunks) > (SELECT count(*) FROM embeddings WHERE model = ?1)"


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
