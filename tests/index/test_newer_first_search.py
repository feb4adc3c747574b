"""The newer-first step through the real index: a fact that changed ranks newer first, both marked;
what a curator settled, a frame that is a list, a task and an archived memory are left alone; the
keys the step groups by live in the index (migration 0012); the explanation and the workbench's
re-ranking agree with the search. Real SQLite files, real memory files, both embedders where the
ranking depends on them.
"""

from __future__ import annotations

import dataclasses

import pytest

from memfiles import CHANGED_NEW as NEW
from memfiles import CHANGED_OLD as OLD
from memfiles import write_changed_fact, write_memory
from memhtml_desktop.devtools import fact_store
from memhtml_desktop.domain.contradiction import blocking_keys
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML
from memhtml_desktop.domain.refusion import rerank
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.embedders.registry import make_embedder
from memhtml_desktop.index.arm_lists import prepare_queries
from memhtml_desktop.index.store import Store


def _store(root, tmp_path, embedder=None) -> Store:
    store = Store(root, index_path=tmp_path / "index.db", embedder=embedder or HashEmbedder())
    assert store.index().failed == 0
    return store


@pytest.fixture
def capital(tmp_path):
    root = tmp_path / "store"
    write_changed_fact(root)
    return root


def test_the_newer_ranks_first_and_both_are_marked(capital, tmp_path):
    store = _store(capital, tmp_path)
    result = store.search("capital of australia")
    paths = [h.path for h in result.hits]
    assert paths.index(NEW) < paths.index(OLD)
    hits = {h.path: h for h in result.hits}
    assert [m.other for m in hits[OLD].contradictions] == [NEW]
    assert hits[OLD].contradictions[0].describe().startswith("contradicted by a newer memory")
    pack = store.recall("capital of australia")
    ranks = {i.path: i.rank for i in pack.memories.items}
    assert ranks[NEW] < ranks[OLD] and pack.contradiction_notes
    assert store.recall("capital of australia", ranking=MEMHTML).contradiction_notes is False


def test_a_pair_a_curator_settled_is_left_alone_and_contradicts_is_not_settling(tmp_path):
    for rel, settled in (("relates_to", True), ("contradicts", False)):
        root = tmp_path / rel / "store"
        write_memory(
            root,
            OLD,
            title="Capital of Australia",
            claim="The capital of Australia is Sydney.",
            created="2024-01-05T10:00:00Z",
        )
        write_memory(
            root,
            NEW,
            title="Capital of Australia",
            claim="The capital of Australia is Canberra.",
            created="2024-06-02T10:00:00Z",
            links=[(rel, "/" + OLD)],
        )
        store = _store(root, tmp_path / rel)
        hits = store.search("capital of australia").hits
        assert all(not h.contradictions for h in hits) is settled, rel


def test_a_frame_that_is_a_list_is_not_a_slot(tmp_path):
    root = tmp_path / "store"
    places = ["Belgium", "Canada", "Haiti", "Monaco", "Senegal", "Switzerland"]
    for i, place in enumerate(places):
        write_memory(
            root,
            f"resources/lang/french-{i}.html",
            title=f"French in {place}",
            claim=f"French is spoken in {place}.",
            created=f"2024-0{1 + i}-01T00:00:00Z",
        )
    store = _store(root, tmp_path)
    assert all(not h.contradictions for h in store.search("where is french spoken").hits)
    few = tmp_path / "few" / "store"
    for i, place in enumerate(places[:2]):
        write_memory(
            few,
            f"resources/lang/french-{i}.html",
            title=f"French in {place}",
            claim=f"French is spoken in {place}.",
            created=f"2024-0{1 + i}-01T00:00:00Z",
        )
    marked = _store(few, tmp_path / "few").search("where is french spoken").hits
    assert all(h.contradictions for h in marked)  # two values: one slot, as the conflicts scan reads it


def test_tasks_and_archived_memories_take_part_in_no_pair(capital, tmp_path):
    write_memory(
        capital,
        "archive/2024/resources/geo/capital-old.html",
        title="Capital of Australia",
        claim="The capital of Australia is Melbourne.",
        status="archived",
        created="2023-01-01T00:00:00Z",
    )
    write_memory(
        capital,
        "projects/geo/tasks/check-capital.html",
        title="Check the capital",
        claim="The capital of Australia is Perth.",
        memory_type="task",
        created="2024-09-01T00:00:00Z",
        extra_metas=[("memhtml-task-status", "todo")],
    )
    store = _store(capital, tmp_path)
    scope = Scope.build(memory_types=["semantic", "task"], include_archived=True)
    hits = {h.path: h for h in store.search("capital of australia", scope).hits}
    assert "archive/2024/resources/geo/capital-old.html" in hits and "projects/geo/tasks/check-capital.html" in hits
    assert not hits["archive/2024/resources/geo/capital-old.html"].contradictions
    assert not hits["projects/geo/tasks/check-capital.html"].contradictions
    assert [m.other for m in hits[OLD].contradictions] == [NEW]


