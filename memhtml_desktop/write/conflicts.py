"""The conflicts scan: every pair of active memories whose claims contradict each other.

Candidates come three ways, and one rule (`domain/contradiction.py`) judges every candidate, the
rule the ranking's newer-first step uses too:

- **one frame**: memories whose claims state the same frame key (`html/frame.py`, indexed in
  `files.frame_key`): "The capital of Peru is …". A key held by more than `LIST_VALUES` distinct
  values is a list ("English is spoken in …" a dozen countries), not a slot, and is skipped;
- **near-twin vectors**: cosine at or above polarity's `TWIN_COSINE` (the threshold the ranking's
  twin step uses), exactly, every pair: the file vectors (each memory's first chunk, as the ranking
  compares them) form one unit-norm matrix, and blocks of rows are multiplied against the rows after
  them, so each pair is computed once and memory stays at one block of similarities;
- **a rare word in common**: memories sharing one of their two rarest words (held by 2 to
  `BLOCK_WORDS` memories, numbers aside): a claim reworded, whose vector the hash embedder does not
  bring near. Only pairs whose content words differ by a few words are judged.

Each pair carries why (`reason`: the rule's kind and a sentence naming the values) and which side
is newer (event time, else written time). It is plain Python taking `cancelled` and `progress`
callables, so the window runs it on a worker and tests run it directly.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from memhtml_desktop.domain.claim_diff import ClaimDiff, words_diff
from memhtml_desktop.domain.contradiction import (
    SLOT,
    Contradiction,
    Statement,
    contradiction,
    newer_of,
    slot_value,
    word_keys,
)
from memhtml_desktop.domain.polarity import TWIN_COSINE
from memhtml_desktop.index import curation
from memhtml_desktop.write.dismissals import dismissed_keys, pair_key

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import CuratorStore

BLOCK_ROWS = 2048
#: A frame key held by more distinct values than this is a list, not one slot.
LIST_VALUES = 4
#: A word held by more memories than this says nothing about which two belong together.
BLOCK_WORDS = 24
#: Two claims whose content words differ by more than this cannot differ in one value.
MAX_WORD_DIFFERENCE = 10
#: Links that do not settle a pair: `contradicts` records the disagreement, it does not resolve it.
UNSETTLING_RELS = frozenset({"contradicts"})


@dataclass(frozen=True)
class ConflictSide:
    path: str
    title: str
    claim: str
    when: str = ""  # event time, else written time: what `newer` was decided on


@dataclass(frozen=True)
class ConflictPair:
    """Two memories stating one fact two ways. `a` sorts before `b` by path."""

    a: ConflictSide
    b: ConflictSide
    cosine: float | None  # None: a side has no vector
    diff: ClaimDiff
    #: Authored links between the two, either way (`contradicts`, `relates_to`, …).
    links: tuple[str, ...] = ()
    reason: Contradiction | None = None
    newer: str | None = None  # the newer side's path; None when neither is (a tie on both times)
    #: A curator said it is not a conflict (write/dismissals.py): the view hides it, the CLI drops it.
    dismissed: bool = False

    @property
    def older(self) -> str | None:
        return None if self.newer is None else (self.b.path if self.newer == self.a.path else self.a.path)

    def side(self, path: str) -> ConflictSide:
        return self.a if path == self.a.path else self.b

    @property
    def settled(self) -> bool:
        """Someone linked the two by a relation other than `contradicts`: both hold, as they said."""
        return any(rel not in UNSETTLING_RELS for rel in self.links)

    @property
    def known(self) -> bool:
        """Linked `contradicts` and nothing else: someone recorded the disagreement and kept both."""
        return bool(self.links) and not self.settled

    @property
    def when(self) -> str:
        """The newer side's time: when the fact changed (the queue lists the newest change first)."""
        return max(self.a.when, self.b.when)

    def to_json(self) -> dict:
        return {
            "a": vars(self.a),
            "b": vars(self.b),
            "cosine": None if self.cosine is None else round(self.cosine, 4),
            "diff": self.diff.to_json(),
            "links": list(self.links),
            "reason": {"kind": self.reason.reason, "detail": self.reason.detail} if self.reason else None,
            "newer": self.newer,
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
            "pairs": [p.to_json() for p in self.pairs if not p.dismissed],
            "dismissed": sum(1 for p in self.pairs if p.dismissed),
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
    """Every contradicting pair in `store`'s index, sorted by (a.path, b.path).

    With `paths`, only the pairs involving one of them: what a view refreshes after a write touched
    a few memories, at the cost of `len(paths)` rows instead of the whole store.
    """
    started = time.perf_counter()
    conn = store.reader()
    rows = curation.active_statements(conn)
    report = ConflictReport(memories=len(rows))
    statements = [Statement(path, gist, key, event_at, created_at, title)
                  for _, path, gist, title, key, event_at, created_at in rows]  # fmt: skip
    asked = None if paths is None else set(paths)
    wanted = None if asked is None else {i for i, st in enumerate(statements) if st.path in asked}
    if wanted is not None and not wanted:
        report.seconds = time.perf_counter() - started
        return report
    candidates: set[tuple[int, int]] = set()
    lists = _frame_candidates(statements, wanted, candidates)
    _word_candidates(statements, wanted, candidates)
    if cancelled is not None and cancelled():
        report.cancelled = True
        report.seconds = time.perf_counter() - started
        return report
    matrix, at = _vectors(store, conn, rows)
    report.compared = int((at >= 0).sum()) if at is not None else 0
    if matrix is not None and report.compared >= 2:
        twins = (
            _scan_some(matrix, at, wanted, threshold)
            if wanted is not None
            else _scan_all(matrix, at, threshold, block_rows, cancelled, progress)
        )
        if twins is None:
            report.cancelled = True
            report.seconds = time.perf_counter() - started
            return report
        report.twins = len(twins)
        candidates |= twins
    for count, (i, j) in enumerate(sorted(candidates)):
        if count % 1024 == 0 and cancelled is not None and cancelled():
            report.cancelled = True
            break
        _consider(report, statements, i, j, matrix, at, lists)
    _finish(report, conn, started, store.root)
    return report


def _vectors(store: CuratorStore, conn, rows) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The unit-norm first-chunk vectors of the memories that have one, and each memory's row in
    that matrix (-1: none)."""
    embedder = getattr(store, "embedder", None)
    if embedder is None:
        return None, None
    with conn:  # one read snapshot for the claims' vectors
        snapshot = store.vector_snapshot(conn)  # the store's own cache (index/caches.py)
    at = np.full(len(rows), -1, dtype=np.int64)
    picked = []
    for i, row in enumerate(rows):
        index = snapshot.rowid_to_file.get(int(row[0]))
        if index is not None:
            at[i] = len(picked)
            picked.append(int(snapshot.first_chunk_row[index]))
    if not picked:
        return None, at
    return np.ascontiguousarray(snapshot.matrix[np.asarray(picked, dtype=np.int64)]), at


def _cosine(matrix, at, i: int, j: int) -> float | None:
    if matrix is None or at is None or at[i] < 0 or at[j] < 0:
        return None
    return float(matrix[at[i]] @ matrix[at[j]])


def _pairs_of(members: list[int], wanted: set[int] | None, out: set[tuple[int, int]]) -> None:
    for x, i in enumerate(members):
        for j in members[x + 1 :]:
            if wanted is None or i in wanted or j in wanted:
                out.add((i, j) if i < j else (j, i))


def _frame_candidates(statements: list[Statement], wanted, out: set[tuple[int, int]]) -> set[str]:
    """Memories stating one frame key, unless the key holds more than LIST_VALUES values (a list);
    returns the keys that are lists."""
    groups: dict[str, list[int]] = {}
    for i, st in enumerate(statements):
        if st.frame_key:
            groups.setdefault(st.frame_key, []).append(i)
    lists: set[str] = set()
    for key, members in groups.items():
        if len(members) < 2:
            continue
        if len({slot_value(statements[i].claim, key) for i in members}) > LIST_VALUES:
            lists.add(key)
            continue
        _pairs_of(members, wanted, out)
    return lists


def _word_candidates(statements: list[Statement], wanted, out: set[tuple[int, int]]) -> None:
    """Memories sharing one of their two rarest words, whose content words differ by a few."""
    keys = [word_keys(st.claim) for st in statements]
    counts: dict[str, int] = {}
    for words in keys:
        for w in words:
            counts[w] = counts.get(w, 0) + 1
    blocks: dict[str, list[int]] = {}
    for i, words in enumerate(keys):
        rare = sorted((w for w in words if 2 <= counts[w] <= BLOCK_WORDS), key=lambda w: (counts[w], w))[:2]
        for w in rare:
            blocks.setdefault(w, []).append(i)
    found: set[tuple[int, int]] = set()
    for members in blocks.values():
        _pairs_of(members, wanted, found)
    out.update(p for p in found if len(keys[p[0]] ^ keys[p[1]]) <= MAX_WORD_DIFFERENCE)


def _scan_all(matrix, at, threshold, block_rows, cancelled, progress) -> set[tuple[int, int]] | None:
    """Every near-twin pair (statement indexes, i < j); None when cancelled."""
    back = np.flatnonzero(at >= 0)  # matrix row -> statement index
    n = matrix.shape[0]
    out: set[tuple[int, int]] = set()
    transposed = matrix.T  # a view: BLAS multiplies by a transposed operand without a 28 MB copy
    # One similarity block, reused: a fresh 160 MB block per step spent more time in page faults
    # than in the comparison (measured: 1.8 s of 9 s at 20,000 memories). The blocks' shapes are
    # what decide the products' bits (one BLAS thread computes each row alone): changing them can
    # move a pair sitting on the threshold in or out, so they stay as they are.
    rows_per_block = min(block_rows, n)
    sims_buffer = np.empty((rows_per_block, n), dtype=np.float32)
    top_buffer = np.empty(rows_per_block, dtype=np.float32)
    for start in range(0, n, rows_per_block):
        if cancelled is not None and cancelled():
            return None
        end = min(start + rows_per_block, n)
        sims = sims_buffer[: end - start, : n - start]
        np.matmul(matrix[start:end], transposed[:, start:], out=sims)
        diagonal = np.arange(end - start)
        sims[diagonal, diagonal] = -np.inf  # a memory and itself (column `start + li` is row `li`)
        # Only rows with a near-twin are searched column by column, found by each row's largest
        # similarity (one pass that writes nothing, where a mask of the block wrote 40 MB); `fmax`
        # passes over a NaN as the comparison did, where `max` would hide the row's twins.
        top = top_buffer[: end - start]
        np.fmax.reduce(sims, axis=1, out=top)
        for li in np.flatnonzero(top >= threshold).tolist():
            for lj in np.flatnonzero(sims[li] >= threshold).tolist():
                if lj > li:  # not a pair an earlier row of this block counted
                    out.add((int(back[start + li]), int(back[start + lj])))
        if progress is not None:
            progress("conflicts", end, n)
    return out


def _scan_some(matrix, at, wanted: set[int], threshold: float) -> set[tuple[int, int]]:
    back = np.flatnonzero(at >= 0)
    rows = [int(at[i]) for i in sorted(wanted) if at[i] >= 0]
    out: set[tuple[int, int]] = set()
    if not rows:
        return out
    sims = matrix[rows] @ matrix.T
    for r, j in zip(*np.nonzero(sims >= threshold)):
        i, k = int(back[rows[int(r)]]), int(back[int(j)])
        if i != k:
            out.add((min(i, k), max(i, k)))
    return out


def _finish(report: ConflictReport, conn, started: float, root=None) -> None:
    """Sort the pairs, name the authored links between the two sides of each, and mark the ones a
    curator dismissed (by the two memories' content hashes: write/dismissals.py)."""
    paths = {p for pair in report.pairs for p in (pair.a.path, pair.b.path)}
    links = curation.links_among(conn, paths)
    dismissed = dismissed_keys(root) if root is not None and report.pairs else set()
    hashes = {p: f["content_hash"] for p, f in curation.files_facts(conn, paths).items()} if dismissed else {}
    pairs = []
    for pair in report.pairs:
        rels = links.get((pair.a.path, pair.b.path), []) + links.get((pair.b.path, pair.a.path), [])
        gone = bool(dismissed) and pair_key(hashes.get(pair.a.path, ""), hashes.get(pair.b.path, "")) in dismissed
        if rels or gone:
            pair = dataclasses.replace(pair, links=tuple(dict.fromkeys(rels)), dismissed=gone)
        pairs.append(pair)
    report.pairs = sorted(pairs, key=lambda p: (p.a.path, p.b.path))
    report.seconds = time.perf_counter() - started


def pair_of(
    x: Statement, y: Statement, cosine: float | None, similarity: Callable[[], float | None] | None = None
) -> ConflictPair | None:
    """The conflict between two memories (`a` the one first by path), or None: the scan's judgement
    of one pair, which the ranking's marks share (`similarity`, their vectors' cosine when asked,
    for the reworded rule)."""
    if y.path < x.path:
        x, y = y, x
    found = contradiction(x, y, similarity)
    if found is None:
        return None
    diff = words_diff(x.claim, y.claim, (found.reason,))
    a, b = (ConflictSide(s.path, s.title, s.claim, s.when) for s in (x, y))
    return ConflictPair(a, b, cosine, diff, reason=found, newer=newer_of(x, y))


def _consider(
    report: ConflictReport, statements: list[Statement], i: int, j: int, matrix, at, lists: set[str] = frozenset()
) -> None:
    """Judge one candidate; its cosine is computed for a flagged pair alone (most candidates are not).
    A `slot` pair under a frame key that is a list (`lists`) is left out, whichever way it became a
    candidate (a rare word or near-twin vectors found it too), as search leaves it unmarked: "The
    XSUB-writer's interface to the C free function" against "… the C malloc function" were 21 of
    the 24 pairs flagged on the perl documentation, seven values of one frame."""
    pair = pair_of(statements[i], statements[j], None, lambda: _cosine(matrix, at, i, j))
    if pair is not None and pair.reason.reason == SLOT and statements[i].frame_key in lists:
        return
    if pair is not None:
        cosine = _cosine(matrix, at, i, j)
        report.pairs.append(pair if cosine is None else dataclasses.replace(pair, cosine=cosine))
