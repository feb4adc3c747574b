"""RRF: the registry, arm preconditions, contributions, and fusion as the SQL statement does it."""

from __future__ import annotations

import math

import apsw
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml_desktop.domain.rrf import (
    DEFAULT_ARM_LIMIT,
    RANK_ARMS,
    RRF_K,
    Arm,
    active_arms,
    fuse,
    fused_scores,
    rank_fused,
    rrf_contribution,
    rrf_score,
)

Ranked = dict[str, list[tuple[str, int]]]


def _names(arms: tuple[Arm, ...]) -> list[str]:
    return [arm.name for arm in arms]


def test_registry_in_fold_order() -> None:
    assert RRF_K == 60 and DEFAULT_ARM_LIMIT == 40
    assert [(a.name, a.weight) for a in RANK_ARMS] == [
        ("fts", 1.0),
        ("vector", 1.0),
        ("recency", 0.5),
        ("salience", 0.4),
    ]
    assert [a.name for a in RANK_ARMS if a.needs_embedding] == ["vector"]
    assert [a.name for a in RANK_ARMS if a.needs_state] == ["salience"]
    assert [a.name for a in RANK_ARMS if a.needs_query_terms] == ["fts"]


def test_active_arms_follow_preconditions() -> None:
    assert _names(active_arms(RANK_ARMS, has_vector=True, has_state=True, has_terms=True)) == [
        "fts",
        "vector",
        "recency",
        "salience",
    ]
    none = active_arms(RANK_ARMS, has_vector=False, has_state=False, has_terms=True)
    assert _names(none) == ["fts", "recency"]
    assert _names(active_arms(RANK_ARMS, has_vector=True, has_state=True, has_terms=False)) == [
        "vector",
        "recency",
        "salience",
    ]
    assert _names(active_arms(RANK_ARMS, has_vector=False, has_state=True, has_terms=True)) == [
        "fts",
        "recency",
        "salience",
    ]


def test_only_unavailable_arms_leave_nothing_and_weight_zero_is_dropped() -> None:
    only = (RANK_ARMS[1], RANK_ARMS[3])
    assert active_arms(only, has_vector=False, has_state=False, has_terms=True) == ()
    arms = (
        Arm("fts", 1.0, needs_query_terms=True),
        Arm("recency", 0.0),
        Arm("neg", -1.0),
        Arm("nan", math.nan),
    )
    assert _names(active_arms(arms, has_vector=True, has_state=True, has_terms=True)) == ["fts"]


def test_scores_and_contributions() -> None:
    assert rrf_score(1, 1) == 1 / 61
    assert rrf_contribution(1, 1.0) == 1 / 61
    assert rrf_contribution(2.0, 0.5) == 0.5 / 62
    assert rrf_contribution(40, 0.4) == 0.4 / 100
    assert rrf_contribution(3, 1.0, k=0) == 1 / 3
    assert rrf_contribution(np.int64(1), np.float32(0.5)) == 0.5 / 61  # numpy scalars from arrays


@pytest.mark.parametrize("rank", [0, -1, math.nan, math.inf, -math.inf, 1.5, True, "1", None])
def test_a_bad_rank_contributes_nothing(rank: object) -> None:
    assert rrf_contribution(rank, 1.0) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("weight", [0, 0.0, -0.5, math.nan, math.inf])
def test_a_non_positive_weight_contributes_nothing(weight: float) -> None:
    assert rrf_contribution(1, weight) is None


def test_rank_fused_breaks_ties_on_path() -> None:
    assert [p for p, _ in rank_fused({"b": 0.5, "a": 0.5, "c": 0.9})] == ["c", "a", "b"]


def test_fuse_sums_per_path_over_the_given_arms() -> None:
    ranked = {
        "fts": [("a", 1), ("b", 2)],
        "vector": [("b", 1), ("c", 2)],
        "recency": [("c", 1), ("a", 2)],
        "ghost": [("z", 1)],  # no such arm: ignored
    }
    fused = dict(fuse(ranked, RANK_ARMS))
    assert set(fused) == {"a", "b", "c"}
    assert fused["a"] == pytest.approx(1 / 61 + 0.5 / 62)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 62 + 0.5 / 61)
    assert [p for p, _ in fuse(ranked, RANK_ARMS)] == ["b", "a", "c"]


