"""Score-aware fusion: a convex combination of the lexical and vector arms' normalised scores.

RRF (`domain/rrf.py`) fuses ranks: an arm's first hit earns `weight / (1 + k)` whatever its score,
so a weak arm's guesses count as much as a strong arm's certainties. On real questions against
their answers (`bench/realtext_eval.py`) that made the fused list worse than its best arm with
both embedders: MiniLM's vector arm alone found more answers first than `default` did, and with the
hash embedder the vector arm's noise pulled the lexical arm down. Bruch et al. (2023, "An Analysis
of Fusion Functions for Hybrid Retrieval") found a tuned convex combination of normalised scores
better than RRF and as sample-efficient; measured here on three real-text sets' training split,
it was (docs/ranking.md, "fusion").

Under `fusion = "convex"` the lexical and vector arms each contribute

    weight × share × normalised score

with `share` the lexical arm's `lexical_share` (per embedder: how much its words are worth against
that embedder's cosines) and `1 − lexical_share` for the vector arm, and the score normalised over
the arm's own window for this query (`convex_norm`): `max` divides by the window's best (bm25 is
negated first, so higher is better; a cosine at or below 0 counts 0), `minmax` maps the window's
worst to 0 and its best to 1. A memory an arm did not list gets nothing from it. The query-blind
priors (recency, salience) keep their RRF contribution `weight / (rank + k)`: next to a top hit's
~0.5–1 they only order memories the arms scored alike, which is what they are for. A prior whose
window is one tie (every memory it lists equally recent, or equally salient: a store written in one
`apply`, nothing read yet) cannot order anything: its ranks would be the paths' alphabetical order,
so for this query it weighs 0 (`undivided`).

Every contribution is carried with the hit (its normalised score too), so the contributions still
add up to the fused score in the list, `--json`, the tooltip and *Why not?*. Pure functions, shared
by the search (`index/retrieval.py`), the explanation (`index/explain.py`) and the workbench's
re-ranking (`domain/refusion.py`), so the three agree path for path.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SCORED_ARMS = ("fts", "vector")
"""The arms whose raw score is fused under `convex`: both measure the query against the memory."""


@dataclass(slots=True)
class Part:
    """One arm's contribution to one memory: `norm` is the normalised score (None: a rank-based arm)."""

    arm: str
    rank: int
    contribution: float
    norm: float | None = None
    weight: float = 0.0  # a scored arm's weight × its share for this query (`contribution = weight × norm`)


def signal(arm: str, raw: float | None) -> float | None:
    """The arm's raw score oriented so that higher is better: −bm25 (bm25 is negative), the cosine."""
    if raw is None or not math.isfinite(raw):
        return None
    return -raw if arm == "fts" else raw


def normalise(values: Sequence[float | None], how: str) -> list[float]:
    """`values` (best first, within the arm's window) normalised per `how` (see the module docstring)."""
    known = [v for v in values if v is not None]
    if not known:
        return [0.0 for _ in values]
    best, low = max(known), min(known)
    out = []
    for v in values:
        if v is None:
            out.append(0.0)
        elif how == "minmax":
            out.append((v - low) / (best - low) if best > low else 1.0)
        else:
            out.append(max(v, 0.0) / best if best > 0 else 0.0)
    return out


def arm_share(arm: str, lexical_share: float) -> float:
    """The share of `arm` in the convex combination (1 for a rank-based arm, which keeps RRF's form)."""
    if arm == "fts":
        return lexical_share
    if arm == "vector":
        return 1.0 - lexical_share
    return 1.0


def confidence(signals: Sequence[float | None], window: int) -> float:
    """How far the arm's best stands above its typical candidate, in [0, 1]: (best − median) / best,
    the median over the `window` slots, a slot the arm left empty counting 0 (an arm that lists one
    memory is sure of it). 0 when the best is not above 0."""
    known = sorted((max(v, 0.0) for v in signals if v is not None), reverse=True)
    if not known or known[0] <= 0:
        return 0.0
    slots = known + [0.0] * max(0, window - len(known))
    return max(0.0, (known[0] - statistics.median(slots)) / known[0])


