"""Near-twin controls for the ranking quality gate: the three divergence families and probe queries.

A control is a memory that is lexically and semantically next to its target and factually
incompatible with it. memhtml builds them from its sleep-cycle merge veto read backwards
(`packages/eval/src/controls.ts` over `packages/domain/src/merge.ts`), and so does this module:

- **negation**: the claim with `not` inserted after its first auxiliary verb;
- **numeric**: the first number in the claim replaced (`n + 10` below 100, `n * 2` otherwise);
- **variant**: the claim scoped to a variant (`…, on the experimental variant only.`).

Every control is checked against its OWN family's predicate over the whole text, never against the
disjunction: a target whose body already says `not` would make the negation flip invisible to the
polarity step, and such a pair is refused rather than shipped as a paraphrase.
"""

from __future__ import annotations

import re

#: Polarity markers (memhtml `NEGATION_MARKERS`). Exactly one side carrying one = divergent.
NEGATION_MARKERS = frozenset(
    "not no never none cannot without neither nor avoid disallow disallowed forbidden unsafe "
    "invalid false fail fails failed deny denied reject rejected".split()
)
#: Variant and version qualifiers (memhtml `VARIANT_QUALIFIERS`).
VARIANT_QUALIFIERS = frozenset("pro max beta alpha rc preview legacy deprecated experimental".split())
#: Words a probe query drops (memhtml `STOPWORDS` in `corpus.ts`).
STOPWORDS = frozenset(
    "a an and any are as at be before by do does each every for from has have in into is it its "
    "must of on once only or so than that the then this to under was were when which will with".split()
)

_CONTRACTIONS = (
    ("isn't", "is not"),
    ("aren't", "are not"),
    ("wasn't", "was not"),
    ("weren't", "were not"),
    ("don't", "do not"),
    ("doesn't", "does not"),
    ("didn't", "did not"),
    ("won't", "will not"),
    ("can't", "can not"),
    ("cannot", "can not"),
    ("couldn't", "could not"),
    ("shouldn't", "should not"),
    ("wouldn't", "would not"),
    ("mustn't", "must not"),
    ("haven't", "have not"),
    ("hasn't", "has not"),
    ("hadn't", "had not"),
    ("n't", " not"),
)
_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)*")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_QUERY_TOKEN = re.compile(r"[^\W_]+")
_NEGATION_ANCHORS = (" should ", " must ", " will ", " does ", " were ", " was ", " are ", " can ", " is ", " do ")

FAMILIES = ("negation", "numeric", "variant")
#: Qualifiers the variant family scopes a claim to; `experimental` is memhtml's own example.
QUALIFIERS = ("experimental", "experimental", "beta", "legacy", "preview")


def tokens(text: str) -> list[str]:
    out = text.lower()
    for pattern, replacement in _CONTRACTIONS:
        out = out.replace(pattern, replacement)
    return _WORD.findall(out)


def negation_divergent(a: str, b: str) -> bool:
    neg_a = any(t in NEGATION_MARKERS for t in tokens(a))
    neg_b = any(t in NEGATION_MARKERS for t in tokens(b))
    return neg_a != neg_b


def numeric_divergent(a: str, b: str) -> bool:
    num_a = {t for t in tokens(a) if any(c.isdigit() for c in t)}
    num_b = {t for t in tokens(b) if any(c.isdigit() for c in t)}
    if not num_a and not num_b:
        return False
    return num_a != num_b


def variant_divergent(a: str, b: str) -> bool:
    return {t for t in tokens(a) if t in VARIANT_QUALIFIERS} != {t for t in tokens(b) if t in VARIANT_QUALIFIERS}


PREDICATES = {"negation": negation_divergent, "numeric": numeric_divergent, "variant": variant_divergent}


def negation_flip(claim: str) -> str:
    for anchor in _NEGATION_ANCHORS:
        at = claim.find(anchor)
        if at != -1:
            cut = at + len(anchor)
            return f"{claim[:cut]}not {claim[cut:]}"
    trimmed = claim.strip()
    return f"It is not true that {trimmed[:1].lower()}{trimmed[1:]}"


def numeric_flip(claim: str) -> str | None:
    match = _NUMBER.search(claim)
    if match is None:
        return None
    found = match.group(0)
    if "." in found:
        replacement = f"{float(found) * 2:g}"
    else:
        value = int(found)
        replacement = str(value + 10) if value < 100 else str(value * 2)
    return claim[: match.start()] + replacement + claim[match.end() :]


def variant_flip(claim: str, qualifier: str = "experimental") -> str:
    return f"{claim.rstrip().rstrip('.')}, on the {qualifier} variant only."


def derive(claim: str, whole_text: str, family: str, qualifier: str = "experimental") -> str | None:
    """The control claim for one family, or None when the family does not apply or is not divergent.

    `whole_text` is the target's full article text; the control keeps everything but the claim, so
    the predicate sees the pair exactly as an indexer would.
    """
    if family == "negation":
        flipped: str | None = negation_flip(claim)
    elif family == "numeric":
        flipped = numeric_flip(claim)
    else:
        flipped = variant_flip(claim, qualifier)
    if flipped is None or flipped == claim:
        return None
    control_text = whole_text.replace(claim, flipped, 1)
    return flipped if PREDICATES[family](whole_text, control_text) else None


def query_for(claim: str, limit: int = 12) -> str:
    """The target's content words, in order: lowercased, stopwords out, no markers, at most `limit`.

    Numbers always survive the cap (the latest plain words go first): a numeric control differs from
    its target by one number only, so a query without it could not tell the two apart.
    """
    words = [
        w
        for w in _QUERY_TOKEN.findall(claim.lower())
        if w not in STOPWORDS and w not in NEGATION_MARKERS and w not in VARIANT_QUALIFIERS
    ]
    if len(words) > limit:
        keep_plain = limit - sum(1 for w in words if w.isdigit())
        kept = []
        for w in words:
            if w.isdigit():
                kept.append(w)
            elif keep_plain > 0:
                kept.append(w)
                keep_plain -= 1
        words = kept
    return " ".join(words[:limit])


CONTROL_TITLE = {
    "negation": "Refuted reading — {}",
    "numeric": "Restated quantity — {}",
    "variant": "Qualified variant — {}",
}
