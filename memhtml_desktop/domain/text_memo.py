"""How many texts a per-text cache of the domain keeps (`functools.lru_cache(maxsize=TEXTS)`).

The words of a claim, its negation, its contradiction keys and the like are computed from a memory's
text at each search that shows it, so they are cached by text. Each cache held up to 32,768 texts
(65,536 for stems): in a long session over 20,000 memories they filled for hours, about 1 KB a text
each, and the engine's memory rose with them (the soak: 30 MB over 1,500 random searches, seven such
caches). 4,096 texts a cache holds a session's working set — on 600 distinct random searches at
20,000 memories, p50 9.5 -> 10.0 ms and p95 13.1 -> 13.9 ms against 32,768 — and fills within the
first few hundred searches, so the engine levels off early and stays there.
"""

TEXTS = 4096
