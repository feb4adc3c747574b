"""Shortcuts of the warm search (issue 43) that must give the very answer of the long way.

- The any-of form's common-word test reads each word's document count once per state of the index
  (index/word_docs.py), and reads it again once the index moves.
- A convex fusion or gated priors re-fuse every candidate themselves, so the statement lists the
  arms' rows unfused (`build_rrf_sql(fused=False)`): the same rows as the fused statement.
"""

from __future__ import annotations

import apsw
import pytest

from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML
from memhtml_desktop.index.answers import word_docs
from memhtml_desktop.index.retrieval import common_words
from memhtml_desktop.index.retrieval_sql import bind_params, build_rrf_sql
from memhtml_desktop.index.word_docs import WordDocs
from tests.memfiles import write_memory

VOCAB = "files_fts_vocab"


@pytest.fixture
def kiln_store(store_root, make_store):
    # "kiln" in 3 of 4 memories: at least half, a common word the any-of form leaves out
    for i, (title, claim) in enumerate(
        [
            ("Kiln schedule", "Fire the kiln slowly past 600 degrees."),
            ("Kiln shelves", "Dust the kiln shelves with batt wash."),
            ("Glaze tests", "Test tiles go on the kiln's top shelf, kiln sitter set low."),
            ("Clay storage", "Wrap reclaimed clay in plastic and keep it from frost."),
        ]
    ):
        write_memory(store_root, f"areas/pottery/note-{i}.html", title=title, claim=claim)
    store = make_store(store_root)
    store.index()
    return store


def _vocab_reads(conn: apsw.Connection, run) -> int:
    seen: list[str] = []

    def trace(_cursor, sql, _bindings):
        seen.append(sql)
        return True

    conn.exec_trace = trace
    try:
        run()
    finally:
        conn.exec_trace = None
    return sum(VOCAB in sql and "SELECT" in sql for sql in seen)


def test_common_words_are_read_once_while_the_index_stays(kiln_store):
    conn = kiln_store.reader()
    first = kiln_store.search("kiln shelf frost", limit=5, ranking=DEFAULT)
    assert first.fts_form == "any"
    again = _vocab_reads(conn, lambda: kiln_store.search("frost kiln", limit=5, ranking=DEFAULT))
    assert again == 0, "the counts kept for this index were read again"
    assert [h.path for h in kiln_store.search("kiln shelf frost", limit=5, ranking=DEFAULT).hits] == [
        h.path for h in first.hits
    ]
    # a word not asked before is read, once
    assert _vocab_reads(conn, lambda: kiln_store.search("kiln wash", limit=5, ranking=DEFAULT)) == 1


def test_the_kept_counts_follow_the_index(kiln_store, store_root):
    conn = kiln_store.reader()
    memo = WordDocs()
    assert common_words(conn, ("kiln", "frost"), memo) == frozenset({"kiln"})
    # four more memories without "kiln": 3 of 8 is under half, so it is no longer common
    for i in range(4):
        write_memory(store_root, f"areas/pottery/more-{i}.html", title=f"Wheel {i}", claim="Centre the clay first.")
    kiln_store.index()
    assert common_words(conn, ("kiln", "frost"), memo) == frozenset()
    assert common_words(conn, ("kiln", "frost")) == frozenset()  # the long way agrees
    assert common_words(conn, ("clay", "kiln"), memo) == common_words(conn, ("clay", "kiln"))


def test_the_kept_counts_answer_as_the_long_way_for_unknown_and_repeated_words(kiln_store):
    conn = kiln_store.reader()
    memo = WordDocs()
    words = ("kiln", "zzzunheard", "kiln", "the", "clay")
    for _ in range(2):
        assert common_words(conn, words, memo) == common_words(conn, words)
    total, docs = memo.counts(conn, words)
    assert total == 4 and docs == word_docs(conn, words) == {"kiln": 3, "the": 3, "clay": 1}


