"""The Store's doors: what each kind of caller may ask of an open store, as typing Protocols.

`Store` (index/store.py) is one object with some fifty operations; no caller needs them all. Read
from the callers (every `store.` in ops/, write/, workbench/, history/, engine/, cli/ and watch/),
they fall into five doors over one set of facts:

| door | what it answers | who asks |
| --- | --- | --- |
| `StoreFacts` | where the store, its index and its state plane are; the embedder; the clock; notices | everyone |
| `SearchDoor` | ranking: search, the Answer and its pool, recall and the other pack shapes, why-not, filter counts, evaluation | the session's jobs, the CLI's read verbs, the workbench |
| `ReadDoor` | one memory and the listings: read (a read bumps the state plane), the file's bytes, find by name, list, problems, stats | the reader's jobs, the write core's planners |
| `StateDoor` | the state plane: reinforce, a signal replaced, its status, the access sidecar out and in, its health | the reader's buttons, the status bar, `state`, `doctor` |
| `IndexDoor` | maintaining the index: index, update paths, refresh (or a live watcher's word that it is in step), verify, warm, health, a thread's connection closed | the watcher, the engine, `index`, `doctor`, the write core after a commit |
| `SqlDoor` | the thread's connection and the vector snapshot over it, for a layer's OWN SQL module to read with (`write/` → `index/curation.py`, `workbench/` → `index/arm_lists.py`, `history/` → `index/activity.py`) | the write core, the workbench, the review inbox's jobs |

The composites name what one client holds: `CuratorStore` (the write core's `Curator`),
`WorkbenchStore` (the workbench), and `StoreDoors`, every door (what the engine and a CLI command
open and a job's `run` is handed). A job types the door it uses (`run(self, store: SearchDoor, …)`),
so what a job may do to the store is read from its signature. `Store` satisfies every one of them
structurally (it does not inherit them): tests/index/test_doors.py checks each member.

This module is imported by the window and by every command (ops/ types its jobs with it), so it
imports nothing but `typing` at run time; the types it names are imported for the type checker only
(a command-line search loads none of the modules it does not use).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # named for the type checker only: importing the doors loads no domain module either
    from memhtml_desktop.domain.catalogue import Catalogue, Expansion
    from memhtml_desktop.domain.embedder import Embedder
    from memhtml_desktop.domain.fts_query import FtsQuery
    from memhtml_desktop.domain.metrics import GateReport, KnownItemReport
    from memhtml_desktop.domain.quotas import LedgerMap, QuotaPack
    from memhtml_desktop.domain.ranking import RankingProfile
    from memhtml_desktop.domain.results import (
        Answer,
        FilterCounts,
        FusedPool,
        Health,
        ImportReport,
        ListPage,
        MemoryRef,
        Problem,
        StatePlane,
        WhyNot,
    )
    from memhtml_desktop.domain.shapes import ShapeComparison
    from memhtml_desktop.domain.types import MemoryDetail, RecallPack, ReinforceResult, Scope, SearchResult
    from memhtml_desktop.index.caches import StoreCaches
    from memhtml_desktop.index.db import Connection
    from memhtml_desktop.index.indexer import IndexReport
    from memhtml_desktop.index.retrieval import Retriever
    from memhtml_desktop.index.state_health import StateHealth
    from memhtml_desktop.index.vectors import VectorSnapshot

ProgressFn = Callable[[str, int, int], None]
CancelledFn = Callable[[], bool]

__all__ = [
    "CuratorStore",
    "IndexDoor",
    "RankingStore",
    "ReadDoor",
    "SearchDoor",
    "SqlDoor",
    "StateDoor",
    "StoreDoors",
    "StoreFacts",
    "WorkbenchStore",
]


@runtime_checkable
class StoreFacts(Protocol):
    """Where an open store is and what it runs on; what it has to say once (`notices`)."""

    root: Path
    index_path: Path
    state_path: Path
    embedder: Embedder
    vector_backend: str
    curation_off: str | None
    create_state: bool
    clock: Callable[[], Any]
    notices: list[str]

    def notice(self, text: str) -> None: ...

    def kept(self, name: str, make: Callable[[], Any] | None = None) -> Any: ...


@runtime_checkable
class SearchDoor(StoreFacts, Protocol):
    """Ranking. `ranking` is the store's default profile: a caller with a profile of its own passes
    it in the call (`ranking=`), never by setting this attribute."""

    ranking: RankingProfile

    def retriever(self) -> Retriever: ...

    def search(
        self, query: str, scope: Scope | None = None, *, limit: int = 10, ranking: RankingProfile | None = None
    ) -> SearchResult: ...

    def answer(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        limit: int = 10,
        depth: int = 30,
        ranking: RankingProfile | None = None,
        generation: int = 0,
    ) -> Answer: ...

    def pool(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        limit: int = 10,
        depth: int = 30,
        ranking: RankingProfile | None = None,
        fts: FtsQuery | None = None,
    ) -> FusedPool: ...

    def recall(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        budget: int | None = None,
        limit: int = 10,
        ranking: RankingProfile | None = None,
        fts: FtsQuery | None = None,
    ) -> RecallPack: ...

    def quotas(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        budget: int | None = None,
        limit: int = 10,
        ranking: RankingProfile | None = None,
        ledgers: LedgerMap | None = None,
    ) -> QuotaPack: ...

    def catalogue(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        k: int = 10,
        budget: int | None = None,
        ranking: RankingProfile | None = None,
    ) -> Catalogue: ...

    def expand(self, path: str) -> Expansion: ...

    def ledger_map(self, path: str | os.PathLike[str] | None = None, *, lenient: bool = False) -> LedgerMap: ...

    def shapes(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        budget: int | None = None,
        limit: int = 10,
        k: int = 10,
        ranking: RankingProfile | None = None,
        ledgers: LedgerMap | None = None,
        answer: Answer | None = None,
    ) -> ShapeComparison: ...

    def why(
        self,
        query: str,
        scope: Scope | None,
        path: str,
        *,
        limit: int = 10,
        ranking: RankingProfile | None = None,
        fts: FtsQuery | None = None,
    ) -> WhyNot: ...

    def counts(self, query: str, scope: Scope | None = None) -> FilterCounts: ...

    def counts_of(self, paths: Iterable[str]) -> FilterCounts: ...

    def evaluate(
        self, probes: Sequence[Any], *, ranking: RankingProfile | None = None, limit: int = 40
    ) -> GateReport: ...

    def known_item_report(
        self, count: int, *, seed: int = 1, ranking: RankingProfile | None = None, k: int = 10
    ) -> KnownItemReport: ...


@runtime_checkable
class ReadDoor(StoreFacts, Protocol):
    """One memory, and the listings. `read` with `bump` is a person's read: it moves salience."""

    def read(self, path: str, *, bump: bool = True) -> MemoryDetail: ...

    def read_with_bytes(self, path: str, *, bump: bool = True) -> tuple[MemoryDetail, bytes]: ...

    def file_bytes(self, path: str) -> bytes | None: ...

    def find_memories(self, text: str, *, limit: int = 20) -> list[MemoryRef]: ...

    def list(self, scope: Scope | None = None, *, limit: int = 50, cursor: str | None = None) -> ListPage: ...

    def problems(self) -> list[Problem]: ...

    def stats(self) -> dict[str, Any]: ...

    def sqlite_heap(self) -> dict[str, float]: ...


