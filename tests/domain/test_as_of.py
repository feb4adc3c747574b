"""The as-of parser shared by `--as-of` and the window's as-of field."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml_desktop.domain.as_of import as_of_label, parse_as_of


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("2026-06-01", "2026-06-01T23:59:59.999Z"),  # a day is the end of that day
        (" 2026-06-01 ", "2026-06-01T23:59:59.999Z"),
        ("2026-06-01T08:30:00Z", "2026-06-01T08:30:00.000Z"),
        ("2026-06-01T08:30Z", "2026-06-01T08:30:00.000Z"),
        ("2026-06-01T08:30:00.250Z", "2026-06-01T08:30:00.250Z"),
        ("2026-06-01T10:30:00+02:00", "2026-06-01T08:30:00.000Z"),
        ("2026-06-01T08:30:00", "2026-06-01T08:30:00.000Z"),  # no offset: UTC, as the stamps are
        ("2026-06-01 08:30", "2026-06-01T08:30:00.000Z"),
    ],
)
def test_accepted_forms_become_the_stamps_text(text, instant) -> None:
    assert parse_as_of(text) == instant


@pytest.mark.parametrize(
    "text", ["garbage", "2026-13-01", "2026-02-30", "06/01/2026", "2026", "T08:30", "2026-06-01T25:00"]
)
def test_anything_else_is_refused_with_what_is_expected(text) -> None:
    with pytest.raises(ValueError, match="expected YYYY-MM-DD"):
        parse_as_of(text)


def test_empty_means_no_as_of() -> None:
    assert parse_as_of(None) is None and parse_as_of("") is None and parse_as_of("  ") is None


@given(st.text(max_size=40))
def test_never_raises_anything_but_value_error(text) -> None:
    try:
        out = parse_as_of(text)
    except ValueError:
        return
    assert out is None or (len(out) == 24 and out.endswith("Z"))


def test_labels() -> None:
    assert as_of_label("2026-06-01T23:59:59.999Z") == "2026-06-01"
    assert as_of_label(parse_as_of("9999-12-31")) == "9999-12-31"
    assert as_of_label("2026-06-01T08:30:00.000Z") == "2026-06-01 08:30:00 UTC"
    assert as_of_label(None) == ""
