"""Ranking profiles: every knob of the ranking pipeline in one frozen value.

Retrieval takes a `RankingProfile` and reads nothing else: the arm weights, RRF's `k`, each arm's
candidate window, the pool factor, which lexical forms may be bound, the polarity step, twin
resolution, MMR, the newer-first step, the recall fold and the relevance floor. Two named profiles ship:

- `memhtml`: what memhtml 0.4 does at `e5cc592` (`../shared/spec/retrieval.md`), including where it
  falls short of its own design documents: the all-terms lexical form only (every sanitised word
  required, quotes ignored), no polarity step, no twin resolution, no newer-first step (its hits
  still carry the marks of the memories that contradict each other), MMR over the whole pool with
  the rank proxy, and recall folding the fused order (no diversification, two tiers). It answers
  "what does an agent on memhtml receive, given the same embedder?".
- `default`: the seeds' design plus the measured improvements (docs/ranking.md gives each
  difference and the figure that justified it).

A profile is data, so a what-if configuration is a JSON file (`to_json` / `from_json`), and a
profile differing in one knob is `replace(profile, mmr_lambda=0.7)`. Thresholds that depend on the
embedder's geometry (twin cosine, the relevance floor) are `PerEmbedder` values keyed by the
embedder's model id, with a fallback for an embedder nobody calibrated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any, Mapping

from memhtml_desktop.domain.disclosure import ARC_BODY_BUDGET, MAX_PER_ENTITY, MEMORY_BODY_BUDGET
from memhtml_desktop.domain.mmr import MMR_LAMBDA
from memhtml_desktop.domain.polarity import POLARITY_DEMOTION, TWIN_COSINE
from memhtml_desktop.domain.rrf import DEFAULT_ARM_LIMIT, RANK_ARMS, RRF_K, Arm

HASH_MODEL = "memhtml-desktop-hash-v1"
MINILM_MODEL = "all-MiniLM-L6-v2"
"""MiniLM's fp32 graph (`MiniLMEmbedder(precision="fp32")`; every MiniLM index before issue 13)."""
MINILM_INT8_MODEL = "all-MiniLM-L6-v2-int8-v1"
"""MiniLM's int8 graph, what `--embedder minilm` runs: its own vector space, so its own thresholds
(cosines move by up to a few hundredths against fp32; `embedders.minilm.INT8_VERSION` is in the name,
and a test fails until a new version is calibrated here)."""

FTS_FORMS = ("all", "all_any", "any")
"""`all`: memhtml's lexical arm, every sanitised word ANDed, quotes read as separators.
`all_any`: the seeds' two forms, all content terms if any in-scope file holds them all, else any.
`any`: the any-of form always, bm25 ranking the fuller matches first: a memory that misses one of
the query's words is still ranked (a question's words are rarely all in its answer); which
candidates hold every word is looked up for the gated priors."""

MMR_REDUNDANCY = ("cosine", "near_duplicate")
"""How MMR measures redundancy. `cosine`: the raw cosine to the closest pick (memhtml).
`near_duplicate`: only similarity above the embedder's twin threshold counts, and arcs neither
give nor take a penalty (an arc synthesises its evidence; resembling it is not repeating it)."""

RECALL_POOLS = ("fused", "reordered")
"""`fused`: recall folds the fused order as is (memhtml). `reordered`: the whole pool after
polarity, twin resolution and MMR (the seeds: "recall diversifies too")."""

RECALL_TIERS = ("quote_index", "quote_disclosure_index")

LEXICAL_INDEXES = ("memhtml", "stemmed")
"""Which FTS5 index the lexical arm ranks with. `memhtml`: files_fts, memhtml's one column (title,
claim and body joined) under unicode61, bm25 with its default weight. `stemmed`: files_fts_stemmed
(migration 0009), the porter stemmer over three columns, bm25 weighted per column (`field_weights`)."""

FUSIONS = ("rrf", "convex")
"""How the arms' lists become one. `rrf`: `Σ weight / (rank + rrf_k)` (memhtml). `convex`: the lexical
and vector arms' normalised scores, `lexical_share` against `1 − lexical_share`, the priors as in RRF
(a prior whose window is one tie weighs 0: `domain/fusion.py`)."""

