"""The domain's per-text caches are held to text_memo.TEXTS: at 32,768 texts each they filled for hours
in a long session (about 1 KB a text) and the engine's memory rose with them (the soak)."""

from __future__ import annotations

import gc
import importlib
import pkgutil
import random
import sys
import tracemalloc

import pytest

import memhtml_desktop.domain as domain
from memhtml_desktop.domain import text_memo

WORD_CACHES = {"memhtml_desktop.domain.contradiction._stem"}
"""Caches of single words, not texts: bounded by the vocabulary, small entries."""


def _caches():
    for info in pkgutil.iter_modules(domain.__path__):
        module = importlib.import_module(f"{domain.__name__}.{info.name}")
        for name, value in vars(module).items():
            if callable(value) and hasattr(value, "cache_parameters") and value.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", value


def test_every_text_cache_of_the_domain_keeps_at_most_texts():
    found = dict(_caches())
    assert "memhtml_desktop.domain.reorder._content_words" in found  # the walk sees the caches
    for name, cached in found.items():
        size = cached.cache_parameters()["maxsize"]
        if name not in WORD_CACHES:
            assert size is not None and size <= text_memo.TEXTS, (name, size)


def test_a_long_session_of_texts_stays_at_the_bound():
    from memhtml_desktop.domain import reorder

    reorder._content_words.cache_clear()
    for i in range(text_memo.TEXTS * 2):
        reorder._content_words(f"memory number {i} about the pangolin's habits")
    assert reorder._content_words.cache_info().currsize == text_memo.TEXTS


def _fresh(text: str) -> str:
    """An equal string of its own, as SQLite hands a row's text to each search."""
    return (text + "!")[:-1]


def test_a_text_is_held_once_however_many_caches_hold_it():
    from memhtml_desktop.domain import contradiction, polarity, twins

    claim = _fresh("The staging deploy of the pangolin service waits for 7 green checks since March")
    contradiction._content_of(claim)
    twins.deciding_words(_fresh(claim))
    polarity.is_negated(_fresh(claim))
    assert sys.intern(_fresh(claim)) is claim  # every cache keyed on the first copy: one in memory


def _claims(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    vocab = [f"{rng.choice('bdfgklmnprstvz')}{rng.choice('aeiou')}{rng.choice('nrstl')}{i}x" for i in range(600)]
    return [
        _fresh(f"The {' '.join(rng.choices(vocab, k=rng.randint(8, 16)))} deploy waits for {i} checks")
        for i in range(n)
    ]


@pytest.mark.parametrize("seed", [3, 41])
def test_the_caches_a_search_fills_cost_half_what_they_did_a_text(seed):
    """The four caches a search fills (twins, reorder's two texts, the contradiction rule's words and
    content) held about 12 KB for each of these claims before the texts and their words were interned,
    `_Word` got slots and `_deciding` two tuples (11,807-11,998 B); 5,510-5,714 B after. The soak's
    memory bound (issue 40) needs them near half."""
    from memhtml_desktop.domain import contradiction, reorder, twins

    claims = _claims(1500, seed)
    for cached in (twins._deciding, reorder._content_words, contradiction._words, contradiction._content_of):
        cached.cache_clear()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for claim in claims:
            twins.deciding_words(claim)
            reorder.known_items(claim, [])
            reorder._content_words(f"Title {claim}")
            contradiction._content_of(_fresh(claim))
        gc.collect()
        per_text = (tracemalloc.get_traced_memory()[0] - before) / len(claims)
    finally:
        tracemalloc.stop()
    assert 1_000 < per_text < 7_000, per_text
