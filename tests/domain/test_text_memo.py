"""The domain's per-text caches are held to text_memo.TEXTS: at 32,768 texts each they filled for hours
in a long session (about 1 KB a text) and the engine's memory rose with them (the soak)."""

from __future__ import annotations

import importlib
import pkgutil

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
