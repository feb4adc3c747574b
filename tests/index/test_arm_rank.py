"""Where one memory stands in a whole arm (index/arm_rank.py), against the arm's own statement.

"Why not this one?" used to number every row of every arm with the arm's statement (`build_arm_sql`
with no window) and read them all back; it now counts the rows ordered before the memory. For every
arm, the length, the memory's rank and its raw value must be the statement's: on generated stores of
two seeds with memhtml's seeded state plane, copies of memories (ties in bm25, distance, time and
salience, decided by path), several scopes (the default, tasks, archived included, a facet, none at
all), both lexical indexes, memories in and out of the scope, and a path nobody has.
"""

from __future__ import annotations

import datetime as dt
import random
import shutil

import apsw
import numpy as np
import pytest

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.domain.fts_query import parse_fts_query
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index import arm_rank
from memhtml_desktop.index.retrieval_sql import bind_params, build_arm_sql
from memhtml_desktop.index.scope import assemble_scope
from memhtml_desktop.index.store import Store

NOW = dt.datetime(2026, 11, 29, 12, 0, 0, tzinfo=dt.timezone.utc)

QUERIES = (
    "drain the vip before reverting the deploy",
    "canary rollback",
    "ledger vacuum",
    "token signing key",
    "cache purge edge",
    "zzzq nothing here",
)


@pytest.fixture(scope="module", params=[7, 31])
def generated(request, tmp_path_factory):
    base = tmp_path_factory.mktemp(f"arm-rank-{request.param}")
    generate_store(base / "store", 160, request.param, probes=8, state=True)
    rng = random.Random(request.param)
    files = sorted(p for p in (base / "store").rglob("*.html") if p.name != "README.html")
    for i, source in enumerate(rng.sample(files, 12)):  # twins: equal text, equal times, decided by path
        shutil.copy(source, source.with_name(("a" if i % 2 else "zz") + "-twin-" + source.name))
    store = Store(base / "store", index_path=base / "index.db", embedder=HashEmbedder(), clock=lambda: NOW)
    store.index()
    return store


def _scopes(conn):
    facet = conn.execute("SELECT name, value FROM file_facets GROUP BY 1, 2 ORDER BY count(*) DESC LIMIT 1").fetchone()
    return [
        Scope(),
        Scope.build(memory_types=["task"]),
        Scope.build(include_archived=True),
        Scope.build(facets=[tuple(facet)]) if facet else Scope(),
        Scope.build(include_archived=True, memory_types=["semantic", "episodic", "procedural", "task", "arc"]),
    ]


def _listed(conn, arm, scope_sql, prefix, path):
    """The arm's whole list from its statement, as explain.py read it before: (length, rank, raw)."""
    sql = build_arm_sql(arm, scope_sql.filter, lexical=prefix["lexical"], field_weights=prefix["weights"])
    rows = conn.execute(sql, bind_params(sql, (prefix["match"], -1, -1, prefix["vector"]), scope_sql.params)).fetchall()
    mine = [(int(rank), raw) for p, rank, raw in rows if p == path]
    return len(rows), *(mine[0] if mine else (None, None))


