"""Opening the index plane (and the store's state plane) with apsw.

One function opens a connection the way every caller needs it: WAL, a busy timeout, foreign keys,
sqlite-vec loaded, the shipped migrations applied, the state plane ATTACHed as `state` and
migrated under its own ledger. A connection never crosses threads; each thread opens its own.
"""

from __future__ import annotations

import datetime as _dt
import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager, suppress
from pathlib import Path

import apsw

from memhtml_desktop.data import migrations_dir

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
# How long attaching the state plane waits for another process's lock on it: memhtml's own writes
# hold it for milliseconds; longer is a VACUUM or a long transaction, which a read does not wait out.
STATE_ATTACH_BUSY_MS = 1000

Clock = Callable[[], _dt.datetime]


class IndexError_(Exception):
    """The index file could not be opened or migrated (an environment failure, not a bug)."""


class CorruptIndex(IndexError_):
    """The index file exists but is not a usable SQLite database."""


# What a full or unwritable disk raises through apsw: SQLITE_FULL, SQLITE_IOERR_* (the shared-memory
# file cannot grow), SQLITE_READONLY, SQLITE_CANTOPEN.
UNWRITABLE = (apsw.FullError, apsw.IOError, apsw.ReadOnlyError, apsw.CantOpenError)


def utc_now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def iso_z(moment: _dt.datetime, *, millis: bool = False) -> str:
    """An instant as memhtml writes it: UTC, `Z`, seconds (or JS toISOString milliseconds)."""
    moment = moment.astimezone(_dt.timezone.utc)
    if millis:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@contextmanager
def writing(conn: apsw.Connection):
    """`with conn:` for a write, but the COMMIT goes through `execute`, which lets go of the GIL.

    apsw's `Connection.__exit__` holds the GIL while SQLite commits (measured with apsw 3.54: a
    3 MB commit kept every other thread of the process waiting 300-400 ms; the same COMMIT through
    `execute` kept none). A window indexes on its watcher thread, so every batch's commit froze the
    GUI thread for as long as the disk took. Inside an open transaction this is a savepoint, as
    `with conn:` is; an error rolls everything back either way.
    """
    if conn.in_transaction:
        with conn:
            yield conn
        return
    conn.execute("BEGIN")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def split_statements(sql: str) -> list[str]:
    """Split a migration file on `;` outside comments and quoted literals."""
    statements: list[str] = []
    current: list[str] = []
    i, n = 0, len(sql)
    depth = 0  # BEGIN ... END inside CREATE TRIGGER
    while i < n:
        two = sql[i : i + 2]
        if two == "--":
            end = sql.find("\n", i)
            i = n if end == -1 else end + 1
            continue
        if two == "/*":
            end = sql.find("*/", i + 2)
            i = n if end == -1 else end + 2
            continue
        ch = sql[i]
        if ch in ("'", '"'):
            j = i + 1
            while j < n:
                if sql[j] == ch:
                    if j + 1 < n and sql[j + 1] == ch:
                        j += 2
                        continue
                    break
                j += 1
            current.append(sql[i : j + 1])
            i = j + 1
            continue
        if ch.isalpha():
            j = i
            while j < n and (sql[j].isalnum() or sql[j] == "_"):
                j += 1
            word = sql[i:j]
            upper = word.upper()
            if upper == "BEGIN":
                depth += 1
            elif upper == "END" and depth > 0:
                depth -= 1
            current.append(word)
            i = j
            continue
        if ch == ";" and depth == 0:
            text = "".join(current).strip()
            if text:
                statements.append(text)
            current = []
            i += 1
            continue
        current.append(ch)
        i += 1
    text = "".join(current).strip()
    if text:
        statements.append(text)
    return statements


@functools.lru_cache(maxsize=64)
def _statements_of(sql: str) -> tuple[str, ...]:
    """`split_statements`, once a process for each migration's text (a new index or state plane runs
    all of them: the split was a third of that, 7 ms, paid by every test that makes a store)."""
    return tuple(split_statements(sql))


