"""The conflicts scan: every pair of near-twin memories in the store whose claims disagree.

A pair conflicts when both are active, non-task memories, their vectors are near-twins (cosine at
or above polarity's `TWIN_COSINE`, the threshold the ranking's twin step uses) and their claims
differ in a negation, a number or a variant qualifier (`domain/claim_diff.py`). One of them is
probably stale; the conflicts view offers to supersede one by the other or to link them.

The scan compares every pair exactly (no approximate index): the file vectors (each memory's first
chunk, as the ranking compares them) form one unit-norm matrix, and blocks of rows are multiplied
against the rows after them, so each pair is computed once and memory stays at one block of
similarities. It is plain Python taking `cancelled` and `progress` callables, so the window runs
it on a worker and tests run it directly.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from memhtml_desktop.domain.claim_diff import ClaimDiff, claim_diff
from memhtml_desktop.domain.embedder import space_of
from memhtml_desktop.domain.polarity import TWIN_COSINE
from memhtml_desktop.index import curation
from memhtml_desktop.index.vectors import CACHE

BLOCK_ROWS = 2048
#: Links that do not settle a pair: `contradicts` records the disagreement, it does not resolve it.
UNSETTLING_RELS = frozenset({"contradicts"})


@dataclass(frozen=True)
class ConflictSide:
    path: str
    title: str
    claim: str


@dataclass(frozen=True)
class ConflictPair:
    """Two memories stating one fact two ways. `a` sorts before `b` by path."""

    a: ConflictSide
    b: ConflictSide
    cosine: float
    diff: ClaimDiff
    #: Authored links between the two, either way (`contradicts`, `relates_to`, …).
    links: tuple[str, ...] = ()

    @property
    def settled(self) -> bool:
        """Someone linked the two by a relation other than `contradicts`: both hold, as they said."""
        return any(rel not in UNSETTLING_RELS for rel in self.links)

    def to_json(self) -> dict:
        return {
            "a": vars(self.a),
            "b": vars(self.b),
            "cosine": round(self.cosine, 4),
            "diff": self.diff.to_json(),
            "links": list(self.links),
        }


@dataclass
class ConflictReport:
    pairs: list[ConflictPair] = field(default_factory=list)
    memories: int = 0  # active non-task memories with a claim
    compared: int = 0  # of those, the ones with a vector (a memory without one has no twins)
    twins: int = 0  # near-twin pairs examined (conflicting or not)
    seconds: float = 0.0
    cancelled: bool = False

    def to_json(self) -> dict:
        return {
            "pairs": [p.to_json() for p in self.pairs],
            "memories": self.memories,
            "compared": self.compared,
            "twins": self.twins,
            "seconds": round(self.seconds, 3),
            "cancelled": self.cancelled,
        }


def scan_conflicts(
    store,
    *,
    threshold: float = TWIN_COSINE,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    block_rows: int = BLOCK_ROWS,
    paths: list[str] | None = None,
) -> ConflictReport:
    """Every conflicting near-twin pair in `store`'s index, sorted by (a.path, b.path).

    With `paths`, only the pairs involving one of them: what a view refreshes after a write touched
    a few memories, at the cost of `len(paths)` rows instead of the whole store.
    """
    started = time.perf_counter()
    conn = store.reader()
    claims = curation.active_claims(conn)
    report = ConflictReport(memories=len(claims))
    with conn:  # one read snapshot for the claims' vectors
        snapshot = CACHE.snapshot(conn, str(store.index_path), space_of(store.embedder), store.embedder.dim)
    rows, kept = [], []
    for rowid, path, gist, title in claims:
        index = snapshot.rowid_to_file.get(int(rowid))
        if index is not None:
            rows.append(int(snapshot.first_chunk_row[index]))
            kept.append((path, gist, title))
    report.compared = n = len(kept)
    if n < 2:
        report.seconds = time.perf_counter() - started
        return report
    matrix = np.ascontiguousarray(snapshot.matrix[np.asarray(rows, dtype=np.int64)])
    if paths is not None:
        _scan_some(report, matrix, kept, set(paths), threshold)
        _finish(report, conn, started)
        return report
    transposed = matrix.T  # a view: BLAS multiplies by a transposed operand without a 28 MB copy
    # One similarity block and one mask, reused: a fresh 160 MB block per step spent more time in
    # page faults than in the comparison (measured: 1.8 s of 9 s at 20,000 memories).
    rows_per_block = min(block_rows, n)
    sims_buffer = np.empty((rows_per_block, n), dtype=np.float32)
    mask_buffer = np.empty((rows_per_block, n), dtype=bool)
    for start in range(0, n, rows_per_block):
        if cancelled is not None and cancelled():
            report.cancelled = True
            break
        end = min(start + rows_per_block, n)
        sims = sims_buffer[: end - start, : n - start]
        np.matmul(matrix[start:end], transposed[:, start:], out=sims)
        mask = mask_buffer[: end - start, : n - start]
        np.greater_equal(sims, threshold, out=mask)
        diagonal = np.arange(end - start)
        mask[diagonal, diagonal] = False  # a memory and itself (column `start + li` is row `li`)
        # Only rows with a near-twin are searched column by column: `np.nonzero` over the whole
        # block (2,048 x 20,000) cost ~0.3 s a block under load; `any` per row ~7 ms.
        for li in np.flatnonzero(mask.any(axis=1)).tolist():
            for lj in np.flatnonzero(mask[li]).tolist():
                i, j = start + li, start + lj
                if j > i:  # not the diagonal (a memory and itself), nor a pair an earlier block counted
                    _consider(report, kept, i, j, float(sims[li, lj]))
        if progress is not None:
            progress("conflicts", end, n)
    _finish(report, conn, started)
    return report


def _finish(report: ConflictReport, conn, started: float) -> None:
    """Sort the pairs and name the authored links between the two sides of each."""
    links = curation.links_among(conn, {p for pair in report.pairs for p in (pair.a.path, pair.b.path)})
    pairs = []
    for pair in report.pairs:
        rels = links.get((pair.a.path, pair.b.path), []) + links.get((pair.b.path, pair.a.path), [])
        pairs.append(dataclasses.replace(pair, links=tuple(dict.fromkeys(rels))) if rels else pair)
    report.pairs = sorted(pairs, key=lambda p: (p.a.path, p.b.path))
    report.seconds = time.perf_counter() - started


def _consider(report: ConflictReport, kept: list[tuple[str, str, str]], i: int, j: int, cosine: float) -> None:
    """Record near-twins i < j (path order); a pair when their claims disagree."""
    report.twins += 1
    diff = claim_diff(kept[i][1], kept[j][1])
    if diff is not None:
        a, b = ConflictSide(kept[i][0], kept[i][2], kept[i][1]), ConflictSide(kept[j][0], kept[j][2], kept[j][1])
        report.pairs.append(ConflictPair(a, b, cosine, diff))


def _scan_some(report: ConflictReport, matrix: np.ndarray, kept, wanted: set[str], threshold: float) -> None:
    rows = [i for i, item in enumerate(kept) if item[0] in wanted]
    if not rows:
        return
    sims = matrix[rows] @ matrix.T
    seen: set[tuple[int, int]] = set()
    for r, j in zip(*np.nonzero(sims >= threshold)):
        i = rows[int(r)]
        pair = (min(i, int(j)), max(i, int(j)))
        if pair[0] != pair[1] and pair not in seen:
            seen.add(pair)
            _consider(report, kept, pair[0], pair[1], float(sims[r, j]))
