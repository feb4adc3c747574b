"""`apply`'s prose `body`: the first sentence is the claim, the rest are paragraphs (`cli/src/prose.ts`).

The claim is the first match of `^(.*?[.!?])(\\s|$)` on the trimmed text (dot matches newlines),
or the whole text when no sentence ends. The rest splits into paragraphs on blank lines, except
that a fenced code block is kept whole, blank lines and all, so it can become one `<figure>`.
"""

from __future__ import annotations

import re

from memhtml_desktop.html.jsnum import JS_SPACE_CLASS, js_trim

_SENTENCE = re.compile(r"(.*?[.!?])(?:" + JS_SPACE_CLASS + r"|$)", re.DOTALL)
_FENCE = re.compile(r"`{3,}")
CLAIM_CHARS = 300
"""Past this a claim is not "one sentence the agent can act on" (a note, not a refusal: memhtml writes it)."""


def split_prose(text: str) -> tuple[str, list[str]]:
    """(claim, paragraphs) of a prose body."""
    trimmed = js_trim(text)
    match = _SENTENCE.match(trimmed)
    if match is None:
        return trimmed, []
    claim = match.group(1)
    return claim, paragraphs(trimmed[len(claim) :])


def paragraphs(text: str) -> list[str]:
    """Blank-line separated blocks, JS-trimmed and non-empty; a fenced block is never split."""
    blocks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        stripped = line.strip()
        if fence is None and stripped == "" and current:
            blocks.append("\n".join(current))
            current = []
            continue
        opener = _FENCE.match(stripped)
        if fence is None and opener:
            fence = opener.group(0)
        elif fence is not None and stripped.startswith(fence) and stripped.strip("`") == "":
            fence = None
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return [b for b in (js_trim(block) for block in blocks) if b != ""]


def claim_notes(claim: str | None) -> tuple[str, ...]:
    """A word on a claim that is not one short sentence: an agent reads the claim first (a recall
    pack's disclosure is the claim alone), so a 5,000-character one is written, but not silently."""
    text = js_trim(claim or "")
    if not text:
        return ()
    if len(text) > CLAIM_CHARS:
        return (
            f"the claim is {len(text):,} characters long: an agent reads it first in every recall pack "
            f"(a disclosure is the claim alone), so one sentence it can act on, under {CLAIM_CHARS} "
            "characters, serves it best; the rest belongs in the body",
        )
    if js_trim(text[len(split_prose(text)[0]) :]):
        return (
            "the claim is more than one sentence: an agent reads it first (a disclosure is the claim "
            "alone); keep the one sentence it can act on and move the rest to the body",
        )
    return ()
