"""How many texts a per-text cache of the domain keeps (`functools.lru_cache(maxsize=TEXTS)`).

The words of a claim, its negation, its contradiction keys and the like are computed from a memory's
text at each search that shows it, so they are cached by text. Each cache held up to 32,768 texts
(65,536 for stems): in a long session over 20,000 memories they filled for hours, about 1 KB a text
each, and the engine's memory rose with them (the soak: 30 MB over 1,500 random searches, seven such
caches). 4,096 texts a cache holds a session's working set — on 600 distinct random searches at
20,000 memories, p50 9.5 -> 10.0 ms and p95 13.1 -> 13.9 ms against 32,768 — and fills within the
first few hundred searches, so the engine levels off early and stays there.

It did not level off early enough: the 10,000-action soak at 13cef90 (20,000 memories, the real
window) counted the engine's Python objects rising 80,000 -> 117,000 from action 1,000 to 3,500
and flat after, its RSS +16 MB over them while SQLite's and glibc's heaps stayed flat: six caches
of 4,096 texts, each key a text of its own, filling for 3,500 actions, and the engine's growth
after action 1,000 ended at 10.7 % against the soak's 10 %. At 1,024 texts a cache (9d051f3) the
same soak held (+4.9 %), but a store of 1,024-4,096 memories searched again and again fell off
the LRU's cliff (a working set larger than the cache hits nothing): the test suite's CPU rose
665 -> 873 s, the quality gate over 1,500 memories 7.4 -> 16.1 s, the newer-first set of several
thousand facts 20.7 -> 30.8 s — the workbench's probe runs and a person's searches on a store of
that size pay it. So 4,096 again, and each entry made to cost less instead (`per_text`, `words`):

- a text arrives from SQLite as a string of its own at every search; each cache kept the copy it
  was first called with, so one claim was held up to six times. `per_text` interns the text before
  the lookup: the caches (and the rows being shown) share one copy, freed when the last lets go
  (an interned string is mortal in CPython 3.11: the table does not keep it alive);
- the words in a cached value were strings of their own per entry; `words` interns them, so a word
  is held once for the whole vocabulary;
- `contradiction._Word` has slots (56 bytes, not an instance dictionary of a few hundred).

Measured with tracemalloc (4,096 claims of a 20,000-memory store, each cache filled once, each
key a fresh string as SQLite gives it): the six caches full held 38.3 MB, now 19.3 MB; the four a
search fills (`_deciding`, `_content_words`, `_words`, `_content_of`) 33.0 -> 15.7 MB. Search
speed unchanged (p50/p95 18.0/26.1 -> 18.2/25.4 ms, interleaved). tests/domain/test_text_memo.py
holds the share of one copy and the cost per text.
"""

from __future__ import annotations

import functools
import sys
from typing import Callable, Iterable, TypeVar

TEXTS = 4096

T = TypeVar("T")

_intern = sys.intern


def words(found: Iterable[str]) -> Iterable[str]:
    """`found`, each word interned: what a cached value keeps of a text's words."""
    return map(_intern, found)


def per_text(compute: Callable[[str], T]) -> Callable[[str], T]:
    """`compute(text)` cached for the last `TEXTS` texts, each text interned first (one copy shared
    by every cache that holds it). The result keeps `functools.lru_cache`'s `cache_info`,
    `cache_clear` and `cache_parameters`."""
    cached = functools.lru_cache(maxsize=TEXTS)(compute)

    @functools.wraps(compute)
    def lookup(text: str) -> T:
        return cached(_intern(text) if type(text) is str else text)

    lookup.cache_info = cached.cache_info  # type: ignore[attr-defined]
    lookup.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    lookup.cache_parameters = cached.cache_parameters  # type: ignore[attr-defined]
    return lookup
