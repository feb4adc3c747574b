"""claim_diff: which disagreement holds between two claims, and which words differ (with spans)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memhtml_desktop.domain.claim_diff import claim_diff, disagreement
from memhtml_desktop.domain.polarity import diverges


def _marked(text: str, spans) -> list[str]:
    return [text[s:e] for s, e in spans]


def test_negation_marks_the_verb_phrase() -> None:
    a, b = (
        "The nightly compactor merges overlapping intervals.",
        "The nightly compactor doesn’t merge overlapping intervals.",
    )
    d = claim_diff(a, b)
    assert d.kinds == ("negation",)
    assert _marked(a, d.spans_a) == ["merges"] and _marked(b, d.spans_b) == ["doesn’t merge"]
    assert d.only_b == ("does", "not", "merge")


def test_a_number_marks_only_the_number() -> None:
    a, b = "The checkout-api p99 latency budget is 800 ms.", "The checkout-api p99 latency budget is 650 ms."
    d = claim_diff(a, b)
    assert d.kinds == ("number",) and (d.only_a, d.only_b) == (("800",), ("650",))
    assert _marked(a, d.spans_a) == ["800"] and _marked(b, d.spans_b) == ["650"]


def test_a_qualifier_and_a_number_together() -> None:
    d = claim_diff("Claude Pro allows 5 projects.", "Claude Max allows 10 projects.")
    assert d.kinds == ("number", "qualifier")
    assert set(d.only_a) == {"pro", "5"} and set(d.only_b) == {"max", "10"}


def test_agreeing_claims_are_no_conflict() -> None:
    assert claim_diff("Same words here.", "Same  words HERE") is None
    assert claim_diff("The pool holds 40 connections.", "The pool keeps 40 connections.") is None  # a paraphrase


@given(st.text(max_size=60), st.text(max_size=60))
def test_it_agrees_with_polaritys_veto_and_spans_stay_inside(a: str, b: str) -> None:
    d = claim_diff(a, b)
    assert (d is not None) == diverges(a, b) == bool(disagreement(a, b))
    if d is not None:
        assert all(0 <= s < e <= len(a) for s, e in d.spans_a)
        assert all(0 <= s < e <= len(b) for s, e in d.spans_b)
