"""`memhtml-desktop watch`: the watcher without a window, one line (or JSON object) per batch.

stdout carries only the batches, so it can be piped: a text line

    2026-11-29T16:31:38.120Z batch: added 1, changed 0, moved 0, removed 0, failed 0 in 12 ms

or, with `--json`, one object per line with the same fields plus `kind`, `paths`, `failures` and
`moves`. The mode (live, polling and why, stopped and why) and each failure go to stderr.
Ctrl-C or SIGTERM stops the watcher cleanly (threads joined) and the exit code is 0; 1 only if
the watcher itself failed.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from typing import Any, TextIO

from memhtml_desktop.domain.printable import field
from memhtml_desktop.watch.status import BatchSummary, WatchStatus
from memhtml_desktop.watch.watcher import Watcher


def run_headless(
    store: Any,
    *,
    as_json: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
    stop: threading.Event | None = None,
    **watcher_options: Any,
) -> int:
    """Watch until Ctrl-C, SIGTERM or `stop` is set; returns the exit code (0).

    Signal handlers are installed only when called on the main thread (elsewhere, use `stop`).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    stop = stop or threading.Event()
    last_mode: list[tuple[str, str]] = []

    def on_batch(summary: BatchSummary) -> None:
        if as_json:
            print(json.dumps(summary.to_json(), ensure_ascii=False, separators=(",", ":")), file=out, flush=True)
        else:
            print(summary.line(), file=out, flush=True)
        if summary.report is not None:
            for path, reason in summary.report.failures[:50]:
                print(f"  failed {field(path)}: {field(reason[:400])}", file=err, flush=True)

    def on_status(status: WatchStatus) -> None:
        key = (status.mode, status.reason)
        if last_mode and last_mode[-1] == key:
            return
        last_mode.append(key)
        text = f"watching {field(status.store_root)}: {status.mode}"
        print(f"{text} ({field(status.reason)})" if status.reason else text, file=err, flush=True)

    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, lambda *_: stop.set())
    watcher = Watcher(store, on_status=on_status, on_batch=on_batch, **watcher_options)
    failed = False
    try:
        watcher.start()
        while not stop.wait(0.5):
            if not watcher.running:  # the worker ended without being asked: it said why on stderr
                failed = True
                break
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 1 if failed else 0
