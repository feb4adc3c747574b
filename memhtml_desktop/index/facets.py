"""Counts beside every filter value, for the current query.

"For the current query" means the memories the query's words match (the same all-terms/any-of
choice the lexical arm makes), or the whole scope when the query has no words. The recency and
salience arms rank every file in scope, so counting "what the fused list could return" would just
count the scope; lexical matches are what a person means by "how many runbooks mention this".

Counts are disjunctive, as in any faceted browser: each axis is counted with its OWN selection
relaxed and every other axis applied, so ticking `doc-type = runbook` does not grey out
`doc-type = guide` (values under one name broaden), while it does narrow the tag counts.
"""

from __future__ import annotations

from typing import Any

import apsw

from memhtml_desktop.domain.fts_query import parse_fts_query
from memhtml_desktop.domain.paths import MEMORY_TYPES
from memhtml_desktop.domain.results import FilterCounts
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.retrieval_sql import bind_params, build_fts_probe_sql, highest_marker
from memhtml_desktop.index.scope import assemble_scope

MAX_VALUES = 500


def _candidates(conn: apsw.Connection, query: str, scope: Scope) -> tuple[str, tuple[Any, ...]]:
    """A `SELECT path` over the files the query matches within `scope`, and its parameters."""
    fts = parse_fts_query(query)
    scope_sql = assemble_scope(scope)
    if fts.empty:
        sql = "SELECT files.path AS path FROM files WHERE 1 = 1" + scope_sql.for_alias("files")
        return sql, bind_params(sql, (None, None, None, None), scope_sql.params)
    match = fts.all_form
    if len(fts.terms) > 1:
        probe = build_fts_probe_sql(scope_sql.filter)
        if (
            conn.execute(probe, bind_params(probe, (fts.all_form, None, None, None), scope_sql.params)).fetchone()
            is None
        ):
            match = fts.any_form
    sql = (
        "SELECT files.path AS path FROM files_fts JOIN files ON files.rowid = files_fts.rowid "
        "WHERE files_fts MATCH ?1" + scope_sql.for_alias("files")
    )
    return sql, bind_params(sql, (match, None, None, None), scope_sql.params)


def _grouped(conn: apsw.Connection, query: str, scope: Scope, select: str) -> dict[str, int]:
    base, params = _candidates(conn, query, scope)
    sql = f"WITH cand AS ({base}) {select} LIMIT {MAX_VALUES}"
    return {str(k): int(n) for k, n in conn.execute(sql, params) if k is not None}


def _entity_counts(conn: apsw.Connection, query: str, scope: Scope) -> dict[str, int]:
    """Matches per entity reference (`type:name`), the most first.

    Counted per (type, name) pair with `count(*)`: a candidate is one file once, and a file holds a
    pair once (the table's key), so that is the number of files. `count(DISTINCT path)` grouped by
    the joined text, as before, built an index per group: 2-5x the time of the whole count at
    20,000 memories. Two pairs can join to one text (`a:b` + `c` and `a` + `b:c`); then, and only
    then, the files are counted by the text, each once.
    """
    base, params = _candidates(conn, query, scope)
    refs: dict[str, int] = {}
    rows = conn.execute(
        f"WITH cand AS ({base}) SELECT e.entity_type, e.entity_name, count(*) FROM cand "
        "JOIN file_entities e ON e.path = cand.path GROUP BY e.entity_type, e.entity_name",
        params,
    ).fetchall()
    for kind, name, n in rows:
        ref = f"{kind}:{name}"
        if ref in refs:  # two pairs, one text: count its files once each, as the text's own group
            return _grouped(
                conn,
                query,
                scope,
                "SELECT e.entity_type || ':' || e.entity_name AS ref, count(DISTINCT cand.path) FROM cand "
                "JOIN file_entities e ON e.path = cand.path GROUP BY ref ORDER BY count(DISTINCT cand.path) DESC, ref",
            )
        refs[ref] = int(n)
    ranked = sorted(refs.items(), key=lambda kv: (-kv[1], kv[0].encode("utf-8")))
    return dict(ranked[:MAX_VALUES])


def _facet_rows(conn: apsw.Connection, query: str, scope: Scope, names: list[str]) -> list[tuple[str, str, int]]:
    """(name, value, files) for the given facet names over the query's matches in `scope`.

    `count(*)`, not `count(DISTINCT path)`: each candidate is one file once and a file holds a
    (name, value) once (the table's key), and the DISTINCT's index per group made this the count's
    costliest statement (4.4-4.9x at 20,000 memories, 70,000 facet rows).
    """
    if not names:
        return []
    base, params = _candidates(conn, query, scope)
    marker = highest_marker(base) + 1
    sql = (
        f"WITH cand AS ({base}) SELECT ff.name, ff.value, count(*) FROM cand "
        f"JOIN file_facets ff ON ff.path = cand.path WHERE ff.name IN carray(?{marker}) "
        f"GROUP BY ff.name, ff.value ORDER BY ff.name, ff.value"
    )
    padded = tuple(params) + (None,) * (marker - 1 - len(params)) + (apsw.carray(tuple(names)),)
    return [(str(a), str(b), int(c)) for a, b, c in conn.execute(sql, padded)]


