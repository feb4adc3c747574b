"""What fused scores cannot say: whether the index is whole, how many memories hold the query's
words, and whether a hit is relevant at all.

RRF scores are ranks: the top hit is on top whether the query matched anything or not, and the
top score of an irrelevant query can exceed that of a relevant one (seed 003, section 6.2.2). So
a search reports, beside its hits:

- `index_status`: an index that no full scan has completed (a first build in progress, or a
  fresh index after `read` of one file) is incomplete, and the search says so and how far it got;
- `match_count`: how many in-scope memories hold the query's words in the lexical form that was
  bound (all terms, or any) — "none" reads differently from "ten, and here they are";
- `signals`: the relevance floor per hit, on raw evidence only (a content word of the query in
  the memory, the raw best-chunk cosine at or above the embedder's calibrated floor, a tag or
  entity the query names), plus the header's diagnostics (how many hits fall below the floor,
  the top and median raw cosine of the candidates).

None of this changes the order: memhtml returns such hits, and so does this app, marked.
"""

from __future__ import annotations

import functools
import re
import statistics
from typing import Sequence

import apsw
import numpy as np

from memhtml_desktop.domain.fts_query import FtsQuery, sanitize
from memhtml_desktop.domain.signals import HitSignals, IndexStatus, MatchCount, RelevanceSummary
from memhtml_desktop.domain.stopwords import STOPWORD_SET
from memhtml_desktop.index.retrieval_sql import FTS_TABLES, bind_params
from memhtml_desktop.index.scope import ScopeSql
from memhtml_desktop.index.vectors import VectorSnapshot

# Alphanumeric runs: the lexical arm's words up to rare scripts' marks. Python's `re` rather than
# `regex`'s \p classes, which cost ~3 ms a search over ten memories' text.
_WORD = re.compile(r"[^\W_]+")


def index_status(conn: apsw.Connection) -> IndexStatus:
    """Complete once a full scan has finished; otherwise how many files are in so far.

    The normal case costs one row read; the counts are only taken when the index is incomplete.
    """
    row = conn.execute("SELECT scanned_at, scan_seen FROM index_state WHERE id = 1").fetchone()
    if row is None or row[0] is not None:
        return IndexStatus()
    (files,) = conn.execute(
        "SELECT (SELECT count(*) FROM files) + (SELECT count(*) FROM problems WHERE kind <> 'warnings')"
    ).fetchone()
    return IndexStatus(complete=False, files=int(files), seen=None if row[1] is None else int(row[1]))


MATCH_COUNT_CAP = 100
"""Counting stops here ("more than 100"). Past that, "how many" no longer changes what a person does
with a page of ten, while counting costs per match: CPU per search over bench/queries.txt at
20,000 files (measured under shared load), p95 3.7 ms with a cap of 1,000, 1.1 ms at 200, 0.6 ms
at 50, against a search p95 of ~20 ms."""


def match_count(
    conn: apsw.Connection, match: str | None, form: str | None, scope_sql: ScopeSql, lexical: str = "memhtml"
) -> MatchCount:
    """In-scope memories matching the bound MATCH text (`form` names it) in the lexical arm's own
    index (`lexical`: the profile's), up to `MATCH_COUNT_CAP`."""
    if not match:
        return MatchCount(form, 0)
    table = FTS_TABLES[lexical]
    sql = (
        f"SELECT count(*) FROM (SELECT 1 FROM {table} JOIN files ON files.rowid = {table}.rowid "
        f"WHERE {table} MATCH ?1" + scope_sql.for_alias("files") + " LIMIT ?3)"
    )
    params = bind_params(sql, (match, None, MATCH_COUNT_CAP + 1, None), scope_sql.params)
    (count,) = conn.execute(sql, params).fetchone()
    return MatchCount(form, min(int(count), MATCH_COUNT_CAP), capped=count > MATCH_COUNT_CAP)


def counted(seen: int, whole: bool) -> MatchCount | None:
    """`match_count`'s answer from in-scope matches already seen (the lexical window's: all of them
    when `whole`), or None when they cannot say (fewer seen than the cap, and not all)."""
    if not whole and seen <= MATCH_COUNT_CAP:
        return None
    count = min(seen, MATCH_COUNT_CAP + 1)
    return MatchCount(None, min(count, MATCH_COUNT_CAP), capped=count > MATCH_COUNT_CAP)


