"""Search end to end over a real store: arms, explanation, scope, degradation, polarity, snippets."""

from __future__ import annotations

import dataclasses
import math

import pytest

from memfiles import write_memory
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML
from memhtml_desktop.domain.rrf import RANK_ARMS, fuse
from memhtml_desktop.domain.types import Scope

from .conftest import FailingEmbedder

TARGET = "areas/oncall/vip-drain-before-rollback.html"
RIVAL = "areas/oncall/payments-rollback.html"
TASK = "projects/checkout-api/tasks/wire-drain.html"
OLD = "archive/2025/areas/oncall/rollback-order.html"
PERSON = "resources/people/sanju.html"


def build_corpus(root):
    write_memory(
        root,
        TARGET,
        title="Prod rollbacks drain the VIP before the deploy is reverted",
        claim="If a prod rollback is issued, drain the VIP before reverting the deploy.",
        body="The revert alone leaves connections pinned to the old target group.",
        memory_type="procedural",
        entities=["service:checkout-api", "person:sanju"],
        tags=["deploy", "oncall"],
        links=[("supersedes", "/" + OLD)],
        facets=[("doc-type", "runbook"), ("tier", "1")],
        created="2026-08-02T14:03:11Z",
    )
    write_memory(
        root,
        OLD,
        title="Rollback order (superseded)",
        claim="Revert the deploy, then drain the VIP.",
        memory_type="procedural",
        status="archived",
        entities=["service:checkout-api"],
        tags=["deploy"],
        facets=[("doc-type", "runbook")],
        created="2025-03-01T00:00:00Z",
    )
    write_memory(
        root,
        RIVAL,
        title="Payments rollbacks wait for the ledger",
        claim="A payments rollback waits for the ledger to settle before reverting.",
        memory_type="procedural",
        entities=["service:payments-api"],
        tags=["deploy", "bm25"],
        facets=[("doc-type", "guide"), ("tier", "2")],
        created="2026-07-01T00:00:00Z",
    )
    write_memory(
        root,
        TASK,
        title="Wire the drain step into the rollback runbook",
        claim="The rollback runbook should drain the VIP before reverting the deploy.",
        memory_type="task",
        extra_metas=[("memhtml-task-status", "doing"), ("memhtml-due", "2026-08-20")],
        created="2026-08-03T00:00:00Z",
    )
    write_memory(
        root,
        PERSON,
        title="Sanju",
        claim="Sanju leads the checkout on-call rotation.",
        entities=["person:sanju"],
        created="2026-06-01T00:00:00Z",
    )
    write_memory(
        root,
        "areas/oncall/sanju-called-the-rollback.html",
        title="Sanju called the rollback",
        claim="Sanju called the July rollback of checkout-api.",
        memory_type="episodic",
        entities=["person:Sanju"],
        event="2026-07-28",
        created="2026-07-29T00:00:00Z",
    )
    write_memory(
        root,
        "areas/data/compactor-merges.html",
        title="The compactor merges intervals",
        claim="The nightly compactor merges overlapping intervals in the ledger table.",
        entities=["service:compactor"],
        created="2026-05-01T00:00:00Z",
    )
    write_memory(
        root,
        "areas/data/compactor-no-merge.html",
        title="The compactor does not merge intervals",
        claim="The nightly compactor does not merge overlapping intervals in the ledger table.",
        entities=["service:compactor"],
        created="2026-05-02T00:00:00Z",
    )
    for i in range(12):
        write_memory(
            root,
            f"areas/filler/filler-{i:02d}.html",
            title=f"Filler note {i}",
            claim=f"Filler fact {i} about the cafeteria menu and parking spot {i}.",
            created=f"2026-0{1 + i % 9}-1{i % 9}T00:00:00Z",
        )
    sentences = " ".join(f"Filler sentence number {i} talks about nothing in particular at all." for i in range(60))
    write_memory(
        root,
        "resources/infra/long-ledger.html",
        title="A long ledger note",
        claim="The ledger is long.",
        body=sentences + " The quorum breaker zeppelin manifest was ratified in the ledger.",
        created="2026-04-01T00:00:00Z",
    )


@pytest.fixture
def store(store_root, make_store):
    build_corpus(store_root)
    store = make_store(store_root)
    report = store.index()
    assert report.failed == 0
    return store