CONVEX_NORMS = ("max", "minmax")
"""How `convex` normalises an arm's scores over its window: by the best, or worst→0 best→1."""

LEXICAL_CONFIDENCE_MAX = 4.0
"""The largest `lexical_confidence` exponent: past it the share is all or nothing for almost every query."""

FIELDS = ("title", "claim", "body")
"""The stemmed index's columns, in order: `field_weights` gives one bm25 weight each."""


@dataclass(frozen=True)
class PerEmbedder:
    """A threshold per embedder model id, with `default` for an embedder not listed."""

    values: tuple[tuple[str, float], ...] = ()
    default: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(sorted((str(k), float(v)) for k, v in self.values)))
        object.__setattr__(self, "default", float(self.default))

    def get(self, model_id: str | None) -> float:
        for name, value in self.values:
            if name == model_id:
                return value
        return self.default

    def to_json(self) -> dict[str, float]:
        return {**dict(self.values), "*": self.default}

    @classmethod
    def from_json(cls, data: Any, *, what: str, base: "PerEmbedder | None" = None) -> "PerEmbedder":
        """A number (one value for every embedder) or `{model id: number, "*": fallback}`. An object
        with `"*"` is the whole table (what `to_json` writes); one without changes only the models
        it names, keeping `base`'s other values and fallback."""
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            return cls((), _number(data, what))
        if not isinstance(data, Mapping):
            raise ValueError(f"{what}: expected a number or an object of model id -> number")
        values = dict(base.values) if base is not None and "*" not in data else {}
        values.update({str(k): _number(v, f"{what}.{k}") for k, v in data.items() if k != "*"})
        default = _number(data["*"], f"{what}.*") if "*" in data else (base.default if base else 0.0)
        return cls(tuple(values.items()), default)


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{what}: expected a finite number, got {value!r}")
    return float(value)


FLOOR_COSINE = PerEmbedder(((HASH_MODEL, 0.45), (MINILM_MODEL, 0.55), (MINILM_INT8_MODEL, 0.60)), 0.55)
"""The relevance floor's raw-cosine threshold per embedder, calibrated as seed 003 does: the lowest
value on a 0.05 grid that admits no same-topic distractor of the paraphrase set
(`bench/floor_scan.py`, docs/benchmarks-log.md): hash 0.45, MiniLM fp32 0.55; MiniLM int8 0.60 (its
highest distractor cosine is 0.562, fp32's 0.52). A diagnostic: it marks hits, never moves them, so
both profiles share it."""

TWIN_COSINE_BY_EMBEDDER = PerEmbedder(((HASH_MODEL, 0.94), (MINILM_MODEL, 0.95), (MINILM_INT8_MODEL, 0.94)), 0.95)
"""Near-twin threshold per embedder, measured over generated stores (docs/ranking.md,
`bench/twin_scan.py`): hash, every probe's twin pair >= 0.953 while the nearest non-twin of any
memory <= 0.927; MiniLM fp32, twin pairs >= 0.9595 against non-twins up to 0.960 (those few are
claims that differ by one word too); MiniLM int8, twin pairs >= 0.9502 (quantisation pulls
near-duplicates apart a little) and 0.94 admits the same 2 non-twins as 0.95 with 0.01 of margin."""

MMR_POOL_FACTOR = 3
"""Search fuses `limit x 3` candidates, because a diversifier can only reorder what it was given."""


