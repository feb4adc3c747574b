"""The contradiction rule: which pairs of claims put two values into one slot, why, and which is newer.

Each false alarm below is one the old scan (near-twin vectors + polarity's veto) raised on a
documentation store; each true pair is one a fact store holds. The rule is symmetric.
"""

from __future__ import annotations

import pytest

from memhtml_desktop.domain.contradiction import Statement, contradiction, generic_frame, newer_of
from memhtml_desktop.html.frame import frame_key_of


def st(claim: str, path: str = "a.html", event_at=None, created_at="2025-01-01T00:00:00Z") -> Statement:
    return Statement(path, claim, frame_key_of(claim), event_at, created_at)


def reason(a: str, b: str) -> str | None:
    one, two = contradiction(st(a, "a.html"), st(b, "b.html")), contradiction(st(b, "b.html"), st(a, "a.html"))
    assert (one is None) == (two is None)  # symmetric
    return None if one is None else one.reason


@pytest.mark.parametrize(
    "a, b, kind",
    [
        ("The capital of Peru is Lima.", "The capital of Peru is Cusco.", "slot"),
        ("The official language of Finland is Finnish.", "The official language of Finland is Modern Greek.", "slot"),
        ("Os.getresgid was added in Python 3.2.", "Os.getresgid was added in Python 3.8.", "slot"),
        (
            "Finland has Finnish as its official language.",
            "Finland has Modern Greek as its official language.",
            "entity",
        ),
        ("About 511,200 people live in Rahim Yar Khan.", "About 549,100 people live in Rahim Yar Khan.", "number"),
        (
            "Python 3.2 introduced inspect.getgeneratorstate.",
            "Python 3.1 introduced inspect.getgeneratorstate.",
            "number",
        ),
        (
            "The nightly compactor merges overlapping intervals.",
            "The nightly compactor doesn’t merge overlapping intervals.",
            "negation",
        ),
        (
            "Checkout-api in edgefleet will retry the canary slice 2 times before paging payments.",
            "Checkout-api in edgefleet will retry the canary slice 2 times before paging payments, on the beta variant only.",
            "qualifier",
        ),
        ("Python 3.8 was released on October 14, 2019.", "Python 3.8 was released on March 3, 2020.", "date"),
        ("The capital of Peru is Lima.", "Peru has its capital in Cusco.", "value"),
        # a possessive names its owner: the subject comes first, no verb does
        ("Kenya's capital is Nairobi.", "Kenya's capital is Libreville.", "slot"),
        ("Python\u2019s default encoding is UTF-8.", "Python\u2019s default encoding is ASCII.", "slot"),
    ],
)
def test_a_slot_holding_two_values_is_found(a, b, kind) -> None:
    assert reason(a, b) == kind


@pytest.mark.parametrize(
    "a, b",
    [
        # documentation in parallel about the heading it sits under
        ("Default: Disabled by default.", "Default: Enabled by default."),
        ("Default: 1.0 seconds.", "Default: 120.0 seconds."),
        (
            "Sent after the setup of every global logger (not task loggers).",
            "Sent after the setup of every single task logger.",
        ),
        (
            "Include a time/datestamp in the document footer.",
            'Include a "View document source" link in the document footer.',
        ),
        (
            "This section presents the API reference for the ORM Query object.",
            "This section presents the API reference for the SQL Expression Language.",
        ),
        (
            "Deprecated since version 1.4: The ForeignKey.copy() method is deprecated and will be removed in a future release.",
            "Deprecated since version 1.4: The SelectBase.as_scalar() method is deprecated and will be removed in a future release.",
        ),
        # a marker inside another word change is not a negation
        ("Designs a digital high-pass filter.", "Designs a digital band-reject filter."),
        # a number added is more said, not another number
        (
            "A vulnerability (CVE-2020-27783) was discovered in the HTML Cleaner.",
            "A vulnerability was discovered in the HTML Cleaner.",
        ),
        # two subjects, one value
        ("The time zone of Takatsuki is Asia/Tokyo.", "The time zone of Ibaraki is Asia/Tokyo."),
        (
            "The PEP/HTML Writer derives from the HTML4/CSS1 Writer.",
            "The S5/HTML Writer derives from the HTML4/CSS1 Writer.",
        ),
        (
            "The release date of Python 3.2 is February 20, 2011.",
            "The release date of Python 3.6 is December 23, 2016.",
        ),
        # two relations of one subject
        ("New Zealand has 4,885,500 inhabitants.", "New Zealand has its capital in Wellington."),
        ("Papua New Guinea has 8,606,316 inhabitants.", "Papua New Guinea lies in Oceania."),
        # one value said twice, or one inside the other
        ("The currency of Peru is the Sol.", "Peru uses the Sol as its currency."),
        ("The currency of Latvia is the Euro.", "The currency of Latvia is the euro."),
        # a relation of many values
        ("Cameroon is a neighbour of Chad.", "Cameroon is a neighbour of Nigeria."),
        # two owners, one value; and a possessive that is not first names nothing new
        ("Kenya's capital is Nairobi.", "Peru's capital is Nairobi."),
        ("Sets the logger's level to DEBUG.", "Sets the logger's level to INFO."),
    ],
)
def test_what_is_not_one_slot_is_left_alone(a, b) -> None:
    assert reason(a, b) is None


