"""The four-arm RRF statement, assembled from the arm registry.

Arms are data (`domain.rrf.RANK_ARMS`); this module folds over the active ones to build ONE
statement. Each arm is a common table expression returning `(path, rank, raw)`: `rank` counts from
1 and `raw` is the arm's own signal, carried through so the UI can show why a hit ranked where it
did without re-running anything. The statement returns, for every fused path, one row per arm that
ranked it, with that arm's contribution `weight / (rank + 60)`; the per-path sum is computed in SQL
and must equal the sum of those contributions (tests pin the SQL against the pure twin,
`domain.rrf.fuse`).

Placeholders are NUMBERED and fixed: `?1` the FTS5 MATCH text, `?2` the per-arm candidate limit,
`?3` the final limit, `?4` the query vector, `?5` the salience arm's candidates (a carray of file
rowids, index/salience.py; only in the bound form of that arm), scope values from `?6`. An arm whose
precondition is unmet is dropped before assembly, so `?1`, `?4` or `?5` may appear nowhere;
numbering never shifts, and the caller binds the same prefix either way (`bind_params`). Weights
and `k` are inlined literals: trusted configuration, not caller input.

`?4` is bound according to the vector backend: with "numpy" (the default, see index/vectors.py)
it is a carray of file rowids already ordered by best-chunk distance; with "sqlite-vec" it is the
query vector BLOB and SQLite computes `vec_distance_cosine` per chunk. Both yield the same ranks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memhtml_desktop.domain.rrf import RRF_K, Arm

# --- the arm CTE bodies ----------------------------------------------------------------------
# {F} is the scope filter with the arm's alias substituted.

# bm25() is NEGATIVE and more negative is more relevant, so ascending puts the best first. Getting
# the sign backwards would invert the arm while still producing a plausible list. The ORDER BY
# sits inside the limited subquery so the LIMIT keeps the most relevant candidates; the window
# outside numbers the survivors.
FTS_CTE = """SELECT path, ROW_NUMBER() OVER (ORDER BY score ASC, path ASC) AS rank, score AS raw FROM (
    SELECT files.path AS path, bm25(files_fts) AS score
    FROM files_fts JOIN files ON files.rowid = files_fts.rowid
    WHERE files_fts MATCH ?1{F}
    ORDER BY score ASC, path ASC
    LIMIT ?2)"""

# The default profile's lexical arm (`lexical = "stemmed"`): the porter index over title, claim and
# body (migration 0009), bm25 with one weight per column, {W}. The same shape as FTS_CTE, so the rank,
# the raw bm25 and the window mean what they mean there.
FTS_STEMMED_CTE = """SELECT path, ROW_NUMBER() OVER (ORDER BY score ASC, path ASC) AS rank, score AS raw FROM (
    SELECT files.path AS path, bm25(files_fts_stemmed{W}) AS score
    FROM files_fts_stemmed JOIN files ON files.rowid = files_fts_stemmed.rowid
    WHERE files_fts_stemmed MATCH ?1{F}
    ORDER BY score ASC, path ASC
    LIMIT ?2)"""

FTS_TABLES = {"memhtml": "files_fts", "stemmed": "files_fts_stemmed"}
"""The FTS5 table each lexical index reads (`RankingProfile.lexical`)."""


def lexical_weights(weights: Sequence[float]) -> str:
    """bm25()'s column weights as inlined literals (`, 2.0000, 1.0000, 1.0000`): trusted configuration."""
    return "".join(f", {float(w):.4f}" for w in weights)


# numpy backend: ?4 is a carray of file rowids in (distance, path) order; the carray's own rowid
# is the position in that order, so the scope filter keeps the order and the LIMIT keeps the
# nearest in-scope files. The lexical arm as the search binds it (index/lexical_window.py) has the
# same form on ?1: file rowids ranked by (bm25, path) and cut to the scope, the bm25 values kept
# beside the statement as the vector arm's distances are; same rows and ranks as FTS_CTE's forms.
_RANKED_CARRAY = """SELECT path, ROW_NUMBER() OVER (ORDER BY pos ASC) AS rank, pos AS raw FROM (
    SELECT f.path AS path, v.rowid AS pos
    FROM carray({P}) v JOIN files f ON f.rowid = v.value
    WHERE 1 = 1{F}
    ORDER BY v.rowid
    LIMIT ?2)"""
