"""The default embedder: deterministic signed feature hashing, no model file, no network.

Modelled on Remem's `remem-local-hash-v1`. A text becomes the sum of hashed features:

- each word (a lowercased `\\p{L}\\p{N}` run, after NFKC), weight 1.0;
- the character trigrams of each word padded with a boundary marker on both sides (`␣word␣`; one
  marker serves for start and end, since its position already tells them apart), together weighing
  0.5 per word: each of a word's n trigrams weighs `0.5 / sqrt(n)`, so a long word does not drown
  short ones. Trigrams let `deploy` find `deployed` and survive a typo;
- a concept feature for a word in one of the small hand-written `CONCEPT_GROUPS` (`laptop`,
  `notebook` and `thinkpad` all add `concept:laptop`), weight 1.0: the only cross-word
  generalisation this model has;
- each adjacent word pair within a text, weight 0.5, so word order counts a little.

A word's features are scaled by `1 + ln(tf)` (tf = its count in the text), and by
`STOPWORD_WEIGHT` for an English function word, which otherwise gives any two English sentences a
cosine of ~0.15 (measured: unrelated 15-word claims 0.149 mean / 0.296 max at full weight, 0.046 /
0.127 at 0.3). Negation words are deliberately not stopwords. A pair weighs its weaker word's share.

Each feature lands in one of `dim` buckets with a sign, both from a 64-bit hash built from fixed
constants (code points packed exactly, then splitmix64's mixer, in wrapping uint64 arithmetic):
never Python's salted `hash()`. Sums run in a fixed order and no SIMD transcendental touches an
array (the tf curve is a table built with `math.log`), so the same text gives the same vector on
every machine and in every process. Rows are L2-normalised; a text with no words is all zeros.

This is not a semantic model. It catches spelling and phrasing variation and the concept groups.
A one-word negation of a 15-word claim stays a near-twin (cosine 0.94-0.96: "never merges",
"merges no", "Do not drain"), which the polarity step's `TWIN_COSINE` relies on; "does not merge"
against "merges" changes three words and measures ~0.87-0.89, below it.

Speed: after a per-text normalisation (a bytes `translate` for ASCII) everything is vectorised over
the code points of a batch, so no Python runs per word or per character: ~65 us of CPU per
1,500-character text in a batch, ~135 us for a lone call (bench/embed_bench.py).
"""

from __future__ import annotations

import math
import unicodedata
from typing import Sequence

import numpy as np
import regex

from memhtml_desktop.domain.stopwords import STOPWORDS

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

STOPWORD_WEIGHT = 0.3
_NON_WORD = regex.compile(r"[^\p{L}\p{N}]+")
_SPACE = 32
_ASCII_FOLD = bytes(c + 32 if 65 <= c <= 90 else c if (97 <= c <= 122 or 48 <= c <= 57) else _SPACE for c in range(256))
# Code points per vectorised pass: small enough that the temporaries stay in cache. Measured CPU per
# 1,500-char text: 92 us at 2**12, 67 us at 2**14, 134 us at 2**18.
_FLUSH_AT = 1 << 14

_U = np.uint64
_M1, _M2 = _U(0xBF58476D1CE4E5B9), _U(0x94D049BB133111EB)
_GOLDEN = _U(0x9E3779B97F4A7C15)
_SHIFT_42, _SHIFT_21 = _U(1 << 42), _U(1 << 21)  # code points < 2**21, so packing is exact
_SALT_GRAM, _SALT_WORD = _U(0x5D1A9E0F3C7B2461), _U(0xA0761D6478BD642F)
_SALT_CONCEPT = _U(0x8EBC6AF09C88C6E3)

_tf_table = np.array([0.0] + [(1.0 + math.log(t)) / t for t in range(1, 257)])


def _tf_scale(tf: np.ndarray) -> np.ndarray:
    """`(1 + ln tf) / tf` per occurrence, from a table filled with `math.log` (grown on demand)."""
    global _tf_table
    table, top = _tf_table, int(tf.max(initial=0))
    if top >= table.size:  # a local copy, so a concurrent grower cannot shrink it under us
        table = _tf_table = np.array([0.0] + [(1.0 + math.log(t)) / t for t in range(1, 2 * top + 1)])
    return table[tf]


