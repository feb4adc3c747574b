"""Progressive disclosure (seed 003, 6.3): a catalogue of the top k, then expanding one or two.

The catalogue gives, per candidate, only a pointer, its title, its one-line summary (the claim) and
what expanding it would cost: no body text. Expanding one memory gives its body, its neighbours
(authored links, backlinks, the supersession chain) and its evidence chain (the `<cite>` and
`<q cite>` sources), with that call's cost. The agent pays O(catalogue + a few) instead of
O(everything), on one condition the seed states: the catalogue must tell the candidates apart.
Two entries with the same title and summary cannot be chosen between without expanding both, so
they are a finding (`Catalogue.indistinct`).

Costs are UTF-16 code units of exactly the text handed over, like the recall fold's. Under a budget
the catalogue spends its lines in rank order; a line that does not fit is left out whole (never cut)
and the next, shorter one may still fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from memhtml_desktop.domain.disclosure import _attr, _escape, utf16_len
from memhtml_desktop.domain.ranking import HASH_MODEL, MINILM_INT8_MODEL, MINILM_MODEL, PerEmbedder
from memhtml_desktop.domain.types import Scope


def one_line(text: str) -> str:
    """Whitespace (newlines included) collapsed to single spaces: the claim whole, on one line."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Neighbour:
    """An authored edge touching the expanded memory. `direction`: "out" (a link), "in" (a backlink)."""

    rel: str
    direction: str
    path: str
    title: str = ""
    exists: bool = True
    archived: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "rel": self.rel,
            "direction": self.direction,
            "path": self.path,
            "title": self.title,
            "exists": self.exists,
            "archived": self.archived,
        }


@dataclass(frozen=True)
class Version:
    """One memory of the supersession chain. `step`: -n is n versions older, +n newer."""

    path: str
    title: str
    step: int
    archived: bool = False
    exists: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "title": self.title,
            "step": self.step,
            "archived": self.archived,
            "exists": self.exists,
        }


@dataclass(frozen=True)
class Evidence:
    """A source the memory cites: the cited text, the `q`'s `cite` href, and the memory it names."""

    text: str
    href: str | None = None
    path: str | None = None  # the store memory the href points at, when it points at one
    title: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "href": self.href, "path": self.path, "title": self.title}


EXPAND_BODY_CAP = 20_000
"""Characters of a memory's body an expansion hands over. A memory is one fact; a body past this
(a pasted log, a transcript: a 5 MB memory's expansion was 5.19 M characters) would spend more than
the whole recall budget (16,000) on one call. The cut falls at a paragraph's end, else a sentence's,
else a space, never inside a word, and a marker line says how much was left out and where the whole
of it is (docs/recall.md, "Catalogue and expand")."""


def cut_body(body: str, cap: int = EXPAND_BODY_CAP) -> tuple[str, int]:
    """`(kept, left out)`: `body` whole when it fits `cap`, else its head up to the last paragraph
    end, sentence end or space within `cap` (half a sentence reads as a whole one: seed 003, 6.4.2)."""
    if len(body) <= cap:
        return body, 0
    head = body[:cap]
    for stops in (("\n",), (". ", "! ", "? ", ".\n"), (" ",)):
        at = max(head.rfind(stop) for stop in stops)
        if at > cap // 2:
            keep = head[: at + (1 if stops[0] != "\n" and stops[0] != " " else 0)].rstrip()
            return keep, len(body) - len(keep)
    return head, len(body) - cap


@dataclass(frozen=True)
class Expansion:
    """What an expand call returns for one memory, and what it costs (`cost` = len(`text`)). A body
    over `EXPAND_BODY_CAP` is handed over cut, with a marker (`shown_body`, `body_cut`)."""

    path: str
    title: str
    memory_type: str
    body: str
    neighbours: tuple[Neighbour, ...] = ()
    chain: tuple[Version, ...] = ()
    evidence: tuple[Evidence, ...] = ()

    @property
    def shown_body(self) -> str:
        return cut_body(self.body)[0]

    @property
    def body_cut(self) -> int:
        """Characters of the body the expansion leaves out (0: none)."""
        return cut_body(self.body)[1]

    @property
    def cut_note(self) -> str:
        cut = self.body_cut
        if not cut:
            return ""
        return (
            f"[cut: {cut:,} of this memory's {len(self.body):,} characters are not in this expansion "
            f"(expand hands over {EXPAND_BODY_CAP:,} at most); the whole of it is the file {self.path}]"
        )

    @property
    def text(self) -> str:
        return render_expansion(self)

    @property
    def cost(self) -> int:
        return utf16_len(self.text)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "title": self.title,
            "memory_type": self.memory_type,
            "body": self.shown_body,
            "body_chars": len(self.body),
            "body_cut": self.body_cut,
            "neighbours": [n.to_json() for n in self.neighbours],
            "chain": [v.to_json() for v in self.chain],
            "evidence": [e.to_json() for e in self.evidence],
            "cost": self.cost,
            "text": self.text,
        }