def filter_counts(conn: apsw.Connection, query: str, scope: Scope) -> FilterCounts:
    counts = FilterCounts()
    with conn:
        base, params = _candidates(conn, query, scope)
        counts.query_matches = conn.execute(f"SELECT count(*) FROM ({base})", params).fetchone()[0]
        counts.types = _grouped(
            conn,
            query,
            scope.with_(memory_types=MEMORY_TYPES),
            "SELECT f.memory_type, count(*) FROM cand JOIN files f ON f.path = cand.path "
            "GROUP BY f.memory_type ORDER BY count(*) DESC",
        )
        counts.workspaces = _grouped(
            conn,
            query,
            scope.with_(workspace=None),
            "SELECT f.workspace, count(*) FROM cand JOIN files f ON f.path = cand.path "
            "WHERE f.workspace IS NOT NULL GROUP BY f.workspace ORDER BY count(*) DESC, f.workspace",
        )
        counts.tags = _grouped(
            conn,
            query,
            scope.with_(tags=()),
            "SELECT t.tag, count(*) FROM cand JOIN file_tags t ON t.path = cand.path "
            "GROUP BY t.tag ORDER BY count(*) DESC, t.tag",
        )
        counts.entities = _entity_counts(conn, query, scope.with_(entity=None))
        names = [r[0] for r in conn.execute("SELECT DISTINCT name FROM file_facets ORDER BY name LIMIT 200")]
        selected = {n.strip() for n, _ in scope.live_facets}
        # Names with no selected value share one base (the scope as it is): one grouped query for
        # all of them. Each name with a selection is counted with that selection relaxed.
        for name in names:
            counts.facets[name] = {}
        for name, value, n in _facet_rows(conn, query, scope, [n for n in names if n not in selected]):
            counts.facets[name][value] = n
        for name in sorted(selected & set(names)):
            relaxed = scope.with_(facets=tuple((n, v) for n, v in scope.facets if n.strip() != name))
            for _, value, n in _facet_rows(conn, query, relaxed, [name]):
                counts.facets[name][value] = n
        if not scope.include_archived:
            base, params = _candidates(conn, query, scope.with_(include_archived=True))
            counts.archived = conn.execute(
                f"SELECT count(*) FROM ({base}) c JOIN files f ON f.path = c.path WHERE f.archived = 1", params
            ).fetchone()[0]
    return counts


def counts_over(conn: apsw.Connection, paths: list[str] | tuple[str, ...]) -> FilterCounts:
    """The same counts over exactly `paths` (the hits a list shows): nothing relaxed, nothing matched.

    "How many of these hits are runbooks" is a different question from "how many runbooks could a
    search in this scope return" (filter_counts with no words); the filters pane shows both.
    """
    counts = FilterCounts()
    paths = tuple(dict.fromkeys(paths))
    if not paths:
        return counts
    cand = "WITH cand AS (SELECT value AS path FROM carray(?1)) "
    bound = (apsw.carray(paths),)
    with conn:
        counts.query_matches = len(paths)
        counts.types = {
            str(t): int(n)
            for t, n in conn.execute(
                cand + "SELECT f.memory_type, count(*) FROM cand JOIN files f ON f.path = cand.path "
                "GROUP BY f.memory_type",
                bound,
            )
        }
        counts.workspaces = {
            str(w): int(n)
            for w, n in conn.execute(
                cand + "SELECT f.workspace, count(*) FROM cand JOIN files f ON f.path = cand.path "
                "WHERE f.workspace IS NOT NULL GROUP BY f.workspace",
                bound,
            )
        }
        counts.tags = {
            str(t): int(n)
            for t, n in conn.execute(
                cand + "SELECT t.tag, count(DISTINCT cand.path) FROM cand JOIN file_tags t ON t.path = cand.path "
                "GROUP BY t.tag",
                bound,
            )
        }
        counts.entities = {
            str(e): int(n)
            for e, n in conn.execute(
                cand + "SELECT e.entity_type || ':' || e.entity_name AS ref, count(DISTINCT cand.path) FROM cand "
                "JOIN file_entities e ON e.path = cand.path GROUP BY ref",
                bound,
            )
        }
        for name, value, n in conn.execute(
            cand + "SELECT ff.name, ff.value, count(DISTINCT cand.path) FROM cand "
            "JOIN file_facets ff ON ff.path = cand.path GROUP BY ff.name, ff.value",
            bound,
        ):
            counts.facets.setdefault(str(name), {})[str(value)] = int(n)
        counts.archived = int(
            conn.execute(
                cand + "SELECT count(*) FROM cand JOIN files f ON f.path = cand.path WHERE f.archived = 1", bound
            ).fetchone()[0]
        )
    return counts
