"""The state plane: `state.access`, the salience facts this app shares with memhtml's CLI.

`.memhtml/state.db` lives in the store, is ATTACHed as `state` (see `db.attach_state`), and is the
one set of facts the tree cannot rebuild: how often a memory was read, how often it was reinforced,
and the outcome average. memhtml's CLI writes the same file, from another process, possibly at the
same moment. Everything here is written with that in mind:

* every decision (bumped or cooled, signal applied or not, row moved or not) is made by the SQL
  statement that writes, and reported through its `RETURNING`, never by reading first and deciding
  in Python, which would race a concurrent writer and report a change that never happened;
* every write is one transaction that touches only the `state` schema (a deferred transaction
  whose first statement writes `state.access`, so the write lock is taken on `state.db` alone and
  an indexer writing `index.db` on another connection is never blocked by a bump);
* a busy state plane is retried with backoff on top of the connection's busy timeout, and only
  after the retries are spent does a caller see an error, and then a `StateBusy`, never SQLite's
  "database is locked".

Reinforcement follows memhtml's `reinforce` (retrieval.md section 10) with ONE deliberate change,
described in `reinforce`'s docstring: a positive/negative signal has its own cooldown, keyed on
`last_reinforced_at`, so it is no longer discarded because the memory was read a minute earlier.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import random
import re
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, TypeVar

import apsw

from memhtml_desktop.domain import reinforce as twin
from memhtml_desktop.domain.reinforce import OUTCOME_EWMA_ALPHA, REINFORCE_COOLDOWN_S
from memhtml_desktop.domain.types import ReinforceResult
from memhtml_desktop.index.db import UNWRITABLE, iso_z
from memhtml_desktop.index.held import holders
from memhtml_desktop.index.salience import note_state_change

log = logging.getLogger(__name__)

# Paths bound into one statement. SQLite's bound-variable ceiling is a build property (999 in old
# builds); a few shared values plus 500 paths stays under any of them. Every path is still decided
# on its own row: a multi-row upsert evaluates `DO UPDATE ... WHERE` per conflicting row.
PATH_BATCH = 500

# Retries on top of the busy timeout (5 s in db.BUSY_TIMEOUT_MS). memhtml holds the write lock for
# one short statement at a time, so a BusyError after the timeout means something unusual (a long
# import, a checkpoint, a debugger): back off and try again a few times before giving up loudly.
BUSY_RETRIES = 5
BUSY_BACKOFF_S = 0.05
BUSY_BACKOFF_MAX_S = 1.0

REFUSED_NO_STATE = "no state plane"
REFUSED_READ_ONLY = "the store is read-only: salience is read but not written"

_AT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$")

ACCESS_COLUMNS = (
    "access_count",
    "reinforcement_count",
    "outcome_score",
    "last_accessed_at",
    "last_reinforced_at",
    "updated_at",
)


class StateError(Exception):
    """The state plane could not do what was asked (an environment condition, not a bug)."""


class StateUnavailable(StateError):
    """No state plane is attached to this connection (absent and not creatable, or never asked for)."""


class StateReadOnly(StateError):
    """The state plane is attached read-only: salience is read but never written."""


class StateBusy(StateError):
    """Another process kept the state plane locked through every retry; nothing was written."""


class InvalidSignal(ValueError):
    """A reinforce signal other than positive, negative or neutral (memhtml: InvalidMemory)."""


# --------------------------------------------------------------------------------------------------
# Plumbing shared with the sidecar


def state_mode(conn: apsw.Connection) -> str | None:
    """'rw', 'ro' or None, as `db.attach_state` recorded it (a plain apsw connection has none)."""
    return getattr(conn, "state_mode", None)


def require_writable(conn: apsw.Connection) -> None:
    mode = state_mode(conn)
    if mode is None:
        raise StateUnavailable(REFUSED_NO_STATE)
    if mode != "rw":
        raise StateReadOnly(REFUSED_READ_ONLY)


T = TypeVar("T")


def write_with_retry(
    conn: apsw.Connection,
    work: Callable[[], T],
    *,
    what: str,
    retries: int = BUSY_RETRIES,
    backoff_s: float = BUSY_BACKOFF_S,
) -> T:
    """Run `work` in one transaction, retrying the WHOLE transaction when the plane is busy.

    A BusyError rolls the transaction back (apsw's `with conn:` does), so nothing `work` computed
    survives an attempt that failed: every retry decides afresh from the rows as they are then,
    which is what keeps a retried bump from being counted twice or lost.

    When the caller already holds a transaction this runs once, inside it, and a BusyError becomes
    StateBusy at once: retrying inside someone else's transaction could spin on a stale snapshot
    (SQLITE_BUSY_SNAPSHOT never clears), and the retry belongs to whoever owns the transaction.
    """
    attempts = 1 if conn.in_transaction else 1 + max(0, retries)
    before = conn.total_changes()
    wrote = True
    try:
        result = _attempts(conn, work, what, attempts, backoff_s)
        wrote = conn.total_changes() != before  # a row move that found no row wrote nothing
        return result
    finally:
        if wrote:
            note_state_change()  # the salience arm's access rows are read again before its next use (index/salience.py)


def _attempts(conn: apsw.Connection, work: Callable[[], T], what: str, attempts: int, delay: float) -> T:
    for attempt in range(1, attempts + 1):
        try:
            with conn:
                return work()
        except apsw.SQLError as exc:
            # A write that met a full disk (SQLITE_FULL, SQLITE_IOERR) can make SQLite roll the
            # transaction back itself; the savepoint's own rollback then fails with "no transaction
            # is active" and would hide the real cause. Raise the cause.
            cause = exc.__context__
            if isinstance(cause, UNWRITABLE) and "no transaction is active" in str(exc):
                raise cause from None
            raise
        except apsw.BusyError as exc:
            if attempt >= attempts:
                raise StateBusy(
                    f"{what}: the store's state plane stayed locked by another process "
                    f"(is a memhtml command running?) through {attempt} attempt(s); nothing was "
                    "written, try again"
                ) from exc
            log.warning("%s: state plane busy (attempt %d of %d), retrying", what, attempt, attempts)
            if attempt == 1:
                for holder in holders("state"):  # a lock held at home is named, not only waited on
                    log.warning("%s: %s", what, holder)
            time.sleep(delay * (0.5 + random.random()))  # jitter: two retrying writers drift apart
            delay = min(delay * 2, BUSY_BACKOFF_MAX_S)
    raise AssertionError("unreachable")  # pragma: no cover


def batched(items: Sequence[T], size: int = PATH_BATCH) -> Iterable[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def normalize_at(at: str | _dt.datetime) -> str:
    """The instant as memhtml stamps it. A datetime is accepted for convenience and written in seconds.

    The string form is checked rather than trusted: `unixepoch()` returns NULL for text it cannot
    read, and a NULL in the cooldown arithmetic would silently cool every path forever.
    """
    if isinstance(at, _dt.datetime):
        if at.tzinfo is None:
            raise ValueError("reinforce needs an aware datetime (UTC); got a naive one")
        return iso_z(at)
    if not isinstance(at, str) or not _AT.match(at):
        raise ValueError(f"`at` must be an ISO instant like 2026-08-01T12:00:00Z, got {at!r}")
    return at


def signal_value(signal: str) -> int:
    """The domain twin's value (+1, -1, 0) as an int, so SQLite binds it as memhtml does."""
    try:
        return int(twin.signal_value(signal))
    except ValueError as exc:
        raise InvalidSignal(str(exc)) from None


def targets_of(paths: Iterable[str]) -> list[str]:
    """De-duplicated in first-occurrence order, empty strings removed (memhtml's target rule)."""
    if isinstance(paths, str):  # a lone path is a common slip; a str would iterate per character
        paths = [paths]
    return twin.targets(paths)


# --------------------------------------------------------------------------------------------------
# Reinforcement

# The guard is the SQL twin of `domain.reinforce.should_bump` (tests pin the two together): no
# stamp bumps, and so does '' (what memhtml's own `state import` writes for a missing stamp; memhtml's
# guard, `IS NULL`, would cool such a row for good). Any other stamp `unixepoch()` cannot read cools.

# ?1 at, ?2 value (+1/-1), ?3 alpha, ?4 cooldown seconds, ?5.. paths.
_SIGNAL_SQL = """
INSERT INTO state.access
  (path, access_count, reinforcement_count, outcome_score, last_accessed_at, last_reinforced_at, updated_at)
VALUES {rows}
ON CONFLICT(path) DO UPDATE SET
  reinforcement_count = reinforcement_count + 1,
  outcome_score       = max(-1.0, min(1.0, outcome_score * (1 - ?3) + ?2 * ?3)),
  last_reinforced_at  = ?1,
  updated_at          = ?1
WHERE access.last_reinforced_at IS NULL OR access.last_reinforced_at = ''
   OR unixepoch(?1) - unixepoch(access.last_reinforced_at) >= ?4
RETURNING path
"""
_SIGNAL_ROW = "(?{n}, 0, 1, ?2, NULL, ?1, ?1)"

# ?1 at, ?2 cooldown seconds, ?3.. paths. memhtml's statement with the signal columns left alone.
_ACCESS_SQL = """
INSERT INTO state.access
  (path, access_count, reinforcement_count, outcome_score, last_accessed_at, last_reinforced_at, updated_at)
VALUES {rows}
ON CONFLICT(path) DO UPDATE SET
  access_count     = access_count + 1,
  last_accessed_at = ?1,
  updated_at       = ?1
WHERE access.last_accessed_at IS NULL OR access.last_accessed_at = ''
   OR unixepoch(?1) - unixepoch(access.last_accessed_at) >= ?2
RETURNING path
"""
_ACCESS_ROW = "(?{n}, 1, 0, 0.0, ?1, NULL, ?1)"


def _rows(template: str, first: int, count: int) -> str:
    return ", ".join(template.format(n=first + i) for i in range(count))


def reinforce(
    conn: apsw.Connection,
    paths: Sequence[str],
    signal: str,
    at: str | _dt.datetime,
    *,
    cooldown_s: int = REINFORCE_COOLDOWN_S,
    retries: int = BUSY_RETRIES,
) -> ReinforceResult:
    """Record that `paths` were read (`neutral`) or judged right/wrong (`positive`/`negative`) at `at`.

    memhtml's rule, kept: `access_count` moves at most once per `cooldown_s` per path, keyed on
    `last_accessed_at` (boundary `>=`; a stamp in the future, clock skew, is cooled), so an agent
    replaying one query cannot rewrite the corpus's ranking. A new row starts at `access_count` 1
    and, for a signal, `outcome_score` = the signal's value (not an EWMA from 0). A neutral signal
    is a read: the reinforcement columns are never touched, because being read is evidence of
    relevance and not of correctness.

    The ONE deliberate change. memhtml gates the whole upsert on `last_accessed_at`, which a plain
    read also sets, so `read x` followed within 900 s by `reinforce x --signal positive` silently
    drops the judgement, the most valuable signal the plane ever gets. Here the signal has its own
    cooldown, keyed on `last_reinforced_at`: it moves `outcome_score` (EWMA, alpha 0.3, clamped to
    [-1, 1], the same arithmetic as memhtml) and `reinforcement_count` when no signal landed in the
    last `cooldown_s`, while `access_count` stays under the access cooldown. Replay protection is
    kept on both counters; only the false coupling between them is gone.

    Why two statements and not one. The decision must come from `RETURNING`, but in SQLite
    `RETURNING` sees the row AFTER the update, so one upsert with a CASE per cooldown could not say
    which of its two halves fired (comparing the new stamp with `at` is ambiguous when the old stamp
    already equalled `at`). So, per batch, inside ONE transaction that holds the write lock from the
    first statement on:

    1. non-neutral only: a conditional upsert gated on the signal cooldown. Its `RETURNING` is
       exactly `signal_applied`. A path with no row is inserted with the signal alone
       (`access_count` 0, `last_accessed_at` NULL), so step 2 always bumps it;
    2. always: memhtml's access upsert, reinforcement columns untouched, gated on the access
       cooldown. Its `RETURNING` is exactly `bumped`.

    The order matters: step 1 first is what makes a brand-new row come out identical to memhtml's
    (`access_count` 1, `reinforcement_count` 1, `outcome_score` = value, both stamps = `at`); the
    reverse order would create the row as a read and then average the signal in from 0. Nothing
    else can write between the two statements (SQLite has one writer), and the intermediate row is
    never visible outside the transaction.

    Returns a ReinforceResult, every list in target order. Without a state plane, or with a
    read-only one, nothing is written and everything is reported cooled (and, for a signal,
    signal_cooled) with `refused` saying why. Raises InvalidSignal, ValueError for a malformed
    `at`, and StateBusy when another process held the plane through every retry.
    """
    value = signal_value(signal)
    at_text = normalize_at(at)
    targets = targets_of(paths)
    if not targets:
        return ReinforceResult(signal=signal)
    mode = state_mode(conn)
    if mode != "rw":
        return ReinforceResult(
            signal=signal,
            cooled_down=tuple(targets),
            signal_cooled=tuple(targets) if value else (),
            refused=(getattr(conn, "state_error", None) or REFUSED_NO_STATE)
            if mode is None
            else (getattr(conn, "state_note", None) or REFUSED_READ_ONLY),
        )

    def work() -> tuple[set[str], set[str]]:
        bumped: set[str] = set()
        applied: set[str] = set()
        for batch in batched(targets):
            if value:
                sql = _SIGNAL_SQL.format(rows=_rows(_SIGNAL_ROW, 5, len(batch)))
                params = (at_text, value, OUTCOME_EWMA_ALPHA, cooldown_s, *batch)
                applied.update(row[0] for row in conn.execute(sql, params))
            sql = _ACCESS_SQL.format(rows=_rows(_ACCESS_ROW, 3, len(batch)))
            bumped.update(row[0] for row in conn.execute(sql, (at_text, cooldown_s, *batch)))
        return bumped, applied

    bumped, applied = write_with_retry(conn, work, what="reinforce", retries=retries)
    return ReinforceResult(
        signal=signal,
        bumped=tuple(p for p in targets if p in bumped),
        cooled_down=tuple(p for p in targets if p not in bumped),
        signal_applied=tuple(p for p in targets if p in applied) if value else (),
        signal_cooled=tuple(p for p in targets if p not in applied) if value else (),
    )


def lost(paths: Sequence[str], signal: str, reason: str) -> ReinforceResult:
    """The result of a reinforce whose write failed (the plane stayed locked, the disk filled):
    nothing moved, and the caller's result says so instead of a log line nobody reads."""
    targets = tuple(targets_of(paths))
    return ReinforceResult(
        signal=signal,
        cooled_down=targets,
        signal_cooled=targets if signal != "neutral" else (),
        refused=reason,
        lost=True,
    )


def replace_signal(
    conn: apsw.Connection,
    path: str,
    previous: str,
    signal: str,
    at: str | _dt.datetime,
    *,
    cooldown_s: int = REINFORCE_COOLDOWN_S,
    retries: int = BUSY_RETRIES,
) -> ReinforceResult:
    """Within the signal cooldown, replace the signal `previous` on `path` by `signal` (a misclick
    taken back; `neutral` withdraws it). The read count never moves.

    The arithmetic is `domain.reinforce.replace_outcome`. The row is read, the new values computed,
    and the UPDATE is guarded on the very values read (and on the cooldown still running), so the
    decision is still the writing statement's `RETURNING`: a concurrent memhtml signal in between
    fails the guard and nothing is replaced (`signal_cooled`). Past the cooldown nothing is
    replaced either: the caller sends a new signal instead.
    """
    old, new = signal_value(previous), signal_value(signal)
    at_text = normalize_at(at)
    mode = state_mode(conn)
    if mode != "rw":
        return ReinforceResult(
            signal=signal,
            cooled_down=(path,),
            signal_cooled=(path,),
            refused=REFUSED_NO_STATE if mode is None else (getattr(conn, "state_note", None) or REFUSED_READ_ONLY),
        )

    def work() -> bool:
        row = conn.execute(
            "SELECT outcome_score, reinforcement_count, last_reinforced_at FROM state.access WHERE path = ?1 "
            "AND last_reinforced_at IS NOT NULL AND last_reinforced_at <> '' "
            "AND unixepoch(?2) - unixepoch(last_reinforced_at) BETWEEN 0 AND ?3 - 1",
            (path, at_text, cooldown_s),
        ).fetchone()
        if row is None:
            return False
        score, count, stamp = float(row[0]), int(row[1]), row[2]
        if twin.is_reinforcing(old) and count < 1:
            return False
        new_score, new_count = twin.replace_outcome(score, count, old, new)
        done = conn.execute(
            "UPDATE state.access SET outcome_score = ?1, reinforcement_count = ?2, updated_at = ?3 "
            "WHERE path = ?4 AND outcome_score = ?5 AND reinforcement_count = ?6 AND last_reinforced_at = ?7 "
            "RETURNING path",
            (new_score, new_count, at_text, path, score, count, stamp),
        ).fetchall()
        return bool(done)

    replaced = write_with_retry(conn, work, what="replace signal", retries=retries)
    return ReinforceResult(
        signal=signal,
        cooled_down=(path,),
        signal_applied=(path,) if replaced else (),
        signal_cooled=() if replaced else (path,),
    )


# --------------------------------------------------------------------------------------------------
# Reading


def _stats(row: Sequence[Any]) -> dict[str, Any]:
    return dict(zip(ACCESS_COLUMNS, row))


_STATS_COLUMNS = ", ".join(ACCESS_COLUMNS)


def access_stats(conn: apsw.Connection, path: str) -> dict[str, Any] | None:
    """One path's row as a dict of ACCESS_COLUMNS, or None (no row, or no state plane).

    Works on a read-only plane: the salience arm and the detail pane read it either way.
    """
    if state_mode(conn) is None or not path:
        return None
    row = conn.execute(f"SELECT {_STATS_COLUMNS} FROM state.access WHERE path = ?", (path,)).fetchone()
    return _stats(row) if row is not None else None


def access_stats_many(conn: apsw.Connection, paths: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Rows for every path that has one; a path without a row is simply absent from the result.

    The paths go in as ONE bound JSON array read by `json_each`, so any number of paths is one
    statement with one parameter, never a string-built IN list against the variable ceiling.
    """
    wanted = targets_of(paths)
    if state_mode(conn) is None or not wanted:
        return {}
    rows = conn.execute(
        f"SELECT path, {_STATS_COLUMNS} FROM state.access WHERE path IN (SELECT value FROM json_each(?)) ORDER BY path",
        (json.dumps(wanted, ensure_ascii=False),),
    )
    return {row[0]: _stats(row[1:]) for row in rows}


# --------------------------------------------------------------------------------------------------
# Moves

_MOVE_SQL = """
UPDATE state.access SET path = ?2
WHERE path = ?1
  AND NOT EXISTS (SELECT 1 FROM state.access AS taken WHERE taken.path = ?2)
RETURNING path
"""


class RowMove(NamedTuple):
    """What became of a row that was to follow its memory: `moved`; `nothing` (no row at the
    source, or the destination has its own: nothing to do, ever); `pending` (the plane could not
    be written now: `reason` says why, and the move must be retried, never forgotten)."""

    status: str
    reason: str = ""


def follow_move(conn: apsw.Connection, src: str, dst: str, *, retries: int = BUSY_RETRIES) -> RowMove:
    """`move_access`, saying why a row did not move when the cause is the plane, not the rows.

    memhtml (and this app before) only logged a row that could not move; `doctor --fix` later
    pruned it as an orphan, and the memory's history was gone for good. A caller records a
    `pending` outcome and retries it (see write/journal.PendingMoves)."""
    if not src or not dst or src == dst:
        return RowMove("nothing")
    mode = state_mode(conn)
    if mode is None:
        return RowMove(
            "pending", getattr(conn, "state_error", None) or "no state plane is attached (state.db could not be opened)"
        )
    if mode != "rw":
        return RowMove("pending", getattr(conn, "state_note", None) or REFUSED_READ_ONLY)
    try:
        return RowMove("moved") if move_access(conn, src, dst, retries=retries) else RowMove("nothing")
    except StateBusy as exc:
        return RowMove("pending", str(exc))
    except apsw.Error as exc:
        return RowMove("pending", f"state.db could not be written ({exc})")


def move_access(conn: apsw.Connection, src: str, dst: str, *, retries: int = BUSY_RETRIES) -> bool:
    """Let `src`'s access row follow its file to `dst` (a `git mv`, an archive move); True if it moved.

    The row moves only when `dst` has no row. memhtml's CLI moves the row itself when IT does the
    move, and this app learns of that move afterwards (from the watcher or a git diff): by then the
    row already sits at `dst` and `src` has none, so the statement finds nothing to do. When both
    have rows the destination's history is someone else's fact (memhtml moved it, or a file that
    used to live at `dst` earned it) and is never overwritten; the stranded `src` row is an orphan
    for the doctor to prune. One guarded UPDATE decides and `RETURNING` reports, so a concurrent
    memhtml move cannot make both programs move (or both think they did).

    `updated_at` is left alone: the access facts did not change, only the name they are filed under.
    A missing or read-only state plane, an empty path or `src == dst` moves nothing and returns False.
    """
    if not src or not dst or src == dst or state_mode(conn) != "rw":
        return False

    def work() -> bool:
        return conn.execute(_MOVE_SQL, (src, dst)).fetchone() is not None

    moved = write_with_retry(conn, work, what="move access row", retries=retries)
    if moved:
        log.info("state.access row followed %s -> %s", src, dst)
    return moved
