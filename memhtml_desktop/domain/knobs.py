"""The ranking profile's knobs as a schema: what an editor lists.

Every field of `RankingProfile` but its name and summary is a knob; `knobs()` walks the dataclass's
fields, so a knob added to the profile is listed without anyone editing a list here or in the
window. For each: its kind (read from the value the base profile holds: a switch, a whole number,
a number, one of a few words, a value per embedder, the arm weights, the lexical field weights),
its range (`configs.LIMITS`), its choices (the words `ranking.py` allows), and a label, a group and
a sentence for a person (docs/ranking.md's table says the same at more length). A knob nobody
has described yet still gets a label made from its name and says it is not described.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from memhtml_desktop.domain.configs import LIMITS
from memhtml_desktop.domain.ranking import (
    CONVEX_NORMS,
    DEFAULT,
    FIELDS,
    FTS_FORMS,
    FUSIONS,
    LEXICAL_INDEXES,
    MMR_REDUNDANCY,
    RECALL_POOLS,
    RECALL_TIERS,
    PerEmbedder,
    RankingProfile,
)

KINDS = ("arms", "fields", "per_embedder", "switch", "whole", "number", "choice", "text")
GROUPS = ("Fusion", "Lexical arm", "After fusion", "Thresholds for this embedder", "Recall", "Other")
NOT_KNOBS = ("name", "summary")

CHOICES: dict[str, tuple[str, ...]] = {
    "fts_forms": FTS_FORMS,
    "lexical": LEXICAL_INDEXES,
    "fusion": FUSIONS,
    "convex_norm": CONVEX_NORMS,
    "mmr_redundancy": MMR_REDUNDANCY,
    "recall_pool": RECALL_POOLS,
    "recall_tiers": RECALL_TIERS,
}

DESCRIPTIONS: dict[str, tuple[str, str, str]] = {
    # name: (label, group, what it does)
    "arms": ("Arm weights", "Fusion", "each arm's weight in the fused score (0 leaves an arm out)"),
    "rrf_k": ("RRF k", "Fusion", "reciprocal rank fusion's damping: a larger k flattens the gap between ranks"),
    "arm_window": ("Arm window", "Fusion", "how many candidates each arm hands to the fusion"),
    "pool_factor": (
        "Pool factor",
        "Fusion",
        "the fused pool is the limit times this: the steps after fusion can reorder only what they are given",
    ),
    "fusion": (
        "Fusion",
        "Fusion",
        "rrf: the sum of weight / (rank + k) (memhtml); convex: the lexical and "
        "vector arms' normalised scores, shared by the lexical share, the priors as in rrf (a prior "
        "whose window is one tie weighs 0)",
    ),
    "lexical_share": (
        "Lexical share",
        "Fusion",
        "under convex fusion, the lexical arm's share against the vector arm's (1 minus it), for this store's embedder",
    ),
    "lexical_confidence": (
        "Lexical confidence",
        "Fusion",
        "under convex fusion, how much this query's lexical "
        "share follows how far the lexical arm's best score stands above its window's median "
        "(0 keeps the share fixed), for this store's embedder",
    ),
    "convex_norm": (
        "Convex normalisation",
        "Fusion",
        "under convex fusion, how an arm's scores are normalised "
        "over its window: by the best (max) or worst to 0, best to 1 (minmax)",
    ),
    "gate_priors": (
        "Priors only for matches",
        "Fusion",
        "recency and salience count only for memories that hold every query word or reach the relevance floor",
    ),
    "fts_forms": (
        "Lexical forms",
        "Lexical arm",
        "which MATCH forms may be bound: all (every word), all_any "
        "(every content word when some memory holds them all, else any), any (any content word, "
        "fuller matches first)",
    ),
    "lexical": (
        "Lexical index",
        "Lexical arm",
        "memhtml: one column under unicode61 (memhtml's); stemmed: the "
        "porter stemmer over title, claim and body, bm25 weighted per column",
    ),
    "field_weights": (
        "Field weights",
        "Lexical arm",
        "bm25's weight of the title, the claim and the body (the stemmed index only)",
    ),
    "question_words": (
        "Leave out question words",
        "Lexical arm",
        "question and function words (way, get, anyone) never decide a match: left out of the MATCH like stopwords",
    ),
    "polarity": (
        "Polarity step",
        "After fusion",
        "the seeds' polarity step: of two near-twins that disagree, the one the query contradicts is demoted",
    ),
    "polarity_demotion": ("Polarity demotion", "After fusion", "the relevance factor of a demoted twin"),
    "twins": ("Twin resolution", "After fusion", "of near-twin memories, the one the query's words decide comes first"),
    "twin_overlap": (
        "Twin word overlap",
        "After fusion",
        "without vectors: headlines sharing this share of their words are twins",
    ),
    "mmr_lambda": (
        "MMR \u03bb",
        "After fusion",
        "relevance against redundancy in diversification (1.0: no diversification; lower: more)",
    ),
    "mmr_redundancy": (
        "MMR redundancy",
        "After fusion",
        "what counts as repetition: the raw cosine to the closest pick, or only a near-duplicate",
    ),
    "mmr_keeps_known_items": (
        "MMR keeps known items",
        "After fusion",
        "a memory naming every query word keeps its place",
    ),
    "newer_first": (
        "Newer first",
        "After fusion",
        "of two memories in the pool that contradict each other "
        "(domain/contradiction.py), the newer goes first, unless the query names the other's "
        "value; both are marked either way",
    ),
    "polarity_cosine": (
        "Polarity cosine",
        "Thresholds for this embedder",
        "the near-twin cosine for the polarity step",
    ),
    "twin_cosine": (
        "Twin cosine",
        "Thresholds for this embedder",
        "the near-twin cosine for twin resolution and near-duplicate MMR",
    ),
    "floor_cosine": (
        "Relevance floor",
        "Thresholds for this embedder",
        "the raw cosine under which a hit is marked below the floor (it marks, never moves)",
    ),
    "recall_pool": (
        "Recall pool",
        "Recall",
        "what recall folds: the fused order (memhtml) or the whole pool after the steps",
    ),
    "recall_tiers": ("Recall tiers", "Recall", "the pack's tiers: quotes and index, or quotes, disclosures and index"),
    "recall_budget": ("Recall budget", "Recall", "the characters of memory text the pack may hold"),
    "arc_budget": ("Arc budget", "Recall", "the characters an arc's body may take of it"),
    "max_per_entity": ("Per entity", "Recall", "at most this many memories of one entity in the pack"),
}

WIDE = (-1000.0, 1000.0)
"""The range of a number nobody gave one (`configs.LIMITS` names the ranges)."""


@dataclass(frozen=True)
class Knob:
    name: str
    kind: str  # one of KINDS
    label: str
    group: str
    help: str
    low: float = 0.0
    high: float = 1.0
    choices: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()  # the arms' names, or the lexical fields, for `arms` and `fields`
    described: bool = True


def _kind(name: str, value: Any) -> str:
    if name == "arms":
        return "arms"
    if isinstance(value, PerEmbedder):
        return "per_embedder"
    if isinstance(value, bool):
        return "switch"
    if isinstance(value, int):
        return "whole"
    if isinstance(value, float):
        return "number"
    if isinstance(value, tuple) and value and all(isinstance(v, (int, float)) for v in value):
        return "fields"
    if isinstance(value, str):
        return "choice" if name in CHOICES else "text"
    return "text"


def knobs(base: RankingProfile = DEFAULT) -> tuple[Knob, ...]:
    """Every knob of `base`'s profile class, in the order the groups and then the class declare them."""
    out: list[Knob] = []
    for f in fields(type(base)):
        if f.name in NOT_KNOBS:
            continue
        value = getattr(base, f.name)
        kind = _kind(f.name, value)
        described = f.name in DESCRIPTIONS
        label, group, text = DESCRIPTIONS.get(
            f.name, (f.name.replace("_", " ").capitalize(), "Other", f"the profile's {f.name} (not described yet)")
        )
        low, high = LIMITS.get(f.name, WIDE if kind in ("whole", "number") else (0.0, 1.0))
        if kind == "arms":
            low, high = LIMITS["arms"]
        parts = (
            tuple(a.name for a in value)
            if kind == "arms"
            else (
                FIELDS
                if f.name == "field_weights"
                else tuple(str(i + 1) for i in range(len(value)))
                if kind == "fields"
                else ()
            )
        )
        out.append(
            Knob(
                f.name,
                kind,
                label,
                group if group in GROUPS else "Other",
                text,
                low,
                high,
                CHOICES.get(f.name, ()),
                parts,
                described,
            )
        )
    order = {g: i for i, g in enumerate(GROUPS)}
    return tuple(sorted(out, key=lambda k: order[k.group]))
