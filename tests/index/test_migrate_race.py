"""Two processes migrating one new index at once (the window and its watcher's child process did:
"table files already exists" failed the start-up reconciliation)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

OPEN = """
import sys, time
from memhtml_desktop.index import db
start = float(sys.argv[2])
while time.time() < start:
    pass
conn = db.open_index(sys.argv[1], state_path=sys.argv[1] + ".state.db")
print(conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0])
"""


def test_processes_opening_a_new_index_together_each_get_it_migrated_once(tmp_path):
    import time

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root))
    for round_no in range(4):
        path = str(tmp_path / f"index-{round_no}.db")
        start = str(time.time() + 2.0)  # every process imported and waiting: they open together
        procs = [subprocess.Popen([sys.executable, "-c", OPEN, path, start], env=env, cwd=root,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]  # fmt: skip
        outs = [p.communicate(timeout=120) for p in procs]
        assert all(p.returncode == 0 for p in procs), [err[-400:] for _, err in outs]
        counts = {out.strip() for out, _ in outs}
        assert len(counts) == 1 and int(counts.pop()) > 0
