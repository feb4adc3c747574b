"""The live watcher: the index follows the store within a second, whatever happens on disk.

Three kinds of thread, and what each may do:

* watchdog's observer thread calls `_enqueue` (through `events.ChangeCollector`): it appends a
  RawChange under a lock and returns. Nothing else runs there.
* ONE worker thread (`memhtml-watch`) owns every index write: it waits for a quiet window
  (`quiet_s` with no new event, but never more than `max_delay_s` after the first one, so a
  steady stream still lands), merges what queued into passes of at most `max_batch` items and
  runs `Store.update_paths` for each. The Store's apsw connection for this thread lives and dies
  here. Every callback (`on_status`, `on_batch`, `on_progress`) is called from this thread; a GUI
  marshals them to its own thread with a signal.
* Any other thread may search meanwhile: each has its own connection, the index is in WAL mode,
  and the indexer commits every 500 files, so a reader sees the last committed state and is
  never blocked by a long pass.

Start-up: the observer is started FIRST (so nothing written during the reconciliation is
missed; those events queue), then `Store.index` compares the tree with the index (size, mtime,
then content) with progress, then the mode turns "live" (or "polling") and the queue drains.

Self-healing. Events can be lost in ways no handler sees: the kernel's inotify queue overflows
in a large burst (watchdog rebuilds its watches and drops the queue), a new folder cannot get a
watch. So a while after each burst, and every `audit_every_s` seconds, the worker compares the
tree with the index (`Store.health`); if they disagree it runs a full reconciliation.
The store directory vanishing (deleted, moved away, unmounted) stops the watcher with a reason;
it checks every `root_check_s` for the directory's return and then reconciles and resumes.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from watchdog.observers.api import BaseObserver

from memhtml_desktop.index import lease
from memhtml_desktop.index.indexer import IndexReport
from memhtml_desktop.watch import observers, presence
from memhtml_desktop.watch.changes import ChangeSet
from memhtml_desktop.watch.events import (
    DIR_NEW,
    ROOT,
    UPDATE,
    ChangeCollector,
    RawChange,
)
from memhtml_desktop.watch.status import (
    BEHIND,
    LIVE,
    POLLING,
    STARTING,
    STOPPED,
    BatchSummary,
    Health,
    WatchStatus,
    now_iso,
)
from memhtml_desktop.write_lock import wait_for_writes

log = logging.getLogger(__name__)

StatusCallback = Callable[[WatchStatus], None]
BatchCallback = Callable[[BatchSummary], None]
ProgressCallback = Callable[[str, int, int], None]

#: Progress reaches `on_status` at most this often (the GUI need not repaint per file).
STATUS_PROGRESS_EVERY_S = 0.1
#: A burst of at least this many changes may have overflowed the kernel's event queue (its events
#: then lost without a word): the lease waits for the check that follows it (index/lease.py).
BIG_BURST = 1000
#: How long a pass waits for this app's write to finish indexing its own files (writes wait 10 s for the lock).
WRITE_WAIT_S = 15.0


class Watcher:
    """Keep a Store's index in step with its directory. `start()`, then `stop()`; or a `with` block.

    Args:
        store: the Store to keep in step; its methods are called from the worker thread only.
        on_status: called with a WatchStatus whenever the mode, the last batch, progress or health
            changes.
        on_batch: called with a BatchSummary after every index pass (and every reconciliation).
        on_progress: called with (phase, done, total) during reconciliations and passes.
        force_polling: poll instead of using kernel events (tests; stores known not to notify).
        quiet_s: the quiet window that closes a burst; max_delay_s: the most a change waits for it.
        pair_s: how long a burst that created a folder stays open (see `_take`).
        max_batch: paths (or moves) per index pass; a larger burst runs as several passes.
        poll_interval_s: seconds between directory scans when polling.
        root_check_s: how often the store directory's presence is checked (and, stopped, its return).
        health_after_s: how long after a burst the tree and index are compared.
        audit_every_s: how often that comparison also runs when nothing happens.
        observer_factory: builds the kernel-event observer (default: watchdog's platform Observer).
    """

    def __init__(
        self,
        store: Any,
        *,
        on_status: StatusCallback | None = None,
        on_batch: BatchCallback | None = None,
        on_progress: ProgressCallback | None = None,
        force_polling: bool = False,
        quiet_s: float = 0.2,
        max_delay_s: float = 1.0,
        pair_s: float = 0.6,
        max_batch: int = 5000,
        poll_interval_s: float = 0.5,
        root_check_s: float = 1.0,
        health_after_s: float = 1.0,
        audit_every_s: float = 60.0,
        observer_factory: observers.ObserverFactory | None = None,
    ) -> None:
        self.store = store
        self.root = str(store.root)
        self.on_status = on_status
        self.on_batch = on_batch
        self.on_progress = on_progress
        self.force_polling = force_polling
        self.quiet_s = quiet_s
        self.max_delay_s = max(max_delay_s, quiet_s)
        self.pair_s = pair_s
        self.max_batch = max(1, max_batch)
        self.poll_interval_s = poll_interval_s
        self.root_check_s = root_check_s
        self.health_after_s = health_after_s
        self.audit_every_s = audit_every_s
        self.observer_factory = observer_factory

        self._cond = threading.Condition()  # guards the queue below and the status
        self._pending: list[RawChange] = []
        self._pending_paths: set[str] = set()  # UPDATEs already queued (they merge anyway)
        self._first_at = 0.0
        self._last_at = 0.0
        self._new_dir_at = 0.0
        self._watches_due = False  # a burst made folders: check after it that each got a watch
        self._root_flagged = False
        self._in_flight = 0
        self._status = WatchStatus(store_root=self.root, since=now_iso())

        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._observer: BaseObserver | None = None
        self._watch_mode, self._watch_reason = LIVE, ""
        self._identity: tuple[int, int] | None = None
        self._needs_reconcile = ""  # non-empty: why a full reconciliation is due
        self._retry_at: float | None = None  # when a failed reconciliation is tried again
        self._health_due: float | None = None
        self._next_audit = 0.0
        self._last_drift: tuple[int, int] | None = None
        self._last_progress_emit = 0.0
        # The lease beside the index (index/lease.py): written under `_cond`, so the observer's
        # "pending" and the worker's "settled" land in the order the queue saw them.
        self._lease_file = getattr(store, "index_path", None)
        self._lease_state: str | None = None
        self._lease_since = 0.0
        self._last_burst = 0

    # -- public -------------------------------------------------------------------------------

    def start(self) -> Watcher:
        """Start the worker thread; the reconciliation and the observer start on it."""
        if self._thread is not None:
            raise RuntimeError("a Watcher starts once")
        self._thread = threading.Thread(target=self._run, name="memhtml-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 30.0) -> None:
        """Stop watching: cancel the running pass, stop the observer, join every thread."""
        self._stopping.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def __enter__(self) -> Watcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def status(self) -> WatchStatus:
        """The current snapshot, with a live queue depth (safe from any thread)."""
        with self._cond:
            return replace(self._status, queue_depth=len(self._pending) + self._in_flight)

    def request_reconcile(self, reason: str = "asked for") -> None:
        """Ask the worker for a full comparison of tree and index (File → Re-index); any thread.

        The worker runs it at its next turn (after a burst already queued), as a 'reconcile'
        batch like the start-up one; watching goes on throughout.
        """
        with self._cond:
            self._needs_reconcile = self._needs_reconcile or reason
            self._cond.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until nothing is queued or running and the watcher is watching (or stopped).

        Idle means "caught up with every event received", not "caught up with the disk": an
        event can still be on its way from the kernel (a lone rename's source waits 0.5 s in
        watchdog to be paired).
        """

        def idle() -> bool:
            return not self._pending and not self._in_flight and not self._status.busy and self._status.mode != STARTING

        with self._cond:
            return self._cond.wait_for(lambda: idle() or not self.running, timeout) and idle()

    # -- the observer thread ------------------------------------------------------------------

    def _enqueue(self, change: RawChange) -> None:
        with self._cond:
            if change.kind == UPDATE:
                if change.path in self._pending_paths:
                    self._last_at = time.monotonic()
                    return
                self._pending_paths.add(change.path)
            now = time.monotonic()
            if not self._pending:
                self._first_at = now
                if self._lease_state is not None:  # the first event of a burst: not settled any more
                    self._hold_lease(lease.PENDING)
            self._last_at = now
            self._pending.append(change)
            if change.kind == ROOT:
                self._root_flagged = True
            elif change.kind == DIR_NEW:
                self._new_dir_at = now
            self._cond.notify_all()

    # -- the worker thread --------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._begin()
            while not self._stopping.is_set():
                if self._status.mode == STOPPED:
                    self._wait_for_return()
                    continue
                changes = self._take()
                if self._stopping.is_set():
                    break
                if not self._root_ok():
                    self._lose_root()
                    continue
                if changes:
                    self._process(changes)
                else:
                    self._housekeeping()
                self.store.settle_thread_connection()  # a pass leaves no statement running (index/held.py)
        except Exception as exc:  # noqa: BLE001 - a watcher must never take the app down
            log.exception("the watcher failed")
            self._set(mode=STOPPED, reason=f"watching failed: {type(exc).__name__}: {exc}", busy=False, progress=None)
        finally:
            with self._cond:
                self._hold_lease(None)
            observers.shutdown(self._observer)
            self._observer = None
            try:
                self.store.close_thread_connection()
            except Exception:  # noqa: BLE001
                log.debug("closing the worker's connection failed", exc_info=True)
            if self._stopping.is_set():
                self._set(mode=STOPPED, reason="watching was stopped", busy=False, progress=None)

    def _begin(self) -> None:
        """Start (or resume) watching: the observer first, then the reconciliation."""
        self._set(mode=STARTING, reason="comparing the store with the index", busy=True)
        try:
            self._identity = presence.identity(self.root)
            self._start_observer()
        except FileNotFoundError:
            self._lose_root()
            return
        in_step = self._reconcile("start-up")
        if self._stopping.is_set() or self._status.mode == STOPPED:
            return
        if in_step:
            self._set(mode=self._watch_mode, reason=self._watch_reason, busy=False, progress=None)
        self._measure_health()
        self._next_audit = time.monotonic() + self.audit_every_s
        self._renew_lease()

    def _start_observer(self) -> None:
        handler = ChangeCollector(self.root, self._enqueue)
        self._observer, self._watch_mode, self._watch_reason = observers.start_observer(
            self.root,
            handler,
            force_polling=self.force_polling,
            poll_interval=self.poll_interval_s,
            factory=self.observer_factory,
        )

    def _take(self) -> list[RawChange]:
        """Wait for a burst to close (or a housekeeping tick, returning []); take everything queued.

        A burst closes `quiet_s` after its last event, or `max_delay_s` after its first. One that
        created a folder stays open at least `pair_s` after it: a rename into a folder made a
        moment earlier (`git mv` into a new `archive/<YYYY>/...`) can reach the kernel before the
        new folder's watch exists; watchdog then reports the destination at once, as created, but
        holds the unpaired source for 0.5 s before reporting it deleted. Both must land in ONE
        pass, where the indexer pairs them by content, so the rows, vectors and state row follow.
        """
        with self._cond:
            tick = time.monotonic() + self.root_check_s
            while not self._stopping.is_set():
                now = time.monotonic()
                if self._pending:
                    close = max(self._last_at + self.quiet_s, self._new_dir_at + self.pair_s)
                    due = now if self._root_flagged else min(close, self._first_at + self.max_delay_s)
                    if now >= due:
                        taken, self._pending = self._pending, []
                        self._pending_paths.clear()
                        self._root_flagged = False
                        self._new_dir_at = 0.0
                        self._in_flight = len(taken)
                        return taken
                    self._cond.wait(due - now)
                elif now >= tick or self._needs_reconcile:
                    return []
                else:
                    self._cond.wait(tick - now)
            return []

    def _process(self, raw: list[RawChange]) -> None:
        self._last_burst = len(raw)
        if any(change.kind == DIR_NEW for change in raw):
            self._watches_due = True  # (a folder moved within the tree keeps its watch)
        try:
            changes = ChangeSet(self.store.root, self.store.paths_under)
            changes.extend(raw)
            passes = changes.passes(self.max_batch)
        except Exception as exc:  # noqa: BLE001 - e.g. the index busy or unreadable: fall back to a full look
            log.warning("could not expand %d changes: %s", len(raw), exc, exc_info=True)
            self._set_in_flight(0)
            self._needs_reconcile = f"changes could not be expanded ({exc})"
            return
        self._set_in_flight(sum(len(p) for p in passes))
        for index_pass in passes:
            if self._stopping.is_set():
                break  # the next start-up reconciliation finds whatever was left
            if not self._root_ok():
                self._set_in_flight(0)
                self._lose_root()
                return
            self._set(busy=True)
            # the app's own write holds the lock until it has indexed its files: their events are
            # looked at after that (found indexed, announced once), not halfway through it
            if not wait_for_writes(self.store.root, WRITE_WAIT_S, stop=self._stopping.is_set):
                log.info("a write held the store's lock for over %g s; indexing beside it", WRITE_WAIT_S)
            started = time.perf_counter()
            try:
                report = self.store.update_paths(
                    index_pass.paths, index_pass.moves, progress=self._progress, cancelled=self._stopping.is_set
                )
            except Exception as exc:  # noqa: BLE001 - an environment failure must not end watching
                log.warning("an index pass failed: %s", exc, exc_info=True)
                self._needs_reconcile = f"an index pass failed ({type(exc).__name__}: {exc})"
                self._set(mode=BEHIND, reason=f"{self._needs_reconcile}; comparing the store with the index")
                self._set_in_flight(max(0, self._in_flight - len(index_pass)))
                continue
            self._finish_pass(report, started, len(index_pass), "batch")
            self._set_in_flight(max(0, self._in_flight - len(index_pass)))
        self._set_in_flight(0)
        self._set(busy=False, progress=None)
        self._health_due = time.monotonic() + self.health_after_s
        self._renew_lease()

    def _reconcile(self, why: str) -> bool:
        """A full comparison of tree and index (`Store.index`), reported as a 'reconcile' batch.

        False when it failed: the mode turns "behind" with the reason (the status bar said "live"
        over an empty index while the failure only flashed by), and it is tried again in
        `audit_every_s`; the next one that completes puts the watching mode back."""
        with self._cond:
            if self._lease_state is not None:
                self._hold_lease(lease.PENDING)
        self._needs_reconcile = ""
        self._set(busy=True, progress=None)
        started = time.perf_counter()
        try:
            report = self.store.index(progress=self._progress, cancelled=self._stopping.is_set)
        except Exception as exc:  # noqa: BLE001
            log.warning("reconciliation (%s) failed: %s", why, exc, exc_info=True)
            self._retry_at = time.monotonic() + self.audit_every_s
            try:  # the retry opens a fresh connection: one opened on a full disk stays read-only
                self.store.close_thread_connection()
            except Exception:  # noqa: BLE001
                log.debug("closing the worker's connection failed", exc_info=True)
            self._set(
                mode=BEHIND,
                busy=False,
                progress=None,
                reason=f"comparing the store with the index failed: {exc}; retrying in {self.audit_every_s:g} s",
            )
            return False
        self._retry_at = None
        if not report.cancelled:
            log.info("reconciled (%s): %s", why, report.to_json())
            self._finish_pass(report, started, report.seen, "reconcile")
        if self._status.mode == BEHIND and not report.cancelled:
            self._set(mode=self._watch_mode, reason=self._watch_reason)
        self._set(busy=False, progress=None)
        return True

    def _finish_pass(self, report: IndexReport, started: float, items: int, kind: str) -> None:
        summary = BatchSummary.of(report, (time.perf_counter() - started) * 1000.0, paths=items, kind=kind)
        with self._cond:
            batches = self._status.batches + 1
        self._set(last_batch=summary, batches=batches)
        _call(self.on_batch, summary)

    def _housekeeping(self) -> None:
        try:
            self._keep_house()
        finally:
            self._renew_lease()

    def _keep_house(self) -> None:
        now = time.monotonic()
        if self._observer is not None and not _observer_alive(self._observer):
            log.warning("the observer stopped on its own; restarting it")
            self._restart_observer("the change observer stopped; restarted")
            return
        if self._needs_reconcile:
            self._reconcile(self._needs_reconcile)
            self._health_due = now
        elif self._retry_at is not None and now >= self._retry_at:
            self._reconcile("retry after a failed comparison")
            self._health_due = now
        audit = now >= self._next_audit
        health_due = self._health_due is not None and now >= self._health_due
        if audit:
            self._next_audit = now + self.audit_every_s
        # After a burst that made folders, not only at the next audit: another process may have
        # taken the last inotify watches meanwhile, and a folder without a watch is silent.
        if (audit or (health_due and self._watches_due)) and self._lost_watches():
            return
        if audit or health_due:
            self._health_due = None
            health = self._measure_health()
            if health is not None and not health.in_step:
                drift = (health.unindexed, health.orphans)
                if drift != self._last_drift:
                    self._last_drift = drift
                    log.warning(
                        "index out of step (%d not indexed, %d rows without a file); reconciling",
                        health.unindexed,
                        health.orphans,
                    )
                    self._reconcile("drift")
                    self._measure_health()
            elif health is not None:
                self._last_drift = None

    def _lost_watches(self) -> bool:
        """Switch to polling, saying why, when some folder has no watch; True when it did."""
        self._watches_due = False
        if self._watch_mode != LIVE or self._observer is None:
            return False
        missing = observers.unwatched_dirs(self._observer, self.root)
        if not missing or not observers.settled_unwatched_dirs(self._observer, self.root):
            return False
        self._switch_to_polling(
            f"{len(missing)} folder(s) could not be watched, first {missing[0]} (the inotify watch "
            f"limit; raise fs.inotify.max_user_watches for live updates); checking for changes every "
            f"{self.poll_interval_s:g} s"
        )
        return True

    def _measure_health(self) -> Health | None:
        with self._cond:
            if self._pending:
                return None  # a burst is arriving: the comparison would only show it
        # The walk yields to a change that arrives meanwhile (it walks every file: seconds at
        # 100,000 memories on a loaded machine, and a change waited for it); the burst's pass is
        # followed by another comparison anyway (`health_after_s`).
        try:
            health = self.store.health(cancelled=lambda: self._stopping.is_set() or bool(self._pending))
        except Exception as exc:  # noqa: BLE001
            log.warning("health check failed: %s", exc, exc_info=True)
            return None
        if health is None:  # the walk yielded to a change: the last comparison stands (the lease reads it)
            return None
        self._set(health=health)
        return health

    def _restart_observer(self, reason: str) -> None:
        with self._cond:
            self._hold_lease(None)  # no word on the index until watching by kernel events again
        observers.shutdown(self._observer)
        self._observer = None
        try:
            self._start_observer()
        except FileNotFoundError:
            self._lose_root()
            return
        if self._reconcile(reason):
            self._set(mode=self._watch_mode, reason=self._watch_reason or reason)

    def _switch_to_polling(self, reason: str) -> None:
        with self._cond:
            self._hold_lease(None)  # no word on the index until watching by kernel events again
        observers.shutdown(self._observer)
        self._observer = None
        log.warning("watching %s by polling: %s", self.root, reason)
        handler = ChangeCollector(self.root, self._enqueue)
        try:
            self._observer = observers.start_polling(self.root, handler, self.poll_interval_s)
        except FileNotFoundError:
            self._lose_root()
            return
        self._watch_mode, self._watch_reason = POLLING, reason
        if self._reconcile("switched to polling"):
            self._set(mode=POLLING, reason=reason)

    # -- the lease (index/lease.py) ------------------------------------------------------------

    def _renew_lease(self) -> None:
        """Say on the index what this watcher vouches for now: settled, pending, or nothing."""
        with self._cond:
            self._hold_lease(self._vouch())

    def _vouch(self) -> str | None:
        """(Under `_cond`.) None unless watching by kernel events; then settled or pending."""
        live = self._status.mode == LIVE and self._watch_mode == LIVE and self._observer is not None \
            and _observer_alive(self._observer)  # fmt: skip
        if not live or self._stopping.is_set():
            return None
        unsettled = (
            self._pending or self._in_flight or self._status.busy or self._needs_reconcile
            or self._watches_due  # a burst made folders: their watches are checked first
            or (self._health_due is not None and self._last_burst >= BIG_BURST)  # the kernel's queue may have overflowed
            or not self._status.health.in_step
        )  # fmt: skip
        return lease.PENDING if unsettled else lease.SETTLED

    def _hold_lease(self, state: str | None) -> None:
        """(Under `_cond`.) Write this watcher's lease in `state`, or remove it (None)."""
        if self._lease_file is None:
            return
        if state is None:
            if self._lease_state is not None:
                lease.drop(self._lease_file)
            self._lease_state = None
            return
        if state != self._lease_state:
            self._lease_since = time.time()
        try:
            lease.write(self._lease_file, self.root, state, since=self._lease_since, every=self.root_check_s)
            self._lease_state = state
        except OSError as exc:  # a lease not written is only a walk for the next read
            log.info("the watcher's lease was not written (%s)", exc)
            lease.drop(self._lease_file)
            self._lease_state = None

    # -- the store directory ------------------------------------------------------------------

    def _root_ok(self) -> bool:
        return presence.same_directory(self.root, self._identity)

    def _lose_root(self) -> None:
        """The store directory is gone or was replaced: stop, and wait for it (see `_wait_for_return`)."""
        with self._cond:
            self._hold_lease(None)  # no word on the index until watching by kernel events again
        observers.shutdown(self._observer)
        self._observer = None
        with self._cond:
            self._pending.clear()  # moot: the reconciliation on return compares everything
            self._pending_paths.clear()
            self._root_flagged = False
            self._in_flight = 0
        try:
            self.store.close_thread_connection()  # its state plane was attached from the old directory
        except Exception:  # noqa: BLE001
            log.debug("closing the worker's connection failed", exc_info=True)
        reason = (
            f"the store folder {self.root} is gone (deleted, moved or unmounted); watching resumes when it comes back"
        )
        log.warning(reason)
        self._set(mode=STOPPED, reason=reason, busy=False, progress=None)

    def _wait_for_return(self) -> None:
        while not self._stopping.wait(self.root_check_s):
            if presence.looks_like_store(self.root):
                log.info("the store folder %s is back; resuming", self.root)
                self._begin()
                return

    # -- status -------------------------------------------------------------------------------

    def _progress(self, phase: str, done: int, total: int) -> None:
        _call(self.on_progress, phase, done, total)
        now = time.monotonic()
        if now - self._last_progress_emit >= STATUS_PROGRESS_EVERY_S or (total and done >= total):
            self._last_progress_emit = now
            self._set(progress=(phase, done, total))

    def _set_in_flight(self, count: int) -> None:
        with self._cond:
            self._in_flight = count
            self._cond.notify_all()

    def _set(self, **changes: Any) -> None:
        with self._cond:
            if "mode" in changes and changes["mode"] != self._status.mode:
                changes["since"] = now_iso()
            self._status = replace(self._status, **changes)
            snapshot = replace(self._status, queue_depth=len(self._pending) + self._in_flight)
            self._cond.notify_all()
        _call(self.on_status, snapshot)


def _call(callback: Callable[..., Any] | None, *args: Any) -> None:
    if callback is None:
        return
    try:
        callback(*args)
    except Exception:  # noqa: BLE001 - a listener's bug must not stop the index following the disk
        log.exception("a watcher callback failed")


def _observer_alive(observer: BaseObserver) -> bool:
    if not observer.is_alive():
        return False
    return all(emitter.is_alive() for emitter in list(observer.emitters))
