"""Parse workers leave when the process that owns their pool dies (a watcher process stopped with
SIGTERM/SIGKILL left them behind, holding its stdout open: the full suite then hung on a child
test's output)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

OWNER = """
import os, sys, time
from memhtml_desktop.index import indexer
pool = indexer._shared_pool()
for future in [pool.submit(os.getpid) for _ in range(8)]:
    future.result()
print(" ".join(map(str, sorted(pool._processes))), flush=True)  # every worker the pool started
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie of ours would count as alive: only processes still running count
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_workers_exit_when_their_owner_is_killed():
    root = Path(__file__).resolve().parents[2]
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True, cwd=root,
                             env=dict(os.environ, PYTHONPATH=str(root)))  # fmt: skip
    try:
        workers = [int(p) for p in owner.stdout.readline().split()]
        assert workers and all(_alive(p) for p in workers)
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait(10)
        deadline = time.monotonic() + 15
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in workers if _alive(p)], "parse workers outlived their owner"
        assert owner.stdout.read() == "", "and nothing holds the owner's output open"
    finally:
        if owner.poll() is None:
            owner.kill()