@dataclass(frozen=True)
class RankingProfile:
    """Every knob of search and recall. Frozen: pass it in, never read a global."""

    name: str
    summary: str = ""
    arms: tuple[Arm, ...] = RANK_ARMS
    rrf_k: int = RRF_K
    arm_window: int = DEFAULT_ARM_LIMIT
    pool_factor: int = MMR_POOL_FACTOR
    fts_forms: str = "all_any"
    lexical: str = "memhtml"
    field_weights: tuple[float, float, float] = (1.0, 1.0, 1.0)
    question_words: bool = False
    fusion: str = "rrf"
    lexical_share: PerEmbedder = PerEmbedder((), 0.5)
    lexical_confidence: PerEmbedder = PerEmbedder((), 0.0)  # described in domain/knobs.py
    convex_norm: str = "max"
    gate_priors: bool = False
    polarity: bool = True
    polarity_cosine: PerEmbedder = PerEmbedder((), TWIN_COSINE)
    polarity_demotion: float = POLARITY_DEMOTION
    twins: bool = True
    twin_cosine: PerEmbedder = TWIN_COSINE_BY_EMBEDDER
    twin_overlap: float = 0.5
    mmr_lambda: float = MMR_LAMBDA
    mmr_redundancy: str = "cosine"
    mmr_keeps_known_items: bool = False
    newer_first: bool = True
    recall_pool: str = "reordered"
    recall_tiers: str = "quote_disclosure_index"
    recall_budget: int = MEMORY_BODY_BUDGET
    arc_budget: int = ARC_BODY_BUDGET
    max_per_entity: int = MAX_PER_ENTITY
    floor_cosine: PerEmbedder = FLOOR_COSINE

    def __post_init__(self) -> None:
        if self.fts_forms not in FTS_FORMS:
            raise ValueError(f"fts_forms must be one of {FTS_FORMS}, got {self.fts_forms!r}")
        if self.lexical not in LEXICAL_INDEXES:
            raise ValueError(f"lexical must be one of {LEXICAL_INDEXES}, got {self.lexical!r}")
        object.__setattr__(self, "field_weights", _field_weights(self.field_weights))
        if self.fusion not in FUSIONS:
            raise ValueError(f"fusion must be one of {FUSIONS}, got {self.fusion!r}")
        if self.convex_norm not in CONVEX_NORMS:
            raise ValueError(f"convex_norm must be one of {CONVEX_NORMS}, got {self.convex_norm!r}")
        for _, share in (*self.lexical_share.values, ("*", self.lexical_share.default)):
            if not 0.0 <= share <= 1.0:
                raise ValueError(f"lexical_share must lie in [0, 1], got {share!r}")
        for _, exponent in (*self.lexical_confidence.values, ("*", self.lexical_confidence.default)):
            if not 0.0 <= exponent <= LEXICAL_CONFIDENCE_MAX:
                raise ValueError(f"lexical_confidence must lie in [0, {LEXICAL_CONFIDENCE_MAX:g}], got {exponent!r}")
        if self.mmr_redundancy not in MMR_REDUNDANCY:
            raise ValueError(f"mmr_redundancy must be one of {MMR_REDUNDANCY}, got {self.mmr_redundancy!r}")
        if self.recall_pool not in RECALL_POOLS:
            raise ValueError(f"recall_pool must be one of {RECALL_POOLS}, got {self.recall_pool!r}")
        if self.recall_tiers not in RECALL_TIERS:
            raise ValueError(f"recall_tiers must be one of {RECALL_TIERS}, got {self.recall_tiers!r}")
        for name in ("rrf_k", "arm_window", "pool_factor", "max_per_entity"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
        for name in ("recall_budget", "arc_budget"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
        if not 0.0 <= self.mmr_lambda <= 1.0:
            raise ValueError(f"mmr_lambda must lie in [0, 1], got {self.mmr_lambda!r}")
        if not 0.0 < self.polarity_demotion <= 1.0:
            raise ValueError(f"polarity_demotion must lie in (0, 1], got {self.polarity_demotion!r}")
        names = [arm.name for arm in self.arms]
        if len(set(names)) != len(names):
            raise ValueError(f"arm names repeat: {names}")

    # -- reading -------------------------------------------------------------------------------

    def weight(self, arm: str) -> float:
        for a in self.arms:
            if a.name == arm:
                return a.weight
        return 0.0

    def contribution_rule(self, arm: str) -> str:
        """How `arm`'s contribution to a fused score is made, in words (tooltips, legends)."""
        if self.fusion == "convex" and arm in ("fts", "vector"):
            norm = (
                "its score over the best in this query's window"
                if self.convex_norm == "max"
                else "its score min-max normalised over this query's window"
            )
            lexical = "the lexical share"
            if any(p > 0 for p in (*dict(self.lexical_confidence.values).values(), self.lexical_confidence.default)):
                lexical = "this query's lexical share (it follows how far the best bm25 stands above the rest)"
            share = lexical if arm == "fts" else f"(1 \u2212 {lexical})"
            return f"weight \u00d7 {share} \u00d7 {norm}"
        return f"weight/(rank+{self.rrf_k})"

    @property
    def arm_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.arms)

    @property
    def max_score(self) -> float:
        """The highest fused score possible: every arm ranks the hit first (under `convex`, whatever the
        embedder's `lexical_share`: the scored arms' shares add up to one, so at most the heavier's weight)."""
        if self.fusion == "convex":
            scored = max((max(a.weight, 0.0) for a in self.arms if a.name in ("fts", "vector")), default=0.0)
            return scored + sum(max(a.weight, 0.0) for a in self.arms if a.name not in ("fts", "vector")) / (
                1 + self.rrf_k
            )
        return sum(max(a.weight, 0.0) for a in self.arms) / (1 + self.rrf_k)

    @property
    def lexical_key(self) -> tuple[Any, ...]:
        """What decides which memories the lexical arm lists, and in which order: two profiles with the
        same key read the same lexical candidates (the workbench prepares a probe set once per key)."""
        return (
            self.fts_forms,
            self.lexical,
            self.field_weights if self.lexical == "stemmed" else (),
            self.question_words and self.fts_forms != "all",
        )

    @property
    def recall_disclosure_tier(self) -> bool:
        return self.recall_tiers == "quote_disclosure_index"

    @property
    def steps(self) -> tuple[str, ...]:
        """The post-fusion steps this profile runs, in order (`Move.step` names)."""
        return tuple(
            name
            for name, on in (
                ("polarity", self.polarity),
                ("twins", self.twins),
                ("mmr", self.mmr_lambda < 1.0),
                ("newer", self.newer_first),
            )
            if on
        )

    def pool_size(self, limit: int) -> int:
        return max(0, limit) * self.pool_factor

    # -- data files ------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "arms":
                value = {a.name: a.weight for a in value}
            elif f.name == "field_weights":
                value = dict(zip(FIELDS, value))
            elif isinstance(value, PerEmbedder):
                value = value.to_json()
            out[f.name] = value
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, base: "RankingProfile | None" = None) -> "RankingProfile":
        """A profile from a JSON object; knobs it leaves out come from `base` (default: `default`).

        Unknown keys are refused, so a typo in a what-if file is an error rather than a silent
        no-op. Arms are `{name: weight}` over the registry's arms (an arm left out keeps its weight).
        """
        if not isinstance(data, Mapping):
            raise ValueError("a ranking profile is a JSON object")
        base = base or DEFAULT
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown ranking knob(s): {', '.join(unknown)}")
        changes: dict[str, Any] = {}
        for key, value in data.items():
            if key == "arms":
                changes["arms"] = _arms_from(value, base.arms)
            elif key in ("twin_cosine", "floor_cosine", "polarity_cosine", "lexical_share", "lexical_confidence"):
                changes[key] = PerEmbedder.from_json(value, what=key, base=getattr(base, key))
            elif key == "field_weights":
                changes[key] = _field_weights(value, base.field_weights)
            elif key in ("polarity", "twins", "mmr_keeps_known_items", "gate_priors", "question_words", "newer_first"):
                if not isinstance(value, bool):
                    raise ValueError(f"{key}: expected true or false")
                changes[key] = value
            elif key in ("mmr_lambda", "polarity_demotion", "twin_overlap"):
                changes[key] = _number(value, key)
            elif key in ("rrf_k", "arm_window", "pool_factor", "recall_budget", "arc_budget", "max_per_entity"):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ValueError(f"{key}: expected a whole number")
                changes[key] = value
            else:
                changes[key] = str(value)
        return replace(base, **changes)


