"""`doctor`'s look at the state plane (`.memhtml/state.db`): is the file sound, and is its schema one
this app knows?

The state plane is the one thing git cannot rebuild, and the index's `verify` never reads it: a
damaged page in it went unnoticed until a read hit it, and a schema a newer memhtml (or a newer copy
of this app) migrated was used read-write without a word. So `doctor` checks both, on a read-only
connection of its own (nothing is repaired or written here; the file is memhtml's as much as ours):

* integrity: `PRAGMA integrity_check`, every page (a few ms for a plane of thousands of rows);
* schema: the migration names in `state.schema_migrations` against the ones this app ships
  (`migrations/state/`). A name this app does not ship means a newer schema; a shipped one not
  applied means the plane was never opened read-write by this app (the next write applies it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import apsw

from memhtml_desktop.index.db import BUSY_TIMEOUT_MS, _read_only_uris

MAX_PROBLEMS = 20


@dataclass(frozen=True)
class StateHealth:
    """What `check_state` found. `integrity` is `("ok",)` for a sound file (empty when there is none)."""

    path: str
    exists: bool
    integrity: tuple[str, ...] = ()
    applied: tuple[str, ...] = ()
    known: tuple[str, ...] = ()
    unchecked: str = ""  # why the file could not be opened to check it (a full disk, a lock): not damage
    waiting: int = 0  # reads kept until the plane can take them (.memhtml/state.db-pending.jsonl)

    @property
    def sound(self) -> bool:
        """False only for a file found damaged; one that could not be checked is not called damaged."""
        return not self.exists or bool(self.unchecked) or self.integrity == ("ok",)

    @property
    def newer(self) -> tuple[str, ...]:
        """Migrations applied that this app does not ship: the schema is newer than this app."""
        return tuple(name for name in self.applied if name not in self.known)

    @property
    def pending(self) -> tuple[str, ...]:
        return tuple(name for name in self.known if name not in self.applied) if self.exists else ()

    def lines(self) -> list[str]:
        """What `doctor` prints, one finding a line."""
        waiting = [f"state plane: {self.waiting:,} read(s) kept until it can take them ({self.path}-pending.jsonl); "
                   "the next command that can write it writes them"] if self.waiting else []  # fmt: skip
        if not self.exists:
            return [f"state plane: none yet ({self.path}); reads are counted from the first one on", *waiting]
        if self.unchecked:
            return [f"state plane integrity: not checked ({self.unchecked})", *waiting]
        out = ["state plane integrity: ok" if self.sound else
               f"state plane integrity: DAMAGED ({self.path}; it cannot be rebuilt from git: restore it from a "
               "backup, or `state export` what still reads and import it into a fresh file)"]  # fmt: skip
        out += [f"  {problem}" for problem in ([] if self.sound else self.integrity)]
        if self.newer:
            out.append(
                f"state plane schema: NEWER than this app knows ({', '.join(self.newer)}): this app reads and "
                "writes the tables it knows and leaves the rest alone; update memhtml-desktop to be sure"
            )
        elif self.pending:
            out.append(f"state plane schema: {', '.join(self.pending)} not applied yet (the next write applies it)")
        else:
            out.append(f"state plane schema: current ({len(self.applied)} migrations)")
        return out + waiting

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "exists": self.exists,
            "sound": self.sound,
            "integrity": list(self.integrity),
            "unchecked": self.unchecked or None,
            "applied": list(self.applied),
            "newer": list(self.newer),
            "pending": list(self.pending),
            "waiting_reads": self.waiting,
        }


def check_state(path: Path, migrations: Path) -> StateHealth:
    """Check the state plane at `path` against the state migrations in `migrations` (read only)."""
    from dataclasses import replace

    from memhtml_desktop.index.pending_reads import PendingReads
    from memhtml_desktop.index.state_file import examine

    waiting = PendingReads(path).waiting()
    known = tuple(sorted(p.name for p in migrations.glob("*.sql")))
    plane = examine(path)
    if plane.refused:  # a FIFO (opening it to check would block), a device, a link out of the store
        return StateHealth(str(path), True, (), (), known, unchecked=plane.refused, waiting=waiting)
    if plane.absent:
        return StateHealth(str(path), False, known=known, waiting=waiting)
    return replace(_checked(Path(plane.path), known), path=str(path), waiting=waiting)


def _checked(path: Path, known: tuple[str, ...]) -> StateHealth:
    last: Exception | None = None
    for uri in _read_only_uris(path):  # `mode=ro`, then `immutable=1` (a WAL file whose -shm cannot be made)
        try:
            conn = apsw.Connection(uri, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
        except apsw.Error as exc:
            last = exc
            continue
        try:
            conn.set_busy_timeout(BUSY_TIMEOUT_MS)
            return StateHealth(str(path), True, _integrity(conn), _applied(conn), known)
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            return StateHealth(str(path), True, (f"the file is not a readable database ({exc})",), (), known)
        except apsw.Error as exc:  # busy, a full disk, no -shm: try the next way in
            last = exc
        finally:
            conn.close()
    return StateHealth(str(path), True, (), (), known, unchecked=f"state.db cannot be opened to check it: {last}")


def _integrity(conn: apsw.Connection) -> tuple[str, ...]:
    try:
        rows = [str(row[0]) for row in conn.execute(f"PRAGMA integrity_check({MAX_PROBLEMS})")]
    except (apsw.CorruptError, apsw.NotADBError) as exc:
        return (f"the file is not a readable database ({exc})",)
    return tuple(rows) or ("no answer from integrity_check",)


def _applied(conn: apsw.Connection) -> tuple[str, ...]:
    try:
        return tuple(str(row[0]) for row in conn.execute("SELECT name FROM schema_migrations ORDER BY name"))
    except (apsw.SQLError, apsw.CorruptError, apsw.NotADBError):
        return ()  # no ledger (not a state plane this app or memhtml made), or unreadable: integrity says so