def test_all_arms_and_target_first(store):
    result = store.search("drain the VIP before reverting the deploy")
    assert result.arms == ("fts", "vector", "recency", "salience")
    assert not result.degraded
    assert result.fts_form == "any"  # the default binds any of the content words, bm25 ranking fuller matches first
    assert store.search("drain the VIP before reverting the deploy", ranking=MEMHTML).fts_form == "all"
    assert result.hits[0].path == TARGET
    assert all(h.path != TASK for h in result.hits), "tasks are out of an unscoped search"
    assert all(h.path != OLD for h in result.hits), "archived files are out by default"


def test_explanation_adds_up(store):
    result = store.search("drain the VIP rollback")
    assert result.hits
    for hit in result.hits:
        total = math.fsum(a.contribution for a in hit.arms)
        assert math.isclose(total, hit.score, rel_tol=1e-12)
        for arm in hit.arms:
            # A prior arm gated off for a memory the query does not match (domain/priors.py) adds 0;
            # under the default's convex fusion a scored arm adds its weight (× share) × normalised score.
            expected = arm.weight / (arm.rank + 60) if arm.counted else 0.0
            if arm.norm is not None:
                assert arm.arm in ("fts", "vector") and 0.0 <= arm.norm <= 1.0
                expected = arm.weight * arm.norm
            assert arm.counted or arm.arm in ("recency", "salience")
            assert math.isclose(arm.contribution, expected, rel_tol=1e-12)
        fts = hit.arm("fts")
        if fts is not None:
            assert fts.raw["bm25"] < 0
        vec = hit.arm("vector")
        if vec is not None:
            assert 0.0 <= vec.raw["distance"] <= 2.0
        sal = hit.arm("salience")
        if sal is not None:
            assert set(sal.raw) == {"decay", "popularity", "outcome", "hours_since_access"}


@pytest.mark.parametrize("gate", [False, True])
def test_sql_fusion_agrees_with_the_pure_twin(store, gate):
    """The fused statement is the pure `fuse`; with gated priors, over the arms that counted."""
    profile = dataclasses.replace(DEFAULT, fusion="rrf", gate_priors=gate)
    result = store.search("rollback deploy ledger", limit=30, ranking=profile)
    ranked = {arm.name: [] for arm in RANK_ARMS}
    for hit in result.hits:
        for arm in hit.arms:
            if arm.counted:
                ranked[arm.arm].append((hit.path, arm.rank))
    twin = fuse(ranked, RANK_ARMS)
    by_fused = sorted(result.hits, key=lambda h: h.fused_position)
    assert [p for p, _ in twin][: len(by_fused)] == [h.path for h in by_fused]
    for (path, score), hit in zip(twin, by_fused):
        assert math.isclose(score, hit.score, rel_tol=1e-12)
    assert gate or all(arm.counted for hit in result.hits for arm in hit.arms)


@pytest.mark.parametrize("norm", ["max", "minmax"])
def test_the_convex_fusion_is_the_pure_one(store, norm):
    """Under `convex` each hit's score is its contributions' sum, the fused order is score then path,
    and the scored arms' contributions are what `domain.fusion.convex_parts` makes of their ranks and raw scores."""
    from memhtml_desktop.domain.fusion import convex_parts
    from memhtml_desktop.domain.ranking import PerEmbedder

    profile = dataclasses.replace(DEFAULT, convex_norm=norm, gate_priors=False, lexical_confidence=PerEmbedder((), 0.0))
    result = store.search("rollback deploy ledger", limit=30, ranking=profile)
    by_fused = sorted(result.hits, key=lambda h: h.fused_position)
    scores = [(h.score, h.path) for h in by_fused]
    assert scores == sorted(scores, key=lambda sp: (-sp[0], sp[1]))
    why = {h.path: store.why("rollback deploy ledger", None, h.path, ranking=profile, limit=30) for h in by_fused[:5]}
    for hit in by_fused[:5]:
        assert why[hit.path].fused_position == hit.fused_position
        assert math.isclose(why[hit.path].fused_score, hit.score, rel_tol=1e-12)
        for arm in hit.arms:
            entry = why[hit.path].arms[arm.arm]
            assert entry["rank"] == arm.rank and math.isclose(entry["contribution"], arm.contribution, rel_tol=1e-12)
    lexical = [(h.path, h.arm("fts").rank, h.arm("fts").raw["bm25"]) for h in by_fused if h.arm("fts")]
    if lexical and min(r for _, r, _ in lexical) == 1:
        share = profile.lexical_share.get(store.embedder.model_id)
        parts = convex_parts(
            {"fts": sorted(lexical, key=lambda x: x[1])}, {"fts": 1.0}, lexical_share=share, how=norm, k=60, window=40
        )
        for path, rank, _ in lexical:
            if norm == "max":  # by the best alone: the pool's lexical hits give the same normalisation
                got = next(h for h in by_fused if h.path == path).arm("fts").contribution
                assert math.isclose(parts[path][0].contribution, got, rel_tol=1e-12)