def _field_weights(value: Any, base: tuple[float, ...] = (1.0, 1.0, 1.0)) -> tuple[float, float, float]:
    """bm25's column weights: three numbers (title, claim, body) or `{field: weight}` over `base`;
    each finite and >= 0, not all 0 (bm25 would score every match 0)."""
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - set(FIELDS))
        if unknown:
            raise ValueError(f"field_weights: unknown field(s) {', '.join(unknown)} (known: {', '.join(FIELDS)})")
        value = tuple(value.get(name, base[i]) for i, name in enumerate(FIELDS))
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != len(FIELDS):
        raise ValueError("field_weights: expected three numbers (title, claim, body) or an object of field -> weight")
    weights = tuple(_number(v, f"field_weights.{name}") for name, v in zip(FIELDS, value))
    if any(w < 0 for w in weights) or not any(w > 0 for w in weights):
        raise ValueError(f"field_weights: each weight must be >= 0 and one > 0, got {list(weights)}")
    return weights  # type: ignore[return-value]


def _arms_from(value: Any, base: tuple[Arm, ...]) -> tuple[Arm, ...]:
    if not isinstance(value, Mapping):
        raise ValueError("arms: expected an object of arm name -> weight")
    names = {a.name for a in base}
    unknown = sorted(set(value) - names)
    if unknown:
        raise ValueError(f"arms: unknown arm(s) {', '.join(unknown)} (known: {', '.join(sorted(names))})")
    return tuple(replace(a, weight=_number(value[a.name], f"arms.{a.name}")) if a.name in value else a for a in base)