def prior_signal(arm: str, raw: object) -> object:
    """What a prior arm ranks by, comparable for equality: recency's time, salience's score (the sum
    of its three terms, as the arm's SQL adds them), from the SQL's raw value or the hit's `raw` dict."""
    if arm == "recency":
        return raw.get("time") if isinstance(raw, Mapping) else raw
    if arm == "salience":
        if isinstance(raw, str):
            raw = json.loads(raw)
        if isinstance(raw, Mapping):
            raw = (raw.get("decay"), raw.get("popularity"), raw.get("outcome"))
        if isinstance(raw, Sequence) and len(raw) >= 3 and all(isinstance(v, (int, float)) for v in raw[:3]):
            return raw[0] + raw[1] + raw[2]
    return None


def undivided(values: Sequence[object]) -> bool:
    """Whether a prior arm's window is one tie: two or more memories, every value known and equal.
    Its order is then the path order, which says nothing about the memories."""
    return len(values) > 1 and values[0] is not None and all(v == values[0] for v in values)


def query_share(lexical_share: float, lexical_confidence: float, exponent: float) -> float:
    """This query's lexical share: `s·c^p / (s·c^p + 1 − s)`, `s` the profile's `lexical_share`, `c`
    the lexical arm's `confidence` and `p` the profile's `lexical_confidence` (0: `s` whatever the
    query). A query whose best bm25 stands far above the rest (its rare words name a few memories)
    trusts its words more; one whose matches all score alike (common words only) trusts the vector."""
    if exponent <= 0 or lexical_share in (0.0, 1.0):
        return lexical_share
    lexical = lexical_share * lexical_confidence**exponent
    return lexical / (lexical + 1.0 - lexical_share)


def convex_parts(
    ranked: Mapping[str, Sequence[tuple[str, int, Any]]],
    weights: Mapping[str, float],
    *,
    lexical_share: float,
    how: str,
    k: int,
    window: int,
    lexical_confidence: float = 0.0,
) -> dict[str, list[Part]]:
    """Per path, each arm's `Part`. `ranked[arm]`: `(path, rank, raw)` best first (ranks past
    `window` earn nothing; raw as the arm's SQL gives it: bm25 for fts, the cosine for vector; for a
    prior, `prior_signal`'s value). `lexical_confidence` is the profile's exponent (`query_share`).
    A prior whose window is `undivided` weighs 0 for this query (its parts stay, at 0, so every hit
    still names the rank it had)."""
    parts: dict[str, list[Part]] = {}
    inside = {arm: [r for r in rows if 1 <= r[1] <= window] for arm, rows in ranked.items()}
    signals = {arm: [signal(arm, raw) for _, _, raw in inside[arm]] for arm in SCORED_ARMS if arm in inside}
    if lexical_confidence > 0 and signals.get("fts") and signals.get("vector") and weights.get("vector", 0.0) > 0:
        lexical_share = query_share(lexical_share, confidence(signals["fts"], window), lexical_confidence)
    for arm, rows in inside.items():
        weight = weights.get(arm, 0.0)
        if weight <= 0 or not rows:
            continue
        if arm in SCORED_ARMS:
            norms = normalise(signals[arm], how)
            factor = weight * arm_share(arm, lexical_share)
            for (path, rank, _), norm in zip(rows, norms):
                parts.setdefault(path, []).append(Part(arm, rank, factor * norm, norm, factor))
        else:
            if undivided([raw for _, _, raw in rows]):
                weight = 0.0
            for path, rank, _ in rows:
                parts.setdefault(path, []).append(Part(arm, rank, weight / (rank + k), None, weight))
    return parts


def order_of(parts: Mapping[str, Sequence[Part]]) -> list[tuple[float, str]]:
    """`(score, path)` best first, ties on path ascending (as the fused statement orders them)."""
    scored = ((math.fsum(p.contribution for p in v), path) for path, v in parts.items())
    return sorted(scored, key=lambda sp: (-sp[0], sp[1]))


def max_convex_score(weights: Mapping[str, float], lexical_share: float, k: int) -> float:
    """The highest fused score possible: both scored arms at their window's best, every prior first."""
    return math.fsum(
        max(w, 0.0) * (arm_share(a, lexical_share) if a in SCORED_ARMS else 1.0 / (1 + k)) for a, w in weights.items()
    )
