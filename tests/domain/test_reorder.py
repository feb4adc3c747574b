"""The post-fusion pipeline as a profile configures it: polarity, twin resolution, MMR, and the moves."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from memhtml_desktop.domain.mmr import MmrCandidate, apply_mmr
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML, PerEmbedder
from memhtml_desktop.domain.reorder import PoolItem, known_items, reorder

E = np.eye(6)
NEAR0 = np.array([0.99, 0.141, 0, 0, 0, 0])
SIMILAR0 = np.array([0.8, 0.6, 0, 0, 0, 0])  # cosine 0.8 with E[0]: same topic, not a twin
TWINS = replace(DEFAULT, twin_cosine=PerEmbedder((), 0.95))


def test_a_twin_that_fused_first_yields_and_says_why():
    items = [
        PoolItem("control", "Schema migrator retries the lock 12 times.", E[0]),
        PoolItem("target", "Schema migrator retries the lock 2 times.", NEAR0),
        PoolItem("other", "Billing invoices run monthly.", E[2]),
    ]
    out = reorder("schema migrator retries lock 2 times", items, TWINS, model_id=None, limit=3)
    assert [items[i].key for i in out.order][0] == "target"
    move = next(m for m in out.moves[0] if m.step == "twins")
    assert move.from_position == 1 and move.twin == "target"
    assert move.describe() == "moved by twin resolution from 1: its claim has '12' where your query says '2'"
    up = next(m for m in out.moves[1] if m.step == "twins")
    assert up.describe() == "moved by twin resolution from 2: its claim says your query's '2' where its twin has '12'"


def test_default_runs_twins_in_place_of_polarity():
    items = [
        PoolItem("negated", "The compactor does not merge intervals.", E[0]),
        PoolItem("affirmed", "The compactor merges intervals.", NEAR0),
    ]
    out = reorder("compactor merges intervals", items, TWINS, model_id=None, limit=2)
    assert out.order == [1, 0] and [m.step for m in out.moves[0]] == ["twins"]
    assert out.moves[0][0].adds == ("not",)
    asked = reorder("why does the compactor not merge intervals", items, TWINS, model_id=None, limit=2)
    assert asked.order == [0, 1]


def test_memhtml_profile_runs_no_polarity_and_no_twins():
    items = [
        PoolItem("negated", "The compactor does not merge intervals.", E[0]),
        PoolItem("affirmed", "The compactor merges intervals.", NEAR0),
    ]
    out = reorder("compactor merges intervals", items, replace(MEMHTML, mmr_lambda=1.0), model_id=None, limit=2)
    assert out.order == [0, 1] and out.moves == {}
    seeds = reorder(
        "compactor merges intervals",
        items,
        replace(DEFAULT, polarity=True, twins=False, mmr_lambda=1.0),
        model_id=None,
        limit=2,
    )
    assert seeds.order == [1, 0] and seeds.moves[0][0].step == "polarity"


def test_mmr_keeps_a_known_item_on_its_slot():
    # fused: an arc-like summary, then the memory the query names, then unrelated ones
    items = [
        PoolItem("summary", "Across services every change favoured reversible steps.", E[0]),
        PoolItem("exact", "Prod rollbacks drain the VIP before reverting.", SIMILAR0, title="Drain the VIP first"),
        *[PoolItem(f"o{i}", f"Unrelated fact {i}.", E[2 + i % 4]) for i in range(6)],
    ]
    query = "drain the vip"
    assert known_items(query, items)[:2] == [False, True]
    plain = replace(DEFAULT, mmr_keeps_known_items=False, mmr_redundancy="cosine")
    out = reorder(query, items, plain, model_id=None, limit=5)
    assert "exact" not in [items[i].key for i in out.order][:2], "plain MMR sinks it for resembling the summary"
    kept = reorder(query, items, replace(plain, mmr_keeps_known_items=True), model_id=None, limit=5)
    assert [items[i].key for i in kept.order][1] == "exact"


def test_near_duplicate_redundancy_spares_same_topic_memories_and_arcs():
    items = [PoolItem("a", "A one.", E[0]), PoolItem("b", "B two.", SIMILAR0), PoolItem("c", "C three.", E[3])]
    cos = replace(DEFAULT, twins=False, polarity=False, mmr_redundancy="cosine", mmr_keeps_known_items=False)
    near = replace(cos, mmr_redundancy="near_duplicate", twin_cosine=PerEmbedder((), 0.95))
    assert reorder("zzz", items, cos, model_id=None, limit=3).order == [0, 2, 1]
    assert reorder("zzz", items, near, model_id=None, limit=3).order == [0, 1, 2]
    dupes = [PoolItem("arc", "Arc.", E[0], arc=True), PoolItem("m", "M.", E[0]), PoolItem("x", "X.", E[3])]
    assert reorder("zzz", dupes, near, model_id=None, limit=3).order == [0, 1, 2], "an arc is not redundancy"
    plain = [PoolItem("m1", "M.", E[0]), PoolItem("m2", "M.", E[0]), PoolItem("x", "X.", E[3])]
    assert reorder("zzz", plain, near, model_id=None, limit=3).order == [0, 2, 1]


def test_limit_cuts_and_whole_pool_keeps_everyone():
    items = [PoolItem(f"k{i}", f"Claim {i}.", E[i % 6]) for i in range(9)]
    assert len(reorder("claim", items, DEFAULT, model_id=None, limit=4).order) == 4
    whole = reorder("claim", items, DEFAULT, model_id=None, limit=len(items))
    assert sorted(whole.order) == list(range(9))
    assert reorder("claim", items, DEFAULT, model_id=None, limit=0).order == []


def test_fixed_items_keep_their_slot_in_apply_mmr():
    v = np.array([1.0, 0.0])
    pool = [MmrCandidate("a", 1.0, v), MmrCandidate("b", 0.5, v), MmrCandidate("c", 0.33, np.array([0.0, 1.0]))]
    assert apply_mmr(pool, 3) == [0, 2, 1]
    assert apply_mmr(pool, 3, fixed=[False, True, False]) == [0, 1, 2]
    assert apply_mmr(pool, 2, fixed=[False, False, True]) == [0, 2], "a fixed item past the page competes as usual"
