"""Listing, problems and store statistics: the unranked views over the index.

The listing uses the very scope predicate search uses (index/scope.py), so a narrowing that finds a
memory through search finds it through list, and the other way round.
"""

from __future__ import annotations

import json
from typing import Any

import apsw

from memhtml_desktop.domain.results import ListedMemory, ListPage, MemoryRef, Problem
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.scope import assemble_scope

MAX_LIST_LIMIT = 500


def list_memories(conn: apsw.Connection, scope: Scope, *, limit: int = 50, cursor: str | None = None) -> ListPage:
    """A page of memories in path order; `next_cursor` is the last path when more remain."""
    limit = max(1, min(int(limit), MAX_LIST_LIMIT))
    scope_sql = assemble_scope(scope, start=1)
    n = len(scope_sql.params)
    where = scope_sql.for_alias("f")
    params: list[Any] = list(scope_sql.params)
    if cursor:
        where += f"\n         AND f.path > ?{n + 1}"
        params.append(cursor.lstrip("/"))
    params.append(limit + 1)
    rows = conn.execute(
        "SELECT f.path, f.title, f.memory_type, f.gist, f.workspace, f.para, f.confidence, f.importance, "
        f"f.archived, f.updated_at, f.task_status, f.due_at FROM files f WHERE 1 = 1{where} "
        f"ORDER BY f.path ASC LIMIT ?{len(params)}",
        tuple(params),
    ).fetchall()
    more = len(rows) > limit
    rows = rows[:limit]
    files = tuple(
        ListedMemory(r[0], r[1], r[2], r[3], r[4], r[5], float(r[6]), int(r[7]), bool(r[8]), r[9], r[10], r[11])
        for r in rows
    )
    return ListPage(files, files[-1].path if more and files else None)


def find_memories(conn: apsw.Connection, text: str, *, limit: int = 20) -> list[MemoryRef]:
    """Memories whose title or path holds `text` (case-insensitive), titles that start with it first.

    For choosing a memory by name ("why not this one?"): a LIKE over two columns of `files`, with
    `%`, `_` and `\\` in the text matched literally.
    """
    needle = " ".join(str(text).split()).casefold()
    if not needle:
        return []
    limit = max(1, min(int(limit), MAX_LIST_LIMIT))
    escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = conn.execute(
        "SELECT path, title, memory_type, archived FROM files "
        "WHERE lower(title) LIKE ?1 ESCAPE '\\' OR lower(path) LIKE ?1 ESCAPE '\\' "
        "ORDER BY lower(title) LIKE ?2 ESCAPE '\\' DESC, archived ASC, title, path LIMIT ?3",
        (f"%{escaped}%", f"{escaped}%", limit),
    ).fetchall()
    return [MemoryRef(p, t or "", m, bool(a)) for p, t, m, a in rows]


def duplicate_bodies(conn: apsw.Connection) -> list[tuple[str, ...]]:
    """Groups of active non-task files with one article (content hash): memhtml would refuse these."""
    groups: dict[str, list[str]] = {}
    for content_hash, path in conn.execute(
        "SELECT content_hash, path FROM files WHERE archived = 0 AND memory_type <> 'task' AND content_hash IN ("
        "  SELECT content_hash FROM files WHERE archived = 0 AND memory_type <> 'task' "
        "  GROUP BY content_hash HAVING count(*) > 1) ORDER BY content_hash, path"
    ):
        groups.setdefault(content_hash, []).append(path)
    return [tuple(paths) for paths in groups.values()]


LARGE_MEMORY_BYTES = 1024 * 1024
"""A memory file over this (1 MB) is listed under Problems with a warning (doctor prints it): one
fact per file is a few kilobytes, and past this the reader lays out only its first 100,000
characters (`html/render.READER_TEXT_CAP`) and expand hands over 20,000 (`EXPAND_BODY_CAP`). Files
over 8 MB (`scanner.MAX_FILE_BYTES`) are not indexed at all and are listed as unreadable."""