def _ledger_sql(schema: str) -> str:
    return (
        f"CREATE TABLE IF NOT EXISTS {schema}schema_migrations (\n"
        "  name TEXT PRIMARY KEY,\n"
        "  applied_at TEXT NOT NULL\n"
        ")"
    )


def run_migrations(conn: apsw.Connection, directory: Path, schema: str = "", clock: Clock = utc_now) -> list[str]:
    """Apply pending `*.sql` files in name order; each file and its ledger row commit together.

    `schema` is `""` for the index plane and `"state."` for the state plane, which keeps its own
    ledger so deleting the index never marks the state plane's migrations as unapplied.
    Returns the names applied by this call.
    """
    conn.execute(_ledger_sql(schema))
    seen = {row[0] for row in conn.execute(f"SELECT name FROM {schema}schema_migrations")}
    applied: list[str] = []
    for file in sorted(p for p in directory.glob("*.sql")):
        if file.name in seen:
            continue
        statements = _statements_of(file.read_text(encoding="utf-8"))
        # One transaction per migration, holding the write lock from its start: another process
        # (the window's watcher or a job's child, the CLI) may be migrating the same new file, and
        # `_migrate_lock` orders only this process's threads. Whoever gets the lock second finds
        # the ledger row and skips ("table files already exists" otherwise).
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = conn.execute(f"SELECT 1 FROM {schema}schema_migrations WHERE name = ?", (file.name,)).fetchone()
            if not done:
                for statement in statements:
                    conn.execute(statement)
                conn.execute(
                    f"INSERT INTO {schema}schema_migrations (name, applied_at) VALUES (?, ?)",
                    (file.name, iso_z(clock(), millis=True)),
                )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        if done:
            continue
        log.info("applied migration %s%s", schema, file.name)
        applied.append(file.name)
    return applied


def _load_sqlite_vec(conn: apsw.Connection) -> bool:
    try:
        import sqlite_vec
    except ImportError:  # pragma: no cover - a declared dependency
        return False
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        return True
    except apsw.Error as exc:  # pragma: no cover - depends on the platform wheel
        log.warning("sqlite-vec did not load: %s", exc)
        return False


class ClockBox:
    """The wall clock SQL sees through `memhtml_now()`; tests pin it, production reads UTC now."""

    def __init__(self, clock: Clock = utc_now) -> None:
        self.clock = clock

    def now_text(self) -> str:
        return iso_z(self.clock())


def fold(value: object) -> object:
    """Unicode case folding for the entity scope: a person types a reference from memory.

    SQLite's lower() folds ASCII only; `Zoë` and `ZOË` must meet too. Registered as a
    deterministic function because an expression index (file_entities_ref) is built on it:
    every connection that writes file_entities must register it, and open_index always does.
    """
    return value.casefold() if isinstance(value, str) else value


def contradiction_keys_text(gist: object, frame_key: object) -> str:
    """`files.contradiction_keys` for a claim and its frame key: the keys, one a line ('' without a claim)."""
    from memhtml_desktop.domain.contradiction import blocking_keys

    if not isinstance(gist, str) or not gist.strip():
        return ""
    return "\n".join(blocking_keys(gist, frame_key if isinstance(frame_key, str) else None))


def _register_functions(conn: apsw.Connection, clock: ClockBox) -> None:
    from memhtml_desktop.domain.instants import instant_text

    # Not deterministic: salience decays with the wall clock.
    conn.create_scalar_function("memhtml_now", lambda: clock.now_text(), 0)
    conn.create_scalar_function("memhtml_fold", fold, 1, deterministic=True)
    # The canonical UTC instant of memhtml's datetime text (migration 0007 backfills with it).
    conn.create_scalar_function("memhtml_instant", instant_text, 1, deterministic=True)
    # A claim's contradiction keys (migration 0012 backfills with it).
    conn.create_scalar_function("memhtml_contradiction_keys", contradiction_keys_text, 2, deterministic=True)


BUSY_POLL_S = 0.002


