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


def split_prose(text: str) -> tuple[str, list[str]]:
    """(claim, paragraphs) of a prose body."""
    trimmed = js_trim(text)
    match = _SENTENCE.match(trimmed)
    if match is None:
        return trimmed, []
    claim = match.group(1)
    return claim, paragraphs(trimmed[len(claim):])


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
