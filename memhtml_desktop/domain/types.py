"""The values that cross layers: a scope, a search result with its explanation, a recall pack.

Everything here is a frozen dataclass of plain values, so the index layer can build them, the CLI
can print them as JSON (`to_json()`), and the Qt models can hold them without copying.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from memhtml_desktop.domain.instants import as_of_instant
from memhtml_desktop.domain.paths import MEMORY_TYPES
from memhtml_desktop.domain.signals import (  # noqa: F401 - re-exported: the values a result carries
    STEP_NAMES,
    Disagreement,
    HitSignals,
    IndexStatus,
    MatchCount,
    Move,
    RelevanceSummary,
)

_SURROGATES = re.compile("[\ud800-\udfff]")

# Past these, a scope is not a filter a person made: it is refused with a clear message rather than
# handed to SQLite (32,766 bound variables at most; ~300 nested facet subqueries is too deep).
MAX_TAGS = 1000
MAX_FACET_NAMES = 64
MAX_FACET_VALUES = 1000


def clean_text(value: Any) -> str:
    """Caller text made safe to bind, store and print: a string, lone surrogates as U+FFFD.

    Python turns undecodable argv bytes and broken pastes into lone surrogates, which no UTF-8
    encoder (SQLite's, a JSON writer's, a terminal's) accepts.
    """
    text = value if isinstance(value, str) else str(value)
    return _SURROGATES.sub("\ufffd", text)


# A query is what a person types or an agent asks; past this it is a paste gone wrong (a 50 MB line
# took 37 s and 4 GB to tokenise and embed). It is cut, and the result says so.
MAX_QUERY_CHARS = 10_000


def bounded_query(value: Any) -> tuple[str, str | None]:
    """The query as searched (cut to MAX_QUERY_CHARS, then `clean_text`) and, when cut, the notice."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= MAX_QUERY_CHARS:
        return clean_text(text), None
    note = f"query: cut to its first {MAX_QUERY_CHARS:,} characters ({len(text):,} given)"
    return clean_text(text[:MAX_QUERY_CHARS]), note


def _optional(value: Any) -> str | None:
    if value is None:
        return None
    text = clean_text(value)
    return text if text.strip() else None


def _clean(values: Any) -> tuple[str, ...]:
    """A list of caller strings; a bare string is one item, a non-iterable is a TypeError."""
    if values is None:
        return ()
    if isinstance(values, (str, bytes)):
        values = (values,)
    return tuple(clean_text(v) for v in values)


@dataclass(frozen=True)
class Scope:
    """What a search, a recall or a listing may return. One predicate serves every arm.

    Axes combine with AND. Tags are any-of. Facets are `(name, value)` pairs: values under one name
    broaden (OR), different names narrow (AND). `entity` is one `type:name` reference, matched with
    case folded. By default archived files and tasks are out; naming `task` among the types opts
    tasks in.
    """

    memory_types: tuple[str, ...] = ()
    workspace: str | None = None
    tags: tuple[str, ...] = ()
    entity: str | None = None
    facets: tuple[tuple[str, str], ...] = ()
    include_archived: bool = False
    as_of: str | None = None
    para: str | None = None

    def __post_init__(self) -> None:
        """Every Scope is safe to hand to SQL: strings only, no lone surrogates, bounded lists."""
        set_ = object.__setattr__
        set_(self, "memory_types", _clean(self.memory_types))
        set_(self, "tags", _clean(self.tags))
        set_(self, "facets", tuple((clean_text(n), clean_text(v)) for n, v in self.facets))
        for name in ("workspace", "entity", "as_of", "para"):
            set_(self, name, _optional(getattr(self, name)))
        set_(self, "include_archived", bool(self.include_archived))
        if self.as_of is not None:
            as_of_instant(self.as_of)  # NotAnInstant (a ValueError) says what is wrong with it
        if len(set(self.live_tags)) > MAX_TAGS:
            raise ValueError(f"at most {MAX_TAGS} tags in one filter ({len(set(self.tags))} given)")
        names: dict[str, set[str]] = {}
        for name, value in self.live_facets:
            names.setdefault(name.strip(), set()).add(value.strip())
        if len(names) > MAX_FACET_NAMES:
            raise ValueError(f"at most {MAX_FACET_NAMES} facet names in one filter ({len(names)} given)")
        if any(len(values) > MAX_FACET_VALUES for values in names.values()):
            raise ValueError(f"at most {MAX_FACET_VALUES} values under one facet name")

    @classmethod
    def build(
        cls,
        *,
        memory_types: Any = (),
        workspace: str | None = None,
        tags: Any = (),
        entity: str | None = None,
        facets: Any = (),
        include_archived: bool = False,
        as_of: str | None = None,
        para: str | None = None,
    ) -> "Scope":
        """A scope from loose caller input; `facets` may be `name=value` strings or pairs."""
        pairs: list[tuple[str, str]] = []
        for facet in _clean(facets) if isinstance(facets, str) else (facets or ()):
            if isinstance(facet, str):
                name, sep, value = facet.partition("=")
                if not sep:
                    raise ValueError(f"facet {facet!r} is not NAME=VALUE")
                pairs.append((name.strip(), value.strip()))
            else:
                name, value = facet
                pairs.append((clean_text(name).strip(), clean_text(value).strip()))
        return cls(
            memory_types=_clean(memory_types),
            workspace=workspace,
            tags=_clean(tags),
            entity=entity,
            facets=tuple(pairs),
            include_archived=bool(include_archived),
            as_of=as_of,
            para=para,
        )

    @property
    def valid_types(self) -> tuple[str, ...]:
        return tuple(t for t in self.memory_types if t in MEMORY_TYPES)

    @property
    def live_tags(self) -> tuple[str, ...]:
        return tuple(t for t in self.tags if t.strip())

    @property
    def live_facets(self) -> tuple[tuple[str, str], ...]:
        return tuple((n, v) for n, v in self.facets if n)

    @property
    def narrowed(self) -> bool:
        """Whether the caller narrowed the scope (the default exclusions do not count)."""
        return bool(
            self.valid_types
            or (self.workspace or "").strip()
            or self.live_tags
            or (self.entity or "").strip()
            or self.live_facets
            or (self.para or "").strip()
        )

    def with_(self, **changes: Any) -> "Scope":
        values = asdict(self)
        values.update(changes)
        values["memory_types"] = _clean(values["memory_types"])
        values["tags"] = _clean(values["tags"])
        values["facets"] = tuple(tuple(p) for p in values["facets"])
        return Scope(**values)

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_types": list(self.memory_types),
            "workspace": self.workspace,
            "tags": list(self.tags),
            "entity": self.entity,
            "facets": [f"{n}={v}" for n, v in self.facets],
            "include_archived": self.include_archived,
            "as_of": self.as_of,
            "para": self.para,
        }


