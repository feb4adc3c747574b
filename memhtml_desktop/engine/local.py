"""The engine on threads of the caller's process: the same `Engine`, the same messages.

For a store whose embedder cannot reach another process as itself (`ops/spec.crossing`: a custom
in-process embedder handed to the library, a MiniLM loaded from a folder of its own): the engine
then runs here, and its messages are handed across threads without pickling. Everything else —
lanes, the watcher, the protocol — is the process engine's; only the GIL is shared.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from memhtml_desktop.engine.core import Engine
from memhtml_desktop.engine.protocol import Close, Gone
from memhtml_desktop.ops.spec import StoreSpec


class LocalTransport:
    def __init__(self, spec: StoreSpec | None, on_message: Callable[[Any], None], *, store: Any = None) -> None:
        self.spec, self.on_message, self.store = spec, on_message, store
        self._inbox: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._closing = False
        self.pid = None

    def start(self) -> LocalTransport:
        engine = Engine(self.spec, self.on_message, store=self.store)
        engine._owns_parse_workers = False  # they are this process's, shared with whoever else indexes here
        self._thread = threading.Thread(target=self._serve, args=(engine,), name="memhtml-engine", daemon=True)
        self._thread.start()
        return self

    def _serve(self, engine: Engine) -> None:
        def receive(timeout: float) -> Any:
            try:
                return self._inbox.get(timeout=timeout)
            except queue.Empty:
                return None

        try:
            engine.open()
            engine.serve(receive)
        finally:
            self.on_message(Gone("closed" if self._closing else "the engine's thread ended", expected=self._closing))

    def send(self, message: Any) -> bool:
        if self._thread is None or not self._thread.is_alive():
            return False
        self._inbox.put(message)
        return True

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def close(self, timeout: float = 15.0) -> None:
        self._closing = True
        if self._thread is not None:
            self._inbox.put(Close())
            if self._thread is not threading.current_thread():
                self._thread.join(timeout)