VECTOR_CTE_NUMPY = _RANKED_CARRAY.replace("{P}", "?4")
FTS_CTE_BOUND = _RANKED_CARRAY.replace("{P}", "?1")

# sqlite-vec backend: exact brute force in SQL; GROUP BY path with min() collapses a file to its
# best chunk, so a three-chunk file cannot take three ranks.
VECTOR_CTE_SQLITE_VEC = """SELECT path, ROW_NUMBER() OVER (ORDER BY dist ASC, path ASC) AS rank, dist AS raw FROM (
    SELECT f.path AS path, min(vec_distance_cosine(e.vec, ?4)) AS dist
    FROM files f JOIN chunks c ON c.content_hash = f.content_hash
    JOIN embeddings e ON e.chunk_id = c.chunk_id
    WHERE e.model = {MODEL}{F}
    GROUP BY f.path
    ORDER BY dist ASC, path ASC
    LIMIT ?2)"""

# Event time first: a memory about last month's incident sorts by when it happened. Ranked on the
# UTC instant (files.recency_utc, migration 0007), never on memhtml's verbatim text, whose order is
# not time's once offsets differ.
#
# No claimed future instant can hold the top: a memory whose event (or, without one, its `updated`
# stamp) lies after now ranks by its own `updated` stamp instead, and by nothing ('' sorts last)
# when that too lies ahead. Clamping to now would not do: a clamped 9999-12-31 still beats every
# past date, forever. The test is made against the clock at query time, so a planned date ranks by
# itself once it has passed. Two halves, each served by the files_recency_utc index: the past-dated
# walk down from now (the ?2 newest), and the few rows claiming the future, ranked by their
# fallback; the union is cut to ?2 again.
_NOW = "(SELECT strftime('%Y-%m-%dT%H:%M:%fZ', memhtml_now()))"
_RECENCY_PAST = f"""SELECT files.path AS path, files.recency_utc AS t
      FROM files WHERE files.recency_utc <= {_NOW}{{F}}"""
_RECENCY_AHEAD = f"""SELECT files.path AS path,
             CASE WHEN files.updated_utc <= {_NOW} THEN files.updated_utc ELSE '' END AS t
      FROM files WHERE files.recency_utc > {_NOW}{{F}}"""
RECENCY_CTE = f"""SELECT path, ROW_NUMBER() OVER (ORDER BY t DESC, path ASC) AS rank, t AS raw FROM (
    SELECT path, t FROM (
      {_RECENCY_PAST}
      ORDER BY files.recency_utc DESC, files.path ASC
      LIMIT ?2)
    UNION ALL
    SELECT path, t FROM (
      {_RECENCY_AHEAD}
      ORDER BY t DESC, path ASC
      LIMIT ?2)
    ORDER BY t DESC, path ASC
    LIMIT ?2)"""
RECENCY_ROWS = f"""{_RECENCY_PAST}
    UNION ALL
    {_RECENCY_AHEAD}"""
"""Every (path, t) the recency arm ranks, unordered and uncut (index/arm_rank.py counts in it)."""

# Three unitless terms over the store's state plane. The two exclusions are THIS arm's (a task is
# reached by status and due date, a person record by key) and live here, never in the shared
# scope: an excluded file emits no salience row at all but keeps its other ranks. An unparseable
# timestamp contributes no decay term rather than NULLing the whole score.
#
# The score is memhtml's, computed over every in-scope file; the statement only avoids scanning
# them all. A file with no state.access row scores exp(-0.01 * hours since updated_at), which
# falls as updated_at ages, so among those files only the ?2 most recently updated can reach the
# top ?2; every file WITH a row is a candidate. The union of the two is scored and cut. The
# clock is read once per statement (`memhtml_now()` is a Python function; per row it cost a
# third of a second at 20,000 files). tests/index/test_salience_arm.py pins this against the
# naive full scan. CROSS JOIN pins state.access as the outer loop: the planner otherwise scans files.
_DECAY_AGE = "(clock.now_s - unixepoch(coalesce(a.last_accessed_at, f.updated_at))) / 3600.0"
_SALIENCE_ROWS = f"""SELECT path, hours, decay, popularity, outcome, decay + popularity + outcome AS score FROM (
      SELECT f.path AS path,
             {_DECAY_AGE} AS hours,
             coalesce(exp(-0.01 * {_DECAY_AGE}), 0.0) AS decay,
             ln(1 + coalesce(a.access_count, 0)) AS popularity,
             max(coalesce(a.outcome_score, 0.0), 0.0) AS outcome
      FROM {{SOURCE}}"""
