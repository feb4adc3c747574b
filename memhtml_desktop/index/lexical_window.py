"""The lexical arm's window, ranked on the FTS table alone and then cut to the scope.

The arm's statement (`retrieval_sql.FTS_CTE`) joins every matching row to `files` for the scope's
columns and the path that breaks ties, then sorts them all. Under the any-of form a query matches
a fifth of a store (2,000-12,000 rows at 20,000 memories), and those joins into the wide `files`
rows cost 7x the bm25 itself (22 ms against 3 ms a query, bench/search_bench.py). Here bm25 ranks
over the FTS table alone (`ORDER BY score LIMIT n`, a top-n heap), the few best are checked
against the scope (`scope_rows`: kept per scope, a `numpy.isin`), and their paths read to break
ties, which is the same window: a row left out of the `n` best scores no better than the `n`-th,
so every in-scope row scoring strictly better than that is here; when fewer than `window` such
rows are found, `n` widens (x8), up to every match.

The result is bound to the fused statement as a carray of file rowids in window order (`?1`,
`retrieval_sql.FTS_CTE_BOUND`), the scores kept aside for the explanation (as the vector arm's
distances are). Same rows, same order, same bm25 values as the statement form, which stays for
the explanation's whole-arm lists (tests/index/test_lexical_window.py pins the two together).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import apsw
import numpy as np

from memhtml_desktop.index.retrieval_sql import FTS_TABLES, lexical_weights

WIDEN = 8


@dataclass(frozen=True)
class LexicalWindow:
    """The arm's window: file rowids best first and their bm25 scores (negative; lower is better)."""

    rowids: np.ndarray  # int64
    scores: np.ndarray  # float64, aligned
    matched: int = 0  # in-scope memories seen matching: all of them when `whole`, else at least this many
    whole: bool = True

    def binding(self) -> apsw.carray:
        if not self.rowids.shape[0]:  # carray refuses an empty array; rowid -1 matches no file
            return apsw.carray(np.array([-1], dtype=np.int64))
        return apsw.carray(np.ascontiguousarray(self.rowids, dtype=np.int64))


def ranking_sql(lexical: str, field_weights: Sequence[float]) -> str:
    """bm25 over the lexical index alone, best first, the first `?2` rows."""
    table = FTS_TABLES[lexical]
    weights = lexical_weights(field_weights) if lexical == "stemmed" else ""
    return (
        f"SELECT rowid, bm25({table}{weights}) AS score FROM {table} WHERE {table} MATCH ?1 ORDER BY score ASC LIMIT ?2"
    )


def lexical_window(
    conn: apsw.Connection,
    match: str,
    window: int,
    *,
    lexical: str,
    field_weights: Sequence[float],
    in_scope: Callable[[np.ndarray], np.ndarray],
) -> LexicalWindow:
    """The first `window` in-scope files matching `match`, ordered by (bm25, path).

    `in_scope(rowids)`: a boolean mask, which of them the scope keeps.
    """
    sql = ranking_sql(lexical, field_weights)
    n = max(window * 4, 64)
    while True:
        rows = conn.execute(sql, (match, n)).fetchall()
        whole = len(rows) < n
        rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        scores = np.fromiter((r[1] for r in rows), dtype=np.float64, count=len(rows))
        keep = in_scope(rowids) if rows else np.zeros(0, dtype=bool)
        if not whole:
            # rows scoring as the n-th may have been cut among their ties: only strictly better is sure
            keep &= scores < scores[-1]
        rowids, scores = rowids[keep], scores[keep]
        paths = (
            dict(
                conn.execute(
                    "SELECT rowid, path FROM files WHERE rowid IN carray(?1)", (apsw.carray(rowids),)
                ).fetchall()
            )
            if rowids.shape[0]
            else {}
        )
        if whole or len(paths) >= window:
            break
        n *= WIDEN
    order = sorted(
        (i for i in range(rowids.shape[0]) if int(rowids[i]) in paths), key=lambda i: (scores[i], paths[int(rowids[i])])
    )[:window]
    return LexicalWindow(rowids[order], scores[order], len(paths), whole)
