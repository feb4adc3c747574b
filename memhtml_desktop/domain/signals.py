"""What the ranking says about itself beyond the scores: moves, the relevance floor, honest headers.

Plain frozen values the index layer builds and every front end shows: a `Move` is one post-fusion
step that changed a hit's position and why (polarity, twin resolution, MMR, newer first); a
`Disagreement` is a contradiction between a hit and another memory of the pool; `HitSignals` is the
relevance floor's raw evidence for one hit; `IndexStatus`, `MatchCount` and `RelevanceSummary`
make a search's header say what fused scores cannot (docs/ranking.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from memhtml_desktop.domain.contradiction import kind_words

STEP_NAMES = {"polarity": "polarity", "twins": "twin resolution", "mmr": "MMR", "newer": "newer first"}

NEWER, OLDER, SAME = "newer", "older", "same"
"""A memory's side of a contradiction: the newer, the older, or neither (a tie on both times)."""
MARKS = {
    OLDER: "contradicted by a newer memory",
    NEWER: "contradicts an older memory",
    SAME: "contradicts a memory of the same date",
}
"""The mark a hit carries, in the words the list, the reader, `search --json` and the pack use."""


def _quoted(words: tuple[str, ...]) -> str:
    return ", ".join(f"'{w}'" for w in words)


def _said(value: str) -> str:
    """A differing value as a contradiction names it ("—": that side has no word there)."""
    return "nothing there" if value in ("", "\u2014") else f"\u201c{value}\u201d"


def _day(when: str) -> str:
    return when[:10] if when else "undated"


@dataclass(frozen=True)
class Disagreement:
    """A hit and another memory of the pool that contradict each other (`domain.contradiction`),
    seen from the hit: the other's path and title, this hit's `side` (NEWER, OLDER or SAME), why
    (`kind`, one of contradiction.REASONS), the differing words on each side as written, and each
    side's time (event time, else written time: what `side` was decided on). `query_names` is
    "this" or "other" when the query names that side's differing value alone (under `default`
    that side goes first), else "".
    """

    other: str
    other_title: str
    side: str
    kind: str
    value: str
    other_value: str
    when: str = ""
    other_when: str = ""
    query_names: str = ""

    @property
    def mark(self) -> str:
        """ "contradicted by a newer memory", "contradicts an older memory", or the same date's."""
        return MARKS[self.side]

    @property
    def stale(self) -> bool:
        """This hit is the older side: a newer memory says otherwise."""
        return self.side == OLDER

    def describe(self) -> str:
        """ "contradicted by a newer memory, “Capital of Peru” (resources/x.html): it says “Cusco”
        where this one says “Lima” (the value in one slot; 2024-05-01 against 2024-01-03)"."""
        other = f"\u201c{self.other_title}\u201d ({self.other})" if self.other_title else self.other
        return f"{self.mark}, {other}: {self.says()}"

    def says(self) -> str:
        """ "it says “Cusco” where this one says “Lima” (the value in one slot; 2024-05-01 against 2024-01-03)"."""
        dates = f"both {_day(self.when)}" if self.side == SAME else f"{_day(self.other_when)} against {_day(self.when)}"
        return (
            f"it says {_said(self.other_value)} where this one says {_said(self.value)} "
            f"({kind_words(self.kind)}; {dates})"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "other": self.other,
            "other_title": self.other_title,
            "side": self.side,
            "mark": self.mark,
            "kind": self.kind,
            "value": self.value,
            "other_value": self.other_value,
            "when": self.when,
            "other_when": self.other_when,
            "query_names": self.query_names or None,
            "detail": self.describe(),
        }


