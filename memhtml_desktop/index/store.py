"""The library's front door: one object per open store.

`Store` knows where the store, its index and its state plane live, opens connections (one per
thread: an apsw connection never crosses threads), and offers the operations every front end
uses: index, search, recall, why-not, read, reinforce, list, problems, filter counts, the state
sidecar, health. The CLI, the watcher and the GUI's jobs all call these, so the window and
`memhtml-desktop search` can never disagree.

It is the only door into `index/` from `ui/` and `cli/` (an import contract in pyproject.toml
holds them to it): what crosses it are the plain values of `domain/types.py` and
`domain/results.py`, never a connection a caller keeps. Its callers type it by the part they use:
the protocols of `index/doors.py` (searching, reading, the state plane, maintaining the index, the
connection for a layer's own SQL module), which it satisfies structurally (tests/index/test_doors.py).
A new public operation goes behind the door its callers need.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import apsw

from memhtml_desktop.domain.ranking import DEFAULT, RankingProfile
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index import db as dbmod
from memhtml_desktop.index import held, writelock
from memhtml_desktop.index.state import StateError  # noqa: F401  (part of the door: `import_state` raises it)
from memhtml_desktop.index.store_check import CURATION_OFF_NOTE, StoreCheck, check_store  # noqa: F401  (the door)

if TYPE_CHECKING:  # the values the door hands out; imported where they are made (a search needs none of
    # the indexer's, the reader's or the parser's modules: 40 ms of a command-line search's start)
    from memhtml_desktop.domain.catalogue import Catalogue, Expansion
    from memhtml_desktop.domain.embedder import Embedder
    from memhtml_desktop.domain.fts_query import FtsQuery
    from memhtml_desktop.domain.metrics import GateReport, KnownItemReport
    from memhtml_desktop.domain.quotas import LedgerMap, QuotaPack
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
    from memhtml_desktop.domain.types import MemoryDetail, RecallPack, ReinforceResult, SearchResult
    from memhtml_desktop.index.caches import StoreCaches
    from memhtml_desktop.index.indexer import IndexReport
    from memhtml_desktop.index.retrieval import Retriever
    from memhtml_desktop.index.state_health import StateHealth
    from memhtml_desktop.index.vectors import VectorSnapshot


def __getattr__(name: str):
    """`MemoryNotFound` (part of the door: `read` raises it) from the reader, imported when asked for."""
    if name == "MemoryNotFound":
        from memhtml_desktop.index.reader import MemoryNotFound

        return MemoryNotFound
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


log = logging.getLogger(__name__)


class StoreError(Exception):
    """A store that cannot be used: missing directory, unsafe path. Shown to the user as is."""


# A read refreshes the index first; when another process holds the index's write lock it waits this
# long (and SQLite's lock this long per attempt), then answers from the last committed state.
REFRESH_WAIT_S = 2.0
REFRESH_BUSY_MS = 1000
# A kept connection looks whether its index file is still the one at the index's path this often.
IDENTITY_EVERY_S = 1.0
# A state plane another process had locked is tried again at most this often (seconds).
STATE_RETRY_S = 2.0
# What a full or unwritable disk raises through apsw (SQLITE_FULL, SQLITE_IOERR_*, a read-only file).
UNWRITABLE = dbmod.UNWRITABLE
# The index file could not be opened or migrated at all (an environment failure, said as is).
IndexUnavailable = dbmod.IndexError_


def _identity(path: Path) -> tuple[int, int] | None:
    """A file's identity (device, inode), or None when nothing is there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def safe_store_path(path: str) -> str:
    """A store-relative memory path, or StoreError: no absolute paths, no `..`, no backslashes."""
    from memhtml_desktop.domain.types import clean_text

    clean = clean_text(path).strip().replace("\\", "/")
    if clean.startswith("memhtml:"):
        clean = clean[len("memhtml:") :]
    clean = clean.lstrip("/")
    clean = clean.split("#", 1)[0].split("?", 1)[0]
    parts = clean.split("/")
    if not clean or any(p in ("", ".", "..") for p in parts) or "\x00" in clean:
        raise StoreError(f"not a store path: {path!r}")
    return clean


