"""The claim's words as the contradiction rule reads them (domain/contradiction.py `_words`,
`word_keys`): the conflicts scan's fast path (an ASCII token is only lowered; an ASCII claim is
lowered whole) gives exactly what `polarity.normalise` per token gives, on every kind of text."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml_desktop.domain import contradiction
from memhtml_desktop.domain.contradiction import _norms, _words, word_keys
from memhtml_desktop.domain.polarity import normalise
from memhtml_desktop.domain.stopwords import STOPWORD_SET


def reference_words(text: str) -> list[tuple[str, str, int]]:
    """`_words` as it was before the fast path: every token through `normalise`."""
    out = []
    for m in contradiction._TOKEN.finditer(text):
        for piece in normalise(m.group(0)).split():
            if piece.strip(".'"):
                out.append((m.group(0), piece.strip(".'"), m.start()))
    return out


def reference_keys(text: str) -> frozenset[str]:
    return frozenset(
        contradiction._stem(norm)
        for _, norm, _ in reference_words(text)
        if norm not in STOPWORD_SET and not any(ch.isdigit() for ch in norm)
    )


TRICKY = [
    "The service cannot merge intervals",
    "It CANNOT be Cannot-ed",
    "The API doesn't retry; it won't",
    "Don’t deploy on Fridays (the ʼn’t fold)",
    "The ﬁle system in İstanbul is ß-aware",
    "Café vs Cafe\u0301",
    "math.isqrt() and Europe/Paris since 3.8",
    "rock'n'roll isn't 'quoted'",
    "ǅemal’s Ⅻ ² １２ items",
    "'leading and trailing.'",
    "v1.2.3 of checkout-api at 99% and 30s",
    "",
    "   ",
    "___",
    "a_b c-d e/f",
]


def test_the_fast_path_reads_the_tricky_claims_as_normalise_does() -> None:
    for text in TRICKY:
        words = _words.__wrapped__(text)
        assert [(w.text, w.norm, w.start) for w in words] == reference_words(text), text
        assert _norms(text) == [w.norm for w in words], text
        assert word_keys.__wrapped__(text) == reference_keys(text), text


ALPHABET = st.sampled_from(
    list(string.ascii_letters + string.digits + " .-_/'()’ʼ,:;")
    + ["cannot", "CanNot", "n't", "isn't", "İ", "ß", "ﬁ", "é", "e\u0301", "Ⅻ", "²", "１"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(ALPHABET, max_size=40).map("".join))
def test_the_fast_path_reads_any_text_as_normalise_does(text: str) -> None:
    words = _words.__wrapped__(text)
    assert [(w.text, w.norm, w.start) for w in words] == reference_words(text)
    assert _norms(text) == [w.norm for w in words]
    assert word_keys.__wrapped__(text) == reference_keys(text)
