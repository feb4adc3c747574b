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

QUESTION_WORDS: frozenset[str] = frozenset(
    "whether else way ways possible need needs want wants anyone anybody someone somebody something "
    "anything thing things really still even much many more most other only own same too one ones get "
    "got go t s d m ve ll re don doesn isn aren didn won cannot".split()
)
"""Words a question is phrased with and an answer rarely repeats: "is there a way to", "how do I get",
the pieces a contraction leaves ("don't" sanitises to "don t"). Under a profile with `question_words`
the lexical arm leaves them out of its MATCH, as it leaves STOPWORDS out: they never decide a match.
Separate from STOPWORDS, which the hash embedder reads too (changing it would move every hash vector).
Negations stay in neither set."""
