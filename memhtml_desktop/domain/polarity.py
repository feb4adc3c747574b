"""The polarity step between fusion and MMR: a near-twin that says the opposite of the query sinks.

None of the four arms can see a "not". "X merges intervals" and "X does not merge intervals" share
every term the lexical arm matches, sit a hair apart in vector space and tie on recency and
salience, so fusion orders them by noise. This step reads the query's phrasing as the wanted
polarity and demotes a candidate only when all three hold:

  (a) its claim's polarity disagrees with the query's (the negation markers below);
  (b) another candidate in the pool agrees with the query; and
  (c) the two are near-twins: cosine >= `TWIN_COSINE` (no vector on either side: never a twin).

The demoted candidate moves to just below its lowest-ranked agreeing twin and its relevance is
scaled by `POLARITY_DEMOTION`; it stays in the pool. One placed below every agreeing twin already is
left alone, and a lone negated memory with no affirmative near-copy never moves, which is what keeps
this from being a blanket penalty on true negative facts. The rule is symmetric in the query: "why
does X not merge" demotes the affirmative twin. Outcome words in the marker set (`without`, `fail`,
`avoid`) make "deploy without downtime" read as negated; that trade-off is memhtml's and is kept.

The normalisation and the 22 markers are memhtml's merge-veto rules (retrieval.md section 7), the
same set its discrimination gate builds negation controls from.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import regex

from memhtml_desktop.domain import text_memo
from memhtml_desktop.domain.mmr import CosineTable, CosineView

TWIN_COSINE = 0.9
POLARITY_DEMOTION = 0.5

NEGATION_MARKERS = frozenset(
    {
        "not",
        "no",
        "never",
        "none",
        "cannot",
        "without",
        "neither",
        "nor",
        "avoid",
        "disallow",
        "disallowed",
        "forbidden",
        "unsafe",
        "invalid",
        "false",
        "fail",
        "fails",
        "failed",
        "deny",
        "denied",
        "reject",
        "rejected",
    }
)
VARIANT_QUALIFIERS = frozenset(
    {
        "pro",
        "max",
        "beta",
        "alpha",
        "rc",
        "preview",
        "legacy",
        "deprecated",
        "experimental",
    }
)

# Applied in this order; `won't` and `can't` change their stem, so they precede the catch-all n't.
_CONTRACTIONS = (
    ("isn't", "is not"),
    ("aren't", "are not"),
    ("wasn't", "was not"),
    ("weren't", "were not"),
    ("don't", "do not"),
    ("doesn't", "does not"),
    ("didn't", "did not"),
    ("won't", "will not"),
    ("can't", "can not"),
    ("cannot", "can not"),
    ("couldn't", "could not"),
    ("shouldn't", "should not"),
    ("wouldn't", "would not"),
    ("mustn't", "must not"),
    ("haven't", "have not"),
    ("hasn't", "has not"),
    ("hadn't", "had not"),
    ("n't", " not"),
)
# Typographic apostrophes fold to ASCII first, so "don’t" negates like "don't" (not in memhtml).
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})
_TOKEN = regex.compile(r"[a-z0-9]+(?:\.[0-9]+)*")


def normalise(text: str) -> str:
    """NFC, lower case, typographic apostrophes folded, contractions expanded."""
    text = unicodedata.normalize("NFC", text).lower().translate(_APOSTROPHES)
    for contraction, expansion in _CONTRACTIONS:
        text = text.replace(contraction, expansion)
    return text


def tokens(text: str) -> list[str]:
    """ASCII word tokens of the normalised text; `5.10` and `v1.2.3`'s `1.2.3` stay whole."""
    return _TOKEN.findall(normalise(text))


@text_memo.per_text
def is_negated(text: str) -> bool:
    """At least one negation marker among the tokens (cached: claims recur search after search)."""
    return any(token in NEGATION_MARKERS for token in tokens(text))


def negation_divergent(a: str, b: str) -> bool:
    """Exactly one side is negated."""
    return is_negated(a) != is_negated(b)


def numeric_token_divergent(a: str, b: str) -> bool:
    """The sets of tokens holding a digit differ ("5 intervals" vs "6 intervals")."""
    return _numeric(a) != _numeric(b)


def variant_qualifier_divergent(a: str, b: str) -> bool:
    """The sets of variant qualifiers present differ ("Claude Pro" vs "Claude Max")."""
    return _qualifiers(a) != _qualifiers(b)


def diverges(a: str, b: str) -> bool:
    """memhtml's merge veto: the two claims differ in negation, numbers or variant."""
    return negation_divergent(a, b) or numeric_token_divergent(a, b) or variant_qualifier_divergent(a, b)


def _numeric(text: str) -> frozenset[str]:
    return frozenset(t for t in tokens(text) if any(ch.isdigit() for ch in t))


def _qualifiers(text: str) -> frozenset[str]:
    return frozenset(t for t in tokens(text) if t in VARIANT_QUALIFIERS)


@dataclass(frozen=True)
class PolarityCandidate:
    """A pool item in fused order: its claim (the gist), fused relevance and vector (or None)."""

    key: str
    claim: str
    relevance: float
    vector: np.ndarray | None


@dataclass(frozen=True)
class PolarityOutcome:
    """What the step did, all indexes into the candidates as given.

    `order` is the new order. `relevance[i]` is candidate i's relevance after the step. `demoted`
    maps each demoted index to the agreeing twin it now sits directly (or, when several were
    demoted below the same twin, indirectly) below.
    """

    order: list[int]
    relevance: list[float]
    demoted: dict[int, int] = field(default_factory=dict)


def polarity_reorder(
    query: str,
    candidates: Sequence[PolarityCandidate],
    *,
    cosine: float = TWIN_COSINE,
    demotion: float = POLARITY_DEMOTION,
    table: CosineTable | CosineView | None = None,
) -> PolarityOutcome:
    """Demote near-twins whose polarity disagrees with the query's; see the module docstring.

    `cosine` and `demotion` are the profile's (the seeds' `TWIN_COSINE` and `POLARITY_DEMOTION`
    by default). The demoted relevance is `relevance * demotion`, and never more than the twin it was
    placed under: MMR reads relevance, not position, and would otherwise hand the top spot straight
    back to a demoted twin that fusion had scored more than twice as high.
    """
    n = len(candidates)
    relevance = [float(c.relevance) for c in candidates]
    wanted = is_negated(query)
    agrees = [is_negated(c.claim) == wanted for c in candidates]
    sim = table if table is not None else CosineTable([c.vector for c in candidates])
    agreeing = [j for j in range(n) if agrees[j] and sim.has_vector(j)]
    below: dict[int, list[int]] = {}
    demoted: dict[int, int] = {}
    for i in range(n):
        if agrees[i] or not sim.has_vector(i):
            continue
        twins = [j for j in agreeing if sim(i, j) >= cosine]
        if not twins:
            continue
        lowest = max(twins)
        if i > lowest:
            continue  # fusion already placed it below every agreeing copy
        demoted[i] = lowest
        below.setdefault(lowest, []).append(i)
        relevance[i] = min(relevance[i] * demotion, relevance[lowest])
    order: list[int] = []
    for j in range(n):
        if j in demoted:
            continue
        order.append(j)
        order.extend(below.get(j, ()))
    return PolarityOutcome(order=order, relevance=relevance, demoted=demoted)
