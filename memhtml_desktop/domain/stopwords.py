"""English function words: carried by almost every memory, so evidence of nothing.

Two readers: the hash embedder down-weights them, and the lexical arm's any-of form leaves them out
(a file matching only "the" is not a lexical match worth ranking, and on a 20,000-file store an
OR over "the" made bm25 score every file: ~100 ms a query). Negations ("no", "not", "never") are
deliberately absent: the polarity step and the discrimination probes depend on them.
"""

from __future__ import annotations

STOPWORDS: tuple[str, ...] = tuple(
    "a an the of to in on at by for from with into onto over under about as and or but if then "
    "so than that this these those it its is are was were be been being am do does did has have "
    "had will would shall should can could may might must i you he she we they me him her us them "
    "my your his our their what which who whom when where why how all any each some such very just "
    "also there here up out off again".split()
)
STOPWORD_SET = frozenset(STOPWORDS)