@pytest.mark.parametrize("query", ["rollback deploy ledger", "who drained the vip", "postgres replica lag slot"])
def test_an_adaptive_share_is_one_per_query_and_every_hit_shows_it(store, query):
    """With `lexical_confidence` the lexical share is this query's: the same for every hit of the list, at
    most the profile's (full confidence), the two scored arms' weights adding up to one, each scored
    contribution its weight × its normalised score, and *Why not?* giving the same weight."""
    profile = dataclasses.replace(DEFAULT, gate_priors=False)
    assert profile.lexical_confidence.get(store.embedder.model_id) > 0
    result = store.search(query, limit=20, ranking=profile)
    lexical = {a.weight for h in result.hits for a in h.arms if a.arm == "fts"}
    vector = {a.weight for h in result.hits for a in h.arms if a.arm == "vector"}
    assert len(lexical) <= 1 and len(vector) <= 1
    if lexical and vector:
        (w_lex,), (w_vec,) = lexical, vector
        assert math.isclose(w_lex + w_vec, 1.0, rel_tol=1e-12)
        assert w_lex <= profile.lexical_share.get(store.embedder.model_id) + 1e-12
    for hit in result.hits:
        assert math.isclose(math.fsum(a.contribution for a in hit.arms), hit.score, rel_tol=1e-9)
        for a in hit.arms:
            if a.norm is not None:
                assert math.isclose(a.contribution, a.weight * a.norm, rel_tol=1e-12)
    top = result.hits[0]
    why = store.why(query, None, top.path, ranking=profile, limit=20)
    for a in top.arms:
        if a.norm is not None:
            assert math.isclose(why.arms[a.arm]["weight"], a.weight, rel_tol=1e-12)


def test_same_query_same_list(store):
    first = store.search("rollback the deploy")
    second = store.search("rollback the deploy")
    assert [h.path for h in first.hits] == [h.path for h in second.hits]
    assert [h.score for h in first.hits] == [h.score for h in second.hits]


def test_any_of_form_when_no_file_holds_every_term(store):
    result = store.search("who drained the VIP for checkout zebra")
    assert result.fts_form == "any"
    assert any(h.arm("fts") for h in result.hits)


def test_phrase_demands_order(store):
    in_order = store.search('"drain the vip"')
    reversed_ = store.search('"vip the drain"')
    assert any(h.arm("fts") for h in in_order.hits)
    assert not any(h.arm("fts") for h in reversed_.hits)


def test_failing_embedder_degrades(store_root, make_store):
    build_corpus(store_root)
    store = make_store(store_root)
    store.index()
    from memhtml_desktop.index.store import Store

    broken = Store(store_root, index_path=store.index_path, embedder=FailingEmbedder())
    result = broken.search("drain the VIP before reverting the deploy")
    assert result.degraded and result.arms == ("fts", "recency", "salience")
    assert any("embedder failed" in r for r in result.degraded_reasons)
    assert result.hits[0].path == TARGET
    assert result.hits[0].snippet.startswith("If a prod rollback")


def test_no_state_plane_drops_salience(store_root, make_store):
    build_corpus(store_root)
    store = make_store(store_root, create_state=False)
    store.index()
    result = store.search("drain")
    assert result.arms == ("fts", "vector", "recency")
    assert any("salience" in r for r in result.degraded_reasons)


@pytest.mark.parametrize(
    "query",
    [
        "don't drain",
        "service:checkout-api",
        "-zebra",
        "AND",
        "OR",
        "NOT",
        "NEAR(a b)",
        'a OR "unbalanced',
        "[x]",
        "{x}",
        "\\",
        "*",
        "^x",
        "%",
        "'; DROP TABLE files; --",
        "x" * 10000,
        "\x00\x01\x1f",
        "🦀 rollback 🚀",
        "\ud800 broken surrogate",
        "",
        "   ",
        "!!! ???",
        "a " * 3000,
    ],
)
def test_hostile_queries_answer(store, query):
    result = store.search(query)
    assert isinstance(result.hits, tuple)
    import json

    json.dumps(result.to_json())