def large_memories(conn: apsw.Connection) -> dict[str, int]:
    """Indexed memory files over `LARGE_MEMORY_BYTES`: path -> size in bytes."""
    return dict(
        conn.execute(
            "SELECT path, size FROM sources WHERE status = 'indexed' AND size > ?1 ORDER BY path", (LARGE_MEMORY_BYTES,)
        ).fetchall()
    )


def large_warning(size: int) -> str:
    return (
        f"the file is {size / 1_048_576:.1f} MB, over the {LARGE_MEMORY_BYTES // 1_048_576} MB a memory is "
        "expected to stay under (one fact per file): the reader shows its first 100,000 characters and "
        "expand hands over 20,000; split it, or keep the raw text outside the store and cite it"
    )


def problems(conn: apsw.Connection) -> list[Problem]:
    """Every problem: failed files first, then duplicate bodies, then warnings (a large file's
    among them, `LARGE_MEMORY_BYTES`); path order within."""
    out: list[Problem] = []
    rows = conn.execute("SELECT path, kind, violations, warnings, detected_at FROM problems ORDER BY path").fetchall()
    large = large_memories(conn)
    for path, kind, violations, warnings, at in rows:
        if kind != "warnings":
            out.append(Problem(path, kind, tuple(json.loads(violations)), tuple(json.loads(warnings)), at))
    for group in duplicate_bodies(conn):
        for path in group:
            others = tuple(p for p in group if p != path)
            message = "same article as " + ", ".join(others) + " (memhtml would refuse the second copy)"
            out.append(Problem(path, "duplicate", (message,), (), "", others))
    warned = []
    for path, kind, violations, warnings, at in rows:
        if kind == "warnings":
            size = large.pop(path, None)
            extra = (large_warning(size),) if size is not None else ()
            warned.append(Problem(path, kind, (), (*extra, *json.loads(warnings)), at))
    warned.extend(Problem(path, "warnings", (), (large_warning(size),), "") for path, size in large.items())
    out.extend(sorted(warned, key=lambda p: p.path))
    return out


def store_stats(conn: apsw.Connection) -> dict[str, Any]:
    row = conn.execute(
        "SELECT count(*), coalesce(sum(archived = 0), 0), coalesce(sum(archived = 1), 0), "
        "coalesce(sum(memory_type = 'task' AND archived = 0), 0) FROM files"
    ).fetchone()
    failed = conn.execute("SELECT count(*) FROM problems WHERE kind <> 'warnings'").fetchone()[0]
    warned = conn.execute(
        "SELECT count(*) FROM (SELECT path FROM problems WHERE kind = 'warnings' UNION "
        "SELECT path FROM sources WHERE status = 'indexed' AND size > ?1)",
        (LARGE_MEMORY_BYTES,),
    ).fetchone()[0]
    state = conn.execute(
        "SELECT store_root, embed_model, embed_dim, rebuilt_at, updated_at, vectors_version FROM index_state WHERE id = 1"
    ).fetchone()
    chunks, embedded = conn.execute(
        "SELECT count(*), coalesce(sum(e.model = (SELECT embed_model FROM index_state WHERE id = 1)), 0) "
        "FROM chunks c LEFT JOIN embeddings e ON e.chunk_id = c.chunk_id"
    ).fetchone()
    return {
        "memories": row[0],
        "active": row[1],
        "archived": row[2],
        "open_tasks": row[3],
        "failed": failed,
        "with_warnings": warned,
        "chunks": chunks,
        "embedded": embedded,
        "store_root": state[0],
        "embed_model": state[1],
        "embed_dim": state[2],
        "rebuilt_at": state[3],
        "updated_at": state[4],
        "vectors_version": state[5],
    }


def source_states(conn: apsw.Connection) -> tuple[dict[str, tuple[int, int, str]], list[str]]:
    """What the index last saw on disk (path -> size, mtime_ns, status) and every indexed path.

    One read transaction, so the two agree: the watcher's health check compares them with a walk
    of the tree.
    """
    with conn:
        sources = {
            row[0]: (row[1], row[2], row[3]) for row in conn.execute("SELECT path, size, mtime_ns, status FROM sources")
        }
        files = [row[0] for row in conn.execute("SELECT path FROM files")]
    return sources, files
