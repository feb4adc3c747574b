"""The watcher, seen from the GUI thread: the engine's watch messages turned into Qt signals.

The watcher (`watch/watcher.py`) runs in the store's engine (`engine/`), beside its index passes
and parse workers; the engine says its `WatchStatus` and each `BatchSummary`, and the runner
re-emits what the engine says on `engine_said`, on the GUI thread. This bridge picks out the
watcher's part: `status_changed`, `batch_indexed`, and every batch that touched the index
announced as a `StoreChange` on the runner's `StoreEvents` — how the panes hear about it.

With watching turned off (the `watch` setting) the bridge runs one reconciliation (`ReconcileJob`)
in the engine instead and reports itself "stopped", so the window still opens on an index in step
with the disk. F5 asks the watcher for a reconciliation; only without a watcher does it run one
itself; after the engine died, F5 starts a new one (and its watcher).

The shapes are the watcher's own: `WatchStatus` and `BatchSummary` (watch/status.py), for a
one-off reconciliation too.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from memhtml_desktop.engine.protocol import Batch, Gone, Idle, OpenFailed, Status
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.jobs import ReconcileJob, SidecarJob
from memhtml_desktop.ui.session.runner import Runner
from memhtml_desktop.watch.status import STARTING, STOPPED, BatchSummary, WatchStatus

log = logging.getLogger(__name__)


def stopped(reason: str = "", **changes: Any) -> WatchStatus:
    """The status shown when no watcher runs."""
    return WatchStatus(mode=changes.pop("mode", STOPPED), reason=reason, **changes)


class WatchBridge(QObject):
    """Start the engine's watcher for one store; `status_changed` and `batch_indexed` arrive on the GUI thread."""

    status_changed = Signal(object)  # WatchStatus
    batch_indexed = Signal(object)  # BatchSummary
    failed = Signal(str)

    def __init__(
        self,
        runner: Runner,
        *,
        enabled: bool = True,
        seed: bool = False,
        watcher_options: dict | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.enabled = enabled
        self.seed = seed
        """Import the store's access sidecar first (a fresh demo copy's recorded reads)."""
        self.watcher_options = dict(watcher_options or {})
        self.watching = False
        """Whether a watcher was asked to run in the engine (it may have died: see `status`)."""
        self.idle = False
        """Whether the engine's watcher has caught up with every change it saw."""
        self._status = stopped("comparing the store with the index", mode=STARTING, busy=True)
        self._stopped = False
        runner.engine_said.connect(self._said)

    def status(self) -> WatchStatus:
        return self._status

    def start(self) -> None:
        """Seed (optional, in the engine's writer lane), then reconcile and watch."""
        if self.seed:
            self.seed = False
            job = SidecarJob().success(lambda _: self.start())
            self.runner.run(job.failure(lambda msg: (self.failed.emit(msg), self.start())))
            return
        self._on_status(self._status)
        if self.enabled:
            self._start_watcher()
            return
        self._reconcile_once()

    def _start_watcher(self) -> None:
        if self.runner.client is None:
            return
        self.watching, self.idle = True, False
        self.runner.client.watch(**self.watcher_options)

    def _reconcile_once(self) -> None:
        started = time.perf_counter()

        def done(report: Any) -> None:
            summary = BatchSummary.of(
                report, (time.perf_counter() - started) * 1000, paths=report.seen, kind="reconcile"
            )
            self._on_status(stopped("watching is off", last_batch=summary))
            if not self._stopped:
                self.batch_indexed.emit(summary)

        def progress(phase: str, done_: int, total: int) -> None:
            self._on_status(
                stopped("comparing the store with the index", mode=STARTING, busy=True, progress=(phase, done_, total))
            )

        # the job announces its StoreChange itself (ReconcileJob.changes)
        self.runner.run(ReconcileJob().success(done).failure(self._failed).progress(progress))

    def reconcile_now(self) -> None:
        """File → Re-index: a full comparison, by the watcher when one runs (watching goes on); after
        the engine stopped, a new engine (its watcher with it)."""
        client = self.runner.client
        if client is None or self._stopped:
            return
        if not client.running:
            client.restart()
            return
        if self.watching:
            self.idle = False
            client.reconcile("asked for")
            return
        self._reconcile_once()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop following the engine's watcher (the engine stops it when it closes)."""
        self._stopped = True
        self.watching = False

    def wait_idle(self, timeout: float = 0.0) -> bool:
        """For batch tools and tests (which pump the event loop): whether the watcher has caught up."""
        return not self.watching or self.idle

    # -- what the engine said (GUI thread) --------------------------------------------------------

    @Slot(object)
    def _said(self, message: Any) -> None:
        if self._stopped:
            return
        if isinstance(message, Status):
            self._on_status(message.status)
        elif isinstance(message, Batch):
            self._on_batch(message.summary)
        elif isinstance(message, Idle):
            self.idle = message.idle
        elif isinstance(message, Gone) and not message.expected or isinstance(message, OpenFailed):
            self.idle = False
            if isinstance(message, Gone):
                reason = f"the engine stopped ({message.reason}); File \u2192 Re-index starts it again"
            else:
                reason = f"the store could not be opened: {message.message}"
            self._on_status(stopped(reason, store_root=self._status.store_root))
            self.failed.emit(reason)

    def _on_status(self, status: WatchStatus) -> None:
        self._status = status
        self.status_changed.emit(status)

    def _on_batch(self, summary: BatchSummary) -> None:
        self.batch_indexed.emit(summary)
        self.runner.events.announce(StoreChange.of_batch(summary))

    def _failed(self, message: str) -> None:
        self._on_status(stopped(f"indexing failed: {message}"))
        self.failed.emit(message)