def test_every_arm_ranks_as_its_statement(generated):
    store = generated
    conn = store.reader()
    retriever = store.retriever()
    rng = random.Random(5)
    paths = [r[0] for r in conn.execute("SELECT path FROM files ORDER BY path")]
    twins = [p for p in paths if "-twin-" in p]
    checked = {"fts": 0, "vector": 0, "recency": 0, "salience": 0}
    for profile in (DEFAULT, MEMHTML):
        for scope in _scopes(conn):
            scope_sql = assemble_scope(scope)
            for query in QUERIES:
                fts = parse_fts_query(query)
                wanted = rng.sample(paths, 6) + rng.sample(twins, 2) + ["areas/nobody/none.html"]
                with conn:
                    match, _ = retriever.fts_form(fts, scope_sql, profile)
                    qvec, _ = retriever.query_vector(query)
                    snapshot = retriever.vector_snapshot()
                    ranked, _ = snapshot.ranked_files(qvec, int(snapshot.file_rowids.shape[0]))
                    prefix = {
                        "match": match,
                        "vector": apsw.carray(np.ascontiguousarray(ranked, dtype=np.int64)),
                        "lexical": profile.lexical,
                        "weights": profile.field_weights,
                    }
                    if match is not None:  # and memories the lexical arm ranks, ties among them
                        sql = build_arm_sql(
                            "fts", scope_sql.filter, lexical=profile.lexical, field_weights=profile.field_weights
                        )
                        listed = [r[0] for r in conn.execute(sql, bind_params(sql, (match, -1), scope_sql.params))]
                        wanted += rng.sample(listed, min(4, len(listed))) + listed[-1:]
                    for path in wanted:
                        if match is not None:
                            got = arm_rank.lexical(
                                conn,
                                "k",
                                match,
                                scope_sql,
                                path,
                                lexical=profile.lexical,
                                field_weights=profile.field_weights,
                            )
                            assert (got.ranked, got.rank, got.raw) == _listed(conn, "fts", scope_sql, prefix, path)
                            checked["fts"] += got.rank is not None
                        got = arm_rank.vector(conn, "k", ranked, scope_sql, path)
                        assert (got.ranked, got.rank, got.raw) == _listed(conn, "vector", scope_sql, prefix, path)
                        checked["vector"] += got.rank is not None
                        for arm in ("recency", "salience"):
                            got = arm_rank.prior(conn, arm, scope_sql, path)
                            want = _listed(conn, arm, scope_sql, prefix, path)
                            assert (got.ranked, got.rank, got.raw) == want, (arm, scope, path)
                            checked[arm] += got.rank is not None
    assert all(n > 50 for n in checked.values()), checked


def test_twins_are_ranked_apart_by_path(generated):
    # a twin and its source: the same bm25, distance and time; the path decides, in every arm
    store = generated
    conn = store.reader()
    retriever = store.retriever()
    twin = conn.execute(
        "SELECT path FROM files WHERE path LIKE '%/zz-twin-%' AND archived = 0 "
        "AND memory_type <> 'task' ORDER BY path LIMIT 1"
    ).fetchone()[0]
    source = twin.replace("zz-twin-", "")
    title = conn.execute("SELECT title FROM files WHERE path = ?", (source,)).fetchone()[0]
    scope_sql = assemble_scope(Scope())
    with conn:
        match, _ = retriever.fts_form(parse_fts_query(title), scope_sql, DEFAULT)
        a = arm_rank.lexical(conn, "k", match, scope_sql, source, lexical="stemmed", field_weights=(2.0, 1.0, 1.0))
        b = arm_rank.lexical(conn, "k", match, scope_sql, twin, lexical="stemmed", field_weights=(2.0, 1.0, 1.0))
        assert a.raw == b.raw and b.rank == a.rank + 1 + _between(conn, match, source, twin, a.raw)
        ra = arm_rank.prior(conn, "recency", scope_sql, source)
        rb = arm_rank.prior(conn, "recency", scope_sql, twin)
        assert ra.raw == rb.raw and rb.rank > ra.rank


def _between(conn, match, low, high, score):
    """Rows tied with both at `score` whose path lies between theirs (the twin is not next to its source)."""
    rows = conn.execute(
        "SELECT f.path FROM files_fts_stemmed s JOIN files f ON f.rowid = s.rowid WHERE "
        "files_fts_stemmed MATCH ?1 AND bm25(files_fts_stemmed, 2.0, 1.0, 1.0) = ?2 "
        "AND f.archived = 0 AND f.memory_type <> 'task'",
        (match, score),
    ).fetchall()
    return sum(1 for (p,) in rows if low < p < high)
