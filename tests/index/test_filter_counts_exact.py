"""The filters' counts are the number of files, whatever way the statement counts them.

`filter_counts` counts entities per (type, name) pair and facets with `count(*)` (a candidate is one
file once; a file holds a pair once) instead of `count(DISTINCT path)` grouped by text. Checked here
against that older, slower statement, on generated stores of two sizes and seeds, over queries with
and without words and scopes with and without a selection, and on the one case where the two differ
unless handled: two entity pairs whose joined text is the same.
"""

from __future__ import annotations

import apsw
import pytest

from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index import facets

gen_store = pytest.importorskip("memhtml_desktop.devtools.gen_store")


@pytest.fixture(params=[(500, 7), (900, 29)], ids=["500-seed7", "900-seed29"])
def generated(request, tmp_path, make_store):
    count, seed = request.param
    root = tmp_path / "gen"
    gen_store.generate_store(root, count, seed, state=True)
    store = make_store(root)
    store.import_sidecar()
    store.index()
    yield store
    store.close_thread_connection()


def _entities_by_text(conn: apsw.Connection, query: str, scope: Scope) -> dict[str, int]:
    return facets._grouped(
        conn,
        query,
        scope.with_(entity=None),
        "SELECT e.entity_type || ':' || e.entity_name AS ref, count(DISTINCT cand.path) FROM cand "
        "JOIN file_entities e ON e.path = cand.path GROUP BY ref ORDER BY count(DISTINCT cand.path) DESC, ref",
    )


def _facets_distinct(conn: apsw.Connection, query: str, scope: Scope) -> dict[str, dict[str, int]]:
    base, params = facets._candidates(conn, query, scope)
    out: dict[str, dict[str, int]] = {}
    for name, value, n in conn.execute(
        f"WITH cand AS ({base}) SELECT ff.name, ff.value, count(DISTINCT cand.path) FROM cand "
        "JOIN file_facets ff ON ff.path = cand.path GROUP BY ff.name, ff.value",
        params,
    ):
        out.setdefault(str(name), {})[str(value)] = int(n)
    return out


QUERIES = ("", "rollback drain", "tenant router timeout", "checkout-api canary", "xyzzy qwerty")


@pytest.mark.parametrize("query", QUERIES)
def test_entity_and_facet_counts_are_the_files_counted_once(generated, query):
    conn = generated.reader()
    tags = [r[0] for r in conn.execute("SELECT tag FROM file_tags GROUP BY tag ORDER BY count(*) DESC LIMIT 1")]
    for scope in (Scope(), Scope(tags=tuple(tags))):
        counts = facets.filter_counts(conn, query, scope)
        expected = _entities_by_text(conn, query, scope)
        assert counts.entities == expected
        assert list(counts.entities) == list(expected), "the order: the most first, then by text"
        assert {n: v for n, v in counts.facets.items() if v} == _facets_distinct(conn, query, scope)
    assert any(facets.filter_counts(conn, q, Scope()).entities for q in QUERIES), "no entity counted: nothing tried"


def test_two_entity_pairs_with_one_text_count_each_file_once(generated):
    conn = generated.reader()
    first, second = [r[0] for r in conn.execute("SELECT path FROM files WHERE archived = 0 ORDER BY path LIMIT 2")]
    with conn:  # the index's own table, written as the indexer would for such names (and nothing else,
        conn.execute("DELETE FROM file_entities")  # so the pair is not past the 500 values shown)
        conn.execute(
            "INSERT INTO file_entities (path, entity_type, entity_name) VALUES (?, 'a:b', 'c'), "
            "(?, 'a', 'b:c'), (?, 'a', 'b:c')",
            (first, first, second),
        )
    counts = facets.filter_counts(conn, "", Scope())
    assert counts.entities == {"a:b:c": 2}, "the first file holds both pairs and is one file"
    assert counts.entities == _entities_by_text(conn, "", Scope())
