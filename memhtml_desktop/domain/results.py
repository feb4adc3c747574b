"""The answers the index gives besides search and recall: one home for the result types.

`types.py` holds what a search or a recall returns; this module holds everything else a front end
shows: why a memory was not on the page (`WhyNot`), what needs a person's eye (`Problem`), the
counts beside every filter value (`FilterCounts`), a page of the plain listing, what a sidecar
import did, and how far the index is behind the tree (`Health`). They are plain values built by
`index/` and read by `ui/`, `cli/` and `watch/`, so none of those has to import an index module
(and with it apsw) to name the type it holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from memhtml_desktop.domain.fts_query import FtsQuery
from memhtml_desktop.domain.types import Hit, Scope, SearchResult

#: How many example paths a Health carries per list (the counts are exact).
SAMPLE = 20


@dataclass
class WhyNot:
    """Where one memory stood for a query and what kept it off the page (see index/explain.py)."""

    path: str
    query: str
    status: str  # "indexed", "invalid", "unreadable", "not_indexed", "not_a_memory"
    problems: list[str] = field(default_factory=list)
    excluded_by: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    arms: dict[str, dict[str, Any]] = field(default_factory=dict)
    fused_position: int | None = None
    fused_score: float | None = None
    search_position: int | None = None
    ranks_relaxed: bool = False
    ranking: str = "default"  # the profile the explanation ranked with
    moves: list[dict[str, Any]] = field(default_factory=list)  # the post-fusion steps that moved it

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class FilterCounts:
    """The count beside every filter value for the current query (see index/facets.py)."""

    query_matches: int = 0
    types: dict[str, int] = field(default_factory=dict)
    workspaces: dict[str, int] = field(default_factory=dict)
    tags: dict[str, int] = field(default_factory=dict)
    entities: dict[str, int] = field(default_factory=dict)
    facets: dict[str, dict[str, int]] = field(default_factory=dict)
    archived: int = 0

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ListedMemory:
    path: str
    title: str
    memory_type: str
    gist: str
    workspace: str | None
    para: str
    confidence: float
    importance: int
    archived: bool
    updated_at: str
    task_status: str | None
    due_at: str | None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ListPage:
    files: tuple[ListedMemory, ...]
    next_cursor: str | None

    def to_json(self) -> dict[str, Any]:
        return {"files": [f.to_json() for f in self.files], "next_cursor": self.next_cursor}


@dataclass(frozen=True)
class Problem:
    """A file the user should look at: `invalid`, `unreadable`, `warnings` or `duplicate`."""

    path: str
    kind: str
    violations: tuple[str, ...]
    warnings: tuple[str, ...]
    detected_at: str
    duplicates: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "violations": list(self.violations),
            "warnings": list(self.warnings),
            "detected_at": self.detected_at,
            "duplicates": list(self.duplicates),
        }


@dataclass(frozen=True)
class ImportReport:
    """What an import did.

    `imported`: rows inserted or changed. `unchanged`: valid lines the plane already held at least as
    fresh (re-importing a file is a no-op, so this is everything the second time).
    `skipped_lines`: lines that did not parse or were invalid; `errors` says why, one
    `line N: reason` each (the first MAX_REPORTED_ERRORS of them).
    """

    imported: int
    skipped_lines: int
    errors: list[str] = field(default_factory=list)
    unchanged: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "unchanged": self.unchanged,
            "skipped_lines": self.skipped_lines,
            "errors": list(self.errors),
        }


@dataclass(frozen=True)
class Health:
    """The tree compared with the index: what the health panel lists.

    `unindexed`: memory files on disk the index has not caught up with (no row, or a row for an
    older size/mtime). `orphans`: index rows whose file is gone. `failed`: files on disk that were
    read and failed to parse or validate (they are in `Store.problems()` with the reasons).
    Each list holds at most SAMPLE paths; the counts are exact.
    """

    unindexed: int = 0
    orphans: int = 0
    failed: int = 0
    unindexed_paths: tuple[str, ...] = ()
    orphan_paths: tuple[str, ...] = ()
    failed_paths: tuple[str, ...] = ()
    checked_at: str = ""

    @property
    def in_step(self) -> bool:
        return not self.unindexed and not self.orphans


@dataclass(frozen=True)
class StatePlane:
    """The store's state plane (`.memhtml/state.db`) as the window's status bar shows it.

    `mode`: 'rw' (reads are counted), 'ro' (salience is read, reads are not counted) or None (no
    plane: salience is off). `reason`: why it is not 'rw' when that is worth saying (a FIFO in its
    place, a schema this app does not know, a lock, a full disk). `waiting`: reads and judgements
    kept until the plane can take them (index/pending_reads.py)."""

    mode: str | None = "rw"
    reason: str = ""
    waiting: int = 0

    @property
    def healthy(self) -> bool:
        return self.mode == "rw" and not self.reason and not self.waiting


#: Matching memories are counted up to this many; past it the count says "10,000+".
MATCH_COUNT_CAP = 10_000


@dataclass(frozen=True)
class FusedPool:
    """The fused list a search drew its page from, deeper than the page (see index/pool.py).

    `entries` are hits in FUSED order (`position` is the fused position, nothing moved them): the
    first `depth` of every candidate the arms' windows returned. `page` holds the paths on the
    agent's page, in the agent's order (after polarity and MMR); `pool_size` is how many of the
    fused list those steps chose from. `more` says the arms returned candidates past `entries`.
    `matches` counts in-scope memories holding the query's words in the form the lexical arm bound
    (None without words; `matches_capped` when it stopped at MATCH_COUNT_CAP); `in_scope` counts
    every memory the scope admits (what recency and salience rank).
    """

    query: str
    scope: Scope
    limit: int
    pool_size: int
    entries: tuple[Hit, ...]
    page: tuple[str, ...]
    more: bool
    fts_form: str | None
    matches: int | None
    matches_capped: bool
    in_scope: int

    @property
    def no_word_matched(self) -> bool:
        """The query has words and no memory in scope holds them."""
        return self.matches == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "scope": self.scope.to_json(),
            "limit": self.limit,
            "pool_size": self.pool_size,
            "entries": [h.to_json() for h in self.entries],
            "page": list(self.page),
            "more": self.more,
            "fts_form": self.fts_form,
            "matches": self.matches,
            "matches_capped": self.matches_capped,
            "in_scope": self.in_scope,
        }


@dataclass(frozen=True)
class Answer:
    """One search, whole: the page, the fused pool behind it and the parsed query, from ONE read.

    The search job makes it (`Store.answer`) and the window's driver emits it once; the list, the
    pool chart, the reader's highlighting and *Why not?* all read this one value, so nothing pairs a
    pool with its page again. `generation` numbers the driver's searches: an answer older than the
    one shown is dropped. `pool` is None for an answer with no hits (nothing to list behind it);
    `deeper(pool)` is the same answer with a deeper pool ("show more": not a new search).
    """

    result: SearchResult
    pool: FusedPool | None
    fts: FtsQuery  # the query as parsed once, for every reader of this answer
    limit: int
    generation: int = 0

    @property
    def query(self) -> str:
        return self.result.query

    @property
    def scope(self) -> Scope:
        return self.result.scope

    @property
    def hits(self) -> tuple[Hit, ...]:
        return self.result.hits

    @property
    def highlight_words(self) -> tuple[str, ...]:
        return self.fts.highlight_words

    def same_ask(self, other: Answer | None) -> bool:
        """`other` answered the same query, scope and page size (a re-run after the store changed)."""
        return other is not None and (other.query, other.scope, other.limit) == (self.query, self.scope, self.limit)

    def deeper(self, pool: FusedPool) -> Answer:
        return replace(self, pool=pool)


@dataclass(frozen=True)
class MemoryRef:
    """A memory found by its title or path (the "why not?" chooser's completions)."""

    path: str
    title: str
    memory_type: str
    archived: bool = False

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)
