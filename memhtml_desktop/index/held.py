"""Who in this process holds a database open: its connections' transactions and live cursors.

state.db is in rollback-journal mode (memhtml's own choice): a connection that keeps a read
statement alive — a cursor left half-iterated in a generator, an iterator kept past its job — keeps
a SHARED lock on the file, and every writer of the plane, this process's other threads included,
meets "database is locked" until it lets go. The 10,000-action soak at aa3408c met exactly that at
action 7,250: the engine's own reinforce retrying for ten minutes, no other process holding
state.db, every thread idle (docs/reliability.md, "The runs after it").

`settle` is what a thread runs when a unit of work is over (a lane's job, the watcher's pass): its
kept connection must hold nothing then. If it does, the holder is named in the log (the cursor's
statement and the functions that keep it) and the connection is closed, so no later writer of this
process waits on a read nobody is doing. `holders` names them for a writer that met a busy plane.
"""

from __future__ import annotations

import gc
import logging
import threading
import types

import apsw

log = logging.getLogger(__name__)

TXN_NONE = apsw.SQLITE_TXN_NONE
_MAX_SQL = 200


def txn(conn: apsw.Connection, schema: str | None = None) -> int | None:
    """The connection's transaction state on `schema` (None: its highest over all), or None when it
    cannot be asked now (closed, or in use by another thread: apsw refuses rather than waits)."""
    try:
        return conn.txn_state(schema)
    except (apsw.Error, ValueError):  # ThreadingViolationError, ConnectionClosedError; ValueError: no such schema
        return None


def cursors_of(conn: apsw.Connection) -> list[str]:
    """Each live cursor of `conn` that is running a statement: its SQL and what keeps it alive.

    Walks the collector's objects (tens of milliseconds at 100,000 objects): for diagnosis only,
    never on a hot path.
    """
    found: list[str] = []
    for obj in gc.get_objects():
        if not isinstance(obj, apsw.Cursor):
            continue
        try:
            if obj.connection is not conn:
                continue
            sql = obj.expanded_sql
        except apsw.Error:
            continue  # closed, or not running a statement
        if not sql:
            continue
        keepers = sorted({_name(ref) for ref in gc.get_referrers(obj)} - {""})
        found.append(f"{' '.join(sql.split())[:_MAX_SQL]!r} kept by {', '.join(keepers) or 'nothing named'}")
    return found


def _name(ref: object) -> str:
    if isinstance(ref, types.FrameType):
        return f"{ref.f_code.co_name} ({ref.f_code.co_filename.rsplit('/', 1)[-1]}:{ref.f_lineno})"
    if isinstance(ref, (types.GeneratorType, types.CoroutineType)):
        return f"generator {ref.__qualname__}"
    if isinstance(ref, (list, dict, tuple, set)):
        return ""  # the collector's own lists, a frame's locals: the frame itself is named
    return type(ref).__qualname__


def holders(schema: str = "state") -> list[str]:
    """Every connection of this process with a transaction open on `schema`, with its owner and
    live cursors: what a writer that met a busy plane logs, so a lock held at home is named."""
    described: list[str] = []
    for conn in apsw.connections():
        state = txn(conn, schema)
        if not state:
            continue  # none, or in use right now (a statement running: not idle, not the leak)
        owner = getattr(conn, "owner", "?")
        kind = "write" if state == apsw.SQLITE_TXN_WRITE else "read"
        cursors = "; ".join(cursors_of(conn)) or "no live cursor (an open transaction)"
        described.append(f"{owner}'s connection holds a {kind} transaction on {schema}: {cursors}")
    return described


def settle(conn: apsw.Connection | None, close) -> bool:
    """At the end of a unit of work on this thread: if its kept connection still holds a
    transaction or a running statement, name it in the log and `close()` it (the next use opens a
    fresh one). Returns whether it had to."""
    if conn is None:
        return False
    state = txn(conn)
    if not state:
        return False
    in_txn = conn.in_transaction
    log.warning(
        "%s's connection still held a %s after its work was done (%s); closed, so no writer of the "
        "state plane waits on it: %s",
        threading.current_thread().name,
        "write transaction" if state == apsw.SQLITE_TXN_WRITE else "read",
        "a transaction left open" if in_txn else "a statement left running",
        "; ".join(cursors_of(conn)) or "no live cursor",
    )
    close()
    return True
