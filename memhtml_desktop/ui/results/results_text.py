"""What the results pane says about a hit, in words: tooltips, badges and accessible text.

Pure functions over domain values (no Qt), shared by the model (tooltips, accessible text), the
title painter (badges) and the row context menu, so the three never phrase a hit differently.
"""

from __future__ import annotations

from typing import Any

from memhtml_desktop.domain.contradiction import kind_words
from memhtml_desktop.domain.ranking import DEFAULT, RankingProfile
from memhtml_desktop.domain.types import Hit

ARM_NAMES: tuple[str, ...] = DEFAULT.arm_names
"""The arms the table has a column for (the registry every shipped profile uses). Weights and k are
read from the ACTIVE profile, which the model is given, never from a module constant."""
ARM_TITLES: dict[str, str] = {
    "fts": "full text (bm25)",
    "vector": "vector (cosine)",
    "recency": "recency",
    "salience": "salience",
}
STEP_NAMES = {"mmr": "MMR", "polarity": "polarity", "twins": "twin resolution", "newer": "newer first"}
PLACED_BY_DEFAULTS = "placed by recency and salience only (no word or meaning match)"
FUTURE_BADGE = "future date"
LOW_BADGE = "low relevance"
CONTRADICTION_SIGN = "\u26a0"
"""A badge starting with it is a contradiction's: the title painter fills it with the warning colour."""
VALUE_CHARS = 28


def _clipped(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1] + "\u2026"


def contradiction_badge(hit: Hit) -> str | None:
    """ "⚠ contradicted by a newer memory: Capital of Peru" (the other memory's title); where the
    other's title is this hit's own (one slot written twice under one title) its value too, "…:
    Capital of Peru, “Cusco”", or its kind when it has none; "+1" for each further memory it
    contradicts; None when it contradicts none in the list. *Decided here:* the title, as the
    reader's strip and the tooltip name it, so the badge says which row to look at; the value
    alone ("“Cusco”") named no memory when a slot's versions had different titles."""
    marks = getattr(hit, "contradictions", ())
    if not marks:
        return None
    first = marks[0]
    value = first.other_value if first.other_value not in ("", "\u2014") else ""
    title = _clipped(first.other_title.strip() or first.other, 3 * VALUE_CHARS)
    text = f"{CONTRADICTION_SIGN} {first.mark}: {title}"
    if title.casefold() == (hit.title or "").strip().casefold():
        text += f", \u201c{_clipped(value, VALUE_CHARS)}\u201d" if value else f" ({kind_words(first.kind)})"
    return text + (f" +{len(marks) - 1}" if len(marks) > 1 else "")


def contradiction_lines(hit: Hit) -> list[str]:
    """Every contradiction the hit takes part in, naming the other memory, the values and the times."""
    return [mark.describe() for mark in getattr(hit, "contradictions", ())]


def future_text(date: str) -> str:
    return f"dated in the future ({date}): recency ranks it by its updated stamp"


def moves_text(hit: Hit) -> list[str]:
    """Every post-fusion step that moved the hit, with its reason ("moved by twin resolution from 2:
    its claim has '12' where your query says '2'"): what the code did, from `Hit.moves`."""
    return [move.describe() for move in getattr(hit, "moves", ())]


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


def arm_tooltip(arm: str, score, k: int) -> str:
    """`k`: the active profile's RRF k (the contribution is weight/(rank+k))."""
    title = ARM_TITLES.get(arm, arm)
    if score is None:
        return f"{title}: did not rank this memory (no contribution)"
    if not getattr(score, "counted", True):
        return (
            f"{title}: rank {score.rank}, not counted: the memory neither holds every query word nor "
            f"reaches the relevance floor, so recency and salience do not lift it"
            + (f"\nraw signal: {raw_text(score.raw)}" if score.raw else "")
        )
    if getattr(score, "norm", None) is not None:  # a convex fusion weighed its normalised score
        return (
            f"{title}: rank {score.rank}, score {score.norm:.3f} of this query's best \u00d7 weight "
            f"{score.weight:.3g} = {score.contribution:.4f}"
            + (f"\nraw signal: {raw_text(score.raw)}" if score.raw else "")
        )
    return (
        f"{title}: rank {score.rank} \u00d7 weight {score.weight:g} \u2192 "
        f"{score.weight:g}/({score.rank}+{k}) = {score.contribution:.4f}"
        + (f"\nraw signal: {raw_text(score.raw)}" if score.raw else "")
    )


