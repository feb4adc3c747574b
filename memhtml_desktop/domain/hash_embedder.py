"""The default embedder: deterministic signed feature hashing, no model file, no network.

Modelled on Remem's `remem-local-hash-v1`. A text becomes the sum of hashed features:

- each word (a lowercased `\\p{L}\\p{N}` run, after NFKC), weight 1.0;
- the character trigrams of each word padded with a boundary marker on both sides (`␣word␣`, the
  same marker for start and end, which position already tells apart), together weighing 0.5 per
  word: each of a word's n trigrams weighs `0.5 / sqrt(n)`, so long words do not drown short ones.
  Trigrams let `deploy` find `deployed` and survive a typo;
- a concept feature for a word in one of the small hand-written `CONCEPT_GROUPS` (`laptop`,
  `notebook` and `thinkpad` all add `concept:laptop`), weight 1.0: the only cross-word
  generalisation this model has;
- each adjacent word pair within a text, weight 0.5, so word order counts a little.

A word's features are scaled by `1 + ln(tf)` (tf = its count in the text), pairs count linearly.
Each feature lands in one of `dim` buckets with a sign, both taken from a 64-bit hash built from
fixed constants (a positional polynomial over code points, finished with splitmix64's mixer) in
wrapping uint64 arithmetic: never Python's salted `hash()`, so the same text gives the same vector
on every machine and in every process. Rows are L2-normalised; a text with no words is zero.

This is not a semantic model. It catches spelling and phrasing variation and the concept groups,
and it keeps a one-word negation of a 15-word claim a near-twin (cosine ~0.95), which is the
property the polarity step's `TWIN_COSINE` relies on.

Speed: everything after the per-text normalisation is vectorised over the code points of a whole
batch at once, so no Python code runs per word (~1,500-char memories embed at tens of thousands a
second; see bench/embed_bench.py). There is no cache to bound.
"""

from __future__ import annotations

import unicodedata
from typing import Sequence

import numpy as np
import regex

TOKEN_WEIGHT = 1.0
TRIGRAM_WEIGHT = 0.5
CONCEPT_WEIGHT = 1.0
PAIR_WEIGHT = 0.5

CONCEPT_GROUPS: dict[str, tuple[str, ...]] = {
    name: tuple(words.split())
    for name, words in {
        "authentication": "auth authn authz authentication authenticate authenticated "
        "authorization login logins logon signin sso oauth oauth2 oidc saml password passwords "
        "passkey credential credentials mfa 2fa jwt",
        "deploy": "deploy deploys deployed deploying deployment deployments release releases "
        "released rollout rollouts rollback rollbacks revert reverts reverted reverting canary",
        "database": "database databases db postgres postgresql psql pg sqlite mysql mariadb sql",
        "failure": "failure failures failing error errors outage outages incident incidents crash "
        "crashed crashes exception exceptions timeout timeouts broken",
        "decision": "decision decisions decide decided decides chose chosen choose adr verdict",
        "queue": "queue queues queued kafka rabbitmq sqs pubsub broker consumer consumers producer",
        "laptop": "laptop laptops notebook notebooks thinkpad macbook ultrabook",
        "cloud": "aws bedrock s3 ec2 iam cloudwatch gcp azure",
    }.items()
}

_NON_WORD = regex.compile(r"[^\p{L}\p{N}]+")
_SPACE = 32
_ASCII_FOLD = bytes(
    c + 32 if 65 <= c <= 90 else c if (97 <= c <= 122 or 48 <= c <= 57) else _SPACE for c in range(256)
)
_FLUSH_AT = 1 << 18  # code points per vectorised pass: bounds the temporaries to a few MB