def polling_busy_handler(timeout_ms: int = BUSY_TIMEOUT_MS):
    """A busy handler that retries every 2 ms until `timeout_ms` has passed since the wait began.

    SQLite's own (`set_busy_timeout`) backs off to 100 ms between tries. Against memhtml's
    `state.db`, which keeps its rollback journal (see `_attach_state`), a writer holds the lock for
    most of each commit's fsyncs, and a waiter that looks only every 100 ms can miss every gap for
    the whole timeout (measured: a 5 s "database is locked" against a busy writer). Looking every
    2 ms finds the gaps; the wait still ends at the same timeout.
    """
    limit = timeout_ms / 1000.0
    started: list[float] = [0.0]

    def handler(prior_calls: int) -> bool:
        now = time.monotonic()
        if prior_calls == 0:
            started[0] = now
        if now - started[0] >= limit:
            return False
        time.sleep(BUSY_POLL_S)
        return True

    return handler


READ_CACHE_KB = 8 * 1024
"""Page cache of a connection between index passes. Reads do not need more: 600 searches on a
20,000-memory index took the same p50 / p95 with 2, 8 and 32 MB (9.4-9.8 / 12.9-14.1 ms; the
operating system's page cache serves a miss), while every long-lived connection of the engine
(one a thread) filled 32 MB over thousands of reads: the engine's memory climbed for hours."""
WRITE_CACHE_KB = 32 * 1024
"""Page cache during an index pass (`index_pass_cache`): the default 2 MB cannot hold the files
B-tree and its twelve indexes for a 20,000-file store, and every insert then re-reads pages
(measured ~15% of write CPU)."""


def heap_limit_mb() -> float:
    """This process's SQLite soft heap bound now (MB; 0: none, as the app runs: see
    docs/reliability.md, "The run at aa3408c", for the bound that was tried and taken out)."""
    return apsw.soft_heap_limit(-1) / 2**20


def heap_used_mb() -> float:
    """What SQLite's allocations hold now in this process, every connection together."""
    return apsw.memory_used() / 2**20


@contextmanager
def index_pass_cache(conn: apsw.Connection):
    """The write-sized page cache for one index pass, given back (its pages freed) when it ends."""
    conn.execute(f"PRAGMA cache_size=-{WRITE_CACHE_KB}")
    try:
        yield conn
    finally:
        with suppress(apsw.Error):
            conn.execute(f"PRAGMA cache_size=-{READ_CACHE_KB}")


def configure(conn: apsw.Connection, *, readonly: bool = False) -> None:
    conn.set_busy_handler(polling_busy_handler())
    if not readonly:
        _enter_wal(conn)
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(f"PRAGMA cache_size=-{READ_CACHE_KB}")
    conn.execute("PRAGMA temp_store=MEMORY")