class Store:
    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        index_path: str | os.PathLike[str] | None = None,
        embedder: Embedder | None = None,
        vector_backend: str = "numpy",
        clock: Callable[[], Any] = dbmod.utc_now,
        create_state: bool = True,
        ranking: RankingProfile = DEFAULT,
        curation_off: str | None = None,
    ) -> None:
        """`curation_off`: why this store cannot be curated (no git of its own: `StoreCheck.git_problem`),
        as the front end that checked it found; the window greys curation out with it."""
        from memhtml_desktop.settings import default_index_path

        self.root = Path(root).expanduser()
        if not self.root.is_dir():
            raise StoreError(f"store not found: {self.root} is not a directory")
        self.root = self.root.resolve()
        self.index_path = Path(index_path) if index_path else default_index_path(self.root)
        self.state_path = self.root / ".memhtml" / "state.db"
        if embedder is None:
            from memhtml_desktop.domain.hash_embedder import HashEmbedder

            embedder = HashEmbedder()
        self.embedder = embedder
        self.vector_backend = vector_backend
        self.ranking = ranking  # the profile search and recall use unless a call names another
        self.curation_off = curation_off
        self.clock = clock
        self.create_state = create_state
        self.notices: list[str] = []
        self._generation = 0
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._caches: StoreCaches | None = None  # made on first use (`caches`)
        self._kept: dict[str, Any] = {}  # what a client keeps for this store's life (`kept`)
        # reentrant: what `make` builds may ask for what else the store keeps (a workbench its curator)
        self._kept_lock = threading.RLock()
        self._caches_lock = threading.Lock()
        from memhtml_desktop.index.state_watch import PlaneWatch

        self._plane = PlaneWatch(self.state_path, self.notice)  # the state plane followed by its file (issue 40)

    # -- what the store keeps ---------------------------------------------------------------------

    @property
    def caches(self) -> StoreCaches:
        """This store's caches (index/caches.py): the vectors, the salience list, the scope rows and
        the resident ledgers, shared by every thread that reads through it, made on first use."""
        caches = self._caches
        if caches is None:
            from memhtml_desktop.index.caches import StoreCaches

            with self._caches_lock:
                if self._caches is None:
                    self._caches = StoreCaches()
                caches = self._caches
        return caches

    def kept(self, name: str, make: Callable[[], Any] | None = None) -> Any:
        """What a client makes once per open store and keeps for the store's life, under `name`
        (the write core's `Curator`, the workbench: ops/curators.py, ops/workbench.py): made by
        `make` on the first ask (under the store's lock, so two threads get the same one); with no
        `make`, the kept one or None."""
        with self._kept_lock:
            held = self._kept.get(name)
            if held is None and make is not None:
                held = self._kept[name] = make()
            return held

    # -- connections --------------------------------------------------------------------------

    def connect(self) -> dbmod.Connection:
        """A new connection with both planes; a damaged index is moved aside and rebuilt empty."""
        try:
            conn = self._open()
        except dbmod.CorruptIndex as exc:
            self._move_aside(exc)
            conn = self._open()
        for note in (conn.state_error, conn.state_note, conn.index_note):
            if note:
                self.notice(note)
        self._plane.attached(conn)  # another file than the last connection's is said; kept reads are written
        return conn

    def notice(self, text: str) -> None:
        """Something the user should be told once (the CLI prints these; the window shows them)."""
        if text not in self.notices:
            log.info(text)
            self.notices.append(text)

    def heard(self, notices: list[str], reopened: bool = False) -> None:
        """What another process's Store over this index said (a child running a heavy job):
        its notices become ours; `reopened` (it moved a damaged index aside) makes every thread
        reopen its connection on its next use."""
        for text in notices:
            self.notice(text)
        if reopened:
            self._generation += 1
            self.caches.clear()

    def _move_aside(self, exc: Exception) -> None:
        """Move the damaged index (and its WAL) aside under a name no other copy has, with a notice."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.index_path.with_name(f"{self.index_path.name}.corrupt-{stamp}")
        counter = 1
        while aside.exists():
            counter += 1
            aside = self.index_path.with_name(f"{self.index_path.name}.corrupt-{stamp}-{counter}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.index_path) + suffix)
            if src.exists():
                os.replace(src, Path(str(aside) + suffix))
        notice = f"The index was damaged ({exc}); it was moved to {aside.name} and rebuilt."
        log.warning(notice)
        self.notices.append(notice)
        self._generation += 1  # every thread reopens on its next use
        self.caches.clear()

    def _open(self) -> dbmod.Connection:
        from memhtml_desktop.index.state_file import refused_index

        refused = refused_index(self.index_path, self.root)  # a FIFO there would hang the read-only open for good
        if refused:
            raise IndexUnavailable(refused)
        conn = dbmod.open_index(
            self.index_path, state_path=self.state_path, create_state=self.create_state, clock=self.clock
        )
        try:
            for table in ("files", "chunks", "embeddings", "sources", "problems", "index_state"):
                conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchall()
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            conn.close()
            raise dbmod.CorruptIndex(str(exc)) from exc
        return conn

    def reader(self) -> dbmod.Connection:
        """This thread's connection (opened on first use, reopened after a recovery or when the
        state plane's path names another file than it attached; a state plane that was locked by
        another process is attached again once it is free)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "generation", None) != self._generation:
            self.close_thread_connection()
            conn = None
        if conn is not None and not conn.in_transaction and (self._index_replaced() or self._plane.stale(conn)):
            # its index, or its state plane, is no longer the file at the path (replaced, deleted,
            # moved away, made anew): open what is there now
            self.close_thread_connection()
            conn = None
        if conn is None:
            conn = self.connect()
            conn.owner = threading.current_thread().name  # named when it is found holding a lock (index/held.py)
            self._local.conn = conn
            self._local.generation = self._generation
            self._local.state_tried = time.monotonic()
            self._local.identity, self._local.identity_at = _identity(self.index_path), time.monotonic()
        elif conn.state_busy and time.monotonic() - getattr(self._local, "state_tried", 0.0) >= STATE_RETRY_S:
            self._local.state_tried = time.monotonic()
            conn.state_busy, conn.state_error = False, None
            dbmod.attach_state(conn, self.state_path, create=False, clock=self.clock)
        return conn

    def _index_replaced(self) -> bool:
        """Whether the file at the index's path is no longer the one this thread's connection opened
        (deleted, moved away, replaced by another): looked at most every IDENTITY_EVERY_S. A
        long-lived connection (the engine keeps one per thread) would otherwise read the old file
        for the rest of the session."""
        now = time.monotonic()
        if now - getattr(self._local, "identity_at", 0.0) < IDENTITY_EVERY_S:
            return False
        self._local.identity_at = now
        return _identity(self.index_path) != getattr(self._local, "identity", None)

    def _state_locked(self) -> bool:
        """Whether this thread's state plane cannot be read now (another process's lock on it)."""
        conn = self.reader()
        if conn.state_mode is None:
            return False
        conn.set_busy_handler(dbmod.polling_busy_handler(50))
        try:
            conn.execute("SELECT 1 FROM state.sqlite_schema LIMIT 1").fetchall()
            return False
        except apsw.BusyError:
            return True
        finally:
            conn.set_busy_handler(dbmod.polling_busy_handler())

    def _without_state(self, exc: Exception) -> None:
        """This thread's connection met a state plane locked by another process mid-read: it goes
        on without one (salience off, said in a notice and in each result's reasons)."""
        conn = self.reader()
        with contextlib.suppress(apsw.Error):
            conn.execute("DETACH state")
        conn.state_mode = None
        conn.state_busy = True
        conn.state_error = (
            f"{self.state_path} is locked by another process ({exc}): this answer has no "
            "salience, and reads are not counted until it is free"
        )
        self._local.state_tried = time.monotonic()
        self.notice(conn.state_error)

    def settle_thread_connection(self) -> bool:
        """A unit of work on this thread is over (a lane's job, the watcher's pass): its kept
        connection must hold no transaction and run no statement now; one that does (a cursor left
        alive past its job) is named in the log and closed (index/held.py). Whether it had to."""
        return held.settle(getattr(self._local, "conn", None), self.close_thread_connection)

    def close_thread_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            try:
                conn.close()
            except apsw.Error:
                pass
            self._local.conn = None

    # -- damage ------------------------------------------------------------------------------

    def verify(self) -> bool:
        """`PRAGMA integrity_check` of the index; damage is moved aside and rebuilt. True when sound.

        integrity_check rather than quick_check: only it compares every index with its table, and a
        damaged index b-tree (a row missing from an index) is damage too. It reads every page
        (seconds on a large store), so it runs where that is affordable: in the background after
        the window opens a store, and in `doctor`.
        """
        try:
            rows = self.reader().execute("PRAGMA main.integrity_check").fetchall()
            sound = rows == [("ok",)]
            reason = "; ".join(str(r[0]) for r in rows[:3])
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            sound, reason = False, str(exc)
        if not sound:
            self._recover(dbmod.CorruptIndex(f"integrity check: {reason}"))
        return sound

    def _recover(self, exc: Exception) -> None:
        from memhtml_desktop.index.indexer import Indexer

        with self._write_lock, writelock.hold(self.index_path, "recovering a damaged index"):
            self.close_thread_connection()
            self._move_aside(exc)
            with dbmod.index_pass_cache(self.reader()) as conn:
                Indexer(conn, self.root, self.embedder, clock=self.clock).scan()

    def _recovering(self, operation, *args, **kwargs):
        """Run an index operation; a damaged page found on the way is recovered from, once; a
        state plane locked by another process through the whole busy wait is read without, once
        (the index itself is WAL: its readers are never blocked)."""
        try:
            return operation(*args, **kwargs)
        except apsw.BusyError as exc:
            if not self._state_locked():
                raise  # the index's own write lock (a writer's business: `refresh` and `index` handle it)
            log.warning("state.db stayed locked during %s: %s", getattr(operation, "__name__", "an operation"), exc)
            self._without_state(exc)
            return operation(*args, **kwargs)
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            log.warning("damaged index met during %s: %s", getattr(operation, "__name__", "an operation"), exc)
            self._recover(exc)
            return operation(*args, **kwargs)
        except apsw.SQLError:
            if not self._plane.schema_gone(self.reader()):
                raise  # not the state plane's schema: a fault of ours, said as it is
            return operation(*args, **kwargs)  # without the plane, its reason in the answer

    def retriever(self) -> Retriever:
        from memhtml_desktop.index.retrieval import Retriever

        return Retriever(
            self.reader(),
            self.embedder,
            cache_key=str(self.index_path),
            vector_backend=self.vector_backend,
            profile=self.ranking,
            caches=self.caches,
        )

    # -- operations ---------------------------------------------------------------------------

    def check_present(self) -> None:
        """Refuse to index a store that is not there: a scan would empty the index.

        A deleted or unmounted store root, or a root that has lost every bucket while the index
        still holds memories (an empty mount point), raises StoreError instead.
        """
        from memhtml_desktop.domain.paths import BUCKETS

        if not self.root.is_dir():
            raise StoreError(f"store not found: {self.root} is gone (deleted or unmounted)")
        if not any((self.root / bucket).is_dir() for bucket in BUCKETS):
            has_rows = self.reader().execute("SELECT 1 FROM sources LIMIT 1").fetchone() is not None
            if has_rows:
                raise StoreError(
                    f"{self.root} has none of projects/, areas/, resources/, archive/ any more; "
                    "refusing to empty the index (is the store unmounted?)"
                )

    def index(
        self, *, rebuild: bool = False, progress=None, cancelled=None, wait: float | None = None, on_wait=None
    ) -> IndexReport:
        """Bring the index in step with the tree, as THE writer (see `_writing`).

        `wait`: seconds to wait for another writer (None: as long as it takes, until `cancelled`);
        past it, IndexBusy or apsw.BusyError. `on_wait(text)` is told once that we are waiting.
        """
        self.check_present()
        what = "index --rebuild" if rebuild else "index"
        return self._recovering(
            self._writing,
            what,
            lambda indexer: indexer.scan(rebuild=rebuild, progress=progress, cancelled=cancelled),
            wait=wait,
            cancelled=cancelled,
            on_wait=on_wait,
        )

    def update_paths(
        self,
        paths,
        moves=(),
        *,
        progress=None,
        cancelled=None,
        wait: float | None = None,
        on_wait=None,
        projections=None,
    ) -> IndexReport:
        """Re-examine `paths` (and `moves`); `projections`: a write's own projections of files it
        wrote, by path, used for the files still holding those bytes instead of parsing them again."""
        self.check_present()
        paths, moves = list(paths), list(moves)
        return self._recovering(self._writing, "update", lambda indexer: indexer.update_paths(
            paths, moves, progress=progress, cancelled=cancelled, projected=projections), wait=wait,
            cancelled=cancelled, on_wait=on_wait)  # fmt: skip

    def _writing(self, what: str, work, *, wait: float | None, cancelled, on_wait) -> IndexReport:
        """Run one index pass as the only writer: this process's thread lock, then the lock file
        every process takes (index/writelock.py), then SQLite's own lock, which a writer that knows
        nothing of the file may hold: a pass that meets it is retried whole (its committed
        batches stand) until the lock frees or the wait is over."""
        from memhtml_desktop.index.indexer import Indexer, IndexReport

        deadline = None if wait is None else time.monotonic() + wait
        told = []

        def waiting(text: str) -> None:
            if not told and on_wait is not None:
                on_wait(text)
            told.append(text)

        with (
            self._write_lock,
            writelock.hold(
                self.index_path,
                what,
                deadline=deadline,
                cancelled=cancelled,
                on_wait=lambda h: waiting(f"waiting for {h} to finish writing"),
            ) as held,
        ):
            delay = 0.1
            while held:
                try:
                    with dbmod.index_pass_cache(self.reader()) as conn:
                        return work(Indexer(conn, self.root, self.embedder, clock=self.clock))
                except apsw.BusyError as exc:
                    if deadline is not None and time.monotonic() + delay >= deadline:
                        raise
                    waiting(f"waiting: the index is locked by another process ({exc})")
                    time.sleep(delay)
                    delay = min(delay * 2, 2.0)
                    held = not (cancelled is not None and cancelled())
        return IndexReport(cancelled=True)

    def refresh(self, paths=None, *, progress=None, trust_watcher: bool = False) -> IndexReport | None:
        """Bring the index in step before a read, or say why not and let the read answer from the last
        committed state (WAL readers are never blocked): another process is writing the index, or its
        disk is full. `paths` re-examines only those; None, the whole tree. None when skipped.

        `trust_watcher`: a live watcher's lease that the index is in step (index/lease.py) stands in
        for the walk of the whole tree."""
        if paths is None and trust_watcher and self.watched():
            return None
        conn = self.reader()
        reason = conn.index_note
        if reason is None:
            conn.set_busy_timeout(REFRESH_BUSY_MS)
            try:
                if paths is None:
                    return self.index(progress=progress, wait=REFRESH_WAIT_S)
                return self.update_paths(paths, progress=progress, wait=REFRESH_WAIT_S)
            except writelock.IndexBusy as exc:
                reason = str(exc)
            except apsw.BusyError:
                reason = "another process holds its write lock"
            except UNWRITABLE as exc:
                reason = f"it cannot be written ({exc}; is the disk full?)"
            finally:
                with contextlib.suppress(apsw.Error):
                    conn.set_busy_timeout(dbmod.BUSY_TIMEOUT_MS)
        self.notice(f"the index was not refreshed: {reason}; answering from the last committed state")
        return None

    def watched(self) -> bool:
        """Whether a live watcher (the window's, or a headless `watch`) vouches that this index is in
        step with the store now, or within a moment (index/lease.py)."""
        from memhtml_desktop.index.lease import in_step

        return in_step(self.index_path, str(self.root))

    def warm(self) -> int:
        """Load the vector snapshot now (a background job on opening a store), so the first search
        does not pay for it: ~3 s at 100,000 files. Returns the number of vectors loaded."""
        conn = self.reader()
        with conn:
            snapshot = self.vector_snapshot(conn)
        return snapshot.size

    def vector_snapshot(self, conn: dbmod.Connection | None = None) -> VectorSnapshot:
        """The embedder's vectors as of `conn`'s read (this thread's connection when None; a caller
        in a read transaction passes its own, so the snapshot and its rows agree), from the cache
        every search shares, patched by the index's change log when the index moved."""
        from memhtml_desktop.domain.embedder import space_of

        conn = conn if conn is not None else self.reader()
        return self.caches.vectors.snapshot(conn, str(self.index_path), space_of(self.embedder), self.embedder.dim)

    def paths_under(self, prefix: str) -> list[str]:
        from memhtml_desktop.index.indexer import Indexer

        return Indexer(self.reader(), self.root, self.embedder, clock=self.clock).paths_under(prefix)

    def search(
        self, query: str, scope: Scope | None = None, *, limit: int = 10, ranking: RankingProfile | None = None
    ) -> SearchResult:
        return self._recovering(lambda: self.retriever().search(query, scope, limit=limit, ranking=ranking))

    def recall(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        budget: int | None = None,
        limit: int = 10,
        ranking: RankingProfile | None = None,
        fts: FtsQuery | None = None,
    ) -> RecallPack:
        return self._recovering(
            lambda: self.retriever().recall(query, scope, budget=budget, limit=limit, ranking=ranking, fts=fts)
        )

    def quotas(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        budget: int | None = None,
        limit: int = 10,
        ranking: RankingProfile | None = None,
        ledgers: LedgerMap | None = None,
    ) -> QuotaPack:
        """The recall pack in four quota ledgers (seed 003, 6.5; index/shapes.py). Not a read."""
        from memhtml_desktop.index.shapes import quota_pack

        return self._recovering(
            lambda: quota_pack(self, query, scope, budget=budget, limit=limit, ranking=ranking, ledgers=ledgers)
        )

    def catalogue(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        k: int = 10,
        budget: int | None = None,
        ranking: RankingProfile | None = None,
    ) -> Catalogue:
        """The top `k` as title, one-line summary and expand cost (seed 003, 6.3). Not a read."""
        from memhtml_desktop.index.shapes import catalogue

        return self._recovering(lambda: catalogue(self, query, scope, k=k, budget=budget, ranking=ranking))

    def expand(self, path: str) -> Expansion:
        """One memory's body, neighbours and evidence chain, from the index. Not a read: salience
        moves only when a person opens a memory (`read`)."""
        from memhtml_desktop.index.reader import MemoryNotFound
        from memhtml_desktop.index.shape_reads import expansions

        path = safe_store_path(path)
        found = self._recovering(lambda: expansions(self.reader(), [path]))
        if path not in found:
            raise MemoryNotFound(f"no indexed memory at {path}")
        return found[path]

    def ledger_map(self, path: str | os.PathLike[str] | None = None, *, lenient: bool = False) -> LedgerMap:
        """The quota ledgers' map: the file at `path`, else the store's `.memhtml-desktop/ledgers.json`
        (a curator's, committed with the store), else the seed's. A map that cannot be used (not JSON,
        a fault the parser names, or a file the guard refuses: a link out of the store, a FIFO, a
        device, a folder, over 1 MB) raises LedgerMapError naming file and line; with `lenient` it
        becomes a notice and the seed's map, carrying the reason as its `note` (index/shapes.py)."""
        from memhtml_desktop.index.shapes import read_ledger_map

        return read_ledger_map(self.root, path, lenient=lenient, notice=self.notice)

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
    ) -> ShapeComparison:
        """memhtml's pack, the quota ledgers and the catalogue for one query, with their costs
        (`answer`: the search of that query already made, its page and parse reused)."""
        from memhtml_desktop.index.shapes import compare

        return self._recovering(
            lambda: compare(
                self, query, scope, budget=budget, limit=limit, k=k, ranking=ranking, ledgers=ledgers, answer=answer
            )
        )

    def reinforce(self, paths, signal: str) -> ReinforceResult:
        """Record reads or judgements. A plane that stayed locked, or a disk that filled mid-write,
        comes back as a result with `lost` set and `refused` saying why, never as an exception."""
        from memhtml_desktop.index.state import StateBusy, lost, reinforce

        targets = [safe_store_path(p) for p in paths]
        at = dbmod.iso_z(self.clock())
        conn = self.reader()
        self._plane.replay(conn)  # reads kept earlier land first, in their own order
        try:
            result = reinforce(conn, targets, signal, at)
        except StateBusy as exc:
            result = lost(targets, signal, str(exc))
        except apsw.FullError as exc:
            result = lost(targets, signal, f"the disk holding state.db is full ({exc})")
        except UNWRITABLE as exc:
            result = lost(targets, signal, f"state.db could not be written ({exc}; is the disk full?)")
        except apsw.SQLError:
            if not self._plane.schema_gone(conn):
                raise
            result = lost(targets, signal, conn.state_error or "the state plane's schema changed")
        return self._plane.keep(conn, result, at)  # what could not land now is kept, and lands later

    def replace_signal(self, path: str, previous: str, signal: str) -> ReinforceResult:
        """Within the signal cooldown, `signal` replaces the `previous` one on `path` (see index/state.py)."""
        from memhtml_desktop.domain.types import ReinforceResult
        from memhtml_desktop.index.state import StateBusy, lost, replace_signal

        target = safe_store_path(path)
        at = dbmod.iso_z(self.clock())
        if self._plane.pending.exists() and self._plane.pending.take_back(target, previous, signal):
            # the first click still waits to be written: it is replaced where it waits
            return ReinforceResult(
                signal=signal,
                cooled_down=(target,),
                signal_applied=(target,),
                queued=True,
                refused="state.db could not be written yet: the signal waits to be written",
            )
        try:
            return replace_signal(self.reader(), target, previous, signal, at)
        except StateBusy as exc:
            return lost([target], signal, str(exc))
        except apsw.FullError as exc:
            return lost([target], signal, f"the disk holding state.db is full ({exc})")
        except UNWRITABLE as exc:
            return lost([target], signal, f"state.db could not be written ({exc}; is the disk full?)")

    def read(self, path: str, *, bump: bool = True) -> MemoryDetail:
        """One memory in full; with `bump` this is a read (salience moves once, cooldown respected)."""
        return self.read_with_bytes(path, bump=bump)[0]

    def read_with_bytes(self, path: str, *, bump: bool = True) -> tuple[MemoryDetail, bytes]:
        """`read`, plus the very bytes the detail was parsed from (the reader renders them).

        The file is read once: details and rendered article come from one version even when an
        editor saves in between.
        """
        from memhtml_desktop.index.reader import read_memory

        path = safe_store_path(path)

        def run() -> tuple[MemoryDetail, bytes]:
            data = self.file_bytes(path)
            count = (lambda: self.reinforce([path], "neutral")) if bump else None
            return read_memory(self.reader(), self.root, path, data, bump=count), data or b""

        return self._recovering(run)

    def evaluate(self, probes, *, ranking: RankingProfile | None = None, limit: int = 40) -> GateReport:
        """Each probe's target ranked against its near-twin controls (index/evaluate.py)."""
        from memhtml_desktop.index.evaluate import run_probes

        return run_probes(self, probes, ranking=ranking, limit=limit)

    def known_item_report(
        self, count: int, *, seed: int = 1, ranking: RankingProfile | None = None, k: int = 10
    ) -> KnownItemReport:
        """Known-item MRR@k over `count` sampled memories' claim and title words (index/evaluate.py)."""
        from memhtml_desktop.index.evaluate import known_items, run_known_items

        profile = ranking or self.ranking
        items = self._recovering(
            lambda: known_items(self, count, seed=seed, twin_cosine=profile.twin_cosine.get(self.embedder.model_id))
        )
        return run_known_items(self, items, ranking=profile, k=k)

    def why(
        self,
        query: str,
        scope: Scope | None,
        path: str,
        *,
        limit: int = 10,
        ranking: RankingProfile | None = None,
        fts: FtsQuery | None = None,
    ) -> WhyNot:
        """Where `path` stood for `query` and what kept it off a page of `limit` hits (`fts`: the
        query as the Answer shown parsed it)."""
        from memhtml_desktop.index.explain import why_not

        path = safe_store_path(path)
        return self._recovering(
            lambda: why_not(self.retriever(), query, scope or Scope(), path, limit=limit, ranking=ranking, fts=fts)
        )

    def counts(self, query: str, scope: Scope | None = None) -> FilterCounts:
        """The count beside every filter value for `query` (see index/facets.py)."""
        from memhtml_desktop.index.facets import filter_counts

        return self._recovering(lambda: filter_counts(self.reader(), query, scope or Scope()))

    def counts_of(self, paths) -> FilterCounts:
        """The same counts over exactly `paths` (the hits a list shows; see index/facets.py)."""
        from memhtml_desktop.index.facets import counts_over

        return self._recovering(lambda: counts_over(self.reader(), tuple(paths)))

    def pool(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        limit: int = 10,
        depth: int = 30,
        ranking: RankingProfile | None = None,
        fts: FtsQuery | None = None,
    ) -> FusedPool:
        """The fused list a search page of `limit` is drawn from, `depth` deep, with its totals
        (`fts`: the query as an Answer parsed it)."""
        from memhtml_desktop.index.pool import fused_pool

        return self._recovering(
            lambda: fused_pool(self.retriever(), query, scope, limit=limit, depth=depth, ranking=ranking, fts=fts)
        )

    def answer(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        limit: int = 10,
        depth: int = 30,
        ranking: RankingProfile | None = None,
        generation: int = 0,
    ) -> Answer:
        """`search` and `pool` from one run of the pipeline, the query parsed once (the window's
        search job; see index/pool.py)."""
        from memhtml_desktop.index.pool import answer

        return self._recovering(
            lambda: answer(
                self.retriever(), query, scope, limit=limit, depth=depth, ranking=ranking, generation=generation
            )
        )

    def find_memories(self, text: str, *, limit: int = 20) -> list[MemoryRef]:
        """Memories whose title or path holds `text` (choosing one by name)."""
        from memhtml_desktop.index.listing import find_memories

        return self._recovering(lambda: find_memories(self.reader(), text, limit=limit))

    def list(self, scope: Scope | None = None, *, limit: int = 50, cursor: str | None = None) -> ListPage:
        from memhtml_desktop.index.listing import list_memories

        return self._recovering(lambda: list_memories(self.reader(), scope or Scope(), limit=limit, cursor=cursor))

    def problems(self) -> list[Problem]:
        from memhtml_desktop.index.listing import problems

        return self._recovering(lambda: problems(self.reader()))

    def health(self, *, cancelled: Callable[[], bool] | None = None) -> Health | None:
        """The tree compared with the index (a directory walk: the watcher runs it when quiet);
        None when `cancelled` stopped the walk."""
        from memhtml_desktop.index.health import measure_health

        return measure_health(self.reader(), self.root, cancelled)

    # -- the state sidecar (.memhtml/state/access.jsonl) ----------------------------------------

    def export_state(self) -> bytes:
        """The state plane as sidecar bytes (one consistent snapshot)."""
        from memhtml_desktop.index.sidecar import export_access

        return export_access(self.reader())

    def write_state_export(self, out: str | os.PathLike[str] | None = None, *, force: bool = False) -> Path:
        """Write the export atomically: to the store's own sidecar, or to `out` (mode kept, fsynced)."""
        from memhtml_desktop.atomic import write_atomically
        from memhtml_desktop.index.sidecar import write_export

        if out is None:
            return write_export(self.reader(), self.root, force=force)
        return write_atomically(Path(out), self.export_state())

    def import_state(self, data: bytes) -> ImportReport:
        """Merge sidecar bytes into the state plane (newer facts win, see index/sidecar.py)."""
        from memhtml_desktop.index.sidecar import import_access

        return import_access(self.reader(), data)

    def import_sidecar(self) -> ImportReport | None:
        """Import the store's own `.memhtml/state/access.jsonl`; None when it has none."""
        from memhtml_desktop.index.sidecar import import_file

        return import_file(self.reader(), self.root)

    @staticmethod
    def one_shot_process() -> None:
        """This process answers one command and leaves (the command line): a product over the kept
        vector file gives its pages back as it passes, so its peak memory is what its user sees
        (index/vector_file.py `Pages.give_back`). A long-lived process keeps them mapped."""
        from memhtml_desktop.index.vector_file import Pages

        Pages.give_back = True

    @staticmethod
    def stop_parse_workers(*, leaving: bool = False) -> None:
        """Stop this process's parse workers (index/parse_pool.py `shutdown_pool`). A child process
        calls it once nothing indexes any more, before it leaves: its exit would wait on them.
        `leaving`: kill them instead of letting their running chunks finish, and start none again in
        this process (`leave_pool`: the engine's close)."""
        from memhtml_desktop.index.parse_pool import leave_pool, shutdown_pool

        if leaving:
            leave_pool()
        else:
            shutdown_pool()

    def sqlite_heap(self) -> dict[str, float]:
        """SQLite's heap in this process now, every connection together, and its bound (MB; 0: none)."""
        return {"sqlite_mb": round(dbmod.heap_used_mb(), 2), "sqlite_limit_mb": round(dbmod.heap_limit_mb(), 2)}

    @staticmethod
    def library_versions() -> dict[str, str]:
        """SQLite's, sqlite-vec's and apsw's versions (Help → About), without a caller's apsw import."""
        from memhtml_desktop.index.versions import library_versions

        return library_versions()

    def state_plane(self) -> StatePlane:
        """The state plane now (the window's status bar asks every few seconds): followed to the
        file at its path, its kept reads written when it can take them (index/state_watch.py)."""
        return self._plane.status(self.reader)

    def state_health(self) -> StateHealth:
        """`doctor`'s check of `.memhtml/state.db`: integrity and schema, read only (index/state_health.py)."""
        from memhtml_desktop.data import migrations_dir
        from memhtml_desktop.index.state_health import check_state

        return check_state(self.state_path, migrations_dir() / "state")

    def stats(self) -> dict[str, Any]:
        from memhtml_desktop.index.listing import store_stats

        return self._recovering(lambda: store_stats(self.reader()))

    def file_bytes(self, path: str) -> bytes | None:
        """A memory file's bytes, read only from inside the store (symlinks out are refused)."""
        from memhtml_desktop.index.scanner import read_bytes, stat_one

        path = safe_store_path(path)
        if stat_one(self.root, path) is None:
            return None
        try:
            return read_bytes(self.root, path)
        except (OSError, ValueError):
            return None