def test_scope_types_workspace_tags(store):
    assert [h.path for h in store.search("drain", Scope.build(memory_types=["task"])).hits] == [TASK]
    both = {h.path for h in store.search("drain", Scope.build(memory_types=["task", "procedural"])).hits}
    assert TASK in both and TARGET in both
    ws = store.search("drain", Scope.build(workspace="checkout-api", memory_types=["task"])).hits
    assert [h.path for h in ws] == [TASK]
    one = {h.path for h in store.search("rollback", Scope.build(tags=["oncall"])).hits}
    two = {h.path for h in store.search("rollback", Scope.build(tags=["oncall", "bm25"])).hits}
    assert one < two


def test_entity_scope_folds_case_and_hops(store):
    result = store.search("rollback", Scope.build(entity="SERVICE:Checkout-API"))
    assert [h.path for h in result.hits] == [TARGET]
    assert not result.scope_empty
    hop = store.search("rollback", Scope.build(entity="person:sanju"))
    assert {h.path for h in hop.hits} == {TARGET, "areas/oncall/sanju-called-the-rollback.html", PERSON}
    combined = store.search("rollback", Scope.build(entity="service:checkout-api", tags=["bm25"]))
    assert combined.hits == () and combined.scope_empty


def test_facets_broaden_within_a_name_and_narrow_across(store):
    runbook = {h.path for h in store.search("rollback", Scope.build(facets=["doc-type=runbook"])).hits}
    either = {h.path for h in store.search("rollback", Scope.build(facets=["doc-type=runbook", "doc-type=guide"])).hits}
    both = {h.path for h in store.search("rollback", Scope.build(facets=["doc-type=runbook", "tier=2"])).hits}
    assert runbook == {TARGET}
    assert either == {TARGET, RIVAL}
    assert both == set()
    assert {h.path for h in store.search("x", Scope.build(facets=["Doc-Type=runbook"])).hits} == set(), "no case fold"


def test_empty_scope_points_at_the_archive(store):
    result = store.search(
        "rollback order",
        Scope.build(
            facets=["doc-type=runbook"],
            entity="service:checkout-api",
            tags=["deploy"],
            memory_types=["procedural"],
            workspace="nope",
        ),
    )
    assert result.hits == () and result.scope_empty and result.archived_matches == 0
    gone = store.search(
        "rollback",
        Scope.build(
            facets=["doc-type=runbook"], tags=["deploy"], entity="service:checkout-api", memory_types=["procedural"]
        ),
    )
    assert gone.hits and not gone.scope_empty and gone.archived == ()
    only_old = Scope.build(
        entity="service:checkout-api", tags=["deploy"], facets=["doc-type=runbook"], memory_types=["procedural"]
    )
    (store.root / TARGET).unlink()
    store.index()
    emptied = store.search("rollback", only_old)
    assert emptied.hits == () and emptied.scope_empty
    assert emptied.archived_matches == 1
    assert [(a.path, a.superseded_by) for a in emptied.archived] == [(OLD, None)]


def test_archived_pointer_names_its_successor(store):
    scope = Scope.build(tags=["deploy"], entity="service:checkout-api", facets=["tier=9"])
    result = store.search("rollback", scope)
    assert result.scope_empty and result.archived_matches == 0
    result = store.search(
        "rollback", Scope.build(entity="service:checkout-api", memory_types=["procedural"], facets=["doc-type=runbook"])
    )
    assert not result.scope_empty
    included = store.search("revert the deploy then drain", Scope.build(include_archived=True))
    old = [h for h in included.hits if h.path == OLD]
    assert old and old[0].superseded_by == TARGET and old[0].archived


def test_unscoped_default_never_sets_scope_empty(store_root, make_store):
    store = make_store(store_root)
    store.index()
    result = store.search("anything")
    assert result.hits == () and not result.scope_empty


def test_salience_exclusions(store):
    from memhtml_desktop.index.state import reinforce

    for _ in range(1):
        reinforce(store.reader(), [PERSON, TASK, TARGET], "positive", "2026-11-29T11:00:00Z")
    result = store.search("sanju", Scope.build(memory_types=["semantic", "task", "episodic", "procedural"]))
    by_path = {h.path: h for h in result.hits}
    assert PERSON in by_path and by_path[PERSON].arm("salience") is None
    assert by_path[PERSON].arm("recency") is not None
    if TASK in by_path:
        assert by_path[TASK].arm("salience") is None
    episode = by_path["areas/oncall/sanju-called-the-rollback.html"]
    assert episode.arm("salience") is not None