def test_duplicates_within_one_arm_accumulate() -> None:
    fused = fused_scores({"fts": [("a", 1), ("a", 2)]}, RANK_ARMS)
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)


def test_a_zero_weight_arm_in_the_list_is_ignored() -> None:
    arms = (*RANK_ARMS, Arm("graph", 0.0))
    ranked = {"fts": [("a", 1)], "graph": [("b", 1)]}
    assert fuse(ranked, arms) == fuse({"fts": [("a", 1)]}, RANK_ARMS)


# --- properties ---------------------------------------------------------------------------------

_PATHS = st.sampled_from([f"areas/p{i}.html" for i in range(12)])


@st.composite
def _ranked(draw: st.DrawFn) -> Ranked:
    out: Ranked = {}
    for arm in RANK_ARMS:
        paths = draw(st.lists(_PATHS, unique=True, max_size=10))
        out[arm.name] = [(p, i + 1) for i, p in enumerate(paths)]
    return out


@given(_ranked())
def test_fuse_order_is_total_and_deterministic(ranked: Ranked) -> None:
    fused = fuse(ranked, RANK_ARMS)
    assert fused == fuse(ranked, RANK_ARMS)
    assert fused == sorted(fused, key=lambda item: (-item[1], item[0]))
    assert len({p for p, _ in fused}) == len(fused)
    assert {p for p, _ in fused} == {p for rows in ranked.values() for p, _ in rows}


@given(_ranked(), st.permutations(list(RANK_ARMS)))
def test_the_fold_order_does_not_matter(ranked: Ranked, arms: list[Arm]) -> None:
    assert fuse(ranked, tuple(arms)) == fuse(ranked, RANK_ARMS)


@given(_ranked(), st.sampled_from([f"areas/w{i}.html" for i in range(3)]))
def test_a_path_ranked_first_by_every_arm_wins(ranked: Ranked, winner: str) -> None:
    ranked = {arm: [(winner, 1)] + [(p, r + 1) for p, r in rows] for arm, rows in ranked.items()}
    assert fuse(ranked, RANK_ARMS)[0][0] == winner


@given(_ranked(), st.lists(_PATHS, unique=True, max_size=10))
def test_adding_a_zero_weight_arm_changes_nothing(ranked: Ranked, extra: list[str]) -> None:
    with_extra = {**ranked, "lateral": [(p, i + 1) for i, p in enumerate(extra)]}
    assert fuse(with_extra, (*RANK_ARMS, Arm("lateral", 0.0))) == fuse(ranked, RANK_ARMS)


@given(_ranked())
def test_scores_are_bounded_by_the_weights(ranked: Ranked) -> None:
    ceiling = sum(arm.weight for arm in RANK_ARMS) / (1 + RRF_K)
    for _, score in fuse(ranked, RANK_ARMS):
        assert 0 < score <= ceiling + 1e-15


_FUSED_SQL = """
WITH arms(arm, weight) AS (VALUES ('fts', 1.0), ('vector', 1.0), ('recency', 0.5), ('salience', 0.4)),
     ranked(arm, path, rank) AS (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?1)),
     rrf AS (SELECT r.path AS path, a.weight / (r.rank + 60) AS s FROM ranked r JOIN arms a USING (arm))
SELECT path, SUM(s) AS score FROM rrf GROUP BY path ORDER BY score DESC, path ASC
"""


@settings(max_examples=60, deadline=None)
@given(_ranked())
def test_the_sql_fold_agrees_with_the_pure_twin(ranked: Ranked) -> None:
    import json

    rows = [[arm, path, rank] for arm, items in ranked.items() for path, rank in items]
    db = apsw.Connection(":memory:")
    got = list(db.execute(_FUSED_SQL, (json.dumps(rows),)))
    want = fuse(ranked, RANK_ARMS)
    assert [p for p, _ in got] == [p for p, _ in want]
    for (_, a), (_, b) in zip(got, want):
        assert a == pytest.approx(b, rel=1e-15)
