"""The convex fusion (`domain/fusion.py`): normalisation, shares, the priors' RRF form, the window."""

from __future__ import annotations

import math
import random

import pytest

from memhtml_desktop.domain.fusion import (
    arm_share, convex_parts, max_convex_score, normalise, order_of, signal,
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
    parts = convex_parts(ranked, {"fts": 1.0, "vector": 1.0, "recency": 0.5}, lexical_share=0.25, how="max",
                         k=60, window=40)
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
    ranked = {"fts": [(p, r, s) for r, (p, s) in enumerate(lexical, start=1)],
              "vector": [(p, r, s) for r, (p, s) in enumerate(vector, start=1)]}
    share = rng.uniform(0.1, 0.9)
    parts = convex_parts(ranked, {"fts": 1.0, "vector": 1.0}, lexical_share=share, how=rng.choice(["max", "minmax"]),
                         k=60, window=40)
    assert all(p.rank <= 40 for v in parts.values() for p in v)
    for score, path in order_of(parts):
        assert score == math.fsum(p.contribution for p in parts[path])
    assert max(s for s, _ in order_of(parts)) <= 1.0 + 1e-12
    tie = convex_parts({"fts": [("b", 1, -3.0), ("a", 2, -3.0)]}, {"fts": 1.0}, lexical_share=1.0, how="max", k=60,
                       window=40)
    assert [p for _, p in order_of(tie)] == ["a", "b"]
