"""Issue 14's index additions behind the window: the fused pool a page is drawn from, the counts
over a list of hits, finding a memory by title, and replacing a signal within its cooldown.

Real SQLite files over a generated store (two seeds, two sizes) and the golden cases.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memhtml_desktop.domain import reinforce as twin
from memhtml_desktop.domain.results import MATCH_COUNT_CAP
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.state import reinforce, replace_signal
from tests.index.conftest import copy_golden
from tests.index.helpers_state import at, open_plane, row

gen_store = pytest.importorskip("memhtml_desktop.devtools.gen_store")


@pytest.fixture(params=[(400, 5), (700, 23)], ids=["400-seed5", "700-seed23"])
def generated(request, tmp_path, make_store):
    count, seed = request.param
    root = tmp_path / "gen"
    gen_store.generate_store(root, count, seed, state=True)
    store = make_store(root)
    store.import_sidecar()
    store.index()
    yield store
    store.close_thread_connection()


QUERIES = ("rollback drain", "tenant router timeout", "", "xyzzy qwerty", "checkout-api canary")


@pytest.mark.parametrize("query", QUERIES)
def test_the_pool_is_the_list_the_page_was_drawn_from(generated, query):
    result = generated.search(query, limit=10)
    pool = generated.pool(query, limit=10, depth=30)
    assert list(pool.page) == [h.path for h in result.hits]
    assert [e.position for e in pool.entries] == list(range(1, len(pool.entries) + 1))
    by_path = {e.path: e for e in pool.entries}
    for hit in result.hits:  # every page hit stands in the pool at its own fused position and score
        assert by_path[hit.path].position == hit.fused_position
        assert by_path[hit.path].score == pytest.approx(hit.score)
        assert by_path[hit.path].moved_by is None
    scores = [e.score for e in pool.entries]
    assert scores == sorted(scores, reverse=True)
    assert pool.pool_size == min(30, len(pool.entries)) or len(pool.entries) < 30


@pytest.mark.parametrize("query", ["rollback drain", ""])
def test_a_deeper_pool_extends_the_shallower_one(generated, query):
    shallow = generated.pool(query, limit=10, depth=30)
    deep = generated.pool(query, limit=10, depth=120)
    assert [e.path for e in deep.entries[:30]] == [e.path for e in shallow.entries]
    assert deep.page == shallow.page
    assert len({e.path for e in deep.entries}) == len(deep.entries)
    assert len(deep.entries) > 30
    every = generated.pool(query, limit=10, depth=480)
    assert not every.more and len(every.entries) <= 4 * 40  # past the arms' windows nothing is fused


def test_the_totals_count_the_words_and_the_scope(generated):
    scope = Scope()
    none = generated.pool("", limit=10)
    assert none.matches is None
    assert none.in_scope == generated.list(scope, limit=500).files.__len__() or none.in_scope > 500
    assert generated.pool("xyzzy qwerty", limit=10).matches == 0
    assert generated.pool("xyzzy qwerty", limit=10).no_word_matched
    pool = generated.pool("rollback", limit=10)
    counted = generated.counts("rollback", scope).query_matches
    assert pool.matches == min(counted, MATCH_COUNT_CAP) and pool.matches > 0
    matched = next(h for h in generated.search("rollback", limit=10).hits if h.arm("fts") is not None)
    narrowed = generated.pool("rollback", Scope.build(memory_types=[matched.memory_type]), limit=10)
    assert 0 < narrowed.matches <= pool.matches and narrowed.in_scope < pool.in_scope


def test_counts_of_paths_count_exactly_those_memories(generated):
    hits = generated.search("rollback drain", limit=10).hits
    counts = generated.counts_of([h.path for h in hits] + [hits[0].path])  # a repeat counts once
    assert sum(counts.types.values()) == len(hits) == counts.query_matches
    for memory_type in {h.memory_type for h in hits}:
        assert counts.types[memory_type] == sum(h.memory_type == memory_type for h in hits)
    for ref, n in counts.entities.items():
        assert n == sum(ref in h.entities for h in hits)
    assert generated.counts_of([]).types == {}


def test_find_memories_by_title_or_path(tmp_path, make_store):
    root = tmp_path / "golden"
    copy_golden(root, valid_only=True)
    store = make_store(root)
    store.index()
    title = store.read("resources/infra/one-writer-and-many-readers-share-the-index.html", bump=False).title
    word = title.split()[1]
    found = store.find_memories(word.upper())
    assert "resources/infra/one-writer-and-many-readers-share-the-index.html" in [m.path for m in found]
    assert all(word.lower() in (m.title.lower() + m.path.lower()) for m in found)
    assert [m.path for m in store.find_memories("format-md-proc")] == ["areas/oncall/format-md-procedural.html"]
    assert store.find_memories("%") == []  # LIKE's wildcards are matched literally
    underscored = store.find_memories("_")
    assert underscored and all("_" in m.path + m.title for m in underscored)
    assert store.find_memories("   ") == []
    assert len(store.find_memories("a", limit=3)) == 3
    store.close_thread_connection()


# -- replacing a signal within its cooldown --------------------------------------------------------


A = "areas/oncall/vip-drain-before-rollback.html"


@pytest.fixture
def conn(tmp_path: Path):
    c = open_plane(tmp_path)
    yield c
    c.close()


def test_a_second_click_replaces_the_first_on_an_existing_row(conn):
    reinforce(conn, [A], "neutral", at(0))  # read first: a row with no signal
    reinforce(conn, [A], "positive", at(10))
    assert row(conn, A)["outcome_score"] == pytest.approx(0.3)
    replaced = replace_signal(conn, A, "positive", "negative", at(20))
    assert replaced.signal_applied == (A,) and replaced.cooled_down == (A,)
    assert row(conn, A)["outcome_score"] == pytest.approx(-0.3)  # as if only "negative" was sent
    assert row(conn, A)["reinforcement_count"] == 1 and row(conn, A)["access_count"] == 1
    withdrawn = replace_signal(conn, A, "negative", "neutral", at(30))
    assert withdrawn.signal_applied == (A,)
    assert row(conn, A)["outcome_score"] == pytest.approx(0.0) and row(conn, A)["reinforcement_count"] == 0
    again = replace_signal(conn, A, "neutral", "positive", at(40))
    assert again.signal_applied == (A,) and row(conn, A)["outcome_score"] == pytest.approx(0.3)


def test_a_row_made_by_the_signal_takes_the_new_value(conn):
    reinforce(conn, [A], "positive", at(0))
    assert row(conn, A)["outcome_score"] == pytest.approx(1.0)
    replace_signal(conn, A, "positive", "negative", at(5))
    assert row(conn, A)["outcome_score"] == pytest.approx(-1.0) and row(conn, A)["reinforcement_count"] == 1


def test_past_the_cooldown_nothing_is_replaced(conn):
    reinforce(conn, [A], "positive", at(0))
    late = replace_signal(conn, A, "positive", "negative", at(900))
    assert late.signal_applied == () and late.signal_cooled == (A,)
    assert row(conn, A)["outcome_score"] == pytest.approx(1.0)
    assert replace_signal(conn, "areas/none.html", "positive", "negative", at(1)).signal_cooled == ("areas/none.html",)


@pytest.mark.parametrize("score,count", [(None, 0), (0.0, 0), (-1.0, 3), (-0.55, 2), (0.21, 1), (1.0, 5)])
@pytest.mark.parametrize("first,second", [(1.0, -1.0), (-1.0, 1.0), (1.0, 0.0), (-1.0, 0.0)])
def test_replacing_undoes_the_ewma_step_exactly(score, count, first, second):
    """`replace_outcome` after one signal equals sending the other signal instead (or none)."""
    s1 = twin.next_outcome(score, first)
    after = twin.replace_outcome(s1, count + 1, first, second)
    if second:
        expected = (twin.next_outcome(score, second), count + 1)
    else:
        expected = (0.0 if score is None else score, count)
    assert after[0] == pytest.approx(expected[0], abs=1e-12) and after[1] == expected[1]
    back = twin.replace_outcome(*after, second, first)  # and changing one's mind again comes back
    assert back[0] == pytest.approx(s1, abs=1e-12) or (score is None and second == 0)
