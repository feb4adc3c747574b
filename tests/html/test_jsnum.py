"""JS `Number()`, `trim()` and UTF-16 length, where Python's built-ins would store other values."""

from __future__ import annotations

import math

import pytest

from memhtml_desktop.html.jsnum import (
    collapse,
    from_utf16_units,
    js_number,
    js_slice_units,
    js_trim,
    to_utf16_units,
    utf16_len,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("", 0.0),  # blank is 0, so confidence="" stores 0, not the default
        ("   ", 0.0),
        (" 3 ", 3.0),
        ("0xA", 10.0),
        ("0XfF", 255.0),
        ("0o17", 15.0),
        ("0b101", 5.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("+1.5e3", 1500.0),
        ("1E-2", 0.01),
        ("-0", -0.0),
        ("\ufeff7\u3000", 7.0),  # JS whitespace includes BOM and ideographic space
        ("Infinity", math.inf),
        ("-Infinity", -math.inf),
        ("1e400", math.inf),
    ],
)
def test_number_accepts(text: str, value: float) -> None:
    assert js_number(text) == value


@pytest.mark.parametrize(
    "text",
    ["1_0", "12px", "high", "inf", "nan", "NaN", "infinity", "-0x1", "+0xA", "0x", "0xG", "1e",
     "e5", ".", "1.2.3", "\u0661", "0b2", "0o8", "\x1c1"],
)  # fmt: skip
def test_number_nan(text: str) -> None:
    assert math.isnan(js_number(text))


def test_huge_hex_is_infinity_not_overflow() -> None:
    assert js_number("0x" + "f" * 300) == math.inf


def test_trim_is_the_js_set_not_pythons() -> None:
    assert js_trim("\u00a0\ufeff x \u2028\u3000") == "x"
    # Python's strip() would remove these; JS trim() keeps them.
    assert js_trim("\x1cx\x85") == "\x1cx\x85"


def test_collapse_only_ascii_runs_then_js_trim() -> None:
    assert collapse("  a \t\n b\u00a0\u00a0c  ") == "a b\u00a0\u00a0c"
    assert collapse("\u00a0") == ""


def test_utf16_lengths() -> None:
    assert utf16_len("abc") == 3
    assert utf16_len("é") == 1
    assert utf16_len("😀") == 2
    assert utf16_len("a😀b") == 4


def test_utf16_unit_round_trip_and_lone_halves() -> None:
    units = to_utf16_units("a😀b")
    assert len(units) == 4
    assert from_utf16_units(units) == "a😀b"
    assert from_utf16_units(units[:2]) == "a\ufffd"
    assert js_slice_units("a😀b", 2) == "a\ufffd"
    assert js_slice_units("abc", 2) == "ab"