def test_the_unfused_statement_lists_the_fused_statements_rows(kiln_store):
    conn = kiln_store.reader()
    arms = tuple(a for a in DEFAULT.arms if a.name in ("fts", "recency"))
    fused = build_rrf_sql(arms, "", lexical=DEFAULT.lexical, field_weights=DEFAULT.field_weights)
    listed = build_rrf_sql(arms, "", lexical=DEFAULT.lexical, field_weights=DEFAULT.field_weights, fused=False)
    assert fused is not None and listed is not None
    prefix = ('"kiln" OR "frost"', 40, -1)
    with conn:
        whole = conn.execute(fused, bind_params(fused, prefix, ())).fetchall()
        rows = conn.execute(listed, bind_params(listed, prefix, ())).fetchall()
    assert all(score is None for _, score, *_ in rows)
    assert sorted(r[:1] + r[2:] for r in whole) == sorted(r[:1] + r[2:] for r in rows)
    assert len(whole) > len({r[0] for r in whole})  # some memory ranked by both arms: rows, not paths


def test_the_pools_match_count_is_the_pools_own_past_the_pages_cap(store_root, make_store):
    # 130 memories hold "glaze": the page's count stops at 100, the pool's (`Store.answer`) does not
    for i in range(130):
        write_memory(
            store_root, f"areas/glazes/g-{i:03}.html", title=f"Glaze {i}", claim=f"Glaze batch {i} fired at cone six."
        )
    for i in range(5):
        write_memory(store_root, f"areas/clay/c-{i}.html", title=f"Clay {i}", claim="Wedge the clay.")
    store = make_store(store_root)
    store.index()
    for profile in (DEFAULT, MEMHTML):
        page = store.search("glaze", limit=10, ranking=profile)
        assert page.matches.count == 100 and page.matches.capped
        pool = store.answer("glaze", None, limit=10, depth=30, ranking=profile).pool
        assert pool is not None and (pool.matches, pool.matches_capped) == (130, False)


@pytest.mark.parametrize("seed", [5, 19])
def test_the_nearest_files_ranked_beside_the_lexical_window_give_the_same_answers(
    store_root, make_store, monkeypatch, seed
):
    """The vector arm's first ranking of the files runs on a thread beside the lexical window's
    statement (`Retriever._nearest_beside`). Every hit — path, score, each arm's rank, raw value and
    contribution — is the one the search gives ranking them after it, for both profiles, a whole
    store and a narrow scope (where the ranking is widened past its first `top`)."""
    from memhtml_desktop.devtools.gen_store import generate_store
    from memhtml_desktop.domain.hash_embedder import HashEmbedder
    from memhtml_desktop.domain.types import Scope
    from memhtml_desktop.index.retrieval import Retriever

    generate_store(store_root, 700, seed, invalid=0)
    store = make_store(store_root, embedder=HashEmbedder())
    store.index()
    queries = ["deploy rollback", "who owns the billing service", "the", "postgres upgrade plan", "kiln", ""]
    scopes = [Scope(), Scope(memory_types=("procedural",)), Scope(para="archive", include_archived=True)]
    ranked_beside: list[int] = []
    original = Retriever._nearest_beside

    def counted(self, *args, **kwargs):
        beside = original(self, *args, **kwargs)
        ranked_beside.append(beside is not None)
        return beside

    def answers() -> list:
        out = []
        for profile in (DEFAULT, MEMHTML):
            for scope in scopes:
                for query in queries:
                    result = store.search(query, scope=scope, limit=10, ranking=profile)
                    out.append(
                        [
                            (
                                h.path,
                                repr(h.score),
                                [(a.arm, a.rank, repr(a.raw), repr(a.contribution)) for a in h.arms],
                            )
                            for h in result.hits
                        ]
                    )
        return out

    monkeypatch.setattr(Retriever, "_nearest_beside", counted)
    beside = answers()
    assert sum(ranked_beside) >= len(queries)  # the thread did run, for the searches with words
    monkeypatch.setattr(Retriever, "_nearest_beside", lambda self, *a, **k: None)
    after = answers()
    assert beside == after
    assert sum(1 for hits in beside if hits) > len(beside) // 2  # most searches found something to compare
