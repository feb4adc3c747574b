"""Finding the memory that holds a given text: the index side of importing question→answer pairs.

`answer_candidates` looks an answer's words up in the stemmed lexical index (its rarest words first,
at most `MAX_MATCH_WORDS`, OR-ed; bm25's first `CANDIDATES`), returning each candidate's text for
`domain/qa_pairs.choose` to judge. `word_docs` (how many memories hold each word, from the unstemmed
index's vocabulary) is shared with the lexical arm's common-word test (`retrieval.common_words`).
"""

from __future__ import annotations

from typing import Sequence

import apsw

CANDIDATES = 20
MAX_MATCH_WORDS = 24


def word_docs(conn: apsw.Connection, words: Sequence[str]) -> dict[str, int]:
    """How many indexed memories hold each of `words` (those no memory holds are left out)."""
    if not words:
        return {}
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.files_fts_vocab USING fts5vocab(main, 'files_fts', 'row')")
    rows = conn.execute(
        "SELECT term, doc FROM temp.files_fts_vocab WHERE term IN carray(?1)", (apsw.carray(tuple(words)),)
    )
    return {str(term): int(docs) for term, docs in rows}


def existing(conn: apsw.Connection, paths: Sequence[str]) -> set[str]:
    """Which of `paths` the index holds as live memories."""
    if not paths:
        return set()
    rows = conn.execute(
        "SELECT path FROM files WHERE archived = 0 AND path IN carray(?1)", (apsw.carray(tuple(paths)),)
    )
    return {str(r[0]) for r in rows}


def answer_candidates(conn: apsw.Connection, words: Sequence[str], limit: int = CANDIDATES) -> list[tuple[str, str]]:
    """(path, text) of the live memories that best match `words`, bm25 order (rarest words kept)."""
    if not words:
        return []
    docs = word_docs(conn, words)
    held = [w for w in words if docs.get(w)] or list(words)
    rare = sorted(held, key=lambda w: (docs.get(w, 0), list(words).index(w)))[:MAX_MATCH_WORDS]
    match = " OR ".join(f'"{w}"' for w in rare)
    return [
        (str(p), str(t or ""))
        for p, t in conn.execute(
            "SELECT f.path, f.fts_text FROM files_fts_stemmed s JOIN files f ON f.rowid = s.rowid "
            "WHERE files_fts_stemmed MATCH ?1 AND f.archived = 0 ORDER BY bm25(files_fts_stemmed), f.path LIMIT ?2",
            (match, limit),
        )
    ]
