"""The convex fusion (`domain/fusion.py`): normalisation, shares, the priors' RRF form, the window."""

from __future__ import annotations

import json
import math
import random

import pytest

from memhtml_desktop.domain.fusion import (
    arm_share,
    confidence,
    convex_parts,
    max_convex_score,
    normalise,
    order_of,
    prior_signal,
    query_share,
    signal,
    undivided,
)


def test_normalisation_by_the_best_and_min_max():
    assert normalise([10.0, 5.0, 2.5], "max") == [1.0, 0.5, 0.25]
    assert normalise([0.8, -0.2, None], "max") == [1.0, 0.0, 0.0]  # a negative cosine counts nothing
    assert normalise([10.0, 5.0, 0.0], "minmax") == [1.0, 0.5, 0.0]
    assert normalise([3.0, 3.0], "minmax") == [1.0, 1.0]
    assert normalise([-1.0, -2.0], "max") == [0.0, 0.0]
    assert normalise([None], "max") == [0.0]
    assert signal("fts", -12.5) == 12.5 and signal("vector", 0.4) == 0.4 and signal("fts", math.nan) is None


def test_shares_and_the_priors_rrf_form():
    ranked = {
        "fts": [("a", 1, -10.0), ("b", 2, -5.0)],
        "vector": [("b", 1, 0.8), ("c", 2, 0.4)],
        "recency": [("c", 1, None), ("a", 2, None)],
    }
    parts = convex_parts(
        ranked, {"fts": 1.0, "vector": 1.0, "recency": 0.5}, lexical_share=0.25, how="max", k=60, window=40
    )
    by = {p: {x.arm: x for x in v} for p, v in parts.items()}
    assert by["a"]["fts"].contribution == pytest.approx(0.25) and by["a"]["fts"].norm == 1.0
    assert by["b"]["fts"].contribution == pytest.approx(0.125) and by["b"]["vector"].contribution == pytest.approx(0.75)
    assert by["c"]["vector"].contribution == pytest.approx(0.375)
    assert by["c"]["recency"].contribution == pytest.approx(0.5 / 61) and by["c"]["recency"].norm is None
    order = order_of(parts)
    assert [p for _, p in order] == ["b", "c", "a"]
    assert order[0][0] == pytest.approx(0.875)
    assert arm_share("fts", 0.25) == 0.25 and arm_share("vector", 0.25) == 0.75 and arm_share("salience", 0.25) == 1.0
    assert max_convex_score({"fts": 1.0, "vector": 1.0, "recency": 0.5}, 0.25, 60) == pytest.approx(1.0 + 0.5 / 61)


@pytest.mark.parametrize("seed", [1, 7, 42])
def test_contributions_add_up_ranks_past_the_window_earn_nothing_and_ties_go_by_path(seed):
    rng = random.Random(seed)
    paths = [f"p{i:03d}" for i in range(60)]
    lexical = sorted(((p, -rng.uniform(1, 20)) for p in rng.sample(paths, 50)), key=lambda x: x[1])
    vector = sorted(((p, rng.uniform(-0.1, 0.9)) for p in rng.sample(paths, 50)), key=lambda x: -x[1])
    ranked = {
        "fts": [(p, r, s) for r, (p, s) in enumerate(lexical, start=1)],
        "vector": [(p, r, s) for r, (p, s) in enumerate(vector, start=1)],
    }
    share = rng.uniform(0.1, 0.9)
    parts = convex_parts(
        ranked, {"fts": 1.0, "vector": 1.0}, lexical_share=share, how=rng.choice(["max", "minmax"]), k=60, window=40
    )
    assert all(p.rank <= 40 for v in parts.values() for p in v)
    for score, path in order_of(parts):
        assert score == math.fsum(p.contribution for p in parts[path])
    assert max(s for s, _ in order_of(parts)) <= 1.0 + 1e-12
    tie = convex_parts(
        {"fts": [("b", 1, -3.0), ("a", 2, -3.0)]}, {"fts": 1.0}, lexical_share=1.0, how="max", k=60, window=40
    )
    assert [p for _, p in order_of(tie)] == ["a", "b"]


def test_confidence_is_the_best_over_the_window_median():
    assert confidence([10.0, 5.0, 5.0, 2.0, 1.0], 5) == pytest.approx(0.5)
    assert confidence([10.0, 10.0, 10.0], 3) == 0.0  # every match alike: the words say nothing
    assert confidence([8.0], 40) == 1.0  # one memory holds the words: the empty slots count 0
    assert confidence([8.0, 6.0, None, 4.0], 4) == pytest.approx(1 - 5.0 / 8.0)
    assert confidence([], 40) == 0.0 and confidence([-1.0, None], 2) == 0.0


