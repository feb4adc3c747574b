"""How many memories hold each query word, kept for one state of the index.

The any-of lexical form leaves out the words at least half the store holds (bm25 gives them no
weight: `retrieval.common_words`). FTS5 has no stored document frequency: its `fts5vocab` table
counts a word's documents by reading the word's whole document list, so the most common words
cost the most to rule out: "the" held by 99,748 of 100,000 memories took 1.2 ms, a five-word
question 2.4 ms, up to 7 ms of a 50 ms search (bench/search_bench.py, issue 43). The same words
come back in question after question, and the count only changes when the index does, so a
`WordDocs` keeps the counts read at one index mark (`changes.mark`: the index's uid and the
`vectors_version` every write to it moves) and forgets them all when the mark moves. The counts are
read in the same read transaction as the mark, so a count never outlives the index it was read
from. One per `Store`, among its caches (index/caches.py); bounded.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import apsw

from memhtml_desktop.index import changes
from memhtml_desktop.index.answers import word_docs


class WordDocs:
    """(live-or-not memories in the index, documents per word) at the index's current mark."""

    LIMIT = 4096  # words kept; past it the memo starts again (a few hundred KB at most)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._mark: changes.IndexMark | None = None
        self._total = 0
        self._docs: dict[str, int] = {}

    def clear(self) -> None:
        with self._lock:
            self._mark, self._total, self._docs = None, 0, {}

    def counts(self, conn: apsw.Connection, words: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(`SELECT count(*) FROM files`, {word: documents holding it}) now; a word no memory
        holds is left out of the dict, as `answers.word_docs` leaves it out."""
        with conn:  # the mark and the counts from one snapshot of the index
            now = changes.mark(conn)
            with self._lock:
                fresh = self._mark == now
                known = dict(self._docs) if fresh else {}
                total = self._total if fresh else None
            if total is None:
                (total,) = conn.execute("SELECT count(*) FROM files").fetchone()
            missing = [w for w in dict.fromkeys(words) if w not in known]
            read = word_docs(conn, missing) if missing else {}
        with self._lock:
            if self._mark != now:
                self._mark, self._total, self._docs = now, int(total), {}
            if len(self._docs) + len(missing) > self.LIMIT:
                self._docs = {}
            for w in missing:
                self._docs[w] = read.get(w, 0)
        known.update((w, read.get(w, 0)) for w in missing)
        return int(total), {w: known[w] for w in words if known.get(w)}
