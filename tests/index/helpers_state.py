"""Shared helpers for the state-plane tests, and a stand-in for memhtml's CLI writing state.access.

Run as a script it plays memhtml in another process: `python helpers_state.py STATE_DB ITERATIONS
PATH...` opens its own apsw connection (an index file with state.db ATTACHed as `state`, exactly as
memhtml's node:sqlite connection does), waits for a line on stdin, then bumps every PATH once per
iteration with memhtml's own reinforce statement (cooldown 0), every third iteration as a positive
signal, and prints a JSON object with what its RETURNING reported.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import sys
from pathlib import Path
from urllib.parse import quote

import apsw

T0 = "2026-08-01T12:00:00Z"
_T0 = dt.datetime(2026, 8, 1, 12, 0, 0, tzinfo=dt.timezone.utc)

# memhtml's reinforce statement at e5cc592 (retrieval.md section 10), verbatim but for the schema.
MEMHTML_REINFORCE_SQL = """
INSERT INTO state.access (path, access_count, reinforcement_count, outcome_score,
                          last_accessed_at, last_reinforced_at, updated_at)
VALUES (?1, 1, ?3, ?4, ?2, CASE WHEN ?3 = 0 THEN NULL ELSE ?2 END, ?2)
ON CONFLICT(path) DO UPDATE SET
  access_count        = access_count + 1,
  reinforcement_count = reinforcement_count + ?3,
  outcome_score       = CASE WHEN ?3 = 0 THEN outcome_score
                        ELSE max(-1.0, min(1.0, outcome_score * (1 - ?5) + ?4 * ?5)) END,
  last_accessed_at    = ?2,
  last_reinforced_at  = CASE WHEN ?3 = 0 THEN last_reinforced_at ELSE ?2 END,
  updated_at          = ?2
WHERE access.last_accessed_at IS NULL
   OR unixepoch(?2) - unixepoch(access.last_accessed_at) >= ?6
RETURNING path
"""


def at(offset_s: int = 0) -> str:
    """The pinned clock: T0 plus `offset_s` seconds, as memhtml stamps an instant."""
    return (_T0 + dt.timedelta(seconds=offset_s)).strftime("%Y-%m-%dT%H:%M:%SZ")


def memhtml_reinforce(
    conn: apsw.Connection, paths: list[str], signal: str, when: str, cooldown_s: int = 900
) -> list[str]:
    """memhtml's reinforce, one statement per path, for side-by-side comparisons."""
    value = {"positive": 1, "negative": -1, "neutral": 0}[signal]
    bumped: list[str] = []
    targets = list(dict.fromkeys(p for p in paths if p))
    for path in targets:
        rows = conn.execute(
            MEMHTML_REINFORCE_SQL, (path, when, 0 if value == 0 else 1, value, 0.3, cooldown_s)
        ).fetchall()
        bumped.extend(r[0] for r in rows)
    return bumped


def state_paths(tmp_path: Path, store: str = "store") -> tuple[Path, Path]:
    """The index and state-plane paths of a store directory (created: a missing store root is
    never created by opening the index)."""
    (tmp_path / store).mkdir(parents=True, exist_ok=True)
    return tmp_path / f"{store}-index.db", tmp_path / store / ".memhtml" / "state.db"


def open_plane(tmp_path: Path, store: str = "store"):
    from memhtml_desktop.index.db import open_index

    index, state = state_paths(tmp_path, store)
    return open_index(index, state_path=state)


def open_readonly_plane(tmp_path: Path, store: str = "store"):
    """A connection whose state plane is attached genuinely read-only (`mode=ro`), state_mode 'ro'.

    This is what `db.attach_state` means to do for a store it cannot write. It is built by hand so
    the read-only behaviour is tested even when the tests run as root (where chmod is not enforced)
    and independently of how db.py opens its connection (see the report: its `file:` URI needs
    SQLITE_OPEN_URI on the connection).
    """
    from memhtml_desktop.index.db import ClockBox, Connection, configure

    index, state = state_paths(tmp_path, store)
    assert state.exists(), "create the plane first"
    conn = Connection(
        str(index.with_name(index.stem + "-ro.db")),
        flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE | apsw.SQLITE_OPEN_URI,
    )
    configure(conn)
    conn.clock = ClockBox()
    conn.execute("ATTACH ? AS state", (f"file:{quote(str(state.resolve()))}?mode=ro",))
    conn.state_mode = "ro"
    return conn


def row(conn, path: str) -> dict | None:
    from memhtml_desktop.index.state import access_stats

    return access_stats(conn, path)


def digest(path: Path) -> str:
    """The bytes of a SQLite file and its WAL, to prove a refused write wrote nothing."""
    h = hashlib.sha256()
    for p in (path, path.with_name(path.name + "-wal")):
        if p.exists():
            h.update(p.read_bytes())
    return h.hexdigest()


def _standin(state_db: str, iterations: int, paths: list[str]) -> None:
    index = Path(state_db).parent / "memhtml-standin-index.db"
    conn = apsw.Connection(str(index))
    conn.set_busy_timeout(5000)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("ATTACH ? AS state", (state_db,))
    bumped = {p: 0 for p in paths}
    positives = {p: 0 for p in paths}
    busy = 0
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    sys.stdin.readline()
    for i in range(iterations):
        signal = "positive" if i % 3 == 0 else "neutral"
        for path in paths:
            try:
                for done in memhtml_reinforce(conn, [path], signal, T0, cooldown_s=0):
                    bumped[done] += 1
                    if signal == "positive":
                        positives[done] += 1
            except apsw.BusyError:
                busy += 1  # memhtml would surface this; the stand-in records it did not bump
    conn.close()
    sys.stdout.write(json.dumps({"bumped": bumped, "positives": positives, "busy": busy}) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    _standin(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
    os._exit(0)