def test_the_keys_live_in_the_index_and_an_older_index_gets_them(capital, tmp_path):
    store = _store(capital, tmp_path)
    conn = store.reader()
    rows = dict(conn.execute("SELECT path, contradiction_keys FROM files").fetchall())
    claim, key = conn.execute("SELECT gist, frame_key FROM files WHERE path = ?", (OLD,)).fetchone()
    assert rows[OLD].split("\n") == list(blocking_keys(claim, key))
    store.close_thread_connection()
    # an index built before migration 0012: the column and its row in the ledger gone
    import apsw

    raw = apsw.Connection(str(tmp_path / "index.db"))
    raw.execute("ALTER TABLE files DROP COLUMN contradiction_keys")
    raw.execute("DELETE FROM schema_migrations WHERE name = '0012_contradiction_keys.sql'")
    raw.close()
    reopened = Store(capital, index_path=tmp_path / "index.db", embedder=HashEmbedder())
    again = dict(reopened.reader().execute("SELECT path, contradiction_keys FROM files").fetchall())
    assert again == rows
    assert [
        m.other for h in reopened.search("capital of australia").hits if h.path == OLD for m in h.contradictions
    ] == [NEW]


def test_why_not_names_the_newer_first_move(capital, tmp_path):
    store = _store(capital, tmp_path)
    hits = store.search("capital of australia").hits
    moved = [h for h in hits if any(m.step == "newer" for m in h.moves)]
    for hit in moved:
        report = store.why("capital of australia", None, hit.path)
        assert any(
            m["step"] == "newer" and m["reason"] == next(mv for mv in hit.moves if mv.step == "newer").reason()
            for m in report.moves
        )


@pytest.mark.parametrize("embedder", ["hash", pytest.param("minilm", marks=pytest.mark.slow)])
def test_the_workbench_re_ranking_equals_the_search_on_changed_facts(tmp_path, embedder):
    if embedder == "minilm":
        pytest.importorskip("onnxruntime")
    made = fact_store.build(tmp_path / "facts", slots=150, seed=19)
    store = Store(made.root, index_path=tmp_path / f"{embedder}.db", embedder=make_embedder(embedder))
    store.index()
    questions = [q for q, _, _ in made.questions][:25]
    model = store.embedder.model_id
    for profile in (DEFAULT, MEMHTML, dataclasses.replace(DEFAULT, newer_first=False)):
        prepared = prepare_queries(store, [(q, None, ()) for q in questions], profile)
        for question, ready in zip(questions, prepared):
            searched = [h.path for h in store.search(question, limit=10, ranking=profile).hits]
            assert list(rerank(ready, profile, 10, model).paths) == searched, (profile.name, question)


def _newest_first(store, made, *, searched_every: int = 1) -> dict[str, float]:
    """The share of questions about a changed slot whose newest fact ranks above every older one.

    Each question's arm lists are read once (`prepare_queries`, the workbench's door) and the page ranked
    from them with and without the step (`rerank`): half the reading of two searches, 2.6x less CPU at
    2,600 slots. Every `searched_every`-th question is also searched through `Store.search` with both
    profiles and must give the same page (the test above holds the two equal on changed facts)."""
    before = dataclasses.replace(DEFAULT, newer_first=False)
    questions = [q for q, _, _ in made.questions]
    prepared = prepare_queries(store, [(q, None, ()) for q in questions], DEFAULT)
    model = store.embedder.model_id
    won = {"before": 0, "after": 0}
    for i, ((question, newest, olders), ready) in enumerate(zip(made.questions, prepared)):
        for name, profile in (("before", before), ("after", DEFAULT)):
            paths = list(rerank(ready, profile, 10, model).paths)
            if i % searched_every == 0:
                assert paths == [h.path for h in store.search(question, limit=10, ranking=profile).hits], question
            at = paths.index(newest) if newest in paths else 10
            won[name] += at < min((paths.index(o) for o in olders if o in paths), default=11)
    return {k: v / len(questions) for k, v in won.items()}


def test_on_a_small_fact_store_the_newest_fact_goes_first(tmp_path):
    """A regression guard at 300 slots (86 questions, so a few points of chance either way); the 90%
    the issue asks for is held at two thousand facts below and at 4,000 in bench/newer_first_bench.py."""
    made = fact_store.build(tmp_path / "facts", slots=300, seed=23)
    share = _newest_first(_store(made.root, tmp_path), made)
    assert share["after"] >= 0.85 and share["after"] >= share["before"] + 0.3, share


