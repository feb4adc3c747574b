"""A second process that holds a database's write lock, as a long `index` or a debugger would.

    python lock_holder.py DB SECONDS [exclusive]

With `exclusive` it leaves the journal mode as it is (memhtml's rollback journal) and holds
`BEGIN EXCLUSIVE` over a write, as memhtml's `VACUUM` or a long write does: then even readers are
locked out (issue 21, row 10).

Opens DB with its own connection (WAL, as the app and memhtml open it), runs `BEGIN IMMEDIATE`, prints
`held`, and keeps the write lock for SECONDS (or until its stdin closes, whichever comes first),
then rolls back and prints `released`. Readers in WAL mode are never blocked by it; writers are.
`hold(...)` starts it from a test or the bench and waits for `held`.
"""

from __future__ import annotations

import select
import subprocess
import sys
import time
from pathlib import Path

import apsw


def main(db: str, seconds: float, exclusive: bool = False) -> None:
    conn = apsw.Connection(db)
    conn.set_busy_timeout(30_000)
    if exclusive:
        conn.execute("BEGIN EXCLUSIVE")
        table = conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table' LIMIT 1").fetchone()[0]
        conn.execute(f'UPDATE "{table}" SET rowid = rowid WHERE 0')
        conn.execute("PRAGMA schema_version")  # hold it: EXCLUSIVE keeps readers out until ROLLBACK
    else:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("BEGIN IMMEDIATE")
    print("held", flush=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([sys.stdin], [], [], min(0.2, max(0.0, deadline - time.monotonic())))
        if ready and not sys.stdin.buffer.read1(1):
            break  # the parent closed our stdin: let go now
    conn.execute("ROLLBACK")
    conn.close()
    print("released", flush=True)


def hold(db: Path, seconds: float, *, exclusive: bool = False) -> subprocess.Popen:
    """Start a holder on `db` and return once it holds the lock (close its stdin to release early)."""
    proc = subprocess.Popen([sys.executable, __file__, str(db), str(seconds), *(["exclusive"] if exclusive else [])],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    line = proc.stdout.readline().strip()
    if line != "held":
        proc.kill()
        raise RuntimeError(f"the lock holder did not get the lock: {line!r}")
    return proc


def release(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), len(sys.argv) > 3 and sys.argv[3] == "exclusive")