@dataclass(frozen=True)
class ArmScore:
    """One arm's say about one hit: where it ranked it and what that was worth.

    `contribution` is `weight / (rank + k)` under RRF; under a convex fusion (`domain/fusion.py`) a
    scored arm's is `weight × norm`, `weight` being the arm's weight times its share and `norm` its
    score normalised over the arm's window for this query. `raw` is the arm's own signal (bm25 value,
    best-chunk cosine distance, the coalesced time, or the three salience terms).
    """

    arm: str
    rank: int
    weight: float
    contribution: float
    raw: dict[str, Any] = field(default_factory=dict)
    counted: bool = True  # False: a prior arm gated off for this hit (`domain/priors.py`); contribution 0
    norm: float | None = None  # the normalised score a convex fusion weighed (None: a rank-based contribution)


@dataclass(frozen=True)
class Hit:
    path: str
    title: str
    gist: str
    memory_type: str
    score: float
    position: int
    fused_position: int
    moved_by: str | None
    snippet: str
    entities: tuple[str, ...]
    superseded_by: str | None
    arms: tuple[ArmScore, ...]
    confidence: float = 1.0
    updated_at: str = ""
    archived: bool = False
    moved_from: int | None = None  # the position before the step named by `moved_by`
    moves: tuple[Move, ...] = ()  # every post-fusion step that moved it, in order
    signals: HitSignals | None = None
    # A stamp the memory claims (event, updated, created) that lies after now: recency did not
    # believe it, and the window shows it as suspicious (domain.instants.future_claim).
    suspicious_date: str | None = None
    # The memories of the pool this one contradicts (domain/newer_first.py): under every profile.
    contradictions: tuple[Disagreement, ...] = ()

    @property
    def low_relevance(self) -> bool:
        return self.signals is not None and self.signals.low

    def arm(self, name: str) -> ArmScore | None:
        for score in self.arms:
            if score.arm == name:
                return score
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "title": self.title,
            "gist": self.gist,
            "memory_type": self.memory_type,
            "score": self.score,
            "position": self.position,
            "fused_position": self.fused_position,
            "moved_by": self.moved_by,
            "moved_from": self.moved_from,
            "moves": [m.to_json() for m in self.moves],
            "low_relevance": self.low_relevance,
            "relevance": self.signals.to_json() if self.signals else None,
            "snippet": self.snippet,
            "entities": list(self.entities),
            "superseded_by": self.superseded_by,
            "confidence": self.confidence,
            "updated_at": self.updated_at,
            "archived": self.archived,
            "suspicious_date": self.suspicious_date,
            "contradictions": [d.to_json() for d in self.contradictions],
            "arms": {
                a.arm: {
                    "rank": a.rank,
                    "weight": a.weight,
                    "contribution": a.contribution,
                    "raw": a.raw,
                    **({} if a.counted else {"counted": False}),
                    **({} if a.norm is None else {"normalised": a.norm}),
                }
                for a in self.arms
            },
        }


