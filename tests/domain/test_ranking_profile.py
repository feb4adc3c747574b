"""Ranking profiles: frozen data holding every knob, JSON round trips, and the two shipped profiles."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError, fields, replace

import pytest

from memhtml_desktop.domain.ranking import (
    DEFAULT,
    FLOOR_COSINE,
    HASH_MODEL,
    MEMHTML,
    MINILM_INT8_MODEL,
    MINILM_MODEL,
    PROFILES,
    PerEmbedder,
    RankingProfile,
    profile_named,
)
from memhtml_desktop.domain.rrf import DEFAULT_ARM_LIMIT, RANK_ARMS, RRF_K


def test_the_seeds_constants_are_the_defaults():
    for profile in (DEFAULT, MEMHTML):
        assert [(a.name, a.weight) for a in profile.arms] == [
            ("fts", 1.0),
            ("vector", 1.0),
            ("recency", 0.5),
            ("salience", 0.4),
        ]
        assert profile.rrf_k == RRF_K == 60 and profile.arm_window == DEFAULT_ARM_LIMIT == 40
        assert profile.pool_factor == 3 and profile.mmr_lambda == 0.5
        assert (profile.recall_budget, profile.arc_budget, profile.max_per_entity) == (16_000, 9_000, 2)
    assert DEFAULT.arms == RANK_ARMS


def test_memhtml_is_what_memhtml_does():
    assert MEMHTML.fts_forms == "all"
    assert not MEMHTML.polarity and not MEMHTML.twins
    assert not DEFAULT.polarity and DEFAULT.twins, "twin resolution generalises the seeds' polarity step"
    assert MEMHTML.mmr_redundancy == "cosine" and not MEMHTML.mmr_keeps_known_items
    assert MEMHTML.recall_pool == "fused" and MEMHTML.recall_tiers == "quote_index"
    # memhtml's lexical index and fusion: one unstemmed column, every word, RRF.
    assert MEMHTML.lexical == "memhtml" and MEMHTML.fusion == "rrf" and not MEMHTML.question_words


def test_the_lexical_and_fusion_knobs_read_and_refuse():
    p = RankingProfile.from_json(
        {
            "field_weights": {"title": 3},
            "lexical_share": {MINILM_MODEL: 0.2},
            "fusion": "convex",
            "convex_norm": "minmax",
            "question_words": False,
        }
    )
    assert p.field_weights == (3.0, DEFAULT.field_weights[1], DEFAULT.field_weights[2])
    assert p.lexical_share.get(MINILM_MODEL) == 0.2 and p.lexical_share.get(HASH_MODEL) == DEFAULT.lexical_share.get(
        HASH_MODEL
    )
    assert RankingProfile.from_json({"field_weights": [1, 2, 3]}).field_weights == (1.0, 2.0, 3.0)
    q = RankingProfile.from_json({"lexical_confidence": {HASH_MODEL: 2}})
    assert q.lexical_confidence.get(HASH_MODEL) == 2.0
    assert q.lexical_confidence.get(MINILM_INT8_MODEL) == DEFAULT.lexical_confidence.get(MINILM_INT8_MODEL)
    assert RankingProfile.from_json(json.loads(json.dumps(q.to_json()))) == q
    assert DEFAULT.lexical_key == replace(DEFAULT, lexical_confidence=PerEmbedder((), 3.0)).lexical_key
    assert RankingProfile.from_json(json.loads(json.dumps(p.to_json()))) == p
    assert p.to_json()["field_weights"] == {
        "title": 3.0,
        "claim": DEFAULT.field_weights[1],
        "body": DEFAULT.field_weights[2],
    }
    for bad, message in [
        ({"field_weights": {"abstract": 1}}, "unknown field"),
        ({"field_weights": [1, 2]}, "three numbers"),
        ({"field_weights": [0, 0, 0]}, "one > 0"),
        ({"field_weights": [-1, 1, 1]}, ">= 0"),
        ({"lexical_share": 1.5}, "[0, 1]"),
        ({"fusion": "borda"}, "fusion must be"),
        ({"lexical_confidence": -0.5}, "[0, 4]"),
        ({"lexical_confidence": {"*": 9}}, "[0, 4]"),
        ({"lexical_confidence": "high"}, "expected a number"),
        ({"convex_norm": "z"}, "convex_norm must be"),
        ({"lexical": "trigram"}, "lexical must be"),
        ({"fts_forms": "some"}, "fts_forms must be"),
        ({"question_words": "yes"}, "true or false"),
    ]:
        with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
            RankingProfile.from_json(bad)
    assert DEFAULT.lexical_key != replace(DEFAULT, field_weights=(1.0, 1.0, 1.0)).lexical_key
    assert DEFAULT.lexical_key == replace(DEFAULT, lexical_share=PerEmbedder((), 0.1), rrf_k=5).lexical_key


def test_every_difference_between_the_profiles_is_a_documented_knob():
    differing = {f.name for f in fields(RankingProfile) if getattr(DEFAULT, f.name) != getattr(MEMHTML, f.name)}
    assert differing == {
        "name",
        "summary",
        "fts_forms",
        "gate_priors",
        "polarity_cosine",
        "twins",
        "mmr_redundancy",
        "mmr_keeps_known_items",
        "recall_pool",
        "recall_tiers",
        "lexical",
        "field_weights",
        "question_words",
        "fusion",
        "lexical_share",
        "lexical_confidence",
        "newer_first",
    }
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "ranking.md").read_text(encoding="utf-8")
    for knob in differing - {"name", "summary"}:
        assert f"`{knob}`" in doc, knob


def test_frozen_and_json_round_trip():
    with pytest.raises(FrozenInstanceError):
        DEFAULT.rrf_k = 10  # type: ignore[misc]
    for profile in PROFILES.values():
        text = json.dumps(profile.to_json())
        assert RankingProfile.from_json(json.loads(text)) == profile


def test_from_json_fills_from_a_base_and_refuses_typos():
    what_if = RankingProfile.from_json({"name": "what-if", "arms": {"recency": 0.1}, "rrf_k": 20, "twin_cosine": 0.9})
    assert what_if.weight("recency") == 0.1 and what_if.weight("fts") == 1.0
    assert what_if.rrf_k == 20 and what_if.twin_cosine.get(HASH_MODEL) == 0.9
    assert what_if.polarity == DEFAULT.polarity
    on_memhtml = RankingProfile.from_json({"mmr_lambda": 0.7}, base=MEMHTML)
    assert on_memhtml.fts_forms == "all" and on_memhtml.mmr_lambda == 0.7
    for bad, message in [
        ({"rrf_kk": 1}, "unknown ranking knob"),
        ({"arms": {"graph": 1.0}}, "unknown arm"),
        ({"rrf_k": 0}, "rrf_k"),
        ({"rrf_k": 1.5}, "whole number"),
        ({"mmr_lambda": 2.0}, "mmr_lambda"),
        ({"mmr_lambda": float("nan")}, "finite"),
        ({"fts_forms": "some"}, "fts_forms"),
        ({"polarity": "yes"}, "true or false"),
        ({"floor_cosine": "high"}, "floor_cosine"),
        ([], "JSON object"),
    ]:
        with pytest.raises(ValueError, match=message):
            RankingProfile.from_json(bad)  # type: ignore[arg-type]


def test_per_embedder_values():
    assert FLOOR_COSINE.get(HASH_MODEL) == 0.45 and FLOOR_COSINE.get(MINILM_MODEL) == 0.55
    assert FLOOR_COSINE.get("someone-elses-model") == FLOOR_COSINE.default
    assert PerEmbedder.from_json({"a": 1, "*": 0.5}, what="x") == PerEmbedder((("a", 1.0),), 0.5)
    assert PerEmbedder.from_json(0.3, what="x").get("anything") == 0.3
    only_hash = RankingProfile.from_json({"twin_cosine": {HASH_MODEL: 0.9}}).twin_cosine
    assert only_hash.get(HASH_MODEL) == 0.9, "the named model changes"
    assert only_hash.get(MINILM_MODEL) == 0.95 and only_hash.default == 0.95, "the others keep the base's"


def test_profile_named():
    assert profile_named(None) is DEFAULT and profile_named("memhtml") is MEMHTML
    with pytest.raises(ValueError, match="default, memhtml"):
        profile_named("seeds")


def test_derived_values_follow_the_knobs():
    assert MEMHTML.max_score == pytest.approx(2.9 / 61)
    assert replace(MEMHTML, rrf_k=9).max_score == pytest.approx(2.9 / 10)
    # convex: the scored arms' shares add up to one, so at most the heavier weight, plus the priors' RRF
    assert DEFAULT.max_score == pytest.approx(1.0 + 0.9 / 61)
    heavier = replace(DEFAULT, arms=tuple(replace(a, weight=2.0) if a.name == "vector" else a for a in DEFAULT.arms))
    assert heavier.max_score == pytest.approx(2.0 + 0.9 / 61)
    assert DEFAULT.pool_size(10) == 30 and replace(DEFAULT, pool_factor=5).pool_size(10) == 50
