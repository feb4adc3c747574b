"""The default profile's lexical arm: the porter index over title, claim and body (migration 0009).

Real stores, real SQLite: a stemmed word meets its inflections under `default` and not under
`memhtml` (whose index stays memhtml's one unstemmed column); question words never decide a match;
field weights move a title match above a body match; phrases still bind as phrases; the header's
count reads the same index as the arm; and an index made before the migration gains the table,
filled, on open.
"""

from __future__ import annotations

from dataclasses import replace

import apsw
import pytest

from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML
from memhtml_desktop.domain.rrf import RANK_ARMS
from memhtml_desktop.index.retrieval_sql import build_rrf_sql
from tests.memfiles import write_memory


def _fts_only(profile):
    return replace(
        profile,
        arms=tuple(replace(a, weight=a.weight if a.name == "fts" else 0.0) for a in profile.arms),
        gate_priors=False,
    )


@pytest.fixture
def stemmed_store(store_root, make_store):
    write_memory(
        store_root,
        "areas/tools/cpan.html",
        title="Module setup",
        claim="Install modules with cpanm, which fetches, builds and tests them.",
    )
    write_memory(
        store_root,
        "areas/tools/editor.html",
        title="Editors",
        claim="Configure the editor to show tabs and trailing spaces.",
    )
    write_memory(
        store_root,
        "areas/tools/sorting.html",
        title="Sorting a hash by value",
        claim="Use sort with a comparison block.",
    )
    write_memory(
        store_root,
        "areas/tools/values.html",
        title="Hash slices",
        claim="Sorting hash values: sort the values of a hash, not its keys.",
    )
    store = make_store(store_root)
    store.index()
    return store


@pytest.mark.parametrize("query", ["installing modules", "how do I get modules installed?", "Installed"])
def test_an_inflected_word_meets_its_stem_under_default_only(stemmed_store, query):
    default = stemmed_store.search(query, limit=5, ranking=_fts_only(DEFAULT))
    memhtml = stemmed_store.search(query, limit=5, ranking=_fts_only(MEMHTML))
    assert default.hits and default.hits[0].path == "areas/tools/cpan.html"
    fts = default.hits[0].arm("fts")
    assert fts is not None and fts.rank == 1 and fts.raw["bm25"] < 0
    # memhtml's index is unstemmed, and its all-words form requires "installing" verbatim.
    assert "areas/tools/cpan.html" not in [h.path for h in memhtml.hits if h.arm("fts") is not None]


def test_question_words_never_decide_a_match(stemmed_store):
    # "way" and "get" are in every question and in no answer here; without them the all-words form
    # binds ("editor" and "tabs" are both in one memory) instead of falling back to any-of.
    both = replace(DEFAULT, fts_forms="all_any")
    result = stemmed_store.search("is there a way to get the editor tabs", limit=5, ranking=both)
    assert result.fts_form == "all"
    assert result.hits[0].path == "areas/tools/editor.html"
    kept = stemmed_store.search(
        "is there a way to get the editor tabs", limit=5, ranking=replace(both, question_words=False)
    )
    assert kept.fts_form == "any"
    # The default binds the any-of form, and holds the editor memory as holding every word that counts.
    default = stemmed_store.search("is there a way to get the editor tabs", limit=5, ranking=DEFAULT)
    assert default.fts_form == "any" and default.hits[0].path == "areas/tools/editor.html"
    retriever = stemmed_store.retriever()
    from memhtml_desktop.domain.fts_query import parse_fts_query

    fts = parse_fts_query("is there a way to get the editor tabs")
    with retriever.conn:
        every = retriever.every_word(fts, "any", DEFAULT, ["areas/tools/editor.html", "areas/tools/cpan.html"])
    assert every == {"areas/tools/editor.html"}


def test_field_weights_decide_between_a_title_and_a_body_match(stemmed_store):
    by_title = replace(_fts_only(DEFAULT), field_weights=(5.0, 1.0, 1.0))
    by_body = replace(_fts_only(DEFAULT), field_weights=(0.0, 1.0, 5.0))
    query = "sorting hash values"
    first_title = stemmed_store.search(query, limit=5, ranking=by_title).hits[0].path
    first_body = stemmed_store.search(query, limit=5, ranking=by_body).hits[0].path
    assert first_title == "areas/tools/sorting.html"
    assert first_body == "areas/tools/values.html"


def test_a_phrase_stays_a_phrase_in_the_stemmed_index(stemmed_store):
    phrase = stemmed_store.search('"trailing spaces"', limit=5, ranking=_fts_only(DEFAULT))
    assert [h.path for h in phrase.hits] == ["areas/tools/editor.html"]
    none = stemmed_store.search('"spaces trailing"', limit=5, ranking=_fts_only(DEFAULT))
    assert [h.path for h in none.hits if h.arm("fts")] == []


def test_the_header_counts_in_the_arms_own_index(stemmed_store):
    result = stemmed_store.search("installs", limit=5, ranking=DEFAULT)
    assert result.matches.count == 1 and result.matches.form == "all"
    assert stemmed_store.search("installs", limit=5, ranking=MEMHTML).matches.count == 0


def test_contributions_add_up_and_why_agrees(stemmed_store):
    result = stemmed_store.search("installing modules", limit=5, ranking=DEFAULT)
    for hit in result.hits:
        assert sum(a.contribution for a in hit.arms) == pytest.approx(hit.score, abs=1e-12)
    why = stemmed_store.why("installing modules", None, "areas/tools/cpan.html", ranking=DEFAULT)
    assert why.arms["fts"]["rank"] == 1 and why.fused_position == result.hits[0].fused_position == 1


def test_only_the_default_sql_reads_the_stemmed_index():
    memhtml_sql = build_rrf_sql(RANK_ARMS, "", lexical=MEMHTML.lexical, field_weights=MEMHTML.field_weights)
    default_sql = build_rrf_sql(RANK_ARMS, "", lexical=DEFAULT.lexical, field_weights=DEFAULT.field_weights)
    assert "files_fts_stemmed" not in memhtml_sql and "bm25(files_fts)" in memhtml_sql
    weights = ", ".join(f"{w:.4f}" for w in DEFAULT.field_weights)
    assert f"bm25(files_fts_stemmed, {weights})" in default_sql


def test_an_index_made_before_the_migration_gains_the_filled_table(stemmed_store, tmp_path):
    path = stemmed_store.index_path
    stemmed_store.close_thread_connection()
    conn = apsw.Connection(str(path))
    with conn:
        conn.execute("DROP TABLE files_fts_stemmed")
        for trigger in ("ai", "ad", "au"):
            conn.execute(f"DROP TRIGGER IF EXISTS files_fts_stemmed_{trigger}")
        conn.execute("DELETE FROM schema_migrations WHERE name = '0009_fts_stemmed.sql'")
    conn.close()
    reopened = type(stemmed_store)(stemmed_store.root, index_path=path, embedder=stemmed_store.embedder)
    assert reopened.search("installing", limit=5, ranking=_fts_only(DEFAULT)).hits[0].path == "areas/tools/cpan.html"
