"""Recall over a real store: the same candidates as search, folded into three tiers with a ledger."""

from __future__ import annotations

from dataclasses import replace

from memfiles import write_memory
from memhtml_desktop.domain.types import Scope


def build(root):
    write_memory(
        root,
        "areas/arcs/reversibility-first.html",
        title="Reversibility first",
        memory_type="arc",
        claim="Every rollback-related change favoured reversible steps.",
        body="An arc over deploys.",
    )
    for i in range(5):
        write_memory(
            root,
            f"areas/oncall/rollback-{i}.html",
            title=f"Rollback rule {i}",
            claim=f"Rollback rule {i}: drain the VIP before reverting deploy number {i}.",
            entities=["service:checkout-api"],
            facets=[("doc-type", "runbook")],
            article_extra="<details><summary>How this was learned</summary><p>SECRET backstory.</p></details>"
            "<aside><p>CAVEAT only for ALB.</p></aside>",
        )
    write_memory(
        root, "areas/oncall/pager.html", title="Pager", claim="Acknowledge rollback pages within five minutes."
    )


def test_pack_shape_and_ledger(store_root, make_store):
    build(store_root)
    store = make_store(store_root)
    store.index()
    pack = store.recall("rollback drain deploy reversibility")
    assert [i.path for i in pack.arcs.items] == ["areas/arcs/reversibility-first.html"]
    assert all(i.memory_type != "arc" for i in pack.memories.items)
    quotes = [i for i in pack.memories.items if i.tier == "quote"]
    assert quotes and all("SECRET" not in i.text and "CAVEAT" not in i.text for i in quotes)
    assert any("How this was learned" in i.text for i in quotes), "summaries are quoted, details bodies never"
    capped = [i for i in pack.memories.items if i.reason == "entity_cap"]
    assert len([i for i in quotes if "rule" in i.text]) == 2 and len(capped) == 3
    assert pack.memories.spent == sum(i.chars for i in pack.memories.items) <= pack.memories.budget
    assert pack.spent == pack.memories.spent + pack.arcs.spent
    assert pack.truncated  # entity-capped memories are index lines


def test_budget_degrades_by_tier_never_mid_sentence(store_root, make_store):
    build(store_root)
    store = make_store(store_root)
    store.index()
    full = {i.path: i for i in store.recall("rollback drain", budget=16000).memories.items}
    for budget in (0, 40, 80, 150, 400):
        pack = store.recall("rollback drain", budget=budget)
        assert pack.memories.spent <= budget
        for item in pack.memories.items:
            if item.tier == "quote":
                assert item.text == full[item.path].text
            elif item.tier == "disclosure":
                assert item.reason == "over_budget" and "\n" not in item.text
            else:
                assert item.chars == 0 and item.path in item.text
    tiny = store.recall("rollback drain", budget=70)
    assert {i.tier for i in tiny.memories.items} >= {"disclosure", "index"} or tiny.memories.spent <= 70


def test_same_query_same_pack_and_no_bump(store_root, make_store):
    build(store_root)
    store = make_store(store_root)
    store.index()
    first = store.recall("rollback", Scope.build(facets=["doc-type=runbook"]), budget=300)
    second = store.recall("rollback", Scope.build(facets=["doc-type=runbook"]), budget=300)
    assert first.to_json() | {"elapsed_ms": 0} == second.to_json() | {"elapsed_ms": 0}
    assert store.reader().execute("SELECT count(*) FROM state.access").fetchone() == (0,)


def _many(root):
    build(root)
    for i in range(30):
        write_memory(
            root,
            f"areas/misc/note-{i:02d}.html",
            title=f"Rollback note {i}",
            claim=f"Rollback note {i} about drain timing in region {i}.",
            created=f"2026-0{1 + i % 9}-0{1 + i % 8}T00:00:00Z",
        )


def test_recall_folds_the_whole_pool_like_memhtml(store_root, make_store):
    from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML

    _many(store_root)
    store = make_store(store_root)
    store.index()
    for profile in (DEFAULT, MEMHTML):
        pack = store.recall("rollback drain", limit=10, ranking=profile)
        folded = [i.path for i in (*pack.arcs.items, *pack.memories.items)]
        assert len(folded) == 30 == len(set(folded)), "limit x 3 candidates, as memhtml folds"
        assert pack.ranking == profile.name
    fused = store.search("rollback drain", limit=30, ranking=replace(MEMHTML, mmr_lambda=1.0, pool_factor=1))
    memhtml_pack = store.recall("rollback drain", limit=10, ranking=MEMHTML)
    assert [i.path for i in memhtml_pack.memories.items] == [h.path for h in fused.hits if h.memory_type != "arc"], (
        "memhtml folds the fused order"
    )
    assert not any(
        i.tier == "disclosure" for i in store.recall("rollback drain", budget=200, ranking=MEMHTML).memories.items
    ), "memhtml 0.4 has no claim-only tier"


def test_default_recall_is_the_reordered_pool(store_root, make_store):
    from memhtml_desktop.domain.ranking import DEFAULT

    _many(store_root)
    store = make_store(store_root)
    store.index()
    whole = store.search("rollback drain", limit=30, ranking=replace(DEFAULT, pool_factor=1))  # the same 30
    pack = store.recall("rollback drain", limit=10, ranking=DEFAULT)
    assert [i.path for i in pack.memories.items] == [h.path for h in whole.hits if h.memory_type != "arc"]