@dataclass(frozen=True)
class ArchivedPointer:
    """An archived memory matching a scope that emptied the live result, and what replaced it."""

    path: str
    title: str
    superseded_by: str | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SearchResult:
    query: str
    scope: Scope
    fts_form: str | None
    arms: tuple[str, ...]
    degraded: bool
    degraded_reasons: tuple[str, ...]
    scope_empty: bool
    archived_matches: int
    archived: tuple[ArchivedPointer, ...]
    hits: tuple[Hit, ...]
    elapsed_ms: float = 0.0
    ranking: str = "default"
    steps: tuple[str, ...] = ()  # the post-fusion steps the profile ran, in order
    matches: MatchCount = MatchCount(None)
    index: IndexStatus = IndexStatus()
    relevance: RelevanceSummary | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "ranking": self.ranking,
            "steps": list(self.steps),
            "scope": self.scope.to_json(),
            "fts_form": self.fts_form,
            "matches": self.matches.to_json(),
            "index": self.index.to_json(),
            "relevance": self.relevance.to_json() if self.relevance else None,
            "arms": list(self.arms),
            "degraded": self.degraded,
            "degraded_reasons": list(self.degraded_reasons),
            "scope_empty": self.scope_empty,
            "archived_matches": self.archived_matches,
            "archived": [a.to_json() for a in self.archived],
            "entity_scope": self.scope.entity,
            "hits": [h.to_json() for h in self.hits],
            "elapsed_ms": round(self.elapsed_ms, 3),
        }


TIERS = ("quote", "disclosure", "index")
REASONS = ("fits", "over_budget", "entity_cap")


@dataclass(frozen=True)
class RecallItem:
    """One memory's place in a recall pack.

    `tier` is `quote` (the disclosure text), `disclosure` (the claim alone) or `index` (path and
    title, never charged). `chars` is what it cost in UTF-16 units; `text` is exactly what the
    agent gets; `reason` says why it landed in its tier.
    """

    path: str
    title: str
    memory_type: str
    tier: str
    chars: int
    text: str
    reason: str
    rank: int
    # The memories of the pool this one contradicts (search's marks): the pack says so beside it.
    contradictions: tuple[Disagreement, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = {
            name: getattr(self, name)
            for name in ("path", "title", "memory_type", "tier", "chars", "text", "reason", "rank")
        }
        out["contradictions"] = [d.to_json() for d in self.contradictions]
        return out


@dataclass(frozen=True)
class RecallSection:
    name: str
    budget: int
    spent: int
    truncated: bool
    items: tuple[RecallItem, ...]

    @property
    def counts(self) -> dict[str, int]:
        counts = {tier: 0 for tier in TIERS}
        for item in self.items:
            counts[item.tier] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "spent": self.spent,
            "truncated": self.truncated,
            "counts": self.counts,
            "items": [i.to_json() for i in self.items],
        }


