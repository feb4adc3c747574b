"""The fused pool behind a search page: deeper than the page, in fused order, with the totals.

A search shows the agent's page: `limit` hits chosen by polarity and MMR from the first
`limit x 3` of the fused list. A person who wants to see what diversification did, page past the
agent's page, or tell whether any memory holds the query's words at all needs the fused list
itself and two totals. `fused_pool` runs the very pipeline search runs (`Retriever._candidates`,
same statement, same snapshot, same tie-break on path), so its first `limit x 3` entries are the
pool the page was drawn from, and deeper entries continue the same order: RRF scores do not
depend on how many rows the statement returns, so a deeper list only extends the shallower one.
Past the union of the arms' windows (40 each) nothing more is fused, and `more` says so.
"""

from __future__ import annotations

import dataclasses
import math

import apsw

from memhtml_desktop.domain.fts_query import FtsQuery, parse_fts_query
from memhtml_desktop.domain.ranking import RankingProfile
from memhtml_desktop.domain.results import MATCH_COUNT_CAP, Answer, FusedPool
from memhtml_desktop.domain.types import Scope, bounded_query, clean_text
from memhtml_desktop.index.retrieval import MAX_LIMIT, Pool, Retriever, matchable
from memhtml_desktop.index.retrieval_sql import FTS_TABLES, bind_params
from memhtml_desktop.index.scope import ScopeSql, assemble_scope
from memhtml_desktop.index.scope_rows import ScopeRows

MAX_DEPTH = 480
"""The deepest a pool is listed (the arms' windows hold at most 4 x 40 distinct memories anyway)."""


def match_count(
    conn: apsw.Connection, match: str | None, scope_sql: ScopeSql, lexical: str = "memhtml"
) -> tuple[int, bool]:
    """In-scope memories the lexical arm's MATCH text holds in its index (`lexical`), up to
    MATCH_COUNT_CAP (and whether capped)."""
    if match is None:
        return 0, False
    table = FTS_TABLES[lexical]
    sql = (
        f"SELECT count(*) FROM (SELECT 1 FROM {table} JOIN files ON files.rowid = {table}.rowid "
        f"WHERE {table} MATCH ?1{scope_sql.for_alias('files')} LIMIT {MATCH_COUNT_CAP + 1})"
    )
    (count,) = conn.execute(sql, bind_params(sql, (match, None, None, None), scope_sql.params)).fetchone()
    return min(int(count), MATCH_COUNT_CAP), int(count) > MATCH_COUNT_CAP


def scope_count(
    conn: apsw.Connection, scope_sql: ScopeSql, key: str | None = None, scope_rows: ScopeRows | None = None
) -> int:
    """Memories the scope admits; with `key` (the index's) and the store's `scope_rows`, from the
    scope's rows kept between searches (index/scope_rows.py), which a scope that filters nothing
    does not keep."""
    if key is not None and scope_rows is not None and scope_sql.filter:
        return int(scope_rows.rows(conn, key, scope_sql).shape[0])
    sql = f"SELECT count(*) FROM files WHERE 1 = 1{scope_sql.for_alias('files')}"
    return int(conn.execute(sql, bind_params(sql, (None, None, None, None), scope_sql.params)).fetchone()[0])


def answer(
    retriever: Retriever,
    query: str,
    scope: Scope | None,
    *,
    limit: int,
    depth: int,
    ranking: RankingProfile | None = None,
    generation: int = 0,
) -> Answer:
    """A search and the pool behind it from ONE run of the pipeline, in one read transaction, the
    query parsed once for both (and for whoever reads the Answer); no pool when nothing was hit."""
    fts = parse_fts_query(bounded_query(query)[0])
    keep: list = []
    with retriever.conn:
        result = retriever.search(query, scope, limit=limit, ranking=ranking, keep=keep, fts=fts)
        pool = None
        if result.hits:
            pool = fused_pool(
                retriever,
                result.query,
                scope,
                limit=limit,
                depth=depth,
                ranking=ranking,
                page=keep[0] if keep else None,
                fts=fts,
            )
    return Answer(result, pool, fts, max(1, min(int(limit), MAX_LIMIT)), generation)


def fused_pool(
    retriever: Retriever,
    query: str,
    scope: Scope | None,
    *,
    limit: int,
    depth: int,
    ranking: RankingProfile | None = None,
    page: Pool | None = None,
    fts: FtsQuery | None = None,
) -> FusedPool:
    """The page's pool and `depth` entries of the fused list (see the module docstring).

    `ranking` is the profile the page was ranked with (the store's by default): the pool's size
    and the page's order follow it as search's do. `page`: the candidate Pool a search of the same
    query, scope, limit and profile just made (it is not fused again); `fts`: the query parsed.
    """
    profile = ranking or retriever.profile
    factor = max(1, profile.pool_factor)
    query = clean_text(query)
    scope = scope or Scope()
    limit = max(1, min(int(limit), MAX_LIMIT))
    depth = max(0, min(int(depth), MAX_DEPTH))
    conn = retriever.conn
    with conn:  # one read transaction: the page, the deeper list and the totals see one snapshot
        if page is None:
            page = retriever._candidates(query, scope, limit, profile, fts=fts)
        fused = list(page.fused)
        wanted = max(depth, len(fused))
        if wanted > len(fused) and len(fused) >= profile.pool_size(limit):
            deeper = retriever._candidates(query, scope, min(MAX_LIMIT, math.ceil(wanted / factor)), profile, fts=fts)
            fused = list(deeper.fused)
        # In fused order nothing moved a candidate: the copies drop the page's moves.
        listed = [dataclasses.replace(c, moves=[]) for c in fused[:depth]]
        entries = retriever._hits(dataclasses.replace(page, ordered=listed))[0] if listed else []
        scope_sql = assemble_scope(scope)
        if page.scope_sql is not None and page.scope == scope and page.profile == profile:
            # the page bound its form in this transaction; its lexical window counted every match when
            # it saw them all (the page's own count stops at 100, the pool's at MATCH_COUNT_CAP)
            match, form = page.match, page.fts_form
            window = page.window
            if match is None:
                matches, capped = None, False
            elif window is not None and window.whole:
                matches, capped = min(window.matched, MATCH_COUNT_CAP), window.matched > MATCH_COUNT_CAP
            else:
                matches, capped = match_count(conn, match, scope_sql, profile.lexical)
        else:
            match, form = retriever.fts_form(matchable(page.fts or parse_fts_query(query)), scope_sql, profile)
            matches, capped = (
                match_count(conn, match, scope_sql, profile.lexical) if match is not None else (None, False)
            )
        in_scope = scope_count(
            conn, scope_sql, retriever.cache_key or conn.db_filename("main"), retriever.caches.scope_rows
        )
    asked = max(wanted, profile.pool_size(limit))
    return FusedPool(
        query=query,
        scope=scope,
        limit=limit,
        pool_size=min(len(page.fused), profile.pool_size(limit)),
        entries=tuple(entries),
        page=tuple(c.path for c in page.ordered),
        more=len(fused) > depth or len(fused) >= asked,
        fts_form=form,
        matches=matches,
        matches_capped=capped,
        in_scope=in_scope,
    )