_SALIENCE_SCORED = f"""SELECT path, ROW_NUMBER() OVER (ORDER BY score DESC, path ASC) AS rank,
           json_array(decay, popularity, outcome, hours) AS raw FROM (
    {_SALIENCE_ROWS}
    ORDER BY score DESC, path ASC
    LIMIT ?2)"""
_SALIENCE_SOURCE = """(
        SELECT f.path AS path FROM state.access a CROSS JOIN files f ON f.path = a.path
        WHERE f.memory_type <> 'task' AND f.path NOT LIKE 'resources/people/%'{F}
        UNION
        SELECT path FROM (
          SELECT f.path AS path FROM files f
          WHERE f.memory_type <> 'task' AND f.path NOT LIKE 'resources/people/%'{F}
            AND NOT EXISTS (SELECT 1 FROM state.access a WHERE a.path = f.path)
          ORDER BY unixepoch(f.updated_at) DESC, f.path ASC
          LIMIT ?2)
      ) cand
      JOIN files f ON f.path = cand.path
      LEFT JOIN state.access a ON a.path = f.path
      CROSS JOIN (SELECT unixepoch(memhtml_now()) AS now_s) clock)"""
SALIENCE_CTE = _SALIENCE_SCORED.replace("{SOURCE}", _SALIENCE_SOURCE)
SALIENCE_ROWS = _SALIENCE_ROWS.replace("{SOURCE}", _SALIENCE_SOURCE)
"""Every (path, hours, decay, popularity, outcome, score) the salience arm ranks when `?2` is -1, unordered."""

# The same score over the few memories that can be in the top ?2 (`?5`: index/salience.py's bound
# list, exact for the clock's next hour), so a search no longer scores every accessed memory. Same
# exclusions, scope, score, order and cut as SALIENCE_CTE: tests/index/test_salience_cache.py pins
# the two together.
SALIENCE_BOUND_CTE = _SALIENCE_SCORED.replace(
    "{SOURCE}",
    """carray(?5) cand
      JOIN files f ON f.rowid = cand.value
      LEFT JOIN state.access a ON a.path = f.path
      CROSS JOIN (SELECT unixepoch(memhtml_now()) AS now_s) clock
      WHERE f.memory_type <> 'task' AND f.path NOT LIKE 'resources/people/%'{F})""",
)

ARM_ALIAS = {"fts": "files", "vector": "f", "recency": "files", "salience": "f"}


def arm_cte(
    arm: str,
    scope_filter: str,
    *,
    vector_backend: str = "numpy",
    model_literal: str = "''",
    lexical: str = "memhtml",
    field_weights: Sequence[float] = (),
    salience_bound: bool = False,
    lexical_bound: bool = False,
) -> str:
    """One arm's CTE body with the scope filter substituted under that arm's alias; `lexical` and
    `field_weights` choose the lexical arm's index and its bm25 column weights; `salience_bound`
    scores only the candidates bound to `?5` (index/salience.py) instead of scanning the scope;
    `lexical_bound` reads the lexical arm's window from the carray bound to `?1` (index/lexical_window.py)."""
    if arm == "fts" and lexical_bound:
        return FTS_CTE_BOUND.replace("{F}", scope_filter.replace("{alias}", "f"))
    body = {
        "fts": FTS_CTE if lexical == "memhtml" else FTS_STEMMED_CTE.replace("{W}", lexical_weights(field_weights)),
        "vector": VECTOR_CTE_NUMPY if vector_backend == "numpy" else VECTOR_CTE_SQLITE_VEC,
        "recency": RECENCY_CTE,
        "salience": SALIENCE_BOUND_CTE if salience_bound else SALIENCE_CTE,
    }[arm]
    filter_sql = scope_filter.replace("{alias}", ARM_ALIAS[arm])
    return body.replace("{F}", filter_sql).replace("{MODEL}", model_literal)


def build_arm_rows_sql(arm: str, scope_filter: str) -> str:
    """Every row the recency or salience arm ranks (with `?2` = -1), unordered, uncut, without the
    window function: what "why not this one?" counts in (index/arm_rank.py)."""
    body = {"recency": RECENCY_ROWS, "salience": SALIENCE_ROWS}[arm]
    return body.replace("{F}", scope_filter.replace("{alias}", ARM_ALIAS[arm]))


