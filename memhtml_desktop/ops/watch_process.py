"""The watcher in a child process: the window's index passes never share its GIL.

`ProcessWatcher` has the `Watcher`'s surface (`start`, `stop`, `status`, `running`,
`request_reconcile`, `wait_idle`) and calls the same `on_status` / `on_batch` callbacks, from a
listening thread of the caller's process that only waits on a pipe. The child (started like every
heavy job's, ops/backend.py) opens its own `Store` from the caller's `StoreSpec` and runs a plain
`Watcher` over it: the start-up reconciliation, every burst's index pass, the embedding, the
health audits. `WatchStatus` and `BatchSummary` cross as they are (frozen dataclasses); the
store's notices (a damaged index moved aside and rebuilt) come back to the caller's store.

When the child dies (killed, out of memory) the listener says so with a STOPPED status naming how
it ended; nothing waits for it, and `running` turns false, so the window can start another.

Stopping is orderly, mid-reconcile too: the child stops accepting commands, cancels the running
pass (the indexer checks between batches and drops the parse work queued ahead), joins the
watcher's thread, and only then shuts its parse pool down and returns (a pool shut under a running
pass refused its next chunk, "cannot schedule new futures after shutdown"; a pool left running
kept the child's exit waiting on its workers until the caller killed it). The child's warnings
cross the pipe and are logged here, under the same logger names: the window's log file has them.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import replace
from typing import Any, Callable

from memhtml_desktop.ops.backend import CHILD_NICE
from memhtml_desktop.ops.spec import alive as _alive, context, describe_exit, spec_of
from memhtml_desktop.watch.status import STARTING, STOPPED, WatchStatus, now_iso

log = logging.getLogger(__name__)

IDLE_POLL_S = 0.02
"""How often the child tells whether its watcher has caught up (for `wait_idle`)."""

CHILD_STOP_S = 8.0
"""How long the child waits for its watcher's pass to notice the stop (it does between batches of
a few hundred files); the caller waits longer (`ProcessWatcher.stop`) before it kills the child."""


class ProcessWatcher:
    def __init__(self, store: Any, *, on_status: Callable[[Any], None] | None = None,
                 on_batch: Callable[[Any], None] | None = None, **options: Any) -> None:
        options.pop("thread_nice", None)  # the child process is niced as a whole
        self.store, self.options = store, options
        self.on_status, self.on_batch = on_status, on_batch
        self._status = WatchStatus(store_root=str(store.root), since=now_iso(), mode=STARTING, busy=True)
        self._idle = False
        self._cond = threading.Condition()
        self._stopping = False
        self._proc: Any = None
        self._proc_lock = threading.Lock()  # one thread at a time asks the child's exit (see _exit_code)
        self._commands: Any = None
        self._listener: threading.Thread | None = None

    def start(self) -> ProcessWatcher:
        if self._proc is not None:
            raise RuntimeError("a Watcher starts once")
        ctx = context()
        events, events_out = ctx.Pipe(duplex=False)
        commands_in, self._commands = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=watch_main, name="memhtml-watch",
                                 args=(spec_of(self.store), self.options, events_out, commands_in, os.getpid()))
        self._proc.start()
        events_out.close()
        commands_in.close()
        self._listener = threading.Thread(target=self._listen, args=(events,), name="memhtml-watch-listen",
                                          daemon=True)
        self._listener.start()
        return self

    @property
    def running(self) -> bool:
        return self._proc is not None and self._exit_code() is None

    def _exit_code(self, timeout: float = 0.0) -> int | None:
        """The child's exit code once it has left (None while it runs), waiting up to `timeout`.

        One thread at a time: under the forkserver a child's exit code is 8 bytes the server writes
        once on the process's sentinel, and two threads polling together (the listener's join at the
        end and `stop`'s) both see the sentinel ready; the one that reads second gets EOF, and
        multiprocessing then records 255 over the real code ("perhaps the forkserver process itself
        got killed"). A clean exit read as 255 was said as a crash.
        """
        with self._proc_lock:
            self._proc.join(timeout)
            return self._proc.exitcode

    def status(self) -> WatchStatus:
        with self._cond:
            return self._status

    def request_reconcile(self, reason: str = "asked for") -> None:
        with self._cond:
            self._idle = False
        self._send(("reconcile", reason))

    def wait_idle(self, timeout: float) -> bool:
        with self._cond:
            return bool(self._cond.wait_for(lambda: self._idle or not self.running, timeout)) and self._idle

    def stop(self, timeout: float = 30.0) -> None:
        self._stopping = True
        self._send(("stop",))
        if self._proc is not None:
            if self._exit_code(timeout) is None:
                self._proc.terminate()
                self._exit_code(2.0)
        if self._listener is not None and self._listener is not threading.current_thread():
            self._listener.join(2.0)

    def _send(self, message: tuple) -> None:
        try:
            if self._commands is not None:
                self._commands.send(message)
        except (OSError, EOFError, BrokenPipeError):
            pass  # the child is gone; the listener says so

    def _listen(self, events: Any) -> None:
        try:
            while True:
                try:
                    message = events.recv() if events.poll(0.2) else None
                except (EOFError, OSError):
                    break
                if message is None:
                    if self._exit_code() is not None and not events.poll(0):
                        break
                    continue
                self._heard(message)
        finally:
            events.close()
            code = self._exit_code(2.0)
            with self._cond:
                self._idle = False
                self._cond.notify_all()
            if not self._stopping:
                how = describe_exit(code)
                log.warning("the watcher's process stopped (%s)", how)
                self._say(replace(self._status, mode=STOPPED, busy=False, progress=None,
                                  reason=f"the indexing process stopped ({how}); File \u2192 Re-index starts it again"))

    def _heard(self, message: tuple) -> None:
        what = message[0]
        if what == "status":
            self._say(message[1])
        elif what == "batch":
            if self.on_batch is not None:
                self.on_batch(message[1])
        elif what == "idle":
            with self._cond:
                self._idle = message[1]
                self._cond.notify_all()
        elif what == "notices":
            self.store.heard(message[1], message[2])
        elif what == "log":
            logging.getLogger(message[2]).log(message[1], "watcher process: %s", message[3])

    def _say(self, status: WatchStatus) -> None:
        with self._cond:
            self._status = status
        if self.on_status is not None:
            self.on_status(status)


def watch_main(spec: Any, options: dict, events: Any, commands: Any, parent_pid: int) -> None:
    """The child: a plain Watcher over its own Store, its callbacks sent down the pipe."""
    from memhtml_desktop.watch.watcher import Watcher

    try:
        os.nice(CHILD_NICE)
    except (AttributeError, OSError):
        pass
    lock = threading.Lock()

    def send(message: tuple) -> None:
        with lock:
            try:
                events.send(message)
            except (OSError, EOFError, BrokenPipeError):
                pass

    forward = _Forward(send)
    logging.getLogger().addHandler(forward)
    store = spec.open()
    watcher = Watcher(store, on_status=lambda s: send(("status", s)), on_batch=lambda b: send(("batch", b)),
                      **options)
    watcher.start()
    idle, told, checked = None, 0, time.monotonic()
    try:
        while True:
            try:
                command = commands.recv() if commands.poll(IDLE_POLL_S) else None
            except (EOFError, OSError):
                break
            if command is not None:
                if command[0] == "stop":
                    break
                if command[0] == "reconcile":
                    watcher.request_reconcile(command[1])
                    idle = False
                    send(("idle", False))
            now_idle = watcher.wait_idle(0)
            if now_idle != idle:
                idle = now_idle
                send(("idle", idle))
            if len(store.notices) > told:
                send(("notices", store.notices[told:], store._generation > 0))
                told = len(store.notices)
            if time.monotonic() - checked > 0.5:
                checked = time.monotonic()
                if not _alive(parent_pid):
                    break
    finally:
        watcher.stop(CHILD_STOP_S)  # cancels the running pass and joins the watcher's thread
        if watcher.running:
            log.warning("the watcher's pass did not stop within %g s; leaving without waiting", CHILD_STOP_S)
        else:
            from memhtml_desktop.index.store import Store

            Store.stop_parse_workers()  # nothing submits any more: the parse workers leave, and so can we
        send(("status", watcher.status()))
        logging.getLogger().removeHandler(forward)
        events.close()


class _Forward(logging.Handler):
    """The child's warnings, sent down the pipe (`("log", level, logger name, text)`)."""

    def __init__(self, send: Callable[[tuple], None]) -> None:
        super().__init__(logging.WARNING)
        self.send = send

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.send(("log", record.levelno, record.name, self.format(record)))
        except Exception:  # noqa: BLE001 - a log record must never break the watcher
            self.handleError(record)