MEMHTML = RankingProfile(
    name="memhtml",
    summary="memhtml 0.4 as its code behaves: all-terms FTS only, no polarity or twin step, "
    "recall folds the fused order",
    fts_forms="all",
    polarity=False,
    twins=False,
    mmr_redundancy="cosine",
    newer_first=False,
    recall_pool="fused",
    recall_tiers="quote_index",
    twin_cosine=TWIN_COSINE_BY_EMBEDDER,
    floor_cosine=FLOOR_COSINE,
)

LEXICAL_SHARE = PerEmbedder(((HASH_MODEL, 0.95), (MINILM_MODEL, 0.2), (MINILM_INT8_MODEL, 0.2)), 0.5)
"""The lexical arm's share against the vector arm under the convex fusion, per embedder, before this
query's `lexical_confidence` moves it; chosen with it on the real-text sets' training split
(docs/ranking.md, "fusion"): the hash embedder's cosines are a bag of words, worth little beside bm25
beyond breaking its near-ties; MiniLM's find the answer to a paraphrased question more often than its
words do, unless the words are rare enough to name it."""

LEXICAL_CONFIDENCE = PerEmbedder(((HASH_MODEL, 0.5), (MINILM_MODEL, 0.5), (MINILM_INT8_MODEL, 0.5)), 0.0)
"""The exponent by which this query's lexical share follows the lexical arm's confidence (`domain/fusion.py`,
`query_share`), per embedder, chosen with `LEXICAL_SHARE` on the three real-text sets' training split as
the pair whose worst gain over the best arm alone was highest, for MiniLM among the shares that keep the
paraphrase bench within 0.01 of its figure (share 0.3 with exponent 1 gained 0.007 more on the worst set
and cost paraphrase MRR 0.047; docs/ranking.md); an embedder nobody measured keeps its share fixed (0)."""

DEFAULT = RankingProfile(
    name="default",
    summary="the seeds' design with the measured improvements: a stemmed, field-weighted lexical arm "
    "over the any-of form, a convex fusion of the lexical and vector scores weighted per embedder, "
    "recency and salience counted only for memories the query matches, twin resolution, MMR that "
    "spares known items, recall over the whole reordered pool",
    fts_forms="any",
    lexical="stemmed",
    field_weights=(2.0, 1.0, 1.0),
    question_words=True,
    fusion="convex",
    lexical_share=LEXICAL_SHARE,
    lexical_confidence=LEXICAL_CONFIDENCE,
    convex_norm="max",
    gate_priors=True,
    polarity=False,
    polarity_cosine=TWIN_COSINE_BY_EMBEDDER,
    twins=True,
    mmr_redundancy="near_duplicate",
    mmr_keeps_known_items=True,
    newer_first=True,
    recall_pool="reordered",
    recall_tiers="quote_disclosure_index",
    twin_cosine=TWIN_COSINE_BY_EMBEDDER,
    floor_cosine=FLOOR_COSINE,
)

PROFILES: dict[str, RankingProfile] = {p.name: p for p in (DEFAULT, MEMHTML)}


def profile_named(name: str | None) -> RankingProfile:
    """A shipped profile by name (None: `default`); ValueError naming the choices otherwise."""
    if name is None or name == "":
        return DEFAULT
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown ranking profile {name!r}; choose one of: {', '.join(PROFILES)}") from None
