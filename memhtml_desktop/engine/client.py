"""The window's side of its engine, without Qt: calls numbered, answers matched, deaths survived.

`EngineClient.call(job)` sends the job (without its handlers) and returns the call's id; every
call ends in one `Done` or `Failed` with that id, handed to `on_message` on the transport's
thread (the window's Runner queues it to the GUI thread). When the engine dies, each call still
pending gets a `Failed` naming how it ended, then `Gone`; the next request starts a new engine,
and a watcher that was running is started again in it. An engine that dies three times within a
minute is not restarted by a request: `restart()` (File → Re-index) does that.

Which transport: a process of its own (`engine/process.py`) whenever the store can be opened
again from a `StoreSpec` — its embedder crosses to another process as itself — else threads of
this process over the caller's own `Store` (`engine/local.py`).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from memhtml_desktop.engine.protocol import RECONCILE, START, Call, Cancel, Done, Failed, Gone, Stop, Watch
from memhtml_desktop.ops.spec import StoreSpec, spec_of

log = logging.getLogger(__name__)

DEATHS_BEFORE_GIVING_UP = 3
DEATH_WINDOW_S = 60.0


class EngineClient:
    def __init__(self, store: Any, on_message: Callable[[Any], None], *, processes: bool = True) -> None:
        """`store`: a `StoreSpec`, or an open `Store` (its spec is taken when its embedder crosses;
        otherwise, or with `processes=False`, the engine runs on threads here over that Store)."""
        self.on_message = on_message
        if isinstance(store, StoreSpec):
            self.spec, self.store = store, None
        else:
            self.spec = spec_of(store) if processes else None
            self.store = None if self.spec is not None else store
        self._ids = itertools.count(1)
        self._pending: dict[int, int] = {}  # call id -> the engine (its epoch) it was sent to
        self._epoch = 0
        self._lock = threading.Lock()
        self._transport: Any = None
        self._watch: Watch | None = None
        self._deaths: list[float] = []
        self._closed = False
        self.gone_reason = ""
        """Why the engine last stopped, while no new one runs ("" while one does)."""

    @property
    def in_process(self) -> bool:
        return self.spec is None

    @property
    def pid(self) -> int | None:
        return getattr(self._transport, "pid", None)

    def start(self) -> EngineClient:
        self._epoch += 1
        heard = lambda message, epoch=self._epoch: self._heard(message, epoch)  # noqa: E731
        if self.spec is not None:
            from memhtml_desktop.engine.process import ProcessTransport

            transport: Any = ProcessTransport(self.spec, heard)
        else:
            from memhtml_desktop.engine.local import LocalTransport

            transport = LocalTransport(None, heard, store=self.store)
        self._transport = transport
        self.gone_reason = ""
        transport.start()
        if self._watch is not None:
            transport.send(self._watch)
        return self

    # -- requests -------------------------------------------------------------------------------

    def call(self, job: Any) -> int:
        """Send `job` (its handlers stay here); the id its one answer will carry."""
        call_id = next(self._ids)
        running = self._ensure()
        with self._lock:
            self._pending[call_id] = self._epoch
        if not running or not self._transport.send(Call(call_id, job.portable())):
            self._fail(call_id, f"the engine is not running ({self.gone_reason or 'closed'})")
        return call_id

    def cancel(self, call_id: int) -> None:
        if self._transport is not None:
            self._transport.send(Cancel(call_id))

    def stop(self, call_id: int) -> None:
        if self._transport is not None:
            self._transport.send(Stop(call_id))

    def watch(self, **options: Any) -> None:
        """Start the engine's watcher (again after a restart, too)."""
        self._watch = Watch(START, dict(options))
        if self._ensure():
            self._transport.send(self._watch)

    def reconcile(self, reason: str = "asked for") -> None:
        if self._ensure():
            self._transport.send(Watch(RECONCILE, reason=reason))

    def restart(self) -> None:
        """Start a new engine now (File → Re-index after a death), whatever the deaths so far."""
        self._deaths.clear()
        if self._transport is None or not self._transport.running:
            self.start()

    def close(self, timeout: float = 15.0) -> None:
        self._closed = True
        if self._transport is not None:
            self._transport.close(timeout)

    @property
    def running(self) -> bool:
        return self._transport is not None and self._transport.running

    def kill(self) -> None:
        """Tests: the engine killed as the out-of-memory killer would."""
        if self._transport is not None and hasattr(self._transport, "kill"):
            self._transport.kill()

    # -- answers --------------------------------------------------------------------------------

    def _ensure(self) -> bool:
        """A running engine, restarted after a death unless it keeps dying."""
        if self._closed:
            return False
        if self._transport is not None and self._transport.running:
            return True
        now = time.monotonic()
        recent = [t for t in self._deaths if now - t < DEATH_WINDOW_S]
        if self._transport is not None and len(recent) >= DEATHS_BEFORE_GIVING_UP:
            return False
        if self._transport is not None:
            log.info("starting a new engine (the last one stopped: %s)", self.gone_reason)
        self.start()
        return True

    def _heard(self, message: Any, epoch: int) -> None:
        """On the transport's thread. Calls' answers always reach `on_message` (a call sent to an
        engine that has since been replaced still ends); what an old engine says of itself does not."""
        current = epoch == self._epoch
        if isinstance(message, (Done, Failed)):
            with self._lock:
                self._pending.pop(message.id, None)
        elif isinstance(message, Gone):
            with self._lock:
                orphans = sorted(call_id for call_id, sent_to in self._pending.items() if sent_to == epoch)
                for call_id in orphans:
                    del self._pending[call_id]
            reason = "the engine closed" if message.expected else f"the engine stopped ({message.reason})"
            if not message.expected:
                self._deaths.append(time.monotonic())
                log.warning("%s", reason)
                if current:
                    self.gone_reason = reason
            for call_id in orphans:
                self.on_message(Failed(call_id, reason, cancelled=message.expected))
        elif not current:
            return
        if isinstance(message, Gone) and not current:
            return
        self.on_message(message)

    def _fail(self, call_id: int, text: str) -> None:
        with self._lock:
            self._pending.pop(call_id, None)
        self.on_message(Failed(call_id, text))
