"""The lexical arm's query language: sanitizer cases from retrieval.md section 12 item 29, phrases,
and proof against a real FTS5 table that no input, however hostile, yields a MATCH error."""

from __future__ import annotations

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml_desktop.domain.fts_query import FtsQuery, parse_fts_query, sanitize


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Drain the VIP before reverting", "drain the vip before reverting"),
        ("don't drain", "don t drain"),
        ("service:checkout-api", "service checkout api"),
        ("zebra -giraffe", "zebra giraffe"),
        ("déployé café", "déployé café"),
        ("日本語 memory", "日本語 memory"),
        ("a\tb\nc\r\n  d", "a b c d"),
        ("AND OR NOT NEAR", "and or not near"),
    ],
)
def test_sanitize_spec_cases(query: str, expected: str) -> None:
    assert sanitize(query) == expected


@pytest.mark.parametrize("query", ["", "   ", "!!! ???", "-", "--", "\\", "%", "*", "...", '"', '""'])
def test_sanitize_empty_cases(query: str) -> None:
    assert sanitize(query) == ""
    assert parse_fts_query(query).empty
    assert parse_fts_query(query).all_form is None
    assert parse_fts_query(query).any_form is None


def test_sanitize_strips_operators_per_word() -> None:
    assert [sanitize(w) for w in ["zebra*", "^x", "and", "NEAR"]] == ["zebra", "x", "and", "near"]


@given(st.text())
def test_sanitize_is_idempotent(query: str) -> None:
    once = sanitize(query)
    assert sanitize(once) == once


def test_words_become_single_terms() -> None:
    q = parse_fts_query("Drain the VIP")
    assert q.terms == (("drain",), ("the",), ("vip",))
    # function words carry no lexical evidence (bm25 idf ~ 0): neither form requires them
    assert q.all_form == '"drain" AND "vip"'
    assert q.any_form == '"drain" OR "vip"'
    assert q.words == ("drain", "the", "vip")
    assert parse_fts_query("the of").any_form == '"the" OR "of"', "nothing else left: keep them"
    assert q.any_form_without(frozenset({"vip"})) == '"drain"'
    assert q.content_terms(frozenset({"drain", "vip"})) == q.terms


def test_a_balanced_quoted_span_is_one_phrase() -> None:
    q = parse_fts_query('drain "the VIP" rollback')
    assert q.terms == (("drain",), ("the", "vip"), ("rollback",))
    assert q.all_form == '"drain" AND "the vip" AND "rollback"'
    assert q.any_form == '"drain" OR "the vip" OR "rollback"'
    assert q.words == ("drain", "the", "vip", "rollback")


def test_phrase_words_are_sanitized_like_the_rest() -> None:
    q = parse_fts_query('"service:checkout-API\'s" p99')
    assert q.terms == (("service", "checkout", "api", "s"), ("p99",))


def test_an_unbalanced_quote_is_read_as_no_quote_at_all() -> None:
    assert parse_fts_query('drain "the VIP rollback').terms == (
        ("drain",),
        ("the",),
        ("vip",),
        ("rollback",),
    )
    # three quotes: the pair that looks balanced is not trusted either
    assert parse_fts_query('a "b c" d "e').terms == (("a",), ("b",), ("c",), ("d",), ("e",))


def test_quoted_spans_that_sanitize_away_contribute_nothing() -> None:
    assert parse_fts_query('"" x "!!!"').terms == (("x",),)


def test_repeated_terms_are_kept_once_in_first_order() -> None:
    q = parse_fts_query('b a b "a" "x y" "x y" a')
    assert q.terms == (("b",), ("a",), ("x", "y"))


def test_text_joins_the_sanitized_words() -> None:
    assert parse_fts_query('Drain "the VIP"').text == "drain the vip"
    assert FtsQuery(()).text == ""


