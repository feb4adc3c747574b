"""The ranking profile in words: its name in the window, what it is, and how it differs from another.

Pure functions over `RankingProfile` values (no Qt), shared by the search bar's profile selector
and the "Why not?" dialog, so the window names a profile's steps one way. The differences are read
from the profiles' knobs, never written out by hand: a what-if profile is described as truly as
the two that ship.
"""

from __future__ import annotations

from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML, RankingProfile, profile_named

CHOICES = ("default", "memhtml")
PROFILE_HELP = {
    "default": "default: this app's ranking (the seeds' design with the measured improvements: "
    "twin resolution, MMR that spares known items, the newer of two contradicting memories first, "
    "recall folding the reordered pool)",
    "memhtml": "memhtml: what memhtml 0.4 does, so the list is what an agent on memhtml receives "
    "(all-terms words only, plain cosine MMR, recall folding the fused order)",
}
FTS_FORM_WORDS = {"all": "every word required", "all_any": "all words, else any word"}
REDUNDANCY_WORDS = {
    "cosine": "plain cosine (any resemblance is repetition)",
    "near_duplicate": "near-duplicates only (arcs exempt)",
}
RECALL_POOL_WORDS = {"fused": "the fused order as is", "reordered": "the reordered pool"}
RECALL_TIER_WORDS = {
    "quote_index": "quotes and index lines",
    "quote_disclosure_index": "quotes, claims and index lines",
}


def profile_help(profile: RankingProfile) -> str:
    return PROFILE_HELP.get(profile.name, f"{profile.name}: a what-if profile ({profile.summary or 'from a file'})")


def counterpart(profile: RankingProfile) -> RankingProfile:
    """The profile to compare with: memhtml for the default (or a what-if one), default for memhtml."""
    return DEFAULT if profile.name == "memhtml" else MEMHTML


def _on(value: bool) -> str:
    return "on" if value else "off"


def profile_differences(active: RankingProfile, other: RankingProfile) -> list[str]:
    """One line per knob the two profiles set differently: "twin resolution: on here; off in memhtml"."""
    here, there = "here", f"in {other.name}"
    lines = []

    def differ(label: str, mine, theirs) -> None:
        if mine != theirs:
            lines.append(f"{label}: {mine} {here}; {theirs} {there}")

    differ(
        "lexical arm",
        FTS_FORM_WORDS.get(active.fts_forms, active.fts_forms),
        FTS_FORM_WORDS.get(other.fts_forms, other.fts_forms),
    )
    differ("polarity step", _on(active.polarity), _on(other.polarity))
    differ("recency and salience only for matching memories", _on(active.gate_priors), _on(other.gate_priors))
    differ("twin resolution", _on(active.twins), _on(other.twins))
    mmr_a, mmr_b = active.mmr_lambda < 1.0, other.mmr_lambda < 1.0
    differ(
        "MMR", f"\u03bb {active.mmr_lambda:g}" if mmr_a else "off", f"\u03bb {other.mmr_lambda:g}" if mmr_b else "off"
    )
    if mmr_a or mmr_b:
        differ(
            "MMR's repetition",
            REDUNDANCY_WORDS.get(active.mmr_redundancy, active.mmr_redundancy),
            REDUNDANCY_WORDS.get(other.mmr_redundancy, other.mmr_redundancy),
        )
        differ("known items keep their place", _on(active.mmr_keeps_known_items), _on(other.mmr_keeps_known_items))
    differ("newer first (of two memories that contradict each other)", _on(active.newer_first), _on(other.newer_first))
    differ("RRF k", active.rrf_k, other.rrf_k)
    differ("each arm's window", active.arm_window, other.arm_window)
    weights_a = ", ".join(f"{a.name} {a.weight:g}" for a in active.arms)
    weights_b = ", ".join(f"{a.name} {a.weight:g}" for a in other.arms)
    differ("arm weights", weights_a, weights_b)
    differ(
        "recall folds",
        RECALL_POOL_WORDS.get(active.recall_pool, active.recall_pool),
        RECALL_POOL_WORDS.get(other.recall_pool, other.recall_pool),
    )
    differ(
        "recall's tiers",
        RECALL_TIER_WORDS.get(active.recall_tiers, active.recall_tiers),
        RECALL_TIER_WORDS.get(other.recall_tiers, other.recall_tiers),
    )
    return lines


def steps_text(profile: RankingProfile) -> str:
    """ "twin resolution, then MMR, then newer first" (or "none: the fused order")."""
    names = {"polarity": "polarity", "twins": "twin resolution", "mmr": "MMR", "newer": "newer first"}
    steps = [names.get(s, s) for s in profile.steps]
    return ", then ".join(steps) if steps else "none: the fused order"


__all__ = ["CHOICES", "counterpart", "profile_differences", "profile_help", "profile_named", "steps_text"]