_U = np.uint64
_M1, _M2 = _U(0xBF58476D1CE4E5B9), _U(0x94D049BB133111EB)
_GOLDEN = _U(0x9E3779B97F4A7C15)
_P = _U(0x100000001B3)
_SALT_GRAM, _SALT_POS, _SALT_WORD = _U(0x5D1A9E0F3C7B2461), _U(0x2545F4914F6CDD1D), _U(0xA0761D6478BD642F)
_SALT_PAIR, _SALT_CONCEPT = _U(0xE7037ED1A0B428DB), _U(0x8EBC6AF09C88C6E3)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, elementwise over uint64 (multiplication wraps mod 2**64)."""
    x = x ^ (x >> _U(30))
    x = x * _M1
    x = x ^ (x >> _U(27))
    x = x * _M2
    return x ^ (x >> _U(31))


def _code_points(text: str) -> np.ndarray:
    """The text as code points: words lowercased (after NFKC), every separator run one space."""
    if text.isascii():
        return np.frombuffer(text.encode("ascii").translate(_ASCII_FOLD), dtype=np.uint8).astype(np.uint32)
    folded = _NON_WORD.sub(" ", unicodedata.normalize("NFKC", text).lower())
    return np.frombuffer(folded.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def words_of(text: str) -> list[str]:
    """The words the embedder sees: NFKC, lower case, `\\p{L}\\p{N}` runs."""
    return _NON_WORD.sub(" ", unicodedata.normalize("NFKC", text).lower()).split()


class _Words:
    """The words of a stream of code points padded with separators, and their hashes."""

    def __init__(self, cps: np.ndarray) -> None:
        is_word = cps != _SPACE
        edges = np.diff(is_word.astype(np.int8))
        self.starts = np.flatnonzero(edges == 1) + 1
        self.lengths = np.flatnonzero(edges == -1) + 1 - self.starts
        self.chars = np.flatnonzero(is_word)  # the middle of each padded trigram
        wide = cps.astype(np.uint64)
        gram = (wide[self.chars - 1] * _P + wide[self.chars]) * _P + wide[self.chars + 1]
        self.gram_hash = _mix(gram ^ _SALT_GRAM)
        self.word_of_char = np.repeat(np.arange(self.starts.size), self.lengths)
        position = (self.chars - self.starts[self.word_of_char] + 1).astype(np.uint64)
        offsets = np.concatenate(([0], np.cumsum(self.lengths)[:-1]))
        summed = np.add.reduceat(_mix(gram ^ position * _SALT_POS), offsets) if self.chars.size else gram
        self.hash = _mix(summed ^ self.lengths.astype(np.uint64) * _GOLDEN ^ _SALT_WORD)


def _stream(parts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate texts with one separator before, between and after; return start offsets too."""
    sep = np.array([_SPACE], dtype=np.uint32)
    pieces = [sep]
    starts = []
    at = 1
    for cps in parts:
        starts.append(at)
        pieces.extend((cps, sep))
        at += cps.size + 1
    return np.concatenate(pieces), np.asarray(starts, dtype=np.int64)


def _concept_table() -> tuple[np.ndarray, np.ndarray]:
    """Sorted word hashes of every concept word, and the concept feature hash each maps to."""
    names = [(word, name) for name, words in CONCEPT_GROUPS.items() for word in words]
    stream, _ = _stream([_code_points(word) for word, _ in names])
    words = _Words(stream)
    concept_ids = np.array([list(CONCEPT_GROUPS).index(name) + 1 for _, name in names], dtype=np.uint64)
    feature = _mix(concept_ids * _GOLDEN ^ _SALT_CONCEPT)
    order = np.argsort(words.hash, kind="stable")
    return words.hash[order], feature[order]


_CONCEPT_WORDS, _CONCEPT_FEATURES = _concept_table()


class HashEmbedder:
    """Deterministic 384-dim feature-hashing embedder; satisfies `domain.embedder.Embedder`.

    Stateless after construction, so one instance may serve several threads.
    """

    model_id = "memhtml-desktop-hash-v1"
    dim = 384

    @property
    def space(self) -> str:
        return f"{self.model_id}@{self.dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A float32 array (len(texts), dim), each row unit length or all zeros."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        batch: list[np.ndarray] = []
        first, size = 0, 0
        for i, text in enumerate(texts):
            cps = _code_points(text)
            batch.append(cps)
            size += cps.size
            if size >= _FLUSH_AT:
                out[first:i + 1] = self._embed_stream(batch)
                batch, first, size = [], i + 1, 0
        if batch:
            out[first:] = self._embed_stream(batch)
        return out

    def _embed_stream(self, parts: list[np.ndarray]) -> np.ndarray:
        n, dim = len(parts), self.dim
        stream, text_starts = _stream(parts)
        words = _Words(stream)
        if not words.starts.size:
            return np.zeros((n, dim), dtype=np.float32)
        row = np.searchsorted(text_starts, words.starts, side="right") - 1
        # 1 + ln(tf) per distinct word of a text, spread over its occurrences.
        key = _mix(words.hash ^ row.astype(np.uint64) * _GOLDEN)
        _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        tf = counts[inverse.ravel()].astype(np.float64)
        scale = (1.0 + np.log(tf)) / tf

        hashes = [words.hash, words.gram_hash]
        weights = [TOKEN_WEIGHT * scale, TRIGRAM_WEIGHT * (scale / np.sqrt(words.lengths))[words.word_of_char]]
        rows = [row, row[words.word_of_char]]

        at = np.minimum(np.searchsorted(_CONCEPT_WORDS, words.hash), _CONCEPT_WORDS.size - 1)
        hit = np.flatnonzero(_CONCEPT_WORDS[at] == words.hash)
        hashes.append(_CONCEPT_FEATURES[at[hit]])
        weights.append(CONCEPT_WEIGHT * scale[hit])
        rows.append(row[hit])

        same_text = np.flatnonzero(row[1:] == row[:-1])
        hashes.append(_mix(words.hash[same_text] * _GOLDEN ^ words.hash[same_text + 1] ^ _SALT_PAIR))
        weights.append(np.full(same_text.size, PAIR_WEIGHT))
        rows.append(row[same_text])

        h = np.concatenate(hashes)
        signed = np.where(h >> _U(63), -1.0, 1.0) * np.concatenate(weights)
        flat_index = np.concatenate(rows) * dim + (h % _U(dim)).astype(np.int64)
        matrix = np.bincount(flat_index, weights=signed, minlength=n * dim).reshape(n, dim)
        norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
        norms[norms == 0] = 1.0
        return (matrix / norms[:, None]).astype(np.float32)