def test_polarity_demotes_the_disagreeing_twin(store):
    plain = dataclasses.replace(DEFAULT, newer_first=False)  # the twins' order as twin resolution decides it
    affirm = store.search("the nightly compactor merges overlapping intervals", ranking=plain)
    negate = store.search("the nightly compactor does not merge overlapping intervals", ranking=plain)
    top = lambda r: [h.path for h in r.hits if "compactor" in h.path][:2]  # noqa: E731
    assert top(affirm)[0] == "areas/data/compactor-merges.html"
    assert top(negate)[0] == "areas/data/compactor-no-merge.html"


def test_a_reversed_claim_goes_first_unless_the_query_says_the_old_one(store):
    """The two compactor memories contradict (a negation); the one saying "does not merge" was
    written a day later. An affirmative question names neither side (the claims differ only by the
    negation), so the newer goes first and both say so; a question saying "not" names the newer."""
    newer, older = "areas/data/compactor-no-merge.html", "areas/data/compactor-merges.html"
    top = lambda r: [h.path for h in r.hits if "compactor" in h.path][:2]  # noqa: E731
    for query in (
        "the nightly compactor merges overlapping intervals",
        "does the compactor merge intervals",
        "the nightly compactor does not merge overlapping intervals",
    ):
        result = store.search(query)
        assert top(result) == [newer, older], query
        marks = {h.path: h.contradictions for h in result.hits}
        assert [m.other for m in marks[newer]] == [older] and marks[newer][0].mark == "contradicts an older memory"
        assert marks[older][0].mark == "contradicted by a newer memory" and marks[older][0].kind == "negation"
    # memhtml's all-words form leaves the newer (no "merges" in it) off its page; the older is
    # still marked, naming the newer from the pool behind the page, and nothing is reordered
    memhtml = store.search("the nightly compactor merges overlapping intervals", ranking=MEMHTML)
    marked = {h.path: [m.other for m in h.contradictions] for h in memhtml.hits if h.contradictions}
    assert marked == {older: [newer]}
    assert all(m.step != "newer" for h in memhtml.hits for m in h.moves)


def test_snippet_is_the_best_chunk(store):
    result = store.search("quorum breaker zeppelin manifest ratified ledger")
    long = [h for h in result.hits if h.path == "resources/infra/long-ledger.html"][0]
    assert "zeppelin" in long.snippet
    assert len(long.snippet) <= 700


def test_moved_hits_say_so(store):
    result = store.search("rollback drain deploy revert VIP ledger", limit=5)
    for hit in result.hits:
        if hit.moved_by:
            assert hit.moved_from is not None and hit.moved_from != hit.position
        else:
            assert hit.fused_position == hit.position or hit.moved_by is None


def test_why_not_names_the_excluding_axis_and_ranks(store):
    report = store.why("drain the VIP", Scope.build(tags=["bm25"]), TARGET)
    assert report.status == "indexed"
    assert report.excluded_by == ["tags"]
    assert report.ranks_relaxed
    assert report.arms["fts"]["rank"] == 1
    archived = store.why("rollback order", Scope(), OLD)
    assert archived.excluded_by == ["archived"]
    task = store.why("drain", Scope(), TASK)
    assert task.excluded_by == ["tasks"]
    missing = store.why("x", Scope(), "areas/none.html")
    assert missing.status == "not_indexed"
    filler = store.why("drain the VIP", Scope(), "areas/filler/filler-03.html")
    assert filler.excluded_by == [] and filler.arms["recency"]["rank"] >= 1
    assert filler.arms["fts"]["rank"] is None


def test_warm_loads_the_vector_snapshot(store):
    store.caches.clear()
    assert store.warm() >= 20
    before = store.caches.vectors._snapshots.copy()
    store.search("drain the vip")
    assert store.caches.vectors._snapshots == before, "the first search reused the warmed snapshot"


def test_a_search_of_ten_hits_and_a_recall_move_no_state_row(store):
    conn = store.reader()
    before = conn.execute("SELECT count(*), coalesce(sum(access_count), 0) FROM state.access").fetchone()
    result = store.search("filler fact cafeteria", limit=10)
    assert len(result.hits) == 10
    store.recall("filler fact cafeteria")
    store.list()
    store.why("filler", Scope(), result.hits[0].path)
    store.read(result.hits[0].path, bump=False)  # a preview
    after = conn.execute("SELECT count(*), coalesce(sum(access_count), 0) FROM state.access").fetchone()
    assert after == before
    first = store.read(result.hits[0].path)
    second = store.read(result.hits[0].path)
    assert first.access["access_count"] == second.access["access_count"] == 1, "two reads inside 900 s count once"