def sql_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def build_rrf_sql(
    arms: Sequence[Arm],
    scope_filter: str,
    *,
    vector_backend: str = "numpy",
    model: str = "",
    k: int = RRF_K,
    lexical: str = "memhtml",
    field_weights: Sequence[float] = (),
    salience_bound: bool = False,
    lexical_bound: bool = False,
    fused: bool = True,
) -> str | None:
    """The fused statement over `arms`, or None when no arm is active (never `SELECT … FROM ()`).

    Columns: path, score (the fused RRF sum), arm, rank, raw, contribution. Rows come ordered by
    score DESC, path ASC, so the fused order is total and repeatable.

    `fused=False`: every arm's rows as they are, score NULL, in no order, and no `?3` cut: for a
    caller that fuses and orders every candidate itself (a convex fusion: index/retrieval.py).
    Summing, grouping and sorting the rows by that sum, then joining them back, was 60 % of the
    statement (1.2 ms a search at 20,000 memories) for an order the caller replaces.
    """
    active = [arm for arm in arms if arm.weight > 0]
    if not active:
        return None
    model_literal = sql_literal(model)
    ctes = [
        f"{arm.name} AS (\n  {arm_cte(arm.name, scope_filter, vector_backend=vector_backend, model_literal=model_literal, lexical=lexical, field_weights=field_weights, salience_bound=salience_bound, lexical_bound=lexical_bound)})"
        for arm in active
    ]
    union = "\n  UNION ALL ".join(
        f"SELECT '{arm.name}' AS arm, path, rank, raw, {arm.weight:.4f} / (rank + {k}) AS s FROM {arm.name}"
        for arm in active
    )
    if not fused:
        return "WITH " + ",\n".join(ctes) + f",\nrrf AS (\n  {union})\nSELECT path, NULL, arm, rank, raw, s FROM rrf"
    return (
        "WITH "
        + ",\n".join(ctes)
        + f",\nrrf AS MATERIALIZED (\n  {union}),\n"
        + "fused AS (SELECT path, SUM(s) AS score FROM rrf GROUP BY path ORDER BY score DESC, path ASC LIMIT ?3)\n"
        + "SELECT fused.path, fused.score, rrf.arm, rrf.rank, rrf.raw, rrf.s\n"
        + "FROM fused JOIN rrf ON rrf.path = fused.path\n"
        + "ORDER BY fused.score DESC, fused.path ASC, rrf.arm ASC"
    )


def build_arm_sql(
    arm: str,
    scope_filter: str,
    *,
    vector_backend: str = "numpy",
    model: str = "",
    lexical: str = "memhtml",
    field_weights: Sequence[float] = (),
) -> str:
    """One arm alone, returning (path, rank, raw): for "why not this one?" with `?2` = -1 (no limit)."""
    return arm_cte(
        arm,
        scope_filter,
        vector_backend=vector_backend,
        model_literal=sql_literal(model),
        lexical=lexical,
        field_weights=field_weights,
    )


def build_fts_probe_sql(scope_filter: str, lexical: str = "memhtml") -> str:
    """Does any in-scope file hold every term? Decides between the all-terms and any-of forms."""
    table = FTS_TABLES[lexical]
    return (
        f"SELECT 1 FROM {table} JOIN files ON files.rowid = {table}.rowid "
        f"WHERE {table} MATCH ?1" + scope_filter.replace("{alias}", "files") + " LIMIT 1"
    )


_MARKER = re.compile(r"\?(\d+)")


def highest_marker(sql: str) -> int:
    return max((int(m) for m in _MARKER.findall(sql)), default=0)


PREFIX = 5
"""The fixed placeholders before the scope's (`?1`-`?5`); a shorter prefix is padded with NULLs."""


def bind_params(sql: str, prefix: Sequence[object], scope_params: Sequence[object]) -> tuple[object, ...]:
    """The full tuple `[?1..?5, scope…]` truncated to the highest marker the SQL uses.

    SQLite binds by index and refuses extra values; a missing middle slot (`?4` when scope uses
    `?6`) is still supplied, as NULL.
    """
    values = list(prefix) + [None] * (PREFIX - len(prefix)) + list(scope_params)
    return tuple(values[: highest_marker(sql)])