def render_expansion(e: Expansion) -> str:
    """The expansion as handed to the agent: the body, then neighbours, chain and evidence (each
    section only when it has something). Escaped like the recall pack, so a stored tag stays text."""
    lines = [
        f'<memory path="{_attr(e.path)}" type="{_attr(e.memory_type)}" title="{_attr(e.title)}" '
        'source="stored memory, may be stale">',
        _escape(e.shown_body),
    ]
    if e.body_cut:
        lines.append(_escape(e.cut_note))
    lines.append("</memory>")
    if e.neighbours:
        lines.append("<neighbours>")
        lines.extend(
            f'<link rel="{_attr(n.rel)}" dir="{n.direction}" path="{_attr(n.path)}" title="{_attr(n.title)}"/>'
            for n in e.neighbours
        )
        lines.append("</neighbours>")
    if len(e.chain) > 1:
        lines.append("<supersession>")
        lines.extend(
            f'<version step="{v.step}" path="{_attr(v.path)}" title="{_attr(v.title)}"'
            + (' archived="yes"' if v.archived else "")
            + "/>"
            for v in e.chain
        )
        lines.append("</supersession>")
    if e.evidence:
        lines.append("<evidence>")
        for source in e.evidence:
            attrs = (f' href="{_attr(source.href)}"' if source.href else "") + (
                f' path="{_attr(source.path)}"' if source.path else ""
            )
            lines.append(f"<source{attrs}>{_escape(source.text)}</source>")
        lines.append("</evidence>")
    return "\n".join(lines)


@dataclass(frozen=True)
class CatalogueEntry:
    """One candidate as the catalogue lists it. `line` is exactly what the agent reads; `listed`
    is False when the budget left it out (whole: a line is never cut)."""

    rank: int
    path: str
    title: str
    summary: str
    memory_type: str
    expand_cost: int
    listed: bool = True

    @property
    def line(self) -> str:
        head = f"{self.rank}. {self.path} — {self.title}" if self.title else f"{self.rank}. {self.path}"
        return (
            f"{head}: {self.summary} [expand: {self.expand_cost} chars]"
            if self.summary
            else f"{head} [expand: {self.expand_cost} chars]"
        )

    @property
    def cost(self) -> int:
        return utf16_len(self.line)

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "path": self.path,
            "title": self.title,
            "summary": self.summary,
            "memory_type": self.memory_type,
            "cost": self.cost,
            "expand_cost": self.expand_cost,
            "listed": self.listed,
            "line": self.line,
        }


def _key(entry: CatalogueEntry) -> tuple[str, str]:
    return one_line(entry.title).casefold(), one_line(entry.summary).casefold()


@dataclass(frozen=True)
class Catalogue:
    query: str
    scope: Scope
    k: int
    budget: int
    entries: tuple[CatalogueEntry, ...]
    degraded_reasons: tuple[str, ...] = ()
    ranking: str = "default"
    question: str = ""  # "specific" or "vague" (see `question_kind`), "" without words
    question_why: str = ""
    elapsed_ms: float = field(default=0.0, compare=False)

    @property
    def listed(self) -> tuple[CatalogueEntry, ...]:
        return tuple(e for e in self.entries if e.listed)

    @property
    def cost(self) -> int:
        """The catalogue call: every listed line, with its newline."""
        return sum(e.cost + 1 for e in self.listed)

    @property
    def dropped(self) -> int:
        return len(self.entries) - len(self.listed)

    def with_expansions(self, n: int) -> int:
        """The catalogue plus expanding its first `n` listed entries (what the seed's caller pays)."""
        return self.cost + sum(e.expand_cost for e in self.listed[: max(0, n)])

    @property
    def smallest_line(self) -> int | None:
        return min((e.cost + 1 for e in self.entries), default=None)

    @property
    def does_not_fit(self) -> bool:
        return self.smallest_line is not None and self.budget < self.smallest_line

    @property
    def indistinct(self) -> tuple[tuple[str, ...], ...]:
        """Groups of entries (paths, rank order) whose title and summary read the same: the catalogue
        cannot tell them apart, so choosing one means expanding them all."""
        groups: dict[tuple[str, str], list[str]] = {}
        for e in self.entries:
            groups.setdefault(_key(e), []).append(e.path)
        return tuple(tuple(paths) for paths in groups.values() if len(paths) > 1)

    def to_json(self) -> dict[str, Any]:
        return {
            "shape": "catalog",
            "query": self.query,
            "ranking": self.ranking,
            "scope": self.scope.to_json(),
            "k": self.k,
            "budget": self.budget,
            "cost": self.cost,
            "dropped": self.dropped,
            "does_not_fit": self.does_not_fit,
            "smallest_line": self.smallest_line,
            "with_first_expanded": self.with_expansions(1),
            "with_two_expanded": self.with_expansions(2),
            "question": self.question,
            "question_why": self.question_why,
            "indistinct": [list(g) for g in self.indistinct],
            "degraded_reasons": list(self.degraded_reasons),
            "entries": [e.to_json() for e in self.entries],
        }


