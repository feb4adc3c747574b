"""MMR and cosine: the cases from retrieval.md section 12 item 39, plus properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml_desktop.domain.mmr import MMR_LAMBDA, MmrCandidate, apply_mmr, cosine


def _c(key: str, relevance: float, vector: list[float] | None) -> MmrCandidate:
    return MmrCandidate(key, relevance, None if vector is None else np.asarray(vector, dtype=np.float32))


def _keys(candidates: list[MmrCandidate], picked: list[int]) -> list[str]:
    return [candidates[i].key for i in picked]


V = [1.0, 0.0, 0.0, 0.0]


def test_lambda() -> None:
    assert MMR_LAMBDA == 0.5


def test_a_duplicate_sinks_below_an_item_without_a_vector() -> None:
    pool = [_c("first", 1, V), _c("duplicate", 0.6, V), _c("blind", 0.5, None)]
    assert _keys(pool, apply_mmr(pool, 3)) == ["first", "blind", "duplicate"]


def test_a_clone_loses_to_a_different_item() -> None:
    pool = [_c("first", 1, V), _c("clone", 0.98, V), _c("other", 0.9, [0, 1, 0, 0])]
    assert _keys(pool, apply_mmr(pool, 2)) == ["first", "other"]
    assert _keys(pool, apply_mmr(pool, 2, lam=1.0)) == ["first", "clone"]


def test_lambda_at_least_one_returns_input_order() -> None:
    pool = [_c("low", 0.1, V), _c("high", 1.0, V)]
    assert apply_mmr(pool, 5, lam=1.0) == [0, 1]
    assert apply_mmr(pool, 1, lam=2.0) == [0]


@pytest.mark.parametrize("limit", [0, -1, -100])
def test_non_positive_limit_returns_nothing(limit: int) -> None:
    assert apply_mmr([_c("a", 1, V)], limit) == []


def test_empty_and_single_pools() -> None:
    assert apply_mmr([], 3) == []
    assert apply_mmr([_c("a", 1, V)], 3) == [0]


def test_real_rrf_scores_are_normalised_against_cosine() -> None:
    # Raw RRF scores (~0.03) against a 0.1 cosine: unnormalised, the tiny similarity would sink a
    # near-top item below a far weaker one. Normalised, relevance and similarity share a scale.
    slightly_similar = [0.1, 0.995, 0.0, 0.0]  # cosine ~0.1 with V
    pool = [_c("top", 0.05, V), _c("strong", 0.049, slightly_similar), _c("weak", 0.03, None)]
    assert _keys(pool, apply_mmr(pool, 3)) == ["top", "strong", "weak"]


def test_the_proxy_relevance_behaves_as_memhtml() -> None:
    pool = [_c(f"p{i}", 1 / (i + 1), [1.0, i / 10, 0, 0]) for i in range(6)]
    picked = apply_mmr(pool, 6)
    assert picked[0] == 0 and sorted(picked) == list(range(6))


def test_ties_go_to_the_earliest_position() -> None:
    pool = [_c("a", 1, None), _c("b", 1, None), _c("c", 1, None)]
    assert apply_mmr(pool, 3) == [0, 1, 2]


def test_cosine_spec_cases() -> None:
    assert cosine([0, 0, 0, 2.222758749485078e-162], [0, 0, 0, 2.0808141537085223e-155, 0]) == 1.0
    assert cosine([0, 0, 0, 5e-324], [0, 0, 0, 5e-324]) == 0.0
    assert cosine([1, 0], [0, 1]) == 0.0
    assert cosine([1, 2, 3], [-1, -2, -3]) == pytest.approx(-1.0)
    assert cosine([0, 0], [1, 1]) == 0.0
    assert cosine([], []) == 0.0


def test_cosine_walks_the_shorter_length() -> None:
    assert cosine([1, 0], [1, 0, 5]) == pytest.approx(1.0)
    assert cosine(np.array([3.0, 4.0, 100.0]), np.array([3.0, 4.0])) == pytest.approx(1.0)


def test_cosine_is_clamped() -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        x = rng.standard_normal(384)
        assert cosine(x, x * 3) <= 1.0 and cosine(x, -x) >= -1.0


_VEC = st.one_of(st.none(), st.lists(st.floats(-1, 1, allow_nan=False), min_size=4, max_size=4))
_POOL = st.lists(st.tuples(st.floats(1e-4, 1.0, allow_nan=False), _VEC), max_size=12).map(
    lambda rows: [_c(f"k{i}", r, v) for i, (r, v) in enumerate(rows)]
)


@given(_POOL, st.integers(-2, 15), st.floats(0, 1.5, allow_nan=False))
def test_output_is_a_duplicate_free_selection_of_the_right_length(
    pool: list[MmrCandidate], limit: int, lam: float
) -> None:
    picked = apply_mmr(pool, limit, lam)
    assert len(picked) == max(0, min(limit, len(pool)))
    assert len(set(picked)) == len(picked)
    assert all(0 <= i < len(pool) for i in picked)
    assert picked == apply_mmr(pool, limit, lam)


@given(_POOL)
def test_the_first_pick_is_the_most_relevant_earliest(pool: list[MmrCandidate]) -> None:
    if pool:
        top = max(c.relevance for c in pool)
        first = next(i for i, c in enumerate(pool) if c.relevance == top)
        assert apply_mmr(pool, 1) == [first]


@given(_POOL, st.sampled_from([2.0, 0.5, 0.03125]))
def test_relevance_scale_does_not_matter(pool: list[MmrCandidate], factor: float) -> None:
    scaled = [MmrCandidate(c.key, c.relevance * factor, c.vector) for c in pool]
    assert apply_mmr(scaled, len(pool)) == apply_mmr(pool, len(pool))


@given(st.lists(st.floats(1e-4, 1.0, allow_nan=False), max_size=10))
def test_without_vectors_the_order_is_by_relevance_stably(relevance: list[float]) -> None:
    pool = [_c(f"k{i}", r, None) for i, r in enumerate(relevance)]
    expected = sorted(range(len(pool)), key=lambda i: (-relevance[i], i))
    assert apply_mmr(pool, len(pool)) == expected