@pytest.mark.slow
@pytest.mark.parametrize("embedder", ["hash", "minilm"])
def test_on_two_thousand_facts_the_newest_goes_first_nine_times_in_ten(tmp_path_factory, embedder):
    """1,200 slots (2,001 memories, 388 questions): 92.5 % with hashing, 93.0 % with MiniLM when
    measured (docs/ranking.md). 2,600 slots (4,213 memories) took 21 and 32 s of the suite's
    eight minutes; the bench holds the share there and at seed 11 (bench/newer_first_bench.py)."""
    if embedder == "minilm":
        pytest.importorskip("onnxruntime")
    base = tmp_path_factory.mktemp(f"facts-{embedder}")
    made = fact_store.build(base / "facts", slots=1200, seed=23)
    assert len(made.questions) >= 350, len(made.questions)  # enough that 90 % is not chance
    store = _store(made.root, base, make_embedder(embedder))
    share = _newest_first(store, made, searched_every=10)  # about 40 questions searched too
    print(embedder, len(made.questions), share)
    assert share["after"] >= 0.9 and share["after"] >= share["before"] + 0.4, share


COMPACTOR_OLD = "resources/ops/refuted-compactor.html"
COMPACTOR_NEW = "resources/ops/compactor.html"


def test_a_query_of_the_words_one_title_adds_asks_for_that_memory(tmp_path):
    """The gate stores' planted controls: an older memory whose title is the newer's with words added
    ("Refuted reading — …"). Asked for by those words, the older stays first; asked for by the words
    both titles hold, the newer goes first; both are marked either way."""
    root = tmp_path / "store"
    write_memory(
        root,
        COMPACTOR_OLD,
        title="Refuted reading — Nightly compactor merges overlapping intervals",
        claim="The nightly compactor does not merge overlapping intervals.",
        created="2024-01-05T10:00:00Z",
    )
    write_memory(
        root,
        COMPACTOR_NEW,
        title="Nightly compactor merges overlapping intervals",
        claim="The nightly compactor merges overlapping intervals.",
        created="2024-06-02T10:00:00Z",
    )
    write_memory(
        root,
        "resources/ops/vacuum.html",
        title="Nightly vacuum",
        claim="The nightly vacuum reclaims pages of deleted rows.",
        created="2024-03-01T10:00:00Z",
    )
    store = _store(root, tmp_path)
    for query, first in (
        ("refuted reading compactor", COMPACTOR_OLD),
        ("refuted compactor intervals", COMPACTOR_OLD),
        ("nightly compactor intervals", COMPACTOR_NEW),
        ("compactor merges overlapping", COMPACTOR_NEW),
    ):
        hits = {h.path: h for h in store.search(query).hits}
        paths = list(hits)
        assert paths.index(first) < paths.index(COMPACTOR_OLD if first == COMPACTOR_NEW else COMPACTOR_NEW), query
        assert [m.other for m in hits[COMPACTOR_OLD].contradictions] == [COMPACTOR_NEW]
        assert [m.other for m in hits[COMPACTOR_NEW].contradictions] == [COMPACTOR_OLD]
    # the older lifted nowhere: a move, where there is one, says the query asked for it by its title
    moved = [m for h in store.search("refuted reading compactor").hits for m in h.moves if m.step == "newer"]
    assert all("title" in m.reason() for m in moved)


@pytest.mark.slow
def test_a_value_changed_in_other_words_is_marked_and_the_newer_goes_first_with_minilm(tmp_path):
    """A change reworded in other words for the relation ("About 880,500 people live in Zaria" against
    "The population of Zaria is 980,000"): its words alone do not say it is one slot, the MiniLM
    vectors of the two memories are near-twins. On a small fact store: the conflicts scan and search
    flag such pairs, every one a true (newer, older) pair, and search puts its newer first."""
    pytest.importorskip("onnxruntime")
    from memhtml_desktop.write.conflicts import scan_conflicts

    made = fact_store.build(tmp_path / "facts", slots=300, seed=23)
    store = _store(made.root, tmp_path, make_embedder("minilm"))
    truth = {frozenset(p): p[0] for p in made.pairs}
    reworded = [p for p in scan_conflicts(store).pairs if p.reason.reason == "reworded"]
    assert reworded, "no reworded change flagged"
    assert all(frozenset((p.a.path, p.b.path)) in truth for p in reworded), [(p.a.claim, p.b.claim) for p in reworded]
    assert all(p.newer == truth[frozenset((p.a.path, p.b.path))] for p in reworded)
    asked = 0
    for question, newest, olders in made.questions:
        hits = store.search(question, limit=10).hits
        marks = {(h.path, m.other): m.kind for h in hits for m in h.contradictions}
        for older in olders:
            if marks.get((newest, older)) == "reworded":
                asked += 1
                paths = [h.path for h in hits]
                assert paths.index(newest) < paths.index(older), question
    assert asked, "no question's newest and older were flagged as reworded in its search"