HOSTILE = [
    "don't",
    "service:checkout-api",
    "checkout-api",
    "-zebra",
    "!!! ???",
    "-",
    "--",
    "AND",
    "OR",
    "a OR",
    "NEAR(a b",
    '"unbalanced',
    "[x]",
    "{x}",
    "\\",
    '""',
    "zebra*",
    "^x",
    "a AND",
    "(",
    ")",
    "*",
    "NOT a",
    "'",
    "a:b:c",
    "col:value",
    "a NEAR b",
    "NEAR/3",
    '"a" "b',
    '"NOT" "AND"',
    "\x00\x01\x02 ctrl \x7f",
    "emoji 😀 🇺🇸 👩‍👩‍👧",
    "\ud800 lone \udfff",
    "İstanbul ǅemal",
    "x" * 10_000,
    " ".join(f"w{i}" for i in range(2_000)),
    "(" * 500 + "deep" + ")" * 500,
    '"' * 101,
    "e\u0301 combining",
    "\u200b zero width \u00a0 nbsp",
    "٣ arabic digit ½ Ⅻ",
]


@pytest.fixture(scope="module")
def fts() -> apsw.Connection:
    db = apsw.Connection(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(body)")
    db.execute(
        "INSERT INTO t(body) VALUES ('drain the vip before the rollback'),"
        " ('rollback first then drain the vip'), ('service checkout api p99'), ('déployé café')"
    )
    return db


def _match(db: apsw.Connection, form: str) -> list[int]:
    return [row[0] for row in db.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid", (form,))]


@pytest.mark.parametrize("raw", ["don't", "service:checkout-api", "-zebra", "AND", "NEAR(a b", '"unbalanced', "\\"])
def test_raw_queries_are_fts5_errors_which_is_why_we_sanitize(fts: apsw.Connection, raw: str) -> None:
    with pytest.raises(apsw.SQLError):
        _match(fts, raw)


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_raise_and_forms_are_valid_fts5(fts: apsw.Connection, query: str) -> None:
    parsed = parse_fts_query(query)
    for form in (parsed.all_form, parsed.any_form):
        if form is not None:
            form.encode("utf-8")  # no lone surrogate survives
            _match(fts, form)


_PIECES = st.sampled_from(
    [
        '"',
        "'",
        ":",
        "-",
        "*",
        "^",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "\\",
        "AND",
        "OR",
        "NOT",
        "NEAR",
        "NEAR(",
        "+",
        "/",
        ",",
        ".",
        "\x00",
        "\ud800",
        "😀",
        "drain",
        "vip",
        "Ω",
        "\u0301",
        " ",
        "\n",
    ]
)
_HOSTILE_TEXT = st.one_of(
    st.text(st.characters(codec=None, exclude_categories=())),
    st.lists(_PIECES, max_size=40).map("".join),
    st.lists(st.one_of(_PIECES, st.text(max_size=5)), max_size=30).map(" ".join),
)


@settings(max_examples=300, deadline=None)
@given(_HOSTILE_TEXT)
def test_fts5_accepts_every_form_of_any_query(fts: apsw.Connection, query: str) -> None:
    parsed = parse_fts_query(query)
    assert all(term and all(term) for term in parsed.terms)
    assert (parsed.all_form is None) == (parsed.any_form is None) == parsed.empty
    for form in (parsed.all_form, parsed.any_form):
        if form is not None:
            _match(fts, form)


def test_all_form_needs_every_term_and_any_form_one(fts: apsw.Connection) -> None:
    q = parse_fts_query("drain nonexistentword")
    assert _match(fts, q.all_form) == []
    assert _match(fts, q.any_form) == [1, 2]


def test_a_phrase_demands_its_word_order(fts: apsw.Connection) -> None:
    assert _match(fts, parse_fts_query('"drain the vip" rollback').all_form) == [1, 2]
    assert _match(fts, parse_fts_query('"vip the drain"').all_form) == []
    assert _match(fts, parse_fts_query('"the rollback"').all_form) == [1]


def test_sanitized_words_match_what_unicode61_indexed(fts: apsw.Connection) -> None:
    assert _match(fts, parse_fts_query("service:checkout-API").all_form) == [3]
    assert _match(fts, parse_fts_query("DÉPLOYÉ").all_form) == [4]


def test_highlight_words_skip_function_words() -> None:
    assert parse_fts_query("drain the VIP").highlight_words == ("drain", "vip")
    assert parse_fts_query("the of").highlight_words == ("the", "of")
