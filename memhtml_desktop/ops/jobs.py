"""Typed background jobs: one small object per kind of work, with its success and failure handlers.

In the spirit of Anki's `aqt/operations` (`CollectionOp(...).success(...).failure(...)`): a job
names its kind (its generation line in the Runner), whether it writes (the one-thread writer
pool), whether a newer job of its kind replaces it, the work itself as a plain method
`run(store, cancelled, progress)` that never touches Qt, and the StoreChange it made, which the
Runner announces on `StoreEvents.changed` after the success handler ran.

So a job is testable without Qt (`SearchJob("drain", Scope(), 10).run(store, never, quiet)`), and
a new pane adds its own job class beside its view instead of another `runner.submit` lambda in
the window.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Generic, TypeVar

from memhtml_desktop.domain.catalogue import Expansion
from memhtml_desktop.domain.fts_query import FtsQuery
from memhtml_desktop.domain.ranking import RankingProfile
from memhtml_desktop.domain.results import Answer, FilterCounts, FusedPool, ImportReport, MemoryRef, StatePlane, WhyNot
from memhtml_desktop.domain.shapes import ShapeComparison
from memhtml_desktop.domain.types import MemoryDetail, RecallPack, ReinforceResult, Scope
from memhtml_desktop.html.render import render_safe_html
from memhtml_desktop.index.doors import IndexDoor, ReadDoor, SearchDoor, StateDoor, StoreDoors
from memhtml_desktop.ops.changes import StoreChange

T = TypeVar("T")
Cancelled_ = Callable[[], bool]
Progress = Callable[[str, int, int], None]


class Cancelled(Exception):
    """A job noticed its cancel flag and stopped; its result is not wanted."""


def check(cancelled: Cancelled_) -> None:
    if cancelled():
        raise Cancelled()


@dataclass(kw_only=True)
class Job(Generic[T]):
    """Base of every job. Subclasses set the class attributes and implement `run`."""

    kind: ClassVar[str] = "job"
    writer: ClassVar[bool] = False  # runs on the one-thread writer pool
    pool: ClassVar[str] = ""  # a named one-thread pool of its own instead (Runner._named_pool)
    replace: ClassVar[bool] = True  # a newer job of this kind cancels this one and drops its answer
    process: ClassVar[bool] = False  # heavy: scores or parses a whole store or probe set
    stoppable: ClassVar[bool] = False  # has a Stop of its own: `stop` (an Event the engine gives) ends it early

    on_success: Callable[[T], Any] | None = field(default=None, repr=False, compare=False)
    on_failure: Callable[[str], Any] | None = field(default=None, repr=False, compare=False)
    on_progress: Callable[[str, int, int], Any] | None = field(default=None, repr=False, compare=False)

    def success(self, handler: Callable[[T], Any]) -> Job[T]:
        self.on_success = handler
        return self

    def failure(self, handler: Callable[[str], Any]) -> Job[T]:
        self.on_failure = handler
        return self

    def progress(self, handler: Callable[[str, int, int], Any]) -> Job[T]:
        self.on_progress = handler
        return self

    def run(self, store: StoreDoors, cancelled: Cancelled_, progress: Progress) -> T:  # an engine lane
        """The work, in the engine (or a CLI command's process). Each job types `store` as the
        door it uses (index/doors.py), so what it may do to the store is read from its signature."""
        raise NotImplementedError

    def changes(self, value: T) -> StoreChange | None:
        """What this job changed in the store (announced after `on_success`); None: nothing."""
        return None

    def portable(self) -> Job[T]:
        """This job without its handlers (they live in the window): what the engine runs."""
        return replace(self, on_success=None, on_failure=None, on_progress=None)


@dataclass(frozen=True)
class Opened:
    """A memory read for the reader: the detail and its sanitised HTML, from ONE read of the file."""

    detail: MemoryDetail
    safe_html: str


def open_memory(store: Any, path: str, terms: tuple[str, ...], bump: bool, cancelled: Cancelled_) -> Opened:
    """Read one memory. With `bump` this is a read: salience moves once (cooldown respected).

    The detail and the rendered article come from the same bytes (`Store.read_with_bytes`): an
    editor saving between two reads cannot put one version's facts over another's text.
    """
    check(cancelled)
    detail, data = store.read_with_bytes(path, bump=bump)
    return Opened(detail, render_safe_html(data, highlight_terms=terms))


# -- reads --------------------------------------------------------------------------------------


@dataclass
class SearchJob(Job[Answer]):
    """A search never bumps anything: it only ranks.

    Its answer is one `Answer`: the page, the fused pool behind it listed `depth` deep (its totals
    only when `depth` is 0) and the query parsed once, from one run of the pipeline (`Store.answer`).
    `generation` numbers the asker's searches (the driver drops an answer older than the one shown).
    """

    kind: ClassVar[str] = "search"
    query: str
    scope: Scope
    limit: int
    depth: int = 0
    generation: int = 0
    ranking: RankingProfile | None = None  # the asker's profile (None: the store's)

    def run(self, store: SearchDoor, cancelled: Cancelled_, progress: Progress) -> Answer:
        check(cancelled)
        return store.answer(
            self.query, self.scope, limit=self.limit, depth=self.depth, generation=self.generation, ranking=self.ranking
        )


@dataclass
class CountsJob(Job[FilterCounts]):
    """The count beside every filter value for the query (`universe`: the store's own values).

    It runs in the engine's process, so it no longer waits before counting (it slept 0.15 s while
    it shared the window's interpreter lock with the turns that list and paint an answer; see
    docs/architecture.md, "What went away")."""

    kind: ClassVar[str] = "counts"
    query: str
    scope: Scope

    def run(self, store: SearchDoor, cancelled: Cancelled_, progress: Progress) -> FilterCounts:
        check(cancelled)
        return store.counts(self.query, self.scope)


@dataclass
class PoolJob(Job[FusedPool]):
    """The fused list behind the page, `depth` deep, and the totals (matching, in scope)."""

    kind: ClassVar[str] = "pool"
    query: str
    scope: Scope
    limit: int
    depth: int
    fts: FtsQuery | None = None  # the query as its Answer parsed it
    ranking: RankingProfile | None = None

    def run(self, store: SearchDoor, cancelled: Cancelled_, progress: Progress) -> FusedPool:
        check(cancelled)
        return store.pool(
            self.query, self.scope, limit=self.limit, depth=self.depth, fts=self.fts, ranking=self.ranking
        )


@dataclass
class ListedCountsJob(Job[FilterCounts]):
    """The filter values of exactly the listed hits (the "on the page" column)."""

    kind: ClassVar[str] = "listed"
    paths: tuple[str, ...]

    def run(self, store: SearchDoor, cancelled: Cancelled_, progress: Progress) -> FilterCounts:
        check(cancelled)
        return store.counts_of(self.paths)


@dataclass
class FindJob(Job[list[MemoryRef]]):
    """Memories whose title or path holds the text (choosing a memory by name)."""

    kind: ClassVar[str] = "find"
    text: str
    limit: int = 20

    def run(self, store: ReadDoor, cancelled: Cancelled_, progress: Progress) -> list[MemoryRef]:
        check(cancelled)
        return store.find_memories(self.text, limit=self.limit)


@dataclass
class UniverseJob(CountsJob):
    """Every filter value the store has (empty query, empty scope): fixes the panel's row order."""

    kind: ClassVar[str] = "universe"
    query: str = ""
    scope: Scope = field(default_factory=Scope)


@dataclass
class RecallJob(Job[RecallPack]):
    kind: ClassVar[str] = "recall"
    query: str
    scope: Scope
    budget: int
    limit: int
    ranking: RankingProfile | None = None

    def run(self, store: SearchDoor, cancelled: Cancelled_, progress: Progress) -> RecallPack:
        check(cancelled)
        return store.recall(self.query, self.scope, budget=self.budget, limit=self.limit, ranking=self.ranking)


# -- the recall pane: every shape for the query in the box, and one expansion -------------------

CATALOGUE_K = 10


@dataclass
class ShapesJob(Job[ShapeComparison]):
    """memhtml's pack, the quota ledgers (the store's ledger map, else the seed's) and the catalogue.
    `answer`: the search of this query and scope the list shows (its parse and page are reused)."""

    kind: ClassVar[str] = "recall"
    query: str
    scope: Scope
    budget: int
    limit: int
    k: int = CATALOGUE_K
    answer: Answer | None = field(default=None, repr=False)
    ranking: RankingProfile | None = None

    def run(self, store: SearchDoor, cancelled: Cancelled_, progress: Progress) -> ShapeComparison:
        check(cancelled)
        ledgers = store.ledger_map(lenient=True)  # a bad file is a notice, and the seed's map is used
        return store.shapes(
            self.query,
            self.scope,
            budget=self.budget,
            limit=self.limit,
            k=self.k,
            ledgers=ledgers,
            answer=self.answer,
            ranking=self.ranking,
        )


@dataclass
class ExpandJob(Job[Expansion]):
    kind: ClassVar[str] = "expand"
    path: str

    def run(self, store: SearchDoor, cancelled: Cancelled_, progress: Progress) -> Expansion:
        check(cancelled)
        return store.expand(self.path)


@dataclass
class OpenJob(Job[Opened]):
    """Open a memory in the reader; `bump` (a person's open) counts a read, a re-read does not."""

    kind: ClassVar[str] = "open"
    path: str
    terms: tuple[str, ...] = ()
    bump: bool = True

    def run(self, store: ReadDoor, cancelled: Cancelled_, progress: Progress) -> Opened:
        return open_memory(store, self.path, self.terms, self.bump, cancelled)

    def changes(self, value: Opened) -> StoreChange | None:
        return StoreChange(state=frozenset({self.path})) if self.bump else None


@dataclass(frozen=True)
class Gone:
    """A memory re-read after a change is no longer on disk (moved or deleted): an answer, not a
    failure, so the log gets no traceback for a move the window itself (or a watcher batch that
    outran a write's own answer) made."""

    path: str
    message: str


@dataclass
class RereadJob(OpenJob):
    """The open memory again after a change on disk: never a read. `Gone` when it is not there."""

    kind: ClassVar[str] = "reread"
    bump: bool = False

    def run(self, store: ReadDoor, cancelled: Cancelled_, progress: Progress) -> Opened | Gone:
        from memhtml_desktop.index.store import MemoryNotFound

        try:
            return super().run(store, cancelled, progress)
        except MemoryNotFound as exc:
            return Gone(self.path, str(exc))


@dataclass
class ReinforceJob(Job[tuple[ReinforceResult, Opened, "dict | None"]]):
    """Helpful / not helpful: record it, then re-read the memory WITHOUT counting another read.

    With `previous` (the person's own signal on this memory, still inside the signal cooldown) the
    new signal replaces it instead (`Store.replace_signal`): a misclick is taken back. The answer
    carries the memory's state row as it was before, so the note can say what moved.
    """

    kind: ClassVar[str] = "reinforce"
    replace: ClassVar[bool] = False  # every click is recorded
    path: str
    signal: str
    terms: tuple[str, ...] = ()
    previous: str | None = None

    def run(
        self, store: StoreDoors, cancelled: Cancelled_, progress: Progress
    ) -> tuple[ReinforceResult, Opened, dict | None]:
        before = store.read(self.path, bump=False).access
        if self.previous is not None:
            result = store.replace_signal(self.path, self.previous, self.signal)
        else:
            result = store.reinforce([self.path], self.signal)
        return result, open_memory(store, self.path, self.terms, False, cancelled), before

    def changes(self, value) -> StoreChange | None:
        return StoreChange(state=frozenset({self.path}))


@dataclass
class WhyJob(Job[WhyNot]):
    kind: ClassVar[str] = "why"
    query: str
    scope: Scope
    path: str
    limit: int = 10
    fts: FtsQuery | None = None  # the query as the Answer shown parsed it
    ranking: RankingProfile | None = None

    def run(self, store: SearchDoor, cancelled: Cancelled_, progress: Progress) -> WhyNot:
        check(cancelled)
        return store.why(self.query, self.scope, self.path, limit=self.limit, fts=self.fts, ranking=self.ranking)


@dataclass
class ProblemsJob(Job[tuple[list, dict]]):
    kind: ClassVar[str] = "problems"

    def run(self, store: ReadDoor, cancelled: Cancelled_, progress: Progress) -> tuple[list, dict]:
        check(cancelled)
        return store.problems(), store.stats()


@dataclass
class StatsJob(Job[dict]):
    kind: ClassVar[str] = "stats"

    def run(self, store: ReadDoor, cancelled: Cancelled_, progress: Progress) -> dict:
        check(cancelled)
        return store.stats()


@dataclass
class MemoryJob(Job[dict]):
    """Where the memory of the process running it is (the engine's, for the soak's samples):
    SQLite's heap, glibc's heap in use and free, Python's objects (memhtml_desktop/memory.py)."""

    kind: ClassVar[str] = "memory"

    def run(self, store: ReadDoor, cancelled: Cancelled_, progress: Progress) -> dict:
        check(cancelled)
        from memhtml_desktop.memory import heap_report

        return {**store.sqlite_heap(), **heap_report()}


@dataclass
class StatePlaneJob(Job[StatePlane]):
    """The state plane now (`Store.state_plane`): the status bar asks every few seconds, so a
    `state.db` replaced, deleted or turned into a FIFO while the window sits idle is said within
    seconds, and reads kept while it could not be written are written once it can. While all is
    well it costs one `stat` and one `lstat`."""

    kind: ClassVar[str] = "state-plane"

    def run(self, store: StateDoor, cancelled: Cancelled_, progress: Progress) -> StatePlane:
        check(cancelled)
        return store.state_plane()


@dataclass
class WarmJob(Job[int]):
    """Load the vector snapshot in the background on opening a store (the first search is fast)."""

    kind: ClassVar[str] = "warm"

    def run(self, store: IndexDoor, cancelled: Cancelled_, progress: Progress) -> int:
        return store.warm()


# -- writes -------------------------------------------------------------------------------------


@dataclass
class ReconcileJob(Job[Any]):
    """Bring the index in step with the tree (watching off, or asked for); optionally seed salience first.

    The store's `.memhtml/state/access.jsonl` (memhtml's shareable export of the state plane) is
    imported first when asked, so a fresh copy of the demo store opens with reads to rank by.
    """

    kind: ClassVar[str] = "reconcile"
    writer: ClassVar[bool] = True
    process: ClassVar[bool] = True
    import_sidecar: bool = False

    def run(self, store: StoreDoors, cancelled: Cancelled_, progress: Progress) -> Any:
        if self.import_sidecar:
            try:
                store.import_sidecar()
            except Exception as exc:  # noqa: BLE001 - salience seed is a nicety; indexing must go on
                import logging

                logging.getLogger(__name__).warning("could not import the access sidecar: %s", exc)
        return store.index(progress=progress, cancelled=cancelled)

    def changes(self, value) -> StoreChange | None:
        return StoreChange.of_report(value)


@dataclass
class VerifyJob(Job[bool]):
    """A full integrity check; damage is moved aside and rebuilt by the store (a change of everything)."""

    kind: ClassVar[str] = "verify"
    writer: ClassVar[bool] = True  # stays on the writer thread: SQLite's check runs without the GIL, and
    # its rebuild of a damaged index must take turns with this process's own index passes (Store._write_lock)

    def run(self, store: IndexDoor, cancelled: Cancelled_, progress: Progress) -> bool:
        return store.verify()

    def changes(self, sound: bool) -> StoreChange | None:
        return None if sound else StoreChange(index=True, problems=True)


@dataclass
class SidecarJob(Job[ImportReport | None]):
    """Seed the state plane from `.memhtml/state/access.jsonl` (a fresh demo copy's recorded reads)."""

    kind: ClassVar[str] = "sidecar"
    writer: ClassVar[bool] = True

    def run(self, store: StateDoor, cancelled: Cancelled_, progress: Progress) -> ImportReport | None:
        return store.import_sidecar()


def store_facts(store: Any) -> list[tuple[str, str]]:
    """`(name, value)` rows of what the store runs on: SQLite's, sqlite-vec's and apsw's versions (a
    private in-memory connection loads the extension), the embedder, the backend, where things are."""
    rows: list[tuple[str, str]] = list(store.library_versions().items())
    embedder = getattr(store, "embedder", None)
    if embedder is not None:
        model_id = getattr(embedder, "model_id", type(embedder).__name__)
        dim = getattr(embedder, "dim", "?")
        rows += [
            ("Embedder", str(model_id)),
            ("Embedding dimension", str(dim)),
            ("Vector space", str(getattr(embedder, "space", f"{model_id}@{dim}"))),
        ]
    backend = getattr(store, "vector_backend", None)
    if backend:
        rows.append(("Vector backend", str(backend)))
    for name, attr in (("Store", "root"), ("Index", "index_path"), ("State plane", "state_path")):
        value = getattr(store, attr, None)
        if value is not None:
            rows.append((name, str(value)))
    return rows


@dataclass
class AboutJob(Job[list]):
    """Help → About's rows from the engine's side (`store_facts`) and the engine's process id."""

    kind: ClassVar[str] = "versions"

    def run(self, store: IndexDoor, cancelled: Cancelled_, progress: Progress) -> list[tuple[str, str]]:
        import os

        return [*store_facts(store), ("Engine process", str(os.getpid()))]
