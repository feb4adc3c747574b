"""What a read and a Helpful / Not helpful click did, in words: the reader's notes and the status bar's line.

The same click could do two different things, silently: on a memory nobody had read, memhtml's rule
for a new row applies (`index/state.py`, `reinforce`): the row starts with one read and the outcome
AT the signal's value (+1.00), not averaged in from 0; on a memory already read, the outcome moves
30% of the way (+0.00 → +0.30) and the read count stays. Both now say what they did, with the
numbers before and after, whether the click came from the reader or from a row's menu.
"""

from __future__ import annotations

from typing import Any

from memhtml_desktop.domain.reinforce import OUTCOME_EWMA_ALPHA

SIGNAL_WORDS = {"positive": "helpful", "negative": "not helpful", "neutral": "no signal"}


def _outcome(access: dict[str, Any] | None) -> float | None:
    try:
        return float(access["outcome_score"]) if access else None
    except (KeyError, TypeError, ValueError):
        return None


def effect_text(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    """ "Outcome +0.00 → +0.30 (…)", or for a first signal the new row's rule, or "" when unknown."""
    old, new = _outcome(before), _outcome(after)
    if new is None:
        return ""
    if before is None:
        return (
            f"Outcome {new:+.2f}, and one read counted: a memory's first signal sets its outcome outright "
            f"and starts its row at one read (memhtml's rule for a new row); later signals move it "
            f"{OUTCOME_EWMA_ALPHA:.0%} of the way."
        )
    return f"Outcome {old:+.2f} \u2192 {new:+.2f} (each signal moves it {OUTCOME_EWMA_ALPHA:.0%} of the way)."


def reinforce_note(
    result: Any,
    path: str | None,
    previous: str | None = None,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> str:
    """The sentence for a click's answer (`result`: a ReinforceResult) on `path`."""
    word = SIGNAL_WORDS.get(result.signal, result.signal)
    applied = path in result.signal_applied
    effect = effect_text(before, after) if applied else ""
    effect = f" {effect}" if effect else ""
    if result.refused and getattr(result, "queued", False):
        return (
            f"Not recorded yet: {result.refused}. “{word}” is kept and recorded, with the time of your "
            "click, as soon as state.db can be written."
        )
    if result.refused:
        return f"Not recorded: {result.refused}"
    if applied and previous is not None and result.signal == "neutral":
        return f"“{SIGNAL_WORDS.get(previous, previous)}” withdrawn.{effect}"
    if applied and previous not in (None, "neutral"):
        return (
            f"Recorded as {word}, replacing “{SIGNAL_WORDS.get(previous, previous)}”.{effect} "
            "Within 15 minutes a click changes it again."
        )
    if applied:
        return f"Recorded as {word}.{effect} Changed your mind? Click the other one within 15 minutes."
    if path in result.signal_cooled:
        return f"Already marked in the last 15 minutes (elsewhere); “{word}” was not applied again (cooldown)."
    return f"Recorded: {word}."


def bump_note(detail: Any) -> str:
    """What the reader says under the stats about this read: counted, not yet, lost, cooled down."""
    bump = detail.bump
    if bump is None:
        return ""
    if bump.refused and getattr(bump, "queued", False):
        return (
            f"This read is not counted yet: {bump.refused}. It is kept and counted, with the time you "
            "opened it, as soon as state.db can be written."
        )
    if bump.refused and getattr(bump, "lost", False):
        # attempted and failed (the state plane stayed locked, the disk filled): not a refusal by design
        return (
            f"This read was not counted (the write was lost): {bump.refused}. "
            "Nothing was written; opening it again later counts it."
        )
    if bump.refused:
        return f"This read was not counted: {bump.refused}."
    if detail.path in bump.bumped:
        return "This read counted toward salience."
    if detail.path in bump.cooled_down:
        return "Read again within the cooldown: not counted twice."
    return ""
