"""The CLI with a short SQLite busy wait, for a scenario that holds a lock through every retry.

    python short_busy_cli.py MS ARGS...                   (as `python -m memhtml_desktop ARGS...`)
    python short_busy_cli.py MS --refresh-wait=S ARGS...  (a read's refresh gives up after S seconds)

Each attempt of a write on a locked database waits `db.polling_busy_handler`'s default (5 s,
BUSY_TIMEOUT_MS) before the next retry: six attempts on a held state plane were 32 s of a test waiting
for a lock it knows is held. Here that wait is MS; the retries, their backoff and what the command says and keeps are the app's own.
Waits the code names explicitly (the state plane's attach, a kept connection's 50 ms) are unchanged;
a read's refresh (`index/store.py` REFRESH_WAIT_S, 2 s) only with `--refresh-wait`.
"""

from __future__ import annotations

import runpy
import sys

from memhtml_desktop.index import db

if __name__ == "__main__":
    db.polling_busy_handler.__defaults__ = (int(sys.argv[1]),)
    db.BUSY_TIMEOUT_MS = int(sys.argv[1])  # where a connection's wait is set back to it (Store.refresh)
    rest = sys.argv[2:]
    if rest and rest[0].startswith("--refresh-wait="):
        from memhtml_desktop.index import store

        store.REFRESH_WAIT_S = float(rest.pop(0).partition("=")[2])  # a read waits this long, then answers
    sys.argv = [sys.argv[0], *rest]
    runpy.run_module("memhtml_desktop", run_name="__main__", alter_sys=True)
