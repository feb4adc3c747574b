"""`instant_text` reads the two shapes memhtml writes by slicing (a cold index reads 80,000 stamps
at 20,000 memories); whatever the text, it must say exactly what the full reading says."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml_desktop.domain.instants import NotAnInstant, _plain_instant, canonical, instant_text, parse_instant


def full_reading(text: str) -> str | None:
    try:
        return canonical(parse_instant(text))
    except NotAnInstant:
        return None


two = st.text("0123456789", min_size=2, max_size=2)
years = st.one_of(
    st.text("0123456789", min_size=4, max_size=4), st.sampled_from(["0099", "0100", "2024", "2100", "1900", "9999"])
)
days = st.one_of(two, st.sampled_from(["28", "29", "30", "31", "00"]))
stamps = st.builds(
    lambda y, mo, d, time, tail: f"{y}-{mo}-{d}" + (f"T{time}{tail}" if time else ""),
    years, st.one_of(two, st.sampled_from(["01", "02", "12", "13", "00"])), days,
    st.one_of(st.none(), st.builds(lambda h, m, s: f"{h}:{m}:{s}", two, two, st.one_of(two, st.just("60")))),
    st.sampled_from(["Z", "Z", "", "z", "+01:00", "-0530", ".5Z", ".123Z", " "]),
)  # fmt: skip


@settings(max_examples=3000)
@given(stamps)
def test_a_stamp_of_either_shape_reads_as_the_full_reading_reads_it(text):
    assert instant_text(text) == full_reading(text)


@settings(max_examples=1000)
@given(st.text(max_size=24))
def test_any_text_reads_as_the_full_reading_reads_it(text):
    assert instant_text(text) == (full_reading(text) if text else None)


def test_the_quick_reading_takes_only_what_it_can_read_exactly():
    assert _plain_instant("2026-03-23T13:00:00Z") == "2026-03-23T13:00:00.000Z"
    assert _plain_instant("2024-02-29") == "2024-02-29T00:00:00.000Z"
    for text in (
        "2025-02-29",
        "2026-13-01",
        "0099-01-01",
        "2026-01-01T24:00:00Z",
        "2026-01-01T23:59:60Z",
        "2026-01-01T00:00:00+01:00",
        "2026-01-01 00:00:00Z",
        "\u0662\u0660\u0662\u0666-01-01",
    ):
        assert _plain_instant(text) is None, text
    assert instant_text("2026-01-01T23:59:60Z") == "2026-01-02T00:00:00.000Z"  # the full reading's leap second
