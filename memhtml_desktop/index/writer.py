"""Row-level writes for one memory file, in memhtml's order, inside the caller's transaction.

Per file (store-format.md §6): delete its child rows; release chunks whose content changed;
delete its authored edges; upsert `files`; insert tags and entities; upsert chunks; insert facets,
citations and edges. Chunks are keyed by content, so two files with one body share a chunk row;
releasing a chunk hands it to the surviving twin instead of deleting it (memhtml's cascade would
silently take the twin's vectors with it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import apsw

from memhtml_desktop.index.db import contradiction_keys_text

FILE_COLUMNS = (
    "path",
    "blob_sha",
    "content_hash",
    "memory_type",
    "title",
    "body_text",
    "gist",
    "fts_text",
    "disclosure_text",
    "para",
    "workspace",
    "confidence",
    "importance",
    "archived",
    "origin_path",
    "word_count",
    "created_at",
    "updated_at",
    "event_at",
    "archived_at",
    "valid_from",
    "valid_until",
    "reprieves",
    "needs_revision",
    "author",
    "session_id",
    "prompt_id",
    "turn_uuid",
    "indexed_at",
    "task_status",
    "due_at",
    "frame_key",
)
# Derived here, not projected: the projection is memhtml's and stays byte-identical (migration 0007).
INSTANT_COLUMNS = ("recency_utc", "updated_utc", "valid_from_utc", "valid_until_utc")
# The claim's keys for the newer-first step's grouping (migration 0012; domain/contradiction.py).
KEY_COLUMNS = ("contradiction_keys",)
_WRITTEN = FILE_COLUMNS + INSTANT_COLUMNS + KEY_COLUMNS
_UPSERT_FILE = (
    f"INSERT INTO files ({', '.join(_WRITTEN)}) VALUES ({', '.join('?' * len(_WRITTEN))}) "
    "ON CONFLICT(path) DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in _WRITTEN if c != "path")
)
CHILD_TABLES = ("file_tags", "file_entities", "file_facets", "file_citations")


def release_chunks(conn: apsw.Connection, path: str, keep_hash: str | None = None) -> None:
    """Let go of `path`'s chunks (except those of `keep_hash`) without orphaning a twin.

    A chunk whose body another file still carries is re-pointed at that file; any other is
    deleted, and its embedding goes with it by cascade.
    """
    rows = conn.execute(
        "SELECT DISTINCT content_hash FROM chunks WHERE path = ? AND content_hash IS NOT ?",
        (path, keep_hash),
    ).fetchall()
    for (content_hash,) in rows:
        twin = conn.execute(
            "SELECT path FROM files WHERE content_hash = ? AND path <> ? ORDER BY archived, path LIMIT 1",
            (content_hash, path),
        ).fetchone()
        if twin is not None:
            conn.execute(
                "UPDATE chunks SET path = ? WHERE path = ? AND content_hash = ?",
                (twin[0], path, content_hash),
            )
        else:
            conn.execute("DELETE FROM chunks WHERE path = ? AND content_hash = ?", (path, content_hash))


def write_projection(
    conn: apsw.Connection, tables: Mapping[str, Sequence[Mapping[str, Any]]], *, fresh: bool = False
) -> str:
    """Write one parsed file's rows (a `Projection.tables`); returns its path.

    `fresh` says the index holds nothing under this path yet (a cold run), which skips the
    deletes: eight statements a file that would find nothing to delete.
    """
    return write_bound(conn, bind(tables), fresh=fresh)


def write_bound(conn: apsw.Connection, bound: "Bound", *, fresh: bool = False) -> str:
    """`write_projection` for one file's rows already bound (`bind`: what a parse worker sends)."""
    path = bound[0][0]
    if not fresh:
        for table in CHILD_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE path = ?", (path,))
        release_chunks(conn, path, keep_hash=bound[0][CONTENT_HASH])
        conn.execute("DELETE FROM edges WHERE src_path = ? AND derived = 0", (path,))
    rows = Rows()
    rows.add_bound(bound)
    rows.write(conn)
    return path


def _child(
    table: str, columns: tuple[str, ...], verb: str = "INSERT", tail: str = ""
) -> tuple[str, str, tuple[str, ...]]:
    """A child table, the statement that writes one of its rows, and the columns it binds."""
    sql = f"{verb} INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))}){tail}"
    return table, sql, columns


# Each child table's statement and columns, in memhtml's order of writing (store-format.md §6).
_CHILDREN: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    _child("file_tags", ("path", "tag")),
    _child("file_entities", ("path", "entity_type", "entity_name")),
    _child(
        "chunks",
        ("chunk_id", "path", "content_hash", "ordinal", "text", "char_count"),
        tail=" ON CONFLICT(chunk_id) DO UPDATE SET path = excluded.path, ordinal = excluded.ordinal, "
        "text = excluded.text, char_count = excluded.char_count",
    ),
    _child("file_facets", ("path", "name", "value", "numeric_value")),
    _child("file_citations", ("path", "text", "href")),
    _child(
        "edges",
        (
            "src_path",
            "rel",
            "dst_path",
            "edge_class",
            "derived",
            "strength",
            "provenance",
            "sleep_run",
            "src_hash",
            "dst_hash",
            "created_at",
        ),
        verb="INSERT OR IGNORE",
    ),
)
_UPSERT_SOURCE = (
    "INSERT INTO sources (path, size, mtime_ns, blob_sha, status, seen_at) VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, "
    "blob_sha = excluded.blob_sha, status = excluded.status, seen_at = excluded.seen_at"
)
_UPSERT_PROBLEM = (
    "INSERT INTO problems (path, kind, violations, warnings, detected_at) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT(path) DO UPDATE SET kind = excluded.kind, violations = excluded.violations, "
    "warnings = excluded.warnings, detected_at = excluded.detected_at"
)


