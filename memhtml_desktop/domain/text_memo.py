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
and flat after, with its RSS +16 MB over them while SQLite's and glibc's heaps stayed flat: six
caches of 4,096 texts, each key a text of its own, took 3,500 actions to fill, and the engine's
growth after action 1,000 (the issue's bound: under 10 %) ended at the edge of it. 1,024 texts a
cache fill within the first few hundred actions and hold a quarter of that; a typed query's
candidates (tens to a hundred and sixty texts a search) stay cached through its keystrokes.
"""

TEXTS = 1024
