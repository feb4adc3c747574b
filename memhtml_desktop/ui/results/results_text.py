"""What the results pane says about a hit, in words: tooltips, badges and accessible text.

Pure functions over domain values (no Qt), shared by the model (tooltips, accessible text), the
title painter (badges) and the row context menu, so the three never phrase a hit differently.
"""

from __future__ import annotations

from typing import Any

from memhtml_desktop.domain.rrf import RANK_ARMS, RRF_K
from memhtml_desktop.domain.types import Hit

ARM_NAMES: tuple[str, ...] = tuple(arm.name for arm in RANK_ARMS)
ARM_TITLES: dict[str, str] = {
    "fts": "full text (bm25)",
    "vector": "vector (cosine)",
    "recency": "recency",
    "salience": "salience",
}
STEP_NAMES = {"mmr": "MMR", "polarity": "polarity", "twins": "twin resolution"}
PLACED_BY_DEFAULTS = "placed by recency and salience only (no word or meaning match)"


def moved_text(hit: Hit) -> str | None:
    if not hit.moved_by:
        return None
    step = STEP_NAMES.get(hit.moved_by, hit.moved_by)
    if hit.moved_from is None:
        return f"moved by {step}"
    return f"moved by {step} from {hit.moved_from}"


def only_defaults(hit: Hit) -> bool:
    """Neither the words nor the meaning placed this hit: only recency and salience ranked it."""
    return hit.arm("fts") is None and hit.arm("vector") is None


def raw_text(raw: dict[str, Any]) -> str:
    parts = []
    for key, value in raw.items():
        if isinstance(value, float):
            value = f"{value:.4g}"
        parts.append(f"{key} {value}")
    return ", ".join(parts)


def arm_tooltip(arm: str, score) -> str:
    title = ARM_TITLES.get(arm, arm)
    if score is None:
        return f"{title}: did not rank this memory (no contribution)"
    return (
        f"{title}: rank {score.rank} \u00d7 weight {score.weight:g} \u2192 "
        f"{score.weight:g}/({score.rank}+{RRF_K}) = {score.contribution:.4f}"
        + (f"\nraw signal: {raw_text(score.raw)}" if score.raw else "")
    )


def breakdown_tooltip(hit: Hit) -> str:
    lines = [f"fused score {hit.score:.4f} = sum of the arms' contributions"]
    for arm in ARM_NAMES:
        lines.append(arm_tooltip(arm, hit.arm(arm)))
    moved = moved_text(hit)
    if moved:
        lines.append(f"{moved} (fused position {hit.fused_position})")
    return "\n".join(lines)


def badges(hit: Hit, *, page: int | None, no_word_matched: bool, could_match: bool = True) -> list[str]:
    """The small outlined words under a title: what moved it, where it stands, what placed it."""
    out = []
    moved = moved_text(hit) if page is not None else None
    if moved:
        arrow = "\u2193" if hit.moved_from is not None and page > hit.moved_from else "\u2191"
        out.append(f"{arrow} {moved}")
    if page is None:
        out.append("not on the agent's page")
    if getattr(hit, "low_relevance", False):
        out.append("low relevance")
    if could_match and only_defaults(hit):
        out.append("recency & salience only")
    if hit.archived:
        out.append("archived")
    return out


def title_tooltip(hit: Hit, *, page: int | None, no_word_matched: bool, could_match: bool = True) -> str:
    text = hit.path
    if hit.archived:
        text += "\narchived" + (f" \u2014 superseded by {hit.superseded_by}" if hit.superseded_by else "")
    if page is None:
        text += f"\nnot on the agent's page: fused position {hit.fused_position}, not among the hits it receives"
    moved = moved_text(hit) if page is not None else None
    if moved:
        text += f"\n{moved}"
    if could_match and only_defaults(hit):
        text += f"\n{PLACED_BY_DEFAULTS}"
    elif no_word_matched:
        text += "\nno memory holds the query's words: placed by meaning, recency and salience"
    if getattr(hit, "low_relevance", False):
        text += "\nlow relevance: no query word, no close meaning, nothing it names"
    return text


def accessible_title(hit: Hit, *, page: int | None, no_word_matched: bool, could_match: bool = True) -> str:
    """A row's title cell for a screen reader: position, title, type and every badge."""
    where = f"position {page}" if page is not None else f"not on the agent's page, fused position {hit.fused_position}"
    marks = badges(hit, page=page, no_word_matched=no_word_matched, could_match=could_match)
    return ". ".join([f"{where}: {hit.title or hit.path}", hit.memory_type, *marks])


def accessible_arm(arm: str, score) -> str:
    title = ARM_TITLES.get(arm, arm)
    if score is None:
        return f"{title}: not ranked"
    return f"{title}: rank {score.rank}, contributes {score.contribution:.4f}"


def accessible_bar(hit: Hit) -> str:
    parts = [f"{ARM_TITLES.get(a.arm, a.arm)} {a.contribution:.4f}" for a in hit.arms]
    return f"fused score {hit.score:.4f}: " + (", ".join(parts) if parts else "no arm ranked it")