def _term_frequency(keys: np.ndarray) -> np.ndarray:
    """For each key, how many times it occurs in `keys` (a sort, not a hash table: exact)."""
    order = np.argsort(keys)
    ordered = keys[order]
    first = np.empty(keys.size, dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    group = np.cumsum(first) - 1
    tf = np.empty(keys.size, dtype=np.int64)
    tf[order] = np.bincount(group)[group]
    return tf


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, elementwise over uint64 (multiplication wraps mod 2**64)."""
    x = x ^ (x >> _U(30))
    x = x * _M1
    x = x ^ (x >> _U(27))
    x = x * _M2
    return x ^ (x >> _U(31))


def _code_points(text: str) -> np.ndarray:
    """The text as code points: words lowercased (after NFKC), every other character a space."""
    if text.isascii():
        folded_ascii = text.encode("ascii").translate(_ASCII_FOLD)
        return np.frombuffer(folded_ascii, dtype=np.uint8).astype(np.uint64)
    folded = _NON_WORD.sub(" ", unicodedata.normalize("NFKC", text).lower())
    return np.frombuffer(folded.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)


def words_of(text: str) -> list[str]:
    """The words the embedder sees: NFKC, lower case, `\\p{L}\\p{N}` runs."""
    return _NON_WORD.sub(" ", unicodedata.normalize("NFKC", text).lower()).split()


def _stream(parts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate texts with one space before, between and after; also return where each starts."""
    sep = np.array([_SPACE], dtype=np.uint64)
    pieces, starts, at = [sep], [], 1
    for cps in parts:
        starts.append(at)
        pieces.extend((cps, sep))
        at += cps.size + 1
    return np.concatenate(pieces), np.asarray(starts, dtype=np.int64)


class _Words:
    """Every word of a space-padded code-point stream: where it starts, its length, its hashes.

    `gram` holds one mixed hash per word character: the padded trigram centred on it. A word's
    identity hash is the mixed sum of its trigram hashes plus its length; two words collide only if
    their padded-trigram multisets coincide, and then this model could not tell them apart anyway.
    """

    def __init__(self, cps: np.ndarray) -> None:
        is_word = cps != _SPACE
        flips = np.flatnonzero(is_word[1:] != is_word[:-1]) + 1  # padding: starts and ends alternate
        self.starts = flips[0::2]
        self.lengths = flips[1::2] - self.starts
        packed = cps[:-2] * _SHIFT_42 + cps[1:-1] * _SHIFT_21 + cps[2:]
        self.gram = _mix(packed[is_word[1:-1]] ^ _SALT_GRAM)
        if self.starts.size:
            offsets = np.concatenate(([0], np.cumsum(self.lengths)[:-1]))
            summed = np.add.reduceat(self.gram, offsets)
        else:
            summed = np.zeros(0, dtype=np.uint64)
        self.hash = _mix(summed ^ self.lengths.astype(np.uint64) * _GOLDEN ^ _SALT_WORD)


def _word_hashes(words: Sequence[str]) -> np.ndarray:
    return _Words(_stream([_code_points(word) for word in words])[0]).hash


def _concept_table() -> tuple[np.ndarray, np.ndarray]:
    """Sorted word hashes of every concept word, and the concept feature hash each maps to."""
    names = [(word, name) for name, words in CONCEPT_GROUPS.items() for word in words]
    hashes = _word_hashes([word for word, _ in names])
    group = {name: i + 1 for i, name in enumerate(CONCEPT_GROUPS)}
    ids = np.array([group[name] for _, name in names], dtype=np.uint64)
    feature = _mix(ids * _GOLDEN ^ _SALT_CONCEPT)
    order = np.argsort(hashes, kind="stable")
    return hashes[order], feature[order]


_CONCEPT_WORDS, _CONCEPT_FEATURES = _concept_table()
_STOPWORDS = np.sort(_word_hashes(STOPWORDS))


def _is_in(sorted_hashes: np.ndarray, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of `hashes` found in `sorted_hashes`, and where in `sorted_hashes` each was."""
    at = np.minimum(np.searchsorted(sorted_hashes, hashes), sorted_hashes.size - 1)
    hit = np.flatnonzero(sorted_hashes[at] == hashes)
    return hit, at[hit]


class HashEmbedder:
    """Deterministic 384-dim feature-hashing embedder; satisfies `domain.embedder.Embedder`.

    Holds no mutable state, so one instance may serve several threads at once.
    """

    model_id = "memhtml-desktop-hash-v1"
    dim = 384
    pool_safe = True  # pure and stateless: a cold index embeds in its parse processes (domain.embedder.pool_safe)

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
                out[first : i + 1] = self._embed_stream(batch)
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
        base = row * (2 * dim)
        scale = _tf_scale(_term_frequency(words.hash ^ row.astype(np.uint64) * _GOLDEN))
        stop, _ = _is_in(_STOPWORDS, words.hash)
        importance = np.ones(words.hash.size)
        importance[stop] = STOPWORD_WEIGHT
        scale *= importance
        hit, at = _is_in(_CONCEPT_WORDS, words.hash)
        pair = np.flatnonzero(row[1:] == row[:-1])
        features = (
            (
                words.gram,
                np.repeat(base, words.lengths),
                np.repeat(TRIGRAM_WEIGHT * scale / np.sqrt(words.lengths), words.lengths),
            ),
            (words.hash, base, TOKEN_WEIGHT * scale),
            (_CONCEPT_FEATURES[at], base[hit], CONCEPT_WEIGHT * scale[hit]),
            (
                words.hash[pair] * _GOLDEN ^ words.hash[pair + 1],
                base[pair],
                PAIR_WEIGHT * np.minimum(importance[pair], importance[pair + 1]),
            ),
        )
        # One multiply-shift maps a hash's top 32 bits onto 2 * dim bins: bucket = bin // 2 and
        # sign = bin % 2, so positive and negative weight accumulate apart and subtract once.
        h = np.concatenate([f[0] for f in features])
        bins = (((h >> _U(32)) * _U(2 * dim)) >> _U(32)).astype(np.int64)
        bins += np.concatenate([f[1] for f in features])
        sums = np.bincount(bins, weights=np.concatenate([f[2] for f in features]), minlength=2 * n * dim)
        sums = sums.reshape(n, dim, 2)
        matrix = sums[:, :, 0] - sums[:, :, 1]
        norms = np.sqrt(np.cumsum(matrix * matrix, axis=1)[:, -1])  # sequential: same on every CPU
        norms[norms == 0] = 1.0
        return (matrix / norms[:, None]).astype(np.float32)
