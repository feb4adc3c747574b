"""The log file: a rotating file in the user's log directory, and stderr for `-v`.

The window calls `setup_logging` once at start; a bug report then has a file to attach (Help →
Open log folder shows it). Headless commands keep logging to stderr only (cli.py), because a
script run a thousand times should not fill a file nobody reads.

Where: `platformdirs.user_log_dir("memhtml-desktop")`, which on Linux is
`$XDG_STATE_HOME/memhtml-desktop/log` (default `~/.local/state/memhtml-desktop/log`): logs are
state, not configuration and not cache. Size: 1 MB per file, the current one plus 4 older ones,
so the folder never holds more than 5 MB.
"""

from __future__ import annotations

import logging
import sys
import threading
from logging.handlers import RotatingFileHandler
from pathlib import Path

APP = "memhtml-desktop"
LOG_NAME = f"{APP}.log"
MAX_BYTES = 1_000_000
BACKUPS = 4
FILE_FORMAT = "%(asctime)s %(levelname)-7s %(threadName)s %(name)s: %(message)s"
STDERR_FORMAT = "%(levelname)s %(name)s: %(message)s"

#: Handlers this module installed on the root logger, so a second call replaces them.
_OURS = "_memhtml_desktop_handler"


def log_dir() -> Path:
    """The folder of the log files (not created here)."""
    from platformdirs import user_log_dir

    return Path(user_log_dir(APP, appauthor=False))


def log_file() -> Path:
    return log_dir() / LOG_NAME


def _plain_stderr(handler: logging.Handler) -> bool:
    """A `logging.basicConfig` stderr handler (cli.main installs one): ours replaces it, or every
    warning would be printed twice."""
    return type(handler) is logging.StreamHandler and getattr(handler, "stream", None) in (sys.stderr, sys.__stderr__)


def _mark(handler: logging.Handler) -> logging.Handler:
    setattr(handler, _OURS, True)
    return handler


def setup_logging(verbose: bool = False, *, capture_exceptions: bool = True) -> Path:
    """Log INFO and up to the rotating file; WARNING and up (INFO with `verbose`) to stderr.

    Idempotent: a second call replaces the handlers of the first, and a plain stderr handler left
    by `logging.basicConfig` is replaced too. Returns the log file's path.
    When the folder cannot be made (a read-only home), only stderr is used and a warning says
    why; the window must still open. With `capture_exceptions`, an exception nobody caught (on
    any thread, or in a Qt slot, which PySide reports through `sys.excepthook`) is logged with its
    traceback before the previous hook runs.
    """
    root = logging.getLogger()
    for handler in [h for h in root.handlers if getattr(h, _OURS, False) or _plain_stderr(h)]:
        root.removeHandler(handler)
        if getattr(handler, _OURS, False):
            handler.close()
    root.setLevel(logging.DEBUG if verbose else logging.INFO)

    stderr = _mark(logging.StreamHandler(sys.stderr))
    stderr.setLevel(logging.INFO if verbose else logging.WARNING)
    stderr.setFormatter(logging.Formatter(STDERR_FORMAT))
    root.addHandler(stderr)

    path = log_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = _mark(RotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"))
    except OSError as exc:
        logging.getLogger(__name__).warning("no log file (%s): logging to stderr only", exc)
    else:
        handler.setLevel(logging.DEBUG if verbose else logging.INFO)
        handler.setFormatter(logging.Formatter(FILE_FORMAT))
        root.addHandler(handler)
    if capture_exceptions:
        _capture_uncaught()
    from memhtml_desktop import __version__

    logging.getLogger(__name__).info(
        "memhtml-desktop %s started (Python %s, frozen: %s)",
        __version__,
        sys.version.split()[0],
        bool(getattr(sys, "frozen", False)),
    )
    return path


def _capture_uncaught() -> None:
    if getattr(sys.excepthook, _OURS, False):
        return
    previous_hook = sys.excepthook
    previous_thread_hook = threading.excepthook
    log = logging.getLogger("memhtml_desktop.uncaught")

    # The default hooks only print the traceback, which the stderr handler now does: chain to a
    # hook only when someone else installed it, so a traceback is not printed twice.
    def hook(kind, value, tb):
        if issubclass(kind, KeyboardInterrupt):
            previous_hook(kind, value, tb)
            return
        log.error("uncaught exception", exc_info=(kind, value, tb))
        if previous_hook is not sys.__excepthook__:
            previous_hook(kind, value, tb)

    def thread_hook(args):
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "?"
        log.error("uncaught exception in thread %s", name, exc_info=(args.exc_type, args.exc_value, args.exc_traceback))
        if previous_thread_hook is not threading.__excepthook__:
            previous_thread_hook(args)

    setattr(hook, _OURS, True)
    sys.excepthook = hook
    threading.excepthook = thread_hook