def test_frames_that_are_not_slots() -> None:
    assert generic_frame("this is equivalent to")
    assert generic_frame("it is located in")
    assert generic_frame("cameroon is a neighbour of")
    assert not generic_frame("the capital of peru is")


def test_newer_by_event_time_else_written_time() -> None:
    old = Statement("old.html", "x", event_at="2024-03-01", created_at="2025-06-01T00:00:00Z")
    backfilled = Statement("new.html", "y", event_at="2025-01-10", created_at="2024-01-01T00:00:00Z")
    assert newer_of(old, backfilled) == "new.html"  # written first, stated later: the event time decides
    plain_a = Statement("a.html", "x", created_at="2025-01-01T10:00:00Z")
    plain_b = Statement("b.html", "y", created_at="2025-01-02T09:00:00Z")
    assert newer_of(plain_a, plain_b) == newer_of(plain_b, plain_a) == "b.html"
    day = Statement("d.html", "x", event_at="2025-01-02", created_at="2025-01-01T00:00:00Z")
    instant = Statement("i.html", "y", event_at="2025-01-02T23:00:00Z", created_at="2025-01-03T00:00:00Z")
    assert newer_of(day, instant) == "i.html"  # the same day: written time breaks the tie
    tie = Statement("t.html", "y", created_at="2025-01-01T10:00:00Z")
    assert newer_of(plain_a, tie) is None


@pytest.mark.parametrize(
    "a, b, kind",
    [
        # a number written with thousands separators is one word: "383,400" and "400,000" share no "400"
        ("Dayrah has 383,400 inhabitants.", "Dayrah has 400,000 inhabitants.", "number"),
        ("About 91,725,800 people live in Iran.", "About 81,800,269 people live in Iran.", "number"),
        # lowering "İ" adds a combining dot, a word more in the frame key than in the claim
        ("The city of İzmir is in Thailand.", "The city of İzmir is in Turkey.", "slot"),
    ],
)
def test_numbers_with_separators_and_a_dotted_capital_are_read_whole(a, b, kind) -> None:
    assert reason(a, b) == kind


def reworded(a: str, b: str, cosine: float | None) -> str | None:
    one = contradiction(st(a, "a.html"), st(b, "b.html"), cosine)
    two = contradiction(st(b, "b.html"), st(a, "a.html"), lambda: cosine)
    assert (one is None) == (two is None)  # symmetric, and a function of the cosine is asked like the cosine
    return None if one is None else one.reason


@pytest.mark.parametrize(
    "a, b",
    [
        ("About 880,500 people live in Zaria.", "The population of Zaria is 980,000."),
        ("Gambia lies in Africa.", "The country Gambia is part of North America."),
        ("Adoni keeps time in the Africa/Kampala time zone.", "The time zone of Adoni is Asia/Kolkata."),
        ("Python 3.1 introduced os.RWF_NOWAIT.", "Os.RWF_NOWAIT was added in Python 3.7."),
        ("Guinea-Bissau has its capital in Bissau.", "Guinea-Bissau's capital is Jakarta."),
    ],
)
def test_a_value_changed_in_other_words_is_found_when_the_vectors_are_near_twins(a, b) -> None:
    assert reason(a, b) is None  # the words alone do not say it
    assert reworded(a, b, 0.9) == "reworded"
    assert reworded(a, b, 0.7) is None and reworded(a, b, None) is None


@pytest.mark.parametrize(
    "a, b",
    [
        ("New Zealand has 4,885,500 inhabitants.", "New Zealand has its capital in Wellington."),  # a number, a name
        ("The population of Zaria is 980,000.", "Zaria keeps time in the Africa/Lagos time zone."),
        ("Cameroon is a neighbour of Chad.", "Cameroon borders Nigeria."),  # one of several
        ("The compactor does not merge intervals.", "The compactor merges intervals on Sunday."),  # a negation
        ("The currency of Peru is the Sol.", "Peru uses the Sol as its currency."),  # one value
        ("Lyon is a city in France.", "Paris is a city in France."),  # no subject in common
        # one is the other with words added: a narrower subject (the Python docs, MiniLM cosine above 0.82)
        (
            "Abstract Base Classes (ABCs) according to PEP 3119.",
            "Abstract Base Classes (ABCs) for numbers, according to PEP 3141.",
        ),
    ],
)
def test_near_twin_vectors_do_not_make_two_relations_one_slot(a, b) -> None:
    assert reworded(a, b, 0.99) is None


@pytest.mark.parametrize(
    "a, b",
    [
        # two subjects, one value: the names that differ stand where the subject does
        ("The time zone of Bhopal is Asia/Kolkata.", "The time zone of Bhadrāvati is Asia/Kolkata."),
        ("People in Egypt speak Arabic.", "People in Tunisia speak Arabic."),
    ],
)
def test_near_twin_vectors_do_not_make_two_subjects_one(a, b) -> None:
    assert reworded(a, b, 0.99) is None