@pytest.mark.parametrize("share", [0.1, 0.3, 0.8, 0.95])
def test_the_query_share_follows_the_lexical_confidence_and_stays_a_share(share):
    assert query_share(share, 0.37, 0.0) == share  # exponent 0: fixed
    assert query_share(share, 1.0, 1.0) == pytest.approx(share)  # full confidence: the profile's share
    assert query_share(share, 0.0, 1.0) == 0.0
    lows = [query_share(share, c, 1.0) for c in (0.1, 0.3, 0.6, 0.9)]
    assert lows == sorted(lows) and all(0.0 < v < share for v in lows)
    assert query_share(share, 0.5, 2.0) < query_share(share, 0.5, 0.5)
    assert query_share(0.0, 0.5, 1.0) == 0.0 and query_share(1.0, 0.5, 1.0) == 1.0


@pytest.mark.parametrize("seed", [3, 9, 27])
def test_an_adaptive_share_moves_the_arms_weights_and_still_adds_up(seed):
    rng = random.Random(seed)
    paths = [f"m{i:03d}" for i in range(50)]
    lexical = sorted(((p, -rng.uniform(1, 20)) for p in rng.sample(paths, 40)), key=lambda x: x[1])
    vector = sorted(((p, rng.uniform(0.0, 0.9)) for p in rng.sample(paths, 40)), key=lambda x: -x[1])
    ranked = {
        "fts": [(p, r, s) for r, (p, s) in enumerate(lexical, start=1)],
        "vector": [(p, r, s) for r, (p, s) in enumerate(vector, start=1)],
        "salience": [(p, r, None) for r, p in enumerate(rng.sample(paths, 10), start=1)],
    }
    weights = {"fts": 1.0, "vector": 1.0, "salience": 0.4}
    share, exponent = rng.uniform(0.2, 0.9), rng.choice([0.5, 1.0, 2.0])
    parts = convex_parts(ranked, weights, lexical_share=share, how="max", k=60, window=40, lexical_confidence=exponent)
    expected = query_share(share, confidence([-s for _, s in lexical], 40), exponent)
    assert expected < share
    for path, v in parts.items():
        for p in v:
            assert p.contribution == pytest.approx(p.weight * (p.norm if p.norm is not None else 1.0 / (p.rank + 60)))
            if p.arm in ("fts", "vector"):
                assert p.weight == pytest.approx(arm_share(p.arm, expected))
            else:
                assert p.weight == 0.4
    for score, path in order_of(parts):
        assert score == math.fsum(p.contribution for p in parts[path])
    # without a vector arm the share cannot matter and is left as it is
    alone = convex_parts(
        {"fts": ranked["fts"]}, weights, lexical_share=share, how="max", k=60, window=40, lexical_confidence=exponent
    )
    assert all(p.weight == pytest.approx(share) for v in alone.values() for p in v)


def test_a_prior_whose_window_is_one_tie_weighs_nothing():
    fts = [("a", 1, -9.0), ("b", 2, -8.95)]
    tied = {
        "fts": fts,
        "recency": [("b", 1, "2026-06-01T09:30:00.000Z"), ("c", 2, "2026-06-01T09:30:00.000Z")],
        "salience": [("b", 1, 0.5), ("a", 2, 0.5), ("c", 3, 0.5)],
    }
    weights = {"fts": 1.0, "recency": 0.5, "salience": 0.4}
    parts = convex_parts(tied, weights, lexical_share=1.0, how="max", k=60, window=40)
    priors = [p for v in parts.values() for p in v if p.arm in ("recency", "salience")]
    assert len(priors) == 5 and all(p.contribution == 0.0 and p.weight == 0.0 for p in priors)
    assert [p for _, p in order_of(parts)][:2] == ["a", "b"]  # the lexical arm's order, not the path tie's
    divided = dict(tied, recency=[("b", 1, "2026-06-02T00:00:00.000Z"), ("c", 2, "2026-06-01T09:30:00.000Z")])
    parts = convex_parts(divided, weights, lexical_share=1.0, how="max", k=60, window=40)
    by = {p: {x.arm: x for x in v} for p, v in parts.items()}
    assert by["b"]["recency"].contribution == pytest.approx(0.5 / 61) and by["b"]["salience"].contribution == 0.0
    assert [p for _, p in order_of(parts)][:2] == ["b", "a"]  # a real recency lead orders a near-tie
    assert not undivided(["x"]) and not undivided([None, None]) and not undivided([])
    assert undivided([0.25, 0.25]) and not undivided([0.25, 0.2500001])


def test_a_priors_signal_is_the_same_from_the_sql_and_from_the_hit():
    terms = [0.9387478808404105, 0.6931471805599453, 0.2]
    assert prior_signal("salience", json.dumps(terms + [6.3])) == prior_signal(
        "salience", {"decay": terms[0], "popularity": terms[1], "outcome": terms[2], "hours_since_access": 6.3}
    )
    assert prior_signal("recency", "2026-06-01T09:30:00.000Z") == prior_signal(
        "recency", {"time": "2026-06-01T09:30:00.000Z"}
    )
    assert prior_signal("salience", None) is None and prior_signal("salience", "[null, 0, 0, 1]") is None