@dataclass(frozen=True)
class RecallPack:
    query: str
    scope: Scope
    degraded: bool
    degraded_reasons: tuple[str, ...]
    memories: RecallSection
    arcs: RecallSection
    elapsed_ms: float = 0.0
    ranking: str = "default"
    # The text says, beside a record, that another memory contradicts it (`default`; under `memhtml`
    # the items still carry their marks, the text stays what memhtml hands an agent).
    contradiction_notes: bool = False

    @property
    def spent(self) -> int:
        return self.memories.spent + self.arcs.spent

    @property
    def truncated(self) -> bool:
        return self.memories.truncated or self.arcs.truncated

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "ranking": self.ranking,
            "scope": self.scope.to_json(),
            "degraded": self.degraded,
            "degraded_reasons": list(self.degraded_reasons),
            "spent": self.spent,
            "truncated": self.truncated,
            "memories": self.memories.to_json(),
            "arcs": self.arcs.to_json(),
            "elapsed_ms": round(self.elapsed_ms, 3),
        }


@dataclass(frozen=True)
class ReinforceResult:
    """What a reinforce call did, per path, decided by the upsert's RETURNING and never inferred.

    `bumped`: access_count moved. `cooled_down`: it did not (read inside the cooldown).
    `signal_applied`: a positive/negative signal moved outcome_score and reinforcement_count.
    `signal_cooled`: a signal arrived inside its own cooldown and was not applied.
    """

    signal: str
    bumped: tuple[str, ...] = ()
    cooled_down: tuple[str, ...] = ()
    signal_applied: tuple[str, ...] = ()
    signal_cooled: tuple[str, ...] = ()
    refused: str | None = None
    # True when the write was attempted and failed (the plane stayed locked, the disk filled):
    # unlike a refusal by design (read-only store), something was lost and `refused` says what.
    lost: bool = False
    # True when the write could not be made now and was kept to be made later, with its own instant
    # (`.memhtml/state.db-pending.jsonl`, index/pending_reads.py): nothing is lost; `refused` says why.
    queued: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "signal": self.signal,
            "bumped": list(self.bumped),
            "cooled_down": list(self.cooled_down),
            "signal_applied": list(self.signal_applied),
            "signal_cooled": list(self.signal_cooled),
            "refused": self.refused,
            "lost": self.lost,
            "queued": self.queued,
        }


@dataclass(frozen=True)
class Link:
    """An authored edge seen from one memory: outgoing (`dst`) or incoming (`src`)."""

    rel: str
    path: str
    edge_class: str = "memory"
    exists: bool = True
    archived: bool = False
    title: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class MemoryDetail:
    """Everything the reader shows about one memory file, valid or not."""

    path: str
    title: str
    gist: str
    memory_type: str | None
    metas: tuple[tuple[str, str], ...]
    entities: tuple[str, ...]
    tags: tuple[str, ...]
    facets: tuple[tuple[str, str, float | None], ...]
    citations: tuple[tuple[str, str | None], ...]
    links: tuple[Link, ...]
    backlinks: tuple[Link, ...]
    text: str
    html: str
    archived: bool
    superseded_by: str | None
    indexed: bool
    violations: tuple[str, ...]
    warnings: tuple[str, ...]
    access: dict[str, Any] | None
    bump: "ReinforceResult | None" = None
    suspicious_date: str | None = None  # as on Hit: a claimed stamp that lies after now
    #: Reads counted on the versions it supersedes, (path, access count), where any were: a
    #: supersession leaves the loser's reads with its archived copy, and memhtml's own correct
    #: leaves the old version's there (docs/writing.md, "Keeping the graph").
    earlier_reads: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "title": self.title,
            "gist": self.gist,
            "memory_type": self.memory_type,
            "metas": [[n, v] for n, v in self.metas],
            "entities": list(self.entities),
            "tags": list(self.tags),
            "facets": [{"name": n, "value": v, "numeric_value": x} for n, v, x in self.facets],
            "citations": [{"text": t, "href": h} for t, h in self.citations],
            "links": [link.to_json() for link in self.links],
            "backlinks": [link.to_json() for link in self.backlinks],
            "text": self.text,
            "html": self.html,
            "archived": self.archived,
            "superseded_by": self.superseded_by,
            "indexed": self.indexed,
            "violations": list(self.violations),
            "warnings": list(self.warnings),
            "access": self.access,
            "bump": self.bump.to_json() if self.bump else None,
            "suspicious_date": self.suspicious_date,
            "earlier_reads": [{"path": p, "access_count": n} for p, n in self.earlier_reads],
        }
