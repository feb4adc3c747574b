"""The newer-first step: contradicting memories of one pool marked, the newer seated first.

Pure: statements in, an order, moves and marks out. What the window, the CLI and the recall pack
show of it is tested where they are (tests/index/test_newer_first_search.py, tests/ui/...).
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml_desktop.domain.contradiction import Statement, blocking_keys, contradiction
from memhtml_desktop.domain.newer_first import contradicting_pairs, disagreements, newer_first, query_names
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML
from memhtml_desktop.domain.reorder import PoolItem, reorder
from memhtml_desktop.domain.signals import NEWER, OLDER, SAME
from memhtml_desktop.html.frame import frame_key_of


def fact(
    path: str, claim: str, day: str | None = None, written: str = "2024-01-01T00:00:00Z", title: str = ""
) -> Statement:
    return Statement(path, claim, frame_key_of(claim), day, written, title or claim.rstrip("."))


OLD = fact("old.html", "The capital of Australia is Sydney.", written="2024-01-01T00:00:00Z")
NEW = fact("new.html", "The capital of Australia is Canberra.", written="2024-06-01T00:00:00Z")
OTHER = fact("other.html", "The currency of Australia is the Dollar.")
KEYS = ["old.html", "new.html", "other.html"]


def _seat(query: str, statements, order):
    pairs = contradicting_pairs(statements)
    return newer_first(query, order, pairs, [s.path for s in statements]), pairs


def test_the_newer_is_lifted_to_just_above_the_older() -> None:
    statements = [OLD, OTHER, NEW]
    out, pairs = _seat("what is the capital of australia", statements, [0, 1, 2])
    assert [p.found.reason for p in pairs] == ["slot"] and pairs[0].newer == 2
    assert out.order == [2, 0, 1]  # the older stays next to it, one place down; the currency one place down
    up, down, shifted = out.moves[2], out.moves[0], out.moves[1]
    assert (up.from_position, up.to_position, up.twin) == (3, 1, "old.html")
    assert up.describe() == (
        "moved by newer first from 3: it is newer than old.html, which it contradicts: "
        "\u201cCanberra\u201d against \u201cSydney\u201d (the value in one slot)"
    )
    assert down.describe() == (
        "moved by newer first from 1: new.html is newer and contradicts it: "
        "\u201cCanberra\u201d against \u201cSydney\u201d (the value in one slot)"
    )
    assert shifted.describe() == (
        "moved by newer first from 2: a newer memory was lifted to just above an older "
        "one it contradicts, above this one"
    )
    assert up.to_json()["side"] == NEWER and down.to_json()["side"] == OLDER


def test_already_in_order_nothing_moves() -> None:
    out, _ = _seat("capital of australia", [NEW, OTHER, OLD], [0, 1, 2])
    assert out.order == [0, 1, 2] and out.moves == {}


def test_the_side_the_query_names_stays_first_and_is_lifted_when_below() -> None:
    named_old = "is sydney the capital of australia"
    out, pairs = _seat(named_old, [OLD, NEW], [0, 1])
    assert query_names(named_old, pairs[0]) == 0
    assert out.order == [0, 1] and out.moves == {}  # the query asks about Sydney: that memory stays first
    out, _ = _seat(named_old, [NEW, OLD], [0, 1])
    assert out.order == [1, 0]
    assert out.moves[1].describe() == (
        "moved by newer first from 2: your query names its 'Sydney'; new.html, "
        "which contradicts it, says \u201cCanberra\u201d"
    )
    both = "canberra or sydney capital of australia"
    out, pairs = _seat(both, [OLD, NEW], [0, 1])
    assert query_names(both, pairs[0]) is None and out.order == [1, 0]  # both named: the newer decides


def test_a_chain_of_changes_is_seated_newest_first() -> None:
    v0 = fact("v0.html", "The population of Lyon is 500,000.", written="2024-01-01T00:00:00Z")
    v1 = fact("v1.html", "The population of Lyon is 510,000.", written="2024-03-01T00:00:00Z")
    v2 = fact("v2.html", "The population of Lyon is 522,000.", written="2024-05-01T00:00:00Z")
    x = fact("x.html", "The population of Nice is 340,000.")
    out, pairs = _seat("population of lyon", [v0, x, v1, v2], [0, 1, 2, 3])
    assert len(pairs) == 3
    assert out.order == [3, 2, 0, 1]  # newest, newer, older where the oldest stood; Nice after them


def test_the_event_time_decides_before_the_written_time() -> None:
    backfilled = fact(
        "late.html", "The capital of Australia is Canberra.", day="2024-09-01", written="2023-01-01T00:00:00Z"
    )
    stated = fact("early.html", "The capital of Australia is Sydney.", day="2024-02-01", written="2024-06-01T00:00:00Z")
    out, _ = _seat("capital of australia", [stated, backfilled], [0, 1])
    assert out.order == [1, 0]


def test_a_tie_on_both_times_orders_nothing_and_is_marked_as_such() -> None:
    a, b = replace(OLD, created_at=NEW.created_at), NEW
    out, pairs = _seat("capital of australia", [a, b], [0, 1])
    assert out.order == [0, 1] and not out.moves
    marks = disagreements([a, b], pairs)
    assert marks[0][0].side == marks[1][0].side == SAME
    assert marks[0][0].mark == "contradicts a memory of the same date"


def test_marks_name_the_other_its_value_and_which_is_newer() -> None:
    statements = [OLD, OTHER, NEW]
    marks = disagreements(statements, contradicting_pairs(statements), "is sydney the capital")
    assert set(marks) == {0, 2}
    stale, fresh = marks[0][0], marks[2][0]
    assert (stale.other, stale.side, stale.value, stale.other_value) == ("new.html", OLDER, "Sydney", "Canberra")
    assert stale.mark == "contradicted by a newer memory" and fresh.mark == "contradicts an older memory"
    assert stale.query_names == "this" and fresh.query_names == "other"
    assert stale.describe() == (
        "contradicted by a newer memory, \u201cThe capital of Australia is Canberra\u201d "
        "(new.html): it says \u201cCanberra\u201d where this one says \u201cSydney\u201d "
        "(the value in one slot; 2024-06-01 against 2024-01-01)"
    )
    assert fresh.to_json()["mark"] == "contradicts an older memory"


def test_a_negation_and_a_number_are_marked_too() -> None:
    merges = fact("a.html", "The nightly compactor merges overlapping intervals.", written="2024-01-01T00:00:00Z")
    stops = fact(
        "b.html", "The nightly compactor doesn\u2019t merge overlapping intervals.", written="2024-02-01T00:00:00Z"
    )
    out, pairs = _seat("does the nightly compactor merge intervals", [merges, stops], [0, 1])
    assert pairs[0].found.reason == "negation" and out.order == [1, 0]
    out, _ = _seat("why does the nightly compactor not merge", [merges, stops], [0, 1])
    assert out.order == [1, 0]  # the query's "not" names the negated side: it goes first either way
    out, _ = _seat("the nightly compactor not merge", [stops, merges], [0, 1])
    assert out.order == [0, 1] and not out.moves


def test_settled_and_left_out_memories_take_part_in_no_pair() -> None:
    assert contradicting_pairs([OLD, NEW], settled=lambda a, b: True) == []
    assert contradicting_pairs([OLD, None, NEW])[0].b == 2
    assert contradicting_pairs([OLD, replace(NEW, path="old.html")]) == []


FACTS = [
    "The capital of {s} is {v}.",
    "{s} has its capital in {v}.",
    "The population of {s} is {n}.",
    "{s} has {n} inhabitants.",
    "About {n} people live in {s}.",
    "{s} is a city in {v}.",
    "{s} was released on {d}.",
    "{s} was added in Python {p}.",
    "Python {p} introduced {s}.",
    "The nightly {s} merges overlapping intervals.",
    "The nightly {s} doesn't merge overlapping intervals.",
    "{s} will retry 2 times.",
    "{s} will retry 12 times.",
    "{s} will retry 2 times, on the beta variant only.",
]
SUBJECTS = ["Peru", "Lyon", "New Zealand", "os.getresgid", "compactor", "checkout-api", "Python 3.8"]
VALUES = ["Lima", "Cusco", "Andorra la Vella", "Bosnia and Herzegovina", "the Euro", "France", "Modern Greek"]


@st.composite
def claims(draw):
    template = draw(st.sampled_from(FACTS))
    return template.format(
        s=draw(st.sampled_from(SUBJECTS)),
        v=draw(st.sampled_from(VALUES)),
        n=draw(st.sampled_from(["511,200", "549,100", "2", "36,000"])),
        d=draw(st.sampled_from(["October 14, 2019", "March 3, 2020"])),
        p=draw(st.sampled_from(["3.2", "3.8", "3.11"])),
    )


@settings(max_examples=300, deadline=None)
@given(a=claims(), b=claims())
def test_every_pair_the_rule_flags_shares_a_blocking_key(a, b) -> None:
    sa, sb = fact("a.html", a), fact("b.html", b)
    if contradiction(sa, sb) is not None:
        assert set(blocking_keys(a, sa.frame_key)) & set(blocking_keys(b, sb.frame_key)), (a, b)


def test_the_rule_fixtures_share_a_blocking_key() -> None:
    from tests.domain.test_contradiction import test_a_slot_holding_two_values_is_found as flagged

    for mark in flagged.pytestmark:
        if mark.name == "parametrize":
            for a, b, _kind in mark.args[1]:
                assert set(blocking_keys(a, frame_key_of(a))) & set(blocking_keys(b, frame_key_of(b))), (a, b)


@settings(max_examples=60, deadline=None)
@given(pool=st.lists(claims(), min_size=2, max_size=12, unique=True), data=st.data())
def test_judging_only_the_blocked_pairs_finds_every_pair(pool, data) -> None:
    statements = [fact(f"m{i}.html", c, written=f"2024-0{1 + i % 9}-01T00:00:00Z") for i, c in enumerate(pool)]
    every = {
        (i, j)
        for i, j in itertools.combinations(range(len(statements)), 2)
        if contradiction(statements[i], statements[j]) is not None
    }
    assert {(p.a, p.b) for p in contradicting_pairs(statements)} == every
    order = data.draw(st.permutations(range(len(statements))))
    out = newer_first("", order, contradicting_pairs(statements), [s.path for s in statements])
    involved = {i for pair in every for i in pair}
    assert sorted(out.order) == sorted(order)
    bystanders = [i for i in order if i not in involved]
    assert [i for i in out.order if i not in involved] == bystanders  # their order kept
    for item in bystanders:
        assert out.order.index(item) >= order.index(item)  # never lifted, at most pushed down by a lift
    at = {item: p for p, item in enumerate(out.order)}
    for pair in contradicting_pairs(statements):
        if pair.newer is not None:
            older = pair.b if pair.newer == pair.a else pair.a
            assert at[pair.newer] < at[older]


E = np.eye(4)


def test_reorder_runs_the_step_last_under_default_and_never_under_memhtml() -> None:
    items = [PoolItem(s.path, s.claim, E[i], title=s.title, statement=s) for i, s in enumerate([OLD, OTHER, NEW])]
    out = reorder("capital of australia", items, DEFAULT, model_id=None, limit=2)
    assert [items[i].key for i in out.order] == ["new.html", "old.html"]  # lifted from below the page
    assert [m.step for m in out.moves[2]] == ["newer"]
    assert "newer" in DEFAULT.steps and "newer" not in MEMHTML.steps
    assert reorder("capital of australia", items, MEMHTML, model_id=None, limit=3).order[0] in (0, 1)
    plain = [replace(it, statement=None) for it in items]
    assert reorder("capital of australia", plain, DEFAULT, model_id=None, limit=3).order == [0, 1, 2]


def test_the_profile_knob_reads_and_writes() -> None:
    from memhtml_desktop.domain.ranking import RankingProfile

    assert RankingProfile.from_json({"newer_first": False}).newer_first is False
    assert DEFAULT.to_json()["newer_first"] is True and MEMHTML.to_json()["newer_first"] is False
    with pytest.raises(ValueError, match="newer_first"):
        RankingProfile.from_json({"newer_first": "yes"})


def test_a_value_word_that_is_also_the_subjects_names_nothing() -> None:
    old = fact("old.html", "Kuala Terengganu keeps time in the Asia/Kuala_Lumpur time zone.", day="2024-02-21")
    new = fact(
        "new.html", "Kuala Terengganu keeps time in the Indian/Antananarivo time zone.", written="2024-05-09T11:30:00Z"
    )
    out, pairs = _seat("What is the time zone of Kuala Terengganu?", [old, new], [0, 1])
    assert query_names("What is the time zone of Kuala Terengganu?", pairs[0]) is None
    assert out.order == [1, 0]
    assert query_names("is kuala terengganu on kuala lumpur time", pairs[0]) == 0  # "lumpur" is the old value's own


def test_a_query_asks_for_a_side_by_its_title_only_when_that_title_wraps_the_others() -> None:
    from memhtml_desktop.domain.newer_first import query_quotes

    old = fact(
        "old.html",
        "The nightly compactor does not merge overlapping intervals.",
        written="2024-01-01T00:00:00Z",
        title="Refuted reading — Nightly compactor merges overlapping intervals",
    )
    new = fact(
        "new.html",
        "The nightly compactor merges overlapping intervals.",
        written="2024-06-01T00:00:00Z",
        title="Nightly compactor merges overlapping intervals",
    )
    pair = contradicting_pairs([old, new])[0]
    assert query_quotes("refuted reading compactor", pair) == 0
    assert newer_first("refuted reading compactor", [0, 1], [pair], ["old.html", "new.html"]).order == [0, 1]
    assert query_quotes("nightly compactor intervals", pair) is None  # both titles hold them: the newer first
    assert newer_first("nightly compactor intervals", [0, 1], [pair], ["old.html", "new.html"]).order == [1, 0]
    # two titles of one slot that share words: a question in either's words asks about the slot
    for old_title, new_title, question in (
        ("Oman: capital city", "Capital of Oman", "Which city is the capital of Oman?"),
        ("Estonia: continent", "Where Estonia is", "On which continent is Estonia?"),
    ):
        a = fact("a.html", "The capital of Oman is Muscat.", written="2024-01-01T00:00:00Z", title=old_title)
        b = fact("b.html", "The capital of Oman is Salalah.", written="2024-06-01T00:00:00Z", title=new_title)
        assert query_quotes(question, contradicting_pairs([a, b])[0]) is None, question
