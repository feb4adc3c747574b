"""The polarity step: the marker rules, then one test per sentence of the demotion rule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml_desktop.domain.mmr import MmrCandidate, apply_mmr
from memhtml_desktop.domain.polarity import (
    NEGATION_MARKERS,
    POLARITY_DEMOTION,
    TWIN_COSINE,
    PolarityCandidate,
    diverges,
    is_negated,
    negation_divergent,
    normalise,
    numeric_token_divergent,
    polarity_reorder,
    tokens,
    variant_qualifier_divergent,
)

AFFIRM = "X merges 5 intervals"
NEGATE = "X does not merge 5 intervals"
BASE = np.array([1.0, 0.0, 0.0, 0.0])
TWIN = np.array([0.96, 0.28, 0.0, 0.0])  # cosine 0.96 with BASE
FAR = np.array([0.0, 0.0, 1.0, 0.0])


def _cands(*rows: tuple[str, float, np.ndarray | None]) -> list[PolarityCandidate]:
    return [PolarityCandidate(f"k{i}", claim, rel, vec) for i, (claim, rel, vec) in enumerate(rows)]


def test_constants_and_markers() -> None:
    assert TWIN_COSINE == 0.9 and POLARITY_DEMOTION == 0.5
    assert len(NEGATION_MARKERS) == 22
    assert {"not", "no", "never", "without", "fail", "rejected"} <= NEGATION_MARKERS


@pytest.mark.parametrize(
    ("text", "expanded"),
    [
        ("It isn't", "it is not"),
        ("won't", "will not"),
        ("can't", "can not"),
        ("Cannot", "can not"),
        ("doesn't", "does not"),
        ("hadn't", "had not"),
        ("ain't", "ai not"),
        ("needn't", "need not"),
        ("don\u2019t", "do not"),
    ],
)
def test_contractions_expand(text: str, expanded: str) -> None:
    assert normalise(text) == expanded


def test_tokens_keep_dotted_numbers() -> None:
    assert tokens("Upgrade to v1.2.3 merges 5.10 intervals") == [
        "upgrade",
        "to",
        "v1.2.3",
        "merges",
        "5.10",
        "intervals",
    ]


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        (NEGATE, True),
        (AFFIRM, False),
        ("We don't deploy on Fridays", True),
        ("deploy without downtime", True),
        ("the build failed", True),
        ("nothing notable", False),
        ("Cannot merge", True),
        ("", False),
        ("NOT", True),
    ],
)
def test_is_negated(text: str, negated: bool) -> None:
    assert is_negated(text) is negated


def test_divergence_rules_are_symmetric() -> None:
    pairs = [
        (AFFIRM, NEGATE, True, False, False),
        ("merges 5 intervals", "merges 6 intervals", False, True, False),
        ("Claude Pro limits", "Claude Max limits", False, False, True),
        ("plain text", "plain text", False, False, False),
        ("no numbers", "none here", False, False, False),
    ]
    for a, b, neg, num, var in pairs:
        for x, y in ((a, b), (b, a)):
            assert negation_divergent(x, y) is neg
            assert numeric_token_divergent(x, y) is num
            assert variant_qualifier_divergent(x, y) is var
            assert diverges(x, y) is (neg or num or var)


def test_a_disagreeing_near_twin_lands_below_its_agreeing_twin() -> None:
    pool = _cands((NEGATE, 0.05, BASE), (AFFIRM, 0.045, TWIN), ("unrelated", 0.04, FAR))
    out = polarity_reorder("how does X merge intervals", pool)
    assert out.order == [1, 0, 2]
    assert out.demoted == {0: 1}
    assert out.relevance == [0.025, 0.045, 0.04]


def test_without_an_agreeing_candidate_nothing_moves() -> None:
    pool = _cands((NEGATE, 0.05, BASE), ("X never splits intervals", 0.045, TWIN))
    out = polarity_reorder("how does X merge intervals", pool)
    assert out.order == [0, 1] and out.demoted == {} and out.relevance == [0.05, 0.045]


def test_agreeing_but_not_a_near_twin_moves_nothing() -> None:
    pool = _cands((NEGATE, 0.05, BASE), (AFFIRM, 0.045, np.array([0.8, 0.6, 0.0, 0.0])))  # cosine 0.8
    out = polarity_reorder("X merges intervals", pool)
    assert out.order == [0, 1] and out.demoted == {}


def test_the_threshold_is_inclusive() -> None:
    at = np.array([TWIN_COSINE, np.sqrt(1 - TWIN_COSINE**2), 0.0, 0.0])
    pool = _cands((NEGATE, 0.05, BASE), (AFFIRM, 0.045, at))
    assert polarity_reorder("X merges intervals", pool).demoted == {0: 1}


def test_no_vector_is_never_a_twin() -> None:
    for a, b in ((None, TWIN), (BASE, None), (None, None)):
        pool = _cands((NEGATE, 0.05, a), (AFFIRM, 0.045, b))
        assert polarity_reorder("X merges intervals", pool).order == [0, 1]


def test_a_twin_already_below_every_agreeing_copy_is_left_alone() -> None:
    pool = _cands((AFFIRM, 0.05, BASE), ("unrelated", 0.045, FAR), (NEGATE, 0.04, TWIN))
    out = polarity_reorder("X merges intervals", pool)
    assert out.order == [0, 1, 2] and out.demoted == {} and out.relevance == [0.05, 0.045, 0.04]


def test_it_lands_below_the_lowest_ranked_agreeing_twin() -> None:
    pool = _cands(
        (NEGATE, 0.05, BASE),
        (AFFIRM, 0.045, TWIN),
        ("unrelated", 0.04, FAR),
        (AFFIRM + " daily", 0.03, BASE),
    )
    out = polarity_reorder("X merges intervals", pool)
    assert out.order == [1, 2, 3, 0]
    assert out.demoted == {0: 3}
    assert out.relevance[0] == pytest.approx(0.025)


def test_a_twin_between_two_agreeing_copies_still_moves_below_the_lower() -> None:
    pool = _cands((AFFIRM, 0.05, BASE), (NEGATE, 0.045, TWIN), (AFFIRM + " daily", 0.04, BASE))
    out = polarity_reorder("X merges intervals", pool)
    assert out.order == [0, 2, 1] and out.demoted == {1: 2}


def test_a_lone_negated_memory_is_never_moved() -> None:
    other = np.array([0.0, 1.0, 0.0, 0.0])
    pool = _cands(("unrelated", 0.06, FAR), (NEGATE, 0.05, BASE), ("other", 0.04, other))
    out = polarity_reorder("X merges intervals", pool)
    assert out.order == [0, 1, 2] and out.demoted == {} and out.relevance == [0.06, 0.05, 0.04]


def test_the_step_is_symmetric_in_the_query() -> None:
    pool = _cands((AFFIRM, 0.05, BASE), (NEGATE, 0.045, TWIN))
    out = polarity_reorder("why does X not merge intervals", pool)
    assert out.order == [1, 0] and out.demoted == {0: 1}
    assert polarity_reorder("why does X merge intervals", pool).order == [0, 1]


def test_several_demoted_below_one_twin_keep_their_order() -> None:
    pool = _cands((NEGATE, 0.06, BASE), ("X never merges 5 intervals", 0.05, BASE), (AFFIRM, 0.04, TWIN))
    out = polarity_reorder("X merges intervals", pool)
    assert out.order == [2, 0, 1] and out.demoted == {0: 2, 1: 2}


def test_demoted_relevance_never_exceeds_its_twin_so_mmr_keeps_the_order() -> None:
    pool = _cands((NEGATE, 0.05, BASE), ("unrelated", 0.03, FAR), (AFFIRM, 0.01, TWIN))
    out = polarity_reorder("X merges intervals", pool)
    assert out.order == [1, 2, 0]
    assert out.relevance[0] == 0.01  # 0.05 * 0.5 = 0.025 would outrank its twin inside MMR
    mmr_pool = [MmrCandidate(pool[i].key, out.relevance[i], pool[i].vector) for i in out.order]
    picked = [out.order[i] for i in apply_mmr(mmr_pool, 3, lam=1.0)]
    assert picked.index(2) < picked.index(0)
    picked = [out.order[i] for i in apply_mmr(mmr_pool, 3)]
    assert picked.index(2) < picked.index(0)


_CLAIMS = st.sampled_from([AFFIRM, NEGATE, "X never merges", "unrelated claim", "deploy without downtime"])
_VECS = st.sampled_from([BASE, TWIN, FAR, None])


@given(
    st.sampled_from(["X merges intervals", "why does X not merge", ""]),
    st.lists(st.tuples(_CLAIMS, st.floats(1e-4, 1.0), _VECS), max_size=10),
)
def test_properties(query: str, rows: list[tuple[str, float, np.ndarray | None]]) -> None:
    pool = _cands(*rows)
    out = polarity_reorder(query, pool)
    assert sorted(out.order) == list(range(len(pool)))
    kept = [i for i in out.order if i not in out.demoted]
    assert kept == sorted(kept)  # only demoted candidates move
    for i, c in enumerate(pool):
        if i in out.demoted:
            twin = out.demoted[i]
            assert twin > i and is_negated(pool[twin].claim) == is_negated(query) != is_negated(c.claim)
            assert out.order.index(i) > out.order.index(twin)
            assert out.relevance[i] <= c.relevance * POLARITY_DEMOTION
        else:
            assert out.relevance[i] == c.relevance
    assert out == polarity_reorder(query, pool)