@dataclass(frozen=True)
class Move:
    """One step that moved a hit after fusion, and why: the explanation the window and CLI show.

    Positions are 1-based, before and after this step. For polarity and twin resolution `twin` is
    the near-twin that decided; for twin resolution the deciding words are `lacks` (query words
    the twin has and this hit does not), `adds` (this hit's own differing words the query does not
    say) and `matches` (query words this hit has and the twin lacks). For the newer-first step
    (`newer`) `twin` is the memory it contradicts that decided, `adds` this hit's differing value,
    `twin_adds` the other's, `kind` why they contradict, `side` this hit's side (NEWER, OLDER,
    SAME) and `named_side` whose value the query names ("this", "other" or "": the newer went first),
    `matches` the query's words naming it.
    """

    step: str
    from_position: int
    to_position: int
    twin: str | None = None
    lacks: tuple[str, ...] = ()
    adds: tuple[str, ...] = ()
    matches: tuple[str, ...] = ()
    twin_adds: tuple[str, ...] = ()
    kind: str = ""
    side: str = ""
    named_side: str = ""
    #: the newer-first step: the query named `named_side` by words its title adds to the other's
    by_title: bool = False

    def reason(self) -> str:
        up = self.to_position < self.from_position
        if self.step == "twins":
            return self._twin_reason(up)
        if self.step == "newer":
            return self._newer_reason(up)
        if self.step == "polarity":
            if self.twin and not up:
                return "its claim's polarity disagrees with your query's, and a near-twin agrees"
            return "a near-twin that disagrees with your query's polarity went below"
        if not up:
            return "it resembles a hit placed above it"
        return "hits above it that repeated each other were spread out"

    def _twin_reason(self, up: bool) -> str:
        if up:
            if self.matches and self.twin_adds:
                return (
                    f"its claim says your query's {_quoted(self.matches)} where its twin has {_quoted(self.twin_adds)}"
                )
            if self.matches:
                return f"its claim says your query's {_quoted(self.matches)}, which its twin lacks"
            if self.twin_adds:
                return f"its twin adds {_quoted(self.twin_adds)}, which your query does not say"
            return "it matches your query's words better than its near-twin"
        if self.lacks and self.adds:
            return f"its claim has {_quoted(self.adds)} where your query says {_quoted(self.lacks)}"
        if self.adds:
            return f"its claim adds {_quoted(self.adds)}, which your query does not say"
        if self.lacks:
            return f"its claim lacks your query's {_quoted(self.lacks)}, which its twin has"
        return "its near-twin matches your query's words better"

    def _newer_reason(self, up: bool) -> str:
        if self.twin is None:
            return "a newer memory was lifted to just above an older one it contradicts, above this one"
        mine = _said(self.adds[0] if self.adds else "")
        theirs = _said(self.twin_adds[0] if self.twin_adds else "")
        other = self.twin
        if self.by_title and self.named_side == "this":
            return (
                f"your query names its title's {_quoted(self.matches)}, which the title of {other} lacks; "
                f"{other} contradicts it: {theirs} against {mine}"
            )
        if self.by_title and self.named_side == "other":
            return (
                f"your query names {_quoted(self.matches)}, which the title of {other} adds to this one's; "
                f"{other} contradicts it: {theirs} against {mine}"
            )
        if self.named_side == "this":
            return f"your query names its {_quoted(self.matches)}; {other}, which contradicts it, says {theirs}"
        if self.named_side == "other":
            return f"your query names {_quoted(self.matches)}, which {other} says where this one says {mine}"
        why = kind_words(self.kind) if self.kind else "a contradiction"
        if up:
            return f"it is newer than {other}, which it contradicts: {mine} against {theirs} ({why})"
        return f"{other} is newer and contradicts it: {theirs} against {mine} ({why})"

    def describe(self) -> str:
        """ "moved by twin resolution from 2: its claim has '12' where your query says '2'"."""
        return f"moved by {STEP_NAMES.get(self.step, self.step)} from {self.from_position}: {self.reason()}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "from": self.from_position, "to": self.to_position}
        if self.twin is not None:
            out["twin"] = self.twin
        if self.step == "twins":
            out.update(
                lacks=list(self.lacks), adds=list(self.adds), matches=list(self.matches), twin_adds=list(self.twin_adds)
            )
        if self.step == "newer":
            out.update(
                kind=self.kind,
                side=self.side,
                value=self.adds[0] if self.adds else "",
                other_value=self.twin_adds[0] if self.twin_adds else "",
                query_names=self.named_side or None,
                named=list(self.matches),
            )
            if self.by_title:
                out["by_title"] = True
        out["reason"] = self.reason()
        return out


@dataclass(frozen=True)
class HitSignals:
    """The raw signals the relevance floor reads for one hit (seed 003, section 6.2.2).

    Fused scores cannot say "irrelevant" (they are ranks, and the top one is always on top), so the
    floor sits on raw evidence: `words` (the memory holds a content word of the query), `cosine`
    (its best chunk's raw cosine to the query, None without a query vector) at or above `floor`
    (the embedder's calibrated floor), `named` (tags or entities of the memory the query names).
    A hit meeting none of them is `low_relevance`; its place in the list is not changed.
    """

    words: bool
    cosine: float | None
    floor: float
    named: tuple[str, ...] = ()

    @property
    def met(self) -> tuple[str, ...]:
        out = []
        if self.words:
            out.append("words")
        if self.cosine is not None and self.cosine >= self.floor:
            out.append("cosine")
        if self.named:
            out.append("named")
        return tuple(out)

    @property
    def low(self) -> bool:
        return not self.met

    def to_json(self) -> dict[str, Any]:
        return {
            "met": list(self.met),
            "words": self.words,
            "cosine": None if self.cosine is None else round(self.cosine, 4),
            "floor": self.floor,
            "named": list(self.named),
        }


@dataclass(frozen=True)
class IndexStatus:
    """Whether the index has seen the whole store: `complete` once a full scan has finished.

    `files`: memories indexed (plus files that failed to parse) when incomplete; `seen`: files the
    scan in progress found on disk (None before any scan walked the tree).
    """

    complete: bool = True
    files: int | None = None
    seen: int | None = None

    def reason(self) -> str | None:
        if self.complete:
            return None
        if self.seen:
            return (
                f"index: incomplete, the first full index has not finished ({self.files} of {self.seen} files so far)"
            )
        return f"index: incomplete, the store has not been indexed in full yet ({self.files} files so far)"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class MatchCount:
    """How many in-scope memories hold the query's words in the lexical form that was bound."""

    form: str | None  # "all", "any", or None (no words)
    count: int = 0
    capped: bool = False  # counting stopped at `count`: there are more

    @property
    def any(self) -> bool:
        return self.count > 0

    def to_json(self) -> dict[str, Any]:
        return {"form": self.form, "count": self.count, "capped": self.capped, "any": self.any}


@dataclass(frozen=True)
class RelevanceSummary:
    """The relevance floor's diagnostics (seed 003, section 6.6): how many hits fall below it, and
    the top and median raw cosine over the fused candidates (a small gap between them means the
    whole pool sits in one similarity band, and the floor needs recalibrating for this store)."""

    floor_cosine: float
    below_floor: int = 0
    top_cosine: float | None = None
    median_cosine: float | None = None
    candidates: int = 0

    def to_json(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "floor_cosine": self.floor_cosine,
            "below_floor": self.below_floor,
            "top_cosine": r(self.top_cosine),
            "median_cosine": r(self.median_cosine),
            "candidates": self.candidates,
        }