Bound = tuple[tuple, tuple[list[tuple], ...]]
"""One memory's rows as its statements bind them: the `files` row (FILE_COLUMNS, then
INSTANT_COLUMNS and KEY_COLUMNS) and each child table's rows in `_CHILDREN`'s order. A parse worker sends this
instead of the projection's dicts: a third of the bytes to unpickle, and nothing left for the
writer to convert (`Rows.add` was a sixth of a cold index's writing)."""

CONTENT_HASH = FILE_COLUMNS.index("content_hash")


def bind(tables: Mapping[str, Sequence[Mapping[str, Any]]]) -> Bound:
    """A projection's `tables` as `Bound`: the values `Rows.add` binds, in the same order."""
    (file_row,) = tables["files"]
    return (
        tuple(file_row.get(c) for c in FILE_COLUMNS)
        + instant_values(file_row)
        + (contradiction_keys_text(file_row.get("gist"), file_row.get("frame_key")),),
        tuple(
            [tuple(row.get(c) for c in columns) for row in tables.get(table, ())] for table, _sql, columns in _CHILDREN
        ),
    )


class Rows:
    """The rows of one or more memories, as bindings per statement, written a table at a time.

    One file's rows are `write_projection`'s; a build from nothing gathers a whole batch's and
    writes each table with one `executemany` (Indexer._bulk): 100,000 calls for 20,000 memories
    became 400, and each call had released and re-taken the GIL. Within every table the rows keep
    the order of the files added, so rowids, the chunk upserts (the last twin wins) and the edges'
    INSERT OR IGNORE (the first wins) come out as the file-at-a-time writes would make them.
    """

    def __init__(self) -> None:
        self.files: list[tuple] = []
        self.children: list[list[tuple]] = [[] for _ in _CHILDREN]
        self.problems: list[tuple] = []
        self.sources: list[tuple] = []

    def add(self, tables: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
        self.add_bound(bind(tables))

    def add_bound(self, bound: Bound) -> None:
        file_row, children = bound
        self.files.append(file_row)
        for rows, out in zip(children, self.children):
            if rows:
                out.extend(rows)

    def problem(self, path: str, kind: str, violations: Sequence[str], warnings: Sequence[str], at: str) -> None:
        self.problems.append((path, kind, json.dumps(list(violations)), json.dumps(list(warnings)), at))

    def source(self, path: str, size: int, mtime_ns: int, blob_sha: str, status: str, at: str) -> None:
        self.sources.append((path, size, mtime_ns, blob_sha, status, at))

    def write(self, conn: apsw.Connection) -> None:
        if self.files:
            conn.executemany(_UPSERT_FILE, self.files)
        for (_table, sql, _columns), rows in zip(_CHILDREN, self.children):
            if rows:
                conn.executemany(sql, rows)
        if self.problems:
            conn.executemany(_UPSERT_PROBLEM, self.problems)
        if self.sources:
            conn.executemany(_UPSERT_SOURCE, self.sources)
        self.__init__()


def instant_values(row: Mapping[str, Any]) -> tuple[str, str, str, str | None]:
    """INSTANT_COLUMNS for one `files` row: its stamps read as UTC instants ('' where none is named)."""
    from memhtml_desktop.domain.instants import first_instant, instant_text

    event = row.get("event_at")
    updated = instant_text(row.get("updated_at"))
    return (
        (instant_text(event) if event is not None else updated) or "",
        updated or "",
        first_instant(row.get("valid_from"), event, row.get("created_at")) or "",
        instant_text(row.get("valid_until")),
    )


def delete_file(conn: apsw.Connection, path: str) -> bool:
    """Remove a memory's rows (children cascade); returns whether a row existed."""
    release_chunks(conn, path)
    conn.execute("DELETE FROM edges WHERE src_path = ? AND derived = 0", (path,))
    existed = conn.execute("SELECT 1 FROM files WHERE path = ?", (path,)).fetchone() is not None
    conn.execute("DELETE FROM files WHERE path = ?", (path,))
    return existed


def move_file(conn: apsw.Connection, src: str, dst: str) -> None:
    """A path update: the files row keeps its rowid (so its FTS row), children follow by cascade."""
    delete_file(conn, dst)
    conn.execute("UPDATE files SET path = ? WHERE path = ?", (dst, src))
    conn.execute("UPDATE edges SET src_path = ? WHERE src_path = ?", (dst, src))


def record_source(
    conn: apsw.Connection, path: str, size: int, mtime_ns: int, blob_sha: str, status: str, at: str
) -> None:
    conn.execute(_UPSERT_SOURCE, (path, size, mtime_ns, blob_sha, status, at))


def record_problem(
    conn: apsw.Connection, path: str, kind: str, violations: Sequence[str], warnings: Sequence[str], at: str
) -> None:
    conn.execute(_UPSERT_PROBLEM, (path, kind, json.dumps(list(violations)), json.dumps(list(warnings)), at))


def clear_problem(conn: apsw.Connection, path: str) -> None:
    conn.execute("DELETE FROM problems WHERE path = ?", (path,))


def forget_path(conn: apsw.Connection, path: str) -> bool:
    """Everything the index knows about a path that is gone from disk."""
    existed = delete_file(conn, path)
    conn.execute("DELETE FROM sources WHERE path = ?", (path,))
    clear_problem(conn, path)
    return existed
