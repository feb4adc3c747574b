"""A second process standing in for memhtml's CLI: it bumps `state.access` in a loop.

    python state_bumper.py STATE_DB SECONDS PAUSE_S PATH...

Opens its own connection the way memhtml does (its own index file, the store's state.db ATTACHed as
`state`, a 5 s busy timeout), prints `ready`, waits for a line on stdin, then for SECONDS bumps every
PATH with memhtml's own reinforce statement (tests/index/helpers_state.py), every third round as a
positive signal, sleeping PAUSE_S between rounds (0: a tight loop, harsher than any real use;
memhtml's CLI is one process per command). The cooldown is bound to a huge negative number so every statement passes its
gate: each bump that RETURNING reports is one the final row must contain. Prints one JSON line:
what it bumped, how many positive signals landed, how many statements met `database is locked`.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import apsw

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "index"))
from helpers_state import MEMHTML_REINFORCE_SQL

T0 = "2026-01-01T00:00:00Z"  # earlier than every stamp the app writes in the test: never cools the app
ALWAYS = -(10**12)  # a cooldown no difference of stamps can fail


def main(state_db: str, seconds: float, pause_s: float, paths: list[str]) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="memhtml-standin-"))
    conn = apsw.Connection(str(scratch / "index.db"))
    conn.set_busy_timeout(5000)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("ATTACH ? AS state", (state_db,))
    bumped = {p: 0 for p in paths}
    positives = {p: 0 for p in paths}
    busy = rounds = 0
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    sys.stdin.readline()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        positive = rounds % 3 == 0
        for path in paths:
            try:
                rows = conn.execute(
                    MEMHTML_REINFORCE_SQL, (path, T0, 1 if positive else 0, 1 if positive else 0, 0.3, ALWAYS)
                ).fetchall()
            except apsw.BusyError:
                busy += 1  # memhtml would show "database is locked"; nothing was written
                continue
            for (done,) in rows:
                bumped[done] += 1
                positives[done] += positive
        rounds += 1
        if pause_s:
            time.sleep(pause_s)
    conn.close()
    shutil.rmtree(scratch, ignore_errors=True)
    sys.stdout.write(json.dumps({"bumped": bumped, "positives": positives, "busy": busy, "rounds": rounds}) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4:])
    os._exit(0)