@runtime_checkable
class StateDoor(StoreFacts, Protocol):
    """The state plane (`.memhtml/state.db`, shared with memhtml's CLI): the facts git cannot rebuild."""

    def reinforce(self, paths: Iterable[str], signal: str) -> ReinforceResult: ...

    def replace_signal(self, path: str, previous: str, signal: str) -> ReinforceResult: ...

    def state_plane(self) -> StatePlane: ...

    def export_state(self) -> bytes: ...

    def write_state_export(self, out: str | os.PathLike[str] | None = None, *, force: bool = False) -> Path: ...

    def import_state(self, data: bytes) -> ImportReport: ...

    def import_sidecar(self) -> ImportReport | None: ...

    def state_health(self) -> StateHealth: ...


@runtime_checkable
class IndexDoor(StoreFacts, Protocol):
    """Keeping the index in step with the tree, as its one writer; the index's own health."""

    def check_present(self) -> None: ...

    def index(
        self,
        *,
        rebuild: bool = False,
        progress: ProgressFn | None = None,
        cancelled: CancelledFn | None = None,
        wait: float | None = None,
        on_wait: Callable[[str], None] | None = None,
    ) -> IndexReport: ...

    def update_paths(
        self,
        paths: Iterable[str],
        moves: Iterable[tuple[str, str]] = (),
        *,
        progress: ProgressFn | None = None,
        cancelled: CancelledFn | None = None,
        wait: float | None = None,
        on_wait: Callable[[str], None] | None = None,
        projections: dict[str, Any] | None = None,
    ) -> IndexReport: ...

    def refresh(
        self, paths: Iterable[str] | None = None, *, progress: ProgressFn | None = None, trust_watcher: bool = False
    ) -> IndexReport | None: ...

    def watched(self) -> bool: ...

    def verify(self) -> bool: ...

    def warm(self) -> int: ...

    def paths_under(self, prefix: str) -> list[str]: ...

    def health(self, *, cancelled: CancelledFn | None = None) -> Health | None: ...

    def heard(self, notices: list[str], reopened: bool = False) -> None: ...

    def close_thread_connection(self) -> None: ...

    def settle_thread_connection(self) -> bool: ...

    @staticmethod
    def one_shot_process() -> None: ...

    @staticmethod
    def stop_parse_workers(*, leaving: bool = False) -> None: ...

    @staticmethod
    def library_versions() -> dict[str, str]: ...


@runtime_checkable
class SqlDoor(StoreFacts, Protocol):
    """This thread's connection (both planes attached), for a layer's own SQL module to read with.
    The caller never keeps it past the call it was handed for; the store reopens it as it must."""

    def reader(self) -> Connection: ...

    caches: StoreCaches  # the store's own (index/caches.py): index/ modules read through them

    def vector_snapshot(self, conn: Connection | None = None) -> VectorSnapshot: ...


@runtime_checkable
class CuratorStore(ReadDoor, IndexDoor, SqlDoor, Protocol):
    """What the write core's `Curator` holds: plans read memories and the index's rows (its SQL in
    `index/curation.py`), a commit re-indexes its own paths, the conflicts scan reads the vectors."""


@runtime_checkable
class RankingStore(SearchDoor, SqlDoor, Protocol):
    """Ranks, and reads rows of its own over the thread's connection: what `index/shapes.py` (the
    other pack shapes) is handed, and the workbench's base."""


@runtime_checkable
class WorkbenchStore(RankingStore, Protocol):
    """What the relevance workbench holds: it ranks, and reads arm lists (`index/arm_lists.py`)."""


@runtime_checkable
class StoreDoors(SearchDoor, ReadDoor, StateDoor, IndexDoor, SqlDoor, Protocol):
    """Every door: what the engine and a CLI command open, and what a job's `run` is handed."""
