"""What "Why not this one?" says about a `WhyNot` report, in words: the verdict, what excluded the memory,
its fused position, the moves after fusion and the ranking profile. Pure functions (no Qt), so the dialog
only places them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memhtml_desktop.domain.ranking import RankingProfile
from memhtml_desktop.domain.signals import STEP_NAMES
from memhtml_desktop.ui.kit.ranking_text import counterpart, profile_differences, steps_text

if TYPE_CHECKING:
    from memhtml_desktop.domain.results import WhyNot


def move_text(move: dict[str, Any]) -> str:
    """A move as `--json` gives it, in the words of `Move.describe()`."""
    step = STEP_NAMES.get(move.get("step", ""), move.get("step", ""))
    return f"moved by {step} from {move.get('from')}: {move.get('reason', '')}"


def ranking_text(report: "WhyNot", profile: RankingProfile) -> tuple[str, str]:
    """ "Ranked with the default profile (twin resolution, then MMR)." and the steps that differ from
    the other shipped profile, one per line."""
    active = profile if profile.name == report.ranking else None
    head = f"Ranked with the {report.ranking} profile"
    if active is not None:
        head += f" (after fusion: {steps_text(active)})"
    if active is None:
        return head + ".", ""
    other = counterpart(active)
    lines = profile_differences(active, other)
    if not lines:
        return head + ".", ""
    return head + ".", f"What {other.name} does differently:\n" + "\n".join(f"\u2022 {line}" for line in lines)


def completion_text(title: str, path: str) -> str:
    return f"{title} \u2014 {path}" if title else path


def verdict_text(report: "WhyNot") -> str:
    if report.search_position is not None:
        return f"It is #{report.search_position} on the result page."
    return "It is not on the result page."


def excluded_text(report: "WhyNot") -> str:
    """Which scope axes excluded it, and whether the ranks shown were computed without them."""
    tail = ". The ranks below were computed with those filters switched off." if report.ranks_relaxed else "."
    return "Excluded by: " + ", ".join(report.excluded_by) + tail


def fused_text(report: "WhyNot") -> str:
    """ "Fused position: 7 (score 0.0312) · search position: 4", or where it was not."""
    if report.fused_position is None:
        fused = "Fused position: not in the fused pool"
    else:
        fused = f"Fused position: {report.fused_position}"
        if report.fused_score is not None:
            fused += f" (score {report.fused_score:.4f})"
    search = report.search_position if report.search_position is not None else "\u2014"
    return f"{fused} \u00b7 search position: {search}"