def holding(conn: apsw.Connection, match: str | None, paths: Sequence[str], lexical: str = "memhtml") -> frozenset[str]:
    """Which of `paths` the MATCH text `match` matches in the lexical index `lexical`."""
    if not match or not paths:
        return frozenset()
    table = FTS_TABLES[lexical]
    # The paths drive (a look-up each), the MATCH's rows only listed: joining every match to the
    # wide `files` rows cost 2.5 ms a search at 100,000 memories.
    rows = conn.execute(
        f"SELECT f.path FROM carray(?2) p CROSS JOIN files f ON f.path = p.value "
        f"WHERE f.rowid IN (SELECT rowid FROM {table} WHERE {table} MATCH ?1)",
        (match, apsw.carray(tuple(paths))),
    )
    return frozenset(str(r[0]) for r in rows)


def pool_cosines(
    conn: apsw.Connection,
    rowids: dict[str, int],
    query_vector: np.ndarray | None,
    snapshot: VectorSnapshot | None,
    space: str,
) -> dict[str, float]:
    """Raw best-chunk cosine to the query for each pooled path (path -> rowid); none without a vector."""
    if query_vector is None or not rowids:
        return {}
    if snapshot is not None:
        by_rowid = snapshot.best_similarities(query_vector, list(rowids.values()))
        return {path: by_rowid[rowid] for path, rowid in rowids.items() if rowid in by_rowid}
    blob = np.ascontiguousarray(query_vector, dtype="<f4").tobytes()
    rows = conn.execute(
        "SELECT f.path, min(vec_distance_cosine(e.vec, ?1)) FROM files f "
        "JOIN chunks c ON c.content_hash = f.content_hash JOIN embeddings e ON e.chunk_id = c.chunk_id "
        "WHERE e.model = ?2 AND f.path IN carray(?3) GROUP BY f.path",
        (blob, space, apsw.carray(tuple(rowids))),
    )
    return {path: 1.0 - float(dist) for path, dist in rows if dist is not None}


@functools.lru_cache(maxsize=4096)
def _phrase(value: str) -> str:
    """A tag's or an entity's name as the query's words would spell it (entity type dropped)."""
    return sanitize(value.split(":", 1)[1] if ":" in value else value, fold=True)


def _phrases(values: Sequence[str]) -> list[tuple[str, str]]:
    """(label, sanitised text) for each tag or entity name; entity labels keep their type."""
    return [(value, _phrase(value)) for value in values if _phrase(value)]


def hit_signals(
    conn: apsw.Connection,
    fts: FtsQuery,
    paths: Sequence[str],
    cosines: dict[str, float],
    floor: float,
    entities: dict[str, list[str]],
    lexical: frozenset[str] = frozenset(),
) -> dict[str, HitSignals]:
    """The floor's three signals for each hit (see the module docstring).

    `lexical` are the hits the lexical arm ranked: each holds a content word of the query by
    construction, so only the others' text is read.
    """
    if not paths:
        return {}
    wanted = {w for w in fts.words if w not in STOPWORD_SET}
    text = " " + fts.text + " "
    held: dict[str, bool] = {p: bool(wanted) and p in lexical for p in paths}
    tags: dict[str, list[str]] = {}
    carray = apsw.carray(tuple(paths))
    unread = tuple(p for p in paths if not held[p])
    if wanted and unread:
        for path, body in conn.execute(
            "SELECT path, fts_text FROM files WHERE path IN carray(?1)", (apsw.carray(unread),)
        ):
            held[path] = bool(wanted & set(_WORD.findall((body or "").lower())))
    for path, tag in conn.execute("SELECT path, tag FROM file_tags WHERE path IN carray(?1)", (carray,)):
        tags.setdefault(path, []).append(tag)
    out = {}
    for path in paths:
        named = tuple(
            label for label, phrase in _phrases([*tags.get(path, ()), *entities.get(path, ())]) if f" {phrase} " in text
        )
        out[path] = HitSignals(words=held[path], cosine=cosines.get(path), floor=floor, named=named)
    return out


def summary(signals: dict[str, HitSignals], cosines: dict[str, float], floor: float) -> RelevanceSummary:
    values = list(cosines.values())
    return RelevanceSummary(
        floor_cosine=floor,
        below_floor=sum(1 for s in signals.values() if s.low),
        top_cosine=max(values) if values else None,
        median_cosine=statistics.median(values) if values else None,
        candidates=len(values),
    )
