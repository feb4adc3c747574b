"""Twin resolution: the query's words decide between near-identical candidates, and nothing else moves."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml_desktop.domain.twins import TwinCandidate, deciding_words, fold, resolve_twins, twin_groups

BASE = np.array([1.0, 0.0, 0.0, 0.0])
NEAR = np.array([0.99, 0.141, 0.0, 0.0])  # cosine 0.99 with BASE
FAR = np.array([0.0, 0.0, 1.0, 0.0])
OTHER = np.array([0.0, 0.0, 0.0, 1.0])

TARGET = "Schema migrator retries the advisory lock 2 times before paging."
NEGATED = "Schema migrator does not retry the advisory lock 2 times before paging."
NUMERIC = "Schema migrator retries the advisory lock 12 times before paging."
VARIANT = "Schema migrator retries the advisory lock 2 times before paging, on the beta variant only."
QUERY = "schema migrator retries advisory lock 2 times paging"


def cands(*rows):
    return [TwinCandidate(f"k{i}", claim, vec) for i, (claim, vec) in enumerate(rows)]


def test_deciding_words_fold_negations_inflections_and_drop_function_words():
    assert set(deciding_words("It doesn't merge the 5.10 intervals")) == {"not", "merg", "5.10", "interval"}
    assert set(deciding_words("never merges")) == set(deciding_words("does not merged")) == {"not", "merg"}
    assert set(deciding_words("retries")) == set(deciding_words("retry")) == set(deciding_words("retried"))
    assert "beta" in deciding_words("on the beta variant only")
    assert deciding_words("Déployé café") == {"déployé": "déployé", "café": "café"}
    assert deciding_words("The intervals")["interval"] == "intervals", "explanations quote the word as written"
    assert fold("class") == "class" and fold("12") == "12" and fold("bus") == "bus"


def test_each_family_loses_to_the_target_whatever_the_fused_order():
    for control in (NEGATED, NUMERIC, VARIANT):
        out = resolve_twins(QUERY, cands((control, BASE), (TARGET, NEAR)), 0.95)
        assert out.order == [1, 0], control
        decision = out.decisions[0]
        assert decision.twin == 1
        assert decision.adds or decision.lacks


def test_the_deciding_words_are_named():
    out = resolve_twins(QUERY, cands((NUMERIC, BASE), (TARGET, NEAR)), 0.95)
    demoted, promoted = out.decisions[0], out.decisions[1]
    assert demoted.adds == ("12",) and demoted.lacks == ("2",)
    assert promoted.matches == ("2",) and promoted.twin_adds == ("12",)


def test_symmetric_a_query_in_the_controls_words_puts_the_control_first():
    assert resolve_twins(
        "schema migrator retries advisory lock 12 times", cands((TARGET, BASE), (NUMERIC, NEAR)), 0.95
    ).order == [1, 0]
    assert resolve_twins(
        "does the schema migrator not retry the advisory lock", cands((TARGET, BASE), (NEGATED, NEAR)), 0.95
    ).order == [1, 0]
    assert resolve_twins("schema migrator on the beta variant", cands((TARGET, BASE), (VARIANT, NEAR)), 0.95).order == [
        1,
        0,
    ]


def test_never_in_a_query_agrees_with_not_in_a_claim():
    out = resolve_twins("schema migrator never retries the advisory lock", cands((TARGET, BASE), (NEGATED, NEAR)), 0.95)
    assert out.order == [1, 0]


def test_no_twin_no_move():
    out = resolve_twins(QUERY, cands((NUMERIC, BASE), (TARGET, FAR)), 0.95)
    assert out.order == [0, 1] and out.decisions == {} and out.groups == []
    blind = resolve_twins(QUERY, cands((NUMERIC, None), (TARGET, BASE)), 0.95)
    assert blind.order == [0, 1], "a candidate without a vector is never a twin"


def test_below_the_threshold_is_not_a_twin():
    assert resolve_twins(QUERY, cands((NUMERIC, BASE), (TARGET, NEAR)), 0.995).order == [0, 1]


def test_equal_deviation_keeps_the_fused_order():
    out = resolve_twins("schema migrator advisory lock", cands((NUMERIC, BASE), (TARGET, NEAR)), 0.95)
    assert out.order == [0, 1] and out.decisions == {}


def test_a_group_is_reseated_in_its_own_slots_only():
    rows = [
        (NUMERIC, BASE),
        ("Unrelated claim about billing.", FAR),
        (VARIANT, NEAR),
        ("Another unrelated one.", OTHER),
        (TARGET, BASE),
    ]
    out = resolve_twins(QUERY, cands(*rows), 0.95)
    assert out.order[1] == 1 and out.order[3] == 3, "non-members keep their slots"
    assert out.order[0] == 4, "the target takes the group's best slot"
    assert sorted(out.order[i] for i in (0, 2, 4)) == [0, 2, 4]


def test_groups_are_connected_components():
    chain = [BASE, np.array([0.96, 0.28, 0, 0]), np.array([0.85, 0.53, 0, 0]), FAR]
    groups = twin_groups([TwinCandidate(f"k{i}", "x", v) for i, v in enumerate(chain)], 0.95)
    assert groups == [[0, 1, 2]]


def test_a_query_without_deciding_words_moves_nothing():
    assert resolve_twins("the of and", cands((NUMERIC, BASE), (TARGET, NEAR)), 0.95).order == [0, 1]


claims = st.sampled_from([TARGET, NEGATED, NUMERIC, VARIANT, "Billing invoices monthly.", "Cache purges fan out."])
vectors = st.sampled_from([BASE, NEAR, FAR, OTHER, None])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(claims, vectors), min_size=0, max_size=9),
    st.sampled_from([QUERY, "beta variant", "12 times", "not"]),
)
def test_properties(rows, query):
    pool = cands(*rows)
    out = resolve_twins(query, pool, 0.95)
    assert sorted(out.order) == list(range(len(pool))), "a permutation"
    members = {i for g in twin_groups(pool, 0.95) for i in g}
    for slot, i in enumerate(out.order):
        if slot not in members:
            assert i == slot, "nothing outside a twin group moves"
        else:
            assert i in members, "a group member only takes a group member's slot"
    assert out.order == resolve_twins(query, pool, 0.95).order, "deterministic"


def test_without_vectors_the_headline_words_find_the_twins():
    blind = cands((NEGATED, None), (TARGET, None), ("Billing invoices run monthly.", None))
    out = resolve_twins(QUERY, blind, 0.95, words_overlap=0.5)
    assert out.order == [1, 0, 2]
    assert out.decisions[0].adds == ("not",)
    assert resolve_twins(QUERY, blind, 0.95).order == [0, 1, 2], "the default overlap (1.0) needs the same words"
    mixed = cands((NUMERIC, BASE), (TARGET, None))
    assert resolve_twins(QUERY, mixed, 0.95, words_overlap=0.5).order == [1, 0], "one side without a vector"
