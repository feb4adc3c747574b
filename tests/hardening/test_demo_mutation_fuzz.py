"""Item 1, what tests/html/test_fuzz.py does not cover: mutated REAL memories from the demo store.

tests/html/fuzz_parser.py (100,000 inputs) mutates the golden cases and random markup; this file
mutates the 63 memories of resources/demo-store with the same mutator plus memhtml-shaped edits
(`hardening_support.demo_mutation`), and also demands that every violation reads as a sentence
about the file, never as a contained internal error. `bench/reliability_bench.py --only parser`
runs 100,000 of these.
"""

from __future__ import annotations

import random

import pytest
from hardening_support import demo_memories
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memory_mutations import check_memory, demo_mutation, unreadable_violation

MEMORIES = demo_memories()
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_the_demo_store_is_the_corpus():
    assert len(MEMORIES) >= 60
    accepted = sum(check_memory(path, data, render=False)[0] for path, data in MEMORIES)
    assert accepted >= len(MEMORIES) - 1  # one file in the demo store is invalid on purpose


@FAST
@given(st.integers(min_value=0, max_value=2**32))
def test_mutated_demo_memories_never_raise(seed):
    rng = random.Random(seed)
    path, data = demo_mutation(rng, MEMORIES)
    check_memory(path, data, render=True)


@pytest.mark.slow
def test_a_seeded_run_of_2000_mutations():
    rng = random.Random(20260901)
    accepted = rejected = 0
    for index in range(2000):
        path, data = demo_mutation(rng, MEMORIES)
        ok, _ = check_memory(path, data, render=index % 10 == 0)
        accepted += ok
        rejected += not ok
    assert accepted > 50 and rejected > 1000  # both outcomes are exercised


def test_the_readability_check_can_fail():
    assert unreadable_violation("") == "empty"
    assert unreadable_violation("unreadable: KeyError: 'x'") is not None
    assert unreadable_violation("AttributeError: 'NoneType' object has no attribute 'x'") is not None
    assert unreadable_violation("no <mark>: the claim span is required") is None