def arm_header_tooltip(
    arm: str, title: str, help_text: str, profile: RankingProfile, degraded: str | None, *, active: bool
) -> str:
    """An arm column's header tooltip: the arm (`title`, `help_text`), its weight in the active profile, what
    a cell says, and why it is not in this search (`degraded`: the arm failed, with why; not `active`: it had
    nothing to do)."""
    text = (
        f"{title} \u2014 weight {profile.weight(arm):g} ({profile.name} ranking)\n"
        f"{help_text}\n"
        f"The cell is this arm's rank for the hit; it adds {profile.contribution_rule(arm)} to the score. "
        f"A dash: the arm did not rank the hit."
    )
    if degraded is not None:
        text += f"\nNot in this search: {degraded}"
    elif not active:
        text += "\nNot in this search (no query words, or the arm could not fire)."
    return text


def breakdown_tooltip(hit: Hit, k: int) -> str:
    lines = [f"fused score {hit.score:.4f} = sum of the arms' contributions"]
    for arm in ARM_NAMES:
        lines.append(arm_tooltip(arm, hit.arm(arm), k))
    moved = moves_text(hit) or ([moved_text(hit)] if moved_text(hit) else [])
    if moved:
        lines.extend(moved)
        lines.append(f"fused position {hit.fused_position}")
    return "\n".join(lines)


def badges(hit: Hit, *, page: int | None, no_word_matched: bool, could_match: bool = True) -> list[str]:
    """The small outlined words under a title: what it contradicts, what moved it, where it stands,
    what placed it."""
    contradiction = contradiction_badge(hit)
    out = [contradiction] if contradiction else []
    moved = moved_text(hit) if page is not None else None
    if moved:
        arrow = "\u2193" if hit.moved_from is not None and page > hit.moved_from else "\u2191"
        out.append(f"{arrow} {moved}")
    if page is None:
        out.append("not on the agent's page")
    if getattr(hit, "low_relevance", False):
        out.append(LOW_BADGE)
    if getattr(hit, "suspicious_date", None):
        out.append(FUTURE_BADGE)
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
    moved = (moves_text(hit) or [moved_text(hit)]) if page is not None and hit.moved_by else []
    for line in moved:
        text += f"\n{line}"
    for line in contradiction_lines(hit):
        text += f"\n{CONTRADICTION_SIGN} {line}"
    if could_match and only_defaults(hit):
        text += f"\n{PLACED_BY_DEFAULTS}"
    elif no_word_matched:
        text += "\nno memory holds the query's words: placed by meaning, recency and salience"
    if getattr(hit, "low_relevance", False):
        text += "\n" + low_relevance_text(hit)
    if getattr(hit, "suspicious_date", None):
        text += "\n" + future_text(hit.suspicious_date)
    return text


def low_relevance_text(hit: Hit) -> str:
    """Why the relevance floor marks it: none of its raw signals met (the order is not changed)."""
    signals = getattr(hit, "signals", None)
    cosine = ""
    if signals is not None and signals.cosine is not None:
        cosine = f" (raw cosine {signals.cosine:.3f} < floor {signals.floor:g})"
    return (
        f"low relevance: no query word in it, no close meaning{cosine}, no tag or entity the query names; "
        "left where the ranking put it (an agent receives it too)"
    )


def accessible_title(hit: Hit, *, page: int | None, no_word_matched: bool, could_match: bool = True) -> str:
    """A row's title cell for a screen reader: position, title, type and every badge."""
    where = f"position {page}" if page is not None else f"not on the agent's page, fused position {hit.fused_position}"
    marks = badges(hit, page=page, no_word_matched=no_word_matched, could_match=could_match)
    if page is not None and hit.moves:  # the moves' reasons, not only the badge
        marks = [m for m in marks if not m.startswith(("\u2191 moved", "\u2193 moved"))] + moves_text(hit)
    if getattr(hit, "contradictions", ()):  # whom it contradicts, not only the badge
        marks = [m for m in marks if not m.startswith(CONTRADICTION_SIGN)] + contradiction_lines(hit)
    return ". ".join([f"{where}: {hit.title or hit.path}", hit.memory_type, *marks])


def accessible_arm(arm: str, score) -> str:
    title = ARM_TITLES.get(arm, arm)
    if score is None:
        return f"{title}: not ranked"
    if not getattr(score, "counted", True):
        return f"{title}: rank {score.rank}, not counted (the query does not match the memory)"
    return f"{title}: rank {score.rank}, contributes {score.contribution:.4f}"


def accessible_bar(hit: Hit) -> str:
    parts = [f"{ARM_TITLES.get(a.arm, a.arm)} {a.contribution:.4f}" for a in hit.arms]
    return f"fused score {hit.score:.4f}: " + (", ".join(parts) if parts else "no arm ranked it")