def _enter_wal(conn: apsw.Connection, timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
    """Switch to WAL, waiting out another connection that is creating the same file.

    Moving a fresh file from the rollback journal to WAL needs an exclusive lock, and SQLite
    reports that contention as SQLITE_BUSY at once, without asking the busy handler (it would
    deadlock a reader otherwise). Two threads opening a new index at the same moment hit it:
    the first-run window's prepare job and its first search did (CI run 27). Retry until the
    other side's transaction ends.
    """
    deadline = time.monotonic() + timeout_ms / 1000.0
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL").fetchall()
            return
        except apsw.BusyError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(BUSY_POLL_S * 5)


_migrate_lock = threading.Lock()


class Connection(apsw.Connection):
    """An apsw connection that remembers how it was opened.

    Attributes:
        clock: the ClockBox `memhtml_now()` reads.
        has_vec: whether sqlite-vec loaded.
        state_mode: 'rw', 'ro' or None (no state plane attached).
        state_error, state_note, index_note: reasons for a notice (see each).
    """

    clock: "ClockBox"
    has_vec: bool = False
    state_mode: str | None = None
    state_error: str | None = None  # the state plane is damaged: salience is off
    state_note: str | None = None  # the state plane is read-only for a reason worth saying (a full disk)
    state_busy: bool = False  # the state plane was locked by another process when it was to be read
    index_note: str | None = None  # the index itself could only be opened read-only (a full disk)
    state_ident: tuple | None = None  # what the state plane's path named when it was attached (index/state_file.py)
    state_created: bool = False  # this connection made state.db (there was none)
    state_birth: str | None = None  # when the plane was made (its first migration's stamp): tells two files apart
    owner: str = "?"  # the thread that keeps it (Store.reader): named when it holds a lock (index/held.py)


def open_index(
    index_path: str | os.PathLike[str],
    *,
    state_path: str | os.PathLike[str] | None = None,
    create_state: bool = True,
    clock: Clock = utc_now,
) -> Connection:
    """Open (creating and migrating as needed) the index at `index_path`.

    `state_path` is the store's `.memhtml/state.db`. When it exists it is attached as is; when it
    is absent and `create_state` holds, it is created exactly as memhtml creates it. When it cannot
    be created (a read-only store) the connection simply has no `state` schema, and the salience
    arm drops out.
    """
    index_path = str(index_path)
    if index_path != ":memory:":
        Path(index_path).parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = Connection(
            index_path,
            flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE | apsw.SQLITE_OPEN_URI,
        )
        configure(conn)
        conn.execute("SELECT count(*) FROM sqlite_schema").fetchall()
    except apsw.NotADBError as exc:
        raise CorruptIndex(f"{index_path} is not a SQLite database: {exc}") from exc
    except apsw.CorruptError as exc:
        raise CorruptIndex(f"{index_path} is damaged: {exc}") from exc
    except UNWRITABLE as exc:
        # A full disk: WAL needs a shared-memory file beside the index that cannot be made.
        conn = _open_read_only(index_path, exc)
    box = ClockBox(clock)
    conn.clock = box
    _register_functions(conn, box)
    conn.has_vec = _load_sqlite_vec(conn)
    with _migrate_lock:
        try:
            if conn.index_note is None:
                run_migrations(conn, migrations_dir() / "index", clock=clock)
            else:
                _require_migrated(conn, index_path)
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            raise CorruptIndex(f"{index_path} is damaged: {exc}") from exc
    if state_path is not None:
        attach_state(conn, state_path, create=create_state, clock=clock)
        if conn.index_note is not None and conn.state_mode == "rw":
            # A database attached to a read-only connection is read-only too: say so up front
            # rather than let a bump fail with "attempt to write a readonly database".
            conn.state_mode = "ro"
            conn.state_note = (
                "the index's disk is full, so it is read as it is and state.db with it: "
                "salience is read but not written"
            )
    return conn


def _read_only_uris(path: str | os.PathLike[str]) -> list[str]:
    """`mode=ro` still needs the WAL's shared memory; `immutable=1` reads the file as it is."""
    from urllib.parse import quote

    uri = "file:" + quote(str(Path(path).resolve()))
    return [uri + "?mode=ro", uri + "?mode=ro&immutable=1"]


def _open_read_only(index_path: str, exc: Exception) -> Connection:
    """The index as it is, read-only, when it cannot be opened for writing (its disk is full).

    Searches and reads answer from it; a refresh is skipped with `index_note` as the reason.
    """
    last: Exception = exc
    for uri in _read_only_uris(index_path):
        try:
            conn = Connection(uri, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
            configure(conn, readonly=True)
            conn.execute("SELECT count(*) FROM sqlite_schema").fetchall()
        except (apsw.NotADBError, apsw.CorruptError) as damaged:
            raise CorruptIndex(f"{index_path} is damaged: {damaged}") from damaged
        except apsw.Error as failed:
            last = failed
            continue
        conn.index_note = f"{index_path} cannot be written ({exc}; is the disk full?); it is read as it is"
        log.info(conn.index_note)
        return conn
    raise IndexError_(f"{index_path} cannot be opened ({last}; is its disk full?)") from last


def _require_migrated(conn: Connection, index_path: str) -> None:
    """A read-only index is usable only when no migration is pending (nothing can be applied)."""
    try:
        seen = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
    except apsw.SQLError:
        seen = set()
    pending = sorted(p.name for p in (migrations_dir() / "index").glob("*.sql") if p.name not in seen)
    if pending:
        raise IndexError_(
            f"{index_path} cannot be written ({conn.index_note}) and needs {', '.join(pending)} applied; "
            "free some space and run the command again"
        )


def attach_state(
    conn: Connection,
    state_path: str | os.PathLike[str],
    *,
    create: bool = True,
    clock: Clock = utc_now,
) -> str | None:
    """ATTACH the state plane, or run without one when its file is damaged (and say why).

    The state plane is the one thing that cannot be rebuilt, so a damaged state.db is never moved,
    repaired or recreated here: it is detached and left exactly as found, salience drops out, and
    `conn.state_error` carries the reason for a notice.
    """
    try:
        conn.set_busy_handler(polling_busy_handler(STATE_ATTACH_BUSY_MS))
        try:
            return _attach_state(conn, state_path, create=create, clock=clock)
        finally:
            conn.set_busy_handler(polling_busy_handler())
    except apsw.BusyError:
        # Another process holds state.db's EXCLUSIVE lock (memhtml's VACUUM, a long write in
        # rollback-journal mode): even its schema cannot be read. A read answers without salience
        # and says so; the Store attaches it again once it is free (`Store.reader`).
        _detach(conn)
        conn.state_mode = None
        conn.state_busy = True
        conn.state_error = (
            f"{state_path} is locked by another process (a memhtml VACUUM or a long write?): "
            "this answer has no salience, and reads are not counted until it is free"
        )
        log.info(conn.state_error)
        return None
    except (apsw.NotADBError, apsw.CorruptError) as exc:
        _detach(conn)
        conn.state_mode = None
        conn.state_error = f"{state_path} is damaged ({exc}); salience is off and the file is left untouched"
        log.warning(conn.state_error)
        return None
    except UNWRITABLE as exc:
        # A full disk: the plane's shared-memory or WAL file cannot be made. Read it as a read-only
        # store is read (salience on, bumps refused with this reason), never an error for reading.
        _detach(conn)
        conn.state_mode = None
        if not Path(state_path).exists() or _attach_read_only(conn, Path(state_path)) is None:
            conn.state_error = f"{state_path} cannot be opened ({exc}; is the disk full?); salience is off"
            return None
        conn.state_mode = "ro"
        conn.state_note = f"the store's disk is full or not writable ({exc}): salience is read but not written"
        return "ro"


def _detach(conn: Connection) -> None:
    try:
        conn.execute("DETACH state")
    except apsw.Error:
        pass


def _attach_state(
    conn: Connection,
    state_path: str | os.PathLike[str],
    *,
    create: bool = True,
    clock: Clock = utc_now,
) -> str | None:
    """ATTACH the state plane as `state`; returns 'rw', 'ro' or None (no state plane).

    Never drops or recreates an existing file: only missing migrations are applied, and only when
    the file is writable.
    """
    from memhtml_desktop.index import state_file

    plane = state_file.examine(state_path)
    conn.state_ident = plane.ident
    if plane.refused:  # a FIFO, a device, a folder, a link out of the store, an odd companion: never opened
        conn.state_error = plane.refused
        log.info(plane.refused)
        return None
    path = Path(plane.path)  # the real file when state.db is a link inside the store
    exists = not plane.absent
    mode: str | None = None
    if exists and os.access(path, os.W_OK) and os.access(path.parent, os.W_OK):
        conn.execute("ATTACH ? AS state", (str(path),))
        mode = "rw"
    elif exists:
        mode = _attach_read_only(conn, path)
        if mode is None:
            conn.state_error = f"{path} cannot be read by this process (its permissions?): this answer has no salience"
            return None
    elif create:
        try:
            # Only `.memhtml/` itself: a store root that is gone (unmounted, deleted) must stay
            # gone rather than be recreated by a search.
            path.parent.mkdir(exist_ok=True)
        except OSError as exc:
            log.info("state plane not created (%s): salience stays off", exc)
            return None
        if not os.access(path.parent, os.W_OK):
            return None
        conn.execute("ATTACH ? AS state", (str(path),))
        conn.state_created = True
        mode = "rw"
    else:
        return None
    # What SQLite opened is what was examined: a file swapped in between the look and the ATTACH is
    # detached, and this connection runs without a plane until the next look.
    found = state_file.ident_of(path)
    if exists and found != plane.ident or (not exists and (found is None or not stat_regular(found))):
        _detach(conn)
        conn.state_error = (
            f"{state_path} changed while it was being opened; salience is off until it is looked at again"
        )
        return None
    conn.state_ident = found
    if mode == "rw":
        try:
            with _migrate_lock:
                run_migrations(conn, migrations_dir() / "state", schema="state.", clock=clock)
        except apsw.SQLError as exc:  # a table a migration makes is there in another shape
            return _unknown_schema(conn, state_path, f"its tables are not the ones this app makes ({exc})")
        # The journal mode is left as memhtml set it (rollback journal when memhtml created the
        # file; a new file is created the same way). Switching it to WAL is persistent: it would
        # change the file memhtml's CLI opens for good, and leave -wal/-shm files in its folder.
        # The pragma on `main` does not reach an attached schema: without this every bump fsyncs.
        conn.execute("PRAGMA state.synchronous=NORMAL")
    problem = state_schema_problem(conn)
    if problem:
        return _unknown_schema(conn, state_path, problem)
    try:  # a deleted plane's inode number can be given to the next file made: this stamp is the file's own
        (conn.state_birth,) = conn.execute("SELECT min(applied_at) FROM state.schema_migrations").fetchone()
    except apsw.Error:
        conn.state_birth = None
    conn.state_mode = mode
    return mode


def stat_regular(ident: tuple) -> bool:
    import stat as _stat

    return _stat.S_ISREG(ident[2])


#: The columns of `state.access` every statement of this app reads or writes (memhtml's S0001).
STATE_COLUMNS = (
    "path",
    "access_count",
    "reinforcement_count",
    "outcome_score",
    "last_accessed_at",
    "last_reinforced_at",
    "updated_at",
)


def state_schema_problem(conn: Connection) -> str | None:
    """Why the attached plane's `access` table is not one this app can use (a column renamed or
    missing, as a newer memhtml might make it), or None when it is."""
    try:
        columns = {row[1] for row in conn.execute("PRAGMA state.table_info(access)")}
    except apsw.Error as exc:
        return f"its access table cannot be read ({exc})"
    if not columns:
        return "it has no access table"
    missing = [c for c in STATE_COLUMNS if c not in columns]
    if missing:
        return f"its access table has no column {', '.join(missing)}"
    return None


def _unknown_schema(conn: Connection, state_path: str | os.PathLike[str], problem: str) -> None:
    """A plane whose schema this app does not know: detached and left exactly as it is; salience
    drops out with the reason (never an SQLError out of a search), and reads wait for it."""
    _detach(conn)
    conn.state_mode = None
    conn.state_error = (
        f"{state_path} is not a state plane this app knows: {problem} (a newer memhtml?); "
        "salience is off and the file is left untouched"
    )
    log.info(conn.state_error)
    return None


def _attach_read_only(conn: Connection, path: Path) -> str | None:
    """Attach a state plane this process may not write: salience is read, bumps are refused.

    `mode=ro` still needs the WAL's -shm file; when even that cannot be created (a read-only
    directory), `immutable=1` reads the file as it is. Failing both, there is no state plane.
    """
    from memhtml_desktop.index import state_file

    if state_file.examine(path).refused:  # `mode=ro` opens O_RDONLY: a FIFO would block it for good
        return None
    for uri in _read_only_uris(path):
        try:
            conn.execute("ATTACH ? AS state", (uri,))
            conn.execute("SELECT count(*) FROM state.sqlite_schema").fetchone()
            return "ro"
        except apsw.Error as exc:
            log.info("read-only attach of %s failed: %s", uri, exc)
            _detach(conn)
    return None


def has_state(conn: Connection) -> bool:
    """True when `state.access` is reachable from this connection."""
    if getattr(conn, "state_mode", None) is None:
        return False
    row = conn.execute("SELECT 1 FROM state.sqlite_schema WHERE type = 'table' AND name = 'access'").fetchone()
    return row is not None