def list_within(entries: Sequence[CatalogueEntry], budget: int) -> tuple[CatalogueEntry, ...]:
    """Mark which lines the budget lists, in rank order, skipping a line that does not fit whole."""
    spent, out = 0, []
    for e in entries:
        fits = spent + e.cost + 1 <= budget
        spent += e.cost + 1 if fits else 0
        out.append(CatalogueEntry(e.rank, e.path, e.title, e.summary, e.memory_type, e.expand_cost, fits))
    return tuple(out)


LEAD = {
    "convex": PerEmbedder(((HASH_MODEL, 0.06), (MINILM_MODEL, 0.16), (MINILM_INT8_MODEL, 0.16)), 0.06),
    "rrf": PerEmbedder(((HASH_MODEL, 0.18), (MINILM_MODEL, 0.08), (MINILM_INT8_MODEL, 0.08)), 0.18),
}
"""How far the top fused score must lead the second (a share of the top) for one memory to stand
out, per fusion (`RankingProfile.fusion`: convex scores and RRF sums spread differently) and per
embedder (the convex fusion's lexical share is the embedder's): each chosen on the real-question
training sets by bench/question_kind_eval.py (docs/recall.md, "Specific or vague")."""


def score_lead(scores: Sequence[float]) -> float:
    """The top fused score's lead over the second, as a share of the top: 1.0 for a lone hit, 0.0
    without a positive top score. Fused scores are relative (the top is on top whether the query
    matched anything or not), so only the gap between the first two says one memory stands out."""
    if not scores or scores[0] <= 0:
        return 0.0
    if len(scores) == 1:
        return 1.0
    return max(0.0, (scores[0] - scores[1]) / scores[0])


def question_kind(
    form: str | None, count: int, k: int, scores: Sequence[float] = (), lead: float = 0.06
) -> tuple[str, str]:
    """How determinate the question is, read off what it matched (not off the profile's match form):
    "specific" when every content word of it is held by no more memories than the catalogue lists
    (`count`, the all-words count whatever form the lexical arm bound: `Retriever.every_word_count`),
    or when one memory stands out (the page's fused `scores`: the top leads the second by `lead` or
    more); "vague" otherwise. The seed's rule: direct recall is cheaper for a specific question,
    catalogue plus expansion for a vague one. `form` "any" (an older caller's bound form) says
    nothing about how many hold every word, so only the scores can make it specific."""
    if form is None:
        return "", "no words to match"
    if form == "all" and 0 < count <= k:
        return "specific", f"every word is in {count} {'memory' if count == 1 else 'memories'}"
    ahead = score_lead(scores)
    if scores and ahead >= lead:
        return "specific", f"one memory stands out (its score leads the next by {ahead:.0%})"
    tail = ", and none stands out" if scores else ""
    if form == "all" and count > 0:
        more = "more than 100" if count > 100 else f"{count:,}"
        return "vague", f"every word is in {more} memories, more than the {k} listed{tail}"
    return "vague", f"no memory holds every word{tail}"


def render_catalogue_text(cat: Catalogue) -> str:
    lines = [f'<catalog query="{_attr(cat.query)}" k="{cat.k}">']
    lines.extend(_escape(e.line) for e in cat.listed)
    lines.append("</catalog>")
    note = "does not fit: the budget is below the shortest line" if cat.does_not_fit else ""
    lines.append(
        f"ledger: budget {cat.budget}, spent {cat.cost}, listed {len(cat.listed)}, dropped {cat.dropped}"
        + (f"; {note}" if note else "")
    )
    return "\n".join(lines)
