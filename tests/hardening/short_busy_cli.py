"""The CLI with a short SQLite busy wait, for a scenario that holds a lock through every retry.

    python short_busy_cli.py MS ARGS...   (as `python -m memhtml_desktop ARGS...`)

Each attempt of a write on a locked database waits `db.polling_busy_handler`'s default (5 s,
BUSY_TIMEOUT_MS) before the next retry: six attempts on a held state plane were 32 s of a test waiting
for a lock it knows is held. Here that wait is MS; the retries, their backoff and what the command says and keeps are the app's own.
Waits the code names explicitly (the state plane's attach, a kept connection's 50 ms) are unchanged.
"""

from __future__ import annotations

import runpy
import sys

from memhtml_desktop.index import db

if __name__ == "__main__":
    db.polling_busy_handler.__defaults__ = (int(sys.argv[1]),)
    db.BUSY_TIMEOUT_MS = int(sys.argv[1])  # where a connection's wait is set back to it (Store.refresh)
    sys.argv = [sys.argv[0], *sys.argv[2:]]
    runpy.run_module("memhtml_desktop", run_name="__main__", alter_sys=True)
