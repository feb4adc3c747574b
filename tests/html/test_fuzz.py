"""Property tests: no input bytes make `project` (or its siblings) raise.

A modest example count keeps the normal suite fast; `fuzz_parser.py --n 100000` runs the long
version of the same checks.
"""

from __future__ import annotations

import random

from fuzz_inputs import HOSTILE_TOKENS, golden_documents, mutate
from fuzz_parser import check_one
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhtml_desktop.html.project import project

GOLDEN = golden_documents()
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.binary(max_size=4000))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    check_one(data, render=True)


@FAST
@given(st.lists(st.sampled_from(HOSTILE_TOKENS), max_size=60).map(lambda ts: "".join(ts).encode()))
def test_hostile_markup_never_raises(data: bytes) -> None:
    check_one(data, render=True)


@FAST
@given(st.sampled_from(range(len(GOLDEN))), st.integers(min_value=0, max_value=2**32))
def test_mutated_memories_never_raise(index: int, seed: int) -> None:
    check_one(mutate(random.Random(seed), GOLDEN[index]), render=True)


def test_pathological_shapes() -> None:
    shapes = [
        b"",
        b"\xef\xbb\xbf",
        b"\x00" * 1000,
        b"<" * 30_000,
        b"<div>" * 30_000,  # over the start-tag limit: refused quickly, not parsed for minutes
        b"<span>" * 20_000,
        b"<article><p><mark>x" + b"<b>" * 5000,
        b"<p>" + b"word " * 200_000,
        b"<pre>" + b"\n" * 10_000,
        b"<dl>" + b"<dd><data value=1>1</data>" * 5_000,
    ]
    for data in shapes:
        check_one(data, render=True)
    refused = project("areas/a.html", b"<div>" * 30_000, "T")
    assert refused.violations[0].startswith("unreadable: 30000 start tags")


def test_non_bytes_input_is_a_violation_not_a_crash() -> None:
    result = project("areas/a.html", None, "T")  # type: ignore[arg-type]
    assert not result.ok and result.violations[0].startswith("unreadable:")
