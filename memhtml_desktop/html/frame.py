"""The frame key: a claim's slot as surface grammar states it (`domain/src/frame.ts`).

"The capital of India is New Delhi" keys on `the capital of india is`; a later claim writing a
different value into the same slot collides on the key without a model. The greedy `.*` picks the
LONGEST frame; both guards fail closed to None (frames under 3 tokens are ordinary prose, values
over 6 tokens are clauses). The rule was measured upstream and is ported, not tuned.

JS semantics are kept: `\\s` is JS whitespace and `\\b` is ASCII (`re.ASCII`).
"""

from __future__ import annotations

import re

from memhtml_desktop.html.jsnum import JS_SPACE_RUN, JS_WHITESPACE

_FRAME = re.compile(r"(.*\b(?:of|is|in|to|by|as)\b) +(.+?)\.?", re.ASCII | re.DOTALL)
MIN_FRAME_TOKENS = 3
MAX_VALUE_TOKENS = 6


def frame_key_of(gist: str) -> str | None:
    """The lowercased frame of a gist, or None when it states no trusted frame+value shape."""
    normalized = JS_SPACE_RUN.sub(" ", gist).strip(JS_WHITESPACE)
    match = _FRAME.fullmatch(normalized)
    if match is None:
        return None
    frame, value = match.group(1), match.group(2)
    if len(frame.split(" ")) < MIN_FRAME_TOKENS:
        return None
    if not 1 <= len(value.split(" ")) <= MAX_VALUE_TOKENS:
        return None
    return frame.lower()
