"""The lexical arm's query language: prose in, two FTS5 MATCH strings out.

A query is prose an agent or a person typed, not FTS5 syntax. Several ordinary things people write
are hard FTS5 errors when passed through raw: an apostrophe (`don't`), a colon (`service:api`, our
own entity notation), a leading hyphen, a bare `AND`/`OR`/`NOT`/`NEAR`, an unbalanced quote. So the
query is reduced to words, the maximal runs of Unicode letters and numbers (`\\p{L}\\p{N}`, so
`déployé` stays one word), lowercased first so boolean keywords become plain words. Everything else
is a separator and is dropped, never escaped: supporting FTS5 negation would let an agent invoke it
by accident every time it wrote a hyphenated word.

The one piece of syntax kept is the phrase: a balanced double-quoted span is one phrase whose words
must appear in that order. An odd number of `"` characters means the quoting cannot be trusted, so
every quote is ignored and the query is read as plain words.

Each term (a word or a phrase) is rendered as an FTS5 string literal, `"the vip"`. Sanitized words
hold no `"`, so the literal cannot be broken out of, and inside a literal `and` or `near` is just a
word. Two forms are built (retrieval.md, "the seeds win", item 1): every term joined by `AND`
(`all_form`) and every term joined by `OR` (`any_form`). The index layer probes whether any in-scope
file holds every term and binds `all_form` if so, else `any_form`.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, replace

import regex

from memhtml_desktop.domain.stopwords import STOPWORD_SET

_WORD = regex.compile(r"[\p{L}\p{N}]+")
_QUOTE = '"'


def sanitize(query: str, *, fold: bool = False) -> str:
    """Lowercase `query` and keep its `\\p{L}\\p{N}` runs, joined by single spaces; "" if none survive.

    Idempotent. Lowercasing happens before the scan, as memhtml does (parity with its lexical arm):
    `"İ".lower()` is `i` plus a combining dot, and the dot, not being a letter, becomes a separator.
    `fold`: NFKC first, as the parsed query's own words are (`parse_fts_query`).
    """
    return " ".join(_words(query, fold))


def fold_text(text: str) -> str:
    """NFKC: compatibility characters become the plain ones (fullwidth `ｄｒａｉｎ` → `drain`, the
    ligature `ﬁ` → `fi`, `²` → `2`) and decomposed accents are composed. unicode61 (both lexical
    indexes' tokenizer) strips accents itself, on the query and the text alike, but folds none of these."""
    return unicodedata.normalize("NFKC", text)


def _words(text: str, fold: bool = False) -> list[str]:
    return _WORD.findall((fold_text(text) if fold else text).lower())


def _literal(term: tuple[str, ...]) -> str:
    return '"' + " ".join(term) + '"'


def _either(own: str | None, raw: str | None) -> str | None:
    """The folded form, or the unfolded one: memhtml's matches stay matched (fullwidth text in a
    memory is found by a fullwidth query, as memhtml finds it), the folded ones are added."""
    if own is None or not raw or raw == own:
        return own
    return f"({own}) OR ({raw})"


@dataclass(frozen=True)
class FtsQuery:
    """The parsed query: an ordered, duplicate-free tuple of terms, each a phrase of >= 1 words.

    A single word is a 1-tuple. Every word is a non-empty `\\p{L}\\p{N}` run in lower case, which is
    what makes the rendered forms safe to bind to MATCH whatever the input was.
    """

    terms: tuple[tuple[str, ...], ...]
    raw: "FtsQuery | None" = None  # the query read without NFKC, as memhtml reads it, when that differs

    def first(self, n: int) -> "FtsQuery":
        """The first `n` terms (of the unfolded reading too)."""
        if len(self.terms) <= n:
            return self
        return replace(self, terms=self.terms[:n], raw=self.raw.first(n) if self.raw is not None else None)

    @property
    def empty(self) -> bool:
        """No term survived: the fts arm leaves the fold (an empty MATCH is an FTS5 error)."""
        return not self.terms

    @property
    def words(self) -> tuple[str, ...]:
        """Every word of every term, first occurrence order, no repeats (for highlighting)."""
        seen: dict[str, None] = {}
        for term in self.terms:
            for word in term:
                seen.setdefault(word, None)
        return tuple(seen)

    @property
    def highlight_words(self) -> tuple[str, ...]:
        """The words worth marking in a snippet or the reader: no function words ("the", "of")
        unless the query has nothing else."""
        content = tuple(w for w in self.words if w not in STOPWORD_SET)
        return content or self.words

    @property
    def text(self) -> str:
        """The sanitized words joined by spaces, as `sanitize` would give for a quote-free query."""
        return " ".join(word for term in self.terms for word in term)

    @property
    def all_form(self) -> str | None:
        """`"a" AND "b c"`: a file must hold every content term. None when there are no terms.

        Function words are not required (unless they are all there is): "does the compactor merge
        overlapping intervals" must not demand "does", which only a memory phrased as a negation
        ("does not merge") happens to contain.
        """
        return self.all_form_without(frozenset())

    def all_form_without(self, drop: frozenset[str]) -> str | None:
        """The all-terms form over `content_terms(drop)` (a profile's question words, say)."""
        own = " AND ".join(map(_literal, self.content_terms(drop))) if self.terms else None
        return _either(own, self.raw.all_form_without(drop) if self.raw is not None else None)

    def content_terms(self, common: frozenset[str] = frozenset()) -> tuple[tuple[str, ...], ...]:
        """The terms minus single words that carry no lexical evidence, unless nothing else is left.

        Dropped: function words ("the", "of") and any word in `common`, which the caller fills with
        the words held by at least half the indexed files. FTS5's bm25 gives such a word an IDF of
        log((N - n + 0.5) / (n + 0.5)) <= 0, clamped to 1e-6: it adds nothing to any file's score,
        yet under OR it would pull every file holding it into the match set (measured ~35 ms a
        query at 20,000 files for one such word). Phrases keep every word: in a quoted span the
        order of "the" is part of what was asked.
        """
        kept = tuple(t for t in self.terms if len(t) > 1 or (t[0] not in STOPWORD_SET and t[0] not in common))
        return kept or self.terms

    @property
    def every_word_form(self) -> str | None:
        """memhtml's lexical form: every word, function words and phrase words alike, ANDed.

        memhtml 0.4 has no phrases and no any-of form: it binds the sanitised words as FTS5's
        implicit AND, so a file must hold each one. Rendered as literals, so it is just as safe.
        """
        own = " AND ".join(_literal((w,)) for w in self.words) if self.terms else None
        return _either(own, self.raw.every_word_form if self.raw is not None else None)

    def any_form_without(self, common: frozenset[str]) -> str | None:
        """The any-of form over `content_terms(common)`."""
        own = " OR ".join(map(_literal, self.content_terms(common))) if self.terms else None
        return _either(own, self.raw.any_form_without(common) if self.raw is not None else None)

    @property
    def any_form(self) -> str | None:
        """`"a" OR "b c"`: a file holding any content term qualifies; bm25 ranks fuller matches first.

        Function words are left out of this form only: the all-terms form stays exact.
        """
        return self.any_form_without(frozenset())


def parse_fts_query(query: str) -> FtsQuery:
    """The query's terms, its words NFKC-folded first (`ｄｒａｉｎ ｔｈｅ ｖｉｐ` reads `drain the vip`),
    with the unfolded reading kept beside them when it differs (`raw`): each MATCH form binds
    either, so what memhtml's lexical arm matches stays matched (docs/ranking.md, "Folding")."""
    folded = _parse(query, fold=True)
    raw = _parse(query, fold=False)
    return folded if raw.terms == folded.terms or not raw.terms else replace(folded, raw=raw)


def _parse(query: str, *, fold: bool) -> FtsQuery:
    """Split `query` into terms: words outside quotes, one phrase per balanced quoted span.

    With an odd count of `"` every quote is ignored (not only the last one): which quote is the
    stray one is a guess, and a wrong guess would demand a phrase nobody wrote. A quoted span whose
    words all sanitize away contributes nothing. Repeated terms are kept once, so a pasted page of
    text does not multiply into an arbitrarily long MATCH expression.
    """
    if query.count(_QUOTE) % 2:
        query = query.replace(_QUOTE, " ")
    terms: dict[tuple[str, ...], None] = {}
    for position, segment in enumerate(query.split(_QUOTE)):
        words = _words(segment, fold)
        if position % 2:  # inside a balanced pair of quotes
            if words:
                terms.setdefault(tuple(words), None)
        else:
            for word in words:
                terms.setdefault((word,), None)
    return FtsQuery(tuple(terms))
