"""The engine in a process of its own: the window's side of the pipe, and the engine's `main`.

`ProcessTransport.start` starts the engine (`engine_main`) from the one multiprocessing context
(`ops/spec.context`: the forkserver, never a fork of a process with Qt threads; spawn in a frozen
app) and a listening thread that waits on the pipe — a wait that holds no GIL — and hands each
message to `on_message`. When the pipe closes without a `Close` asked for, the engine died
(killed, out of memory, a crash in a library): the listener says `Gone` with how it ended, at
once, and nothing waits for it.

The engine's process runs at the window's own niceness (`ENGINE_NICE`, 0; its parse workers are
niced): a process of its own shares no interpreter lock with the GUI thread, and running it nicer
cost its work two to three times the time on a loaded machine for a few ms of the window's longest
gap. It forwards its warnings as `LogLine`s (the window's log file has
them) and stops by itself when the window's process is gone.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from memhtml_desktop.engine.core import Engine, tune_allocator
from memhtml_desktop.engine.protocol import Close, Gone, LogLine
from memhtml_desktop.ops.spec import StoreSpec, alive, context, describe_exit

log = logging.getLogger(__name__)

ENGINE_NICE = 0
"""How much nicer than the window the engine's process runs (Linux niceness); the environment's
MEMHTML_DESKTOP_ENGINE_NICE (0-19) overrides it, for the benchmark that weighs it. It was 5 until
7 December: with two busy processes beside the window, nice 5 made the cold index of 20,000
memories take 95-134 s (hash) and 315-350 s (MiniLM) where nice 0 takes 39-48 s and 144-150 s, for a
longest gap of 19-25 ms against 16-31 ms (docs/architecture.md, "What went away, and what stayed")."""


def engine_nice(environ: dict[str, str] | None = None) -> int:
    """The engine's niceness: ENGINE_NICE unless the environment names another in 0-19."""
    raw = (os.environ if environ is None else environ).get("MEMHTML_DESKTOP_ENGINE_NICE", "")
    try:
        value = int(raw)
    except ValueError:
        return ENGINE_NICE
    return value if 0 <= value <= 19 else ENGINE_NICE


PARENT_CHECK_S = 0.5
"""How often the engine looks whether the window's process is still there."""
CLOSE_WAIT_S = 15.0
"""How long closing waits for the engine to leave by itself before it is terminated."""


class ProcessTransport:
    """One engine process for one store; `send` requests, `on_message` gets what it says."""

    def __init__(self, spec: StoreSpec, on_message: Callable[[Any], None]) -> None:
        self.spec, self.on_message = spec, on_message
        self._conn: Any = None
        self._proc: Any = None
        self._listener: threading.Thread | None = None
        self._send_lock = threading.Lock()
        self._proc_lock = threading.Lock()
        self._closing = False

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> ProcessTransport:
        ctx = context()
        ours, theirs = ctx.Pipe(duplex=True)
        self._proc = ctx.Process(
            target=engine_main, args=(self.spec, theirs, os.getpid()), name="memhtml-engine", daemon=False
        )  # not a daemon: the engine starts parse workers of its own
        with _main_not_inherited():
            self._proc.start()
        theirs.close()
        self._conn = ours
        self._listener = threading.Thread(target=self._listen, name="memhtml-engine-listen", daemon=True)
        self._listener.start()
        return self

    def send(self, message: Any) -> bool:
        """Hand a request to the engine; False when it is gone (the listener has said `Gone`)."""
        with self._send_lock:
            try:
                self._conn.send(message)
                return True
            except (OSError, EOFError, BrokenPipeError, AttributeError):
                return False

    @property
    def running(self) -> bool:
        return self._proc is not None and self._exit_code() is None

    def _exit_code(self, timeout: float = 0.0) -> int | None:
        """The engine's exit code once it has left, waiting up to `timeout` (one thread at a time:
        two threads reading a forkserver child's sentinel at once turn a clean exit into 255)."""
        with self._proc_lock:
            self._proc.join(timeout)
            return self._proc.exitcode

    def close(self, timeout: float = CLOSE_WAIT_S) -> None:
        """Ask the engine to close and wait for it to leave (terminated when it does not)."""
        self._closing = True
        if self._proc is None:
            return
        self.send(Close())
        if self._exit_code(timeout) is None:
            log.warning("the engine did not leave within %g s; terminating it", timeout)
            self._proc.terminate()
            self._exit_code(2.0)
        if self._listener is not None and self._listener is not threading.current_thread():
            self._listener.join(2.0)

    def kill(self) -> None:
        """For tests of an engine that dies: SIGKILL, as the out-of-memory killer would."""
        if self._proc is not None:
            self._proc.kill()

    def _listen(self) -> None:
        conn = self._conn
        try:
            while True:
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    break
                except Exception:  # noqa: BLE001 - a message that does not unpickle here is lost, said
                    log.warning("a message from the engine could not be read", exc_info=True)
                    continue
                if isinstance(message, LogLine):
                    logging.getLogger(message.name).log(message.level, "engine: %s", message.text)
                    continue
                self.on_message(message)
        finally:
            code = self._exit_code(CLOSE_WAIT_S if self._closing else 2.0)
            conn.close()
            self.on_message(Gone(describe_exit(code), expected=self._closing))


@contextlib.contextmanager
def _main_not_inherited() -> Iterator[None]:
    """Start a process without multiprocessing's import of this process's `__main__` in it.

    A spawned or forkserver child imports the parent's main module first, so that what the parent
    defined there unpickles; the engine unpickles nothing from it, and the import was most of an
    engine's start (the window's main is the command line, `memhtml_desktop.cli`: 370 ms of
    imports on a loaded machine; under pytest, pytest). multiprocessing reads the main module's
    `__spec__` and `__file__` while `start()` runs, so they are out of its sight for that call only.
    """
    main = sys.modules.get("__main__")
    saved = {name: getattr(main, name) for name in ("__spec__", "__file__") if hasattr(main, name)}
    try:
        if main is not None:
            main.__spec__ = None
            if "__file__" in saved:
                del main.__file__
        yield
    finally:
        for name, value in saved.items():
            setattr(main, name, value)


def engine_main(spec: StoreSpec, conn: Any, parent_pid: int) -> None:
    """The engine's process: open the store, serve the window's requests, leave."""
    try:
        os.nice(engine_nice(spec.environ or None))
    except (AttributeError, OSError):
        pass
    tune_allocator()  # before the engine's threads start
    send_lock = threading.Lock()

    def send(message: Any) -> None:
        with send_lock:
            conn.send(message)

    forward = _Forward(send)
    logging.getLogger().addHandler(forward)
    engine = Engine(spec, send)
    checked = [time.monotonic()]

    def receive(timeout: float) -> Any:
        if time.monotonic() - checked[0] > PARENT_CHECK_S:
            checked[0] = time.monotonic()
            if not alive(parent_pid):
                raise EOFError("the window's process is gone")
        return conn.recv() if conn.poll(timeout) else None

    try:
        engine.open()  # Opened or OpenFailed; after a failure every call is refused with its reason
        engine.serve(receive)
    finally:
        logging.getLogger().removeHandler(forward)
        conn.close()


class _Forward(logging.Handler):
    """The engine's warnings, sent to the window as `LogLine`s."""

    def __init__(self, send: Callable[[Any], None]) -> None:
        super().__init__(logging.WARNING)
        self._send = send

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._send(LogLine(record.levelno, record.name, self.format(record)))
        except Exception:  # noqa: BLE001 - a log record must never break the engine
            self.handleError(record)
