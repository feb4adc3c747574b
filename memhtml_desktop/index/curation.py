"""The index questions the write core asks, and the one state-plane write it makes besides moves;
the write core's one door into index/ besides the Store's protocols (index/doors.py).

SQL lives in index/ (docs/architecture.md), so the write core's lookups are here: the dedupe key,
link endpoints, dangling links and orphan state rows for `doctor --fix`, the supersession edges
of one memory, and the claims and vectors a conflicts scan compares.

"Exists" means "the indexer has seen a file there" (`sources`), not "it parsed" (`files`): a
memory that is broken for a moment is still a memory, and its links and salience must not be
repaired away while someone fixes it.

What else of index/ the write core uses is named here too, so `write/` imports this module and the
doors alone (import-linter: "write-through-its-doors"): the file-size limit and path guard the
indexer reads by (a file the write core commits must be one the index will read), memhtml's form of
an instant, the state plane's row moves and reads that a commit applies in its own transaction, the
state sidecar, and the Store's rule for a store path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable

import apsw

from memhtml_desktop.index.authored_links import links_among
from memhtml_desktop.index.db import iso_z
from memhtml_desktop.index.scanner import MAX_FILE_BYTES, resolve_inside
from memhtml_desktop.index.sidecar import SIDECAR_RELPATH, export_access, js_number
from memhtml_desktop.index.state import RowMove, access_stats, follow_move, move_access, state_mode, write_with_retry

__all__ = [  # its own questions, and what it names of the rest of index/ for the write core
    "access_rows",
    "access_stats",
    "active_statements",
    "active_twins_of",
    "checked_store_path",
    "dangling_edges",
    "delete_access_rows",
    "Edge",
    "export_access",
    "file_facts",
    "files_facts",
    "follow_move",
    "frame_key_holders",
    "inbound_links",
    "indexed_paths",
    "iso_z",
    "js_number",
    "links_among",
    "MAX_FILE_BYTES",
    "move_access",
    "orphan_access_rows",
    "resolve_inside",
    "RowMove",
    "seen_paths",
    "SIDECAR_RELPATH",
    "state_mode",
    "supersedes_edges",
    "titles_of",
]


def checked_store_path(path: str) -> str:
    """`path` by the Store's rule for a store path (`index/store.safe_store_path`: no absolute path,
    no `..`, no backslash), or ValueError saying why not."""
    from memhtml_desktop.index.store import StoreError, safe_store_path

    try:
        return safe_store_path(path)
    except StoreError as exc:
        raise ValueError(str(exc)) from exc


def active_twins_of(conn: apsw.Connection, content_hash: str) -> list[str]:
    """memhtml's dedupe lookup: active non-task files with this content hash, in path order."""
    rows = conn.execute(
        "SELECT path FROM files WHERE content_hash = ? AND archived = 0 AND memory_type <> 'task' ORDER BY path",
        (content_hash,),
    )
    return [r[0] for r in rows]


_FILE_COLUMNS = (
    "path", "memory_type", "title", "gist", "archived", "created_at", "updated_at", "archived_at",
    "valid_from", "valid_until", "content_hash", "blob_sha", "event_at",
)  # fmt: skip


def file_facts(conn: apsw.Connection, path: str) -> dict[str, Any] | None:
    row = conn.execute(f"SELECT {', '.join(_FILE_COLUMNS)} FROM files WHERE path = ?", (path,)).fetchone()
    return dict(zip(_FILE_COLUMNS, row)) if row is not None else None


def files_facts(conn: apsw.Connection, paths: Iterable[str]) -> dict[str, dict[str, Any]]:
    wanted = json.dumps(list(dict.fromkeys(paths)), ensure_ascii=False)
    rows = conn.execute(
        f"SELECT {', '.join(_FILE_COLUMNS)} FROM files WHERE path IN (SELECT value FROM json_each(?))", (wanted,)
    )
    return {row[0]: dict(zip(_FILE_COLUMNS, row)) for row in rows}


def seen_paths(conn: apsw.Connection, paths: Iterable[str]) -> set[str]:
    """Which of `paths` the indexer has seen on disk (parsed or not)."""
    wanted = json.dumps(list(dict.fromkeys(paths)), ensure_ascii=False)
    rows = conn.execute("SELECT path FROM sources WHERE path IN (SELECT value FROM json_each(?))", (wanted,))
    return {r[0] for r in rows}


def indexed_paths(conn: apsw.Connection, paths: Iterable[str]) -> set[str]:
    wanted = json.dumps(list(dict.fromkeys(paths)), ensure_ascii=False)
    rows = conn.execute("SELECT path FROM files WHERE path IN (SELECT value FROM json_each(?))", (wanted,))
    return {r[0] for r in rows}


@dataclass(frozen=True)
class Edge:
    src: str
    rel: str
    dst: str


def dangling_edges(conn: apsw.Connection) -> list[Edge]:
    """Authored links whose target the indexer has never seen, sorted by (src, rel, dst)."""
    rows = conn.execute(
        "SELECT e.src_path, e.rel, e.dst_path FROM edges e "
        "WHERE e.derived = 0 AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.path = e.dst_path) "
        "ORDER BY e.src_path, e.rel, e.dst_path"
    )
    return [Edge(*r) for r in rows]


def orphan_access_rows(conn: apsw.Connection) -> list[str]:
    """`state.access` paths no file answers to any more (no `sources` row), in path order."""
    if state_mode(conn) is None:
        return []
    rows = conn.execute(
        "SELECT a.path FROM state.access a WHERE NOT EXISTS (SELECT 1 FROM sources s WHERE s.path = a.path) "
        "ORDER BY a.path"
    )
    return [r[0] for r in rows]


def delete_access_rows(conn: apsw.Connection, paths: list[str]) -> list[str]:
    """Delete these `state.access` rows (doctor's prune); returns the paths actually deleted."""
    if not paths or state_mode(conn) != "rw":
        return []
    wanted = json.dumps(paths, ensure_ascii=False)

    def work() -> list[str]:
        return [r[0] for r in conn.execute(
            "DELETE FROM state.access WHERE path IN (SELECT value FROM json_each(?)) RETURNING path", (wanted,)
        )]  # fmt: skip

    return sorted(write_with_retry(conn, work, what="prune orphan access rows"))


def access_rows(conn: apsw.Connection, paths: Iterable[str]) -> dict[str, tuple]:
    """Raw `state.access` rows for these paths (tests and undo compare them whole)."""
    if state_mode(conn) is None:
        return {}
    wanted = json.dumps(list(dict.fromkeys(paths)), ensure_ascii=False)
    rows = conn.execute("SELECT * FROM state.access WHERE path IN (SELECT value FROM json_each(?))", (wanted,))
    return {r[0]: tuple(r) for r in rows}


def supersedes_edges(conn: apsw.Connection, path: str) -> tuple[list[str], list[str]]:
    """(what `path` supersedes, what supersedes `path`) from authored `supersedes` links."""
    older = [r[0] for r in conn.execute(
        "SELECT dst_path FROM edges WHERE src_path = ? AND rel = 'supersedes' AND derived = 0 ORDER BY dst_path", (path,)
    )]  # fmt: skip
    newer = [r[0] for r in conn.execute(
        "SELECT src_path FROM edges WHERE dst_path = ? AND rel = 'supersedes' AND derived = 0 "
        "ORDER BY created_at DESC, src_path", (path,)
    )]  # fmt: skip
    return older, newer


def active_statements(conn: apsw.Connection) -> list[tuple]:
    """(rowid, path, gist, title, frame_key, event_at, created_at) of every active non-task memory
    with a claim, in path order: what the conflicts scan judges."""
    rows = conn.execute(
        "SELECT rowid, path, gist, title, frame_key, event_at, created_at FROM files "
        "WHERE archived = 0 AND memory_type <> 'task' AND gist <> '' ORDER BY path"
    )
    return [tuple(r) for r in rows]


def frame_key_holders(conn: apsw.Connection, keys: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
    """Active non-task memories stating each frame key: key -> [(path, gist)] in path order."""
    wanted = json.dumps(list(dict.fromkeys(keys)), ensure_ascii=False)
    out: dict[str, list[tuple[str, str]]] = {}
    for key, path, gist in conn.execute(
        "SELECT frame_key, path, gist FROM files WHERE frame_key IN (SELECT value FROM json_each(?)) "
        "AND archived = 0 AND memory_type <> 'task' ORDER BY path",
        (wanted,),
    ):
        out.setdefault(key, []).append((path, gist))
    return out


def inbound_links(conn: apsw.Connection, path: str) -> list[tuple[str, str, str, bool, str]]:
    """(src, rel, src title, src archived, src type) of every authored link to `path` from another
    indexed memory, in (src, rel) order: who points at a memory a correction replaces."""
    rows = conn.execute(
        "SELECT e.src_path, e.rel, f.title, f.archived, f.memory_type FROM edges AS e "
        "JOIN files AS f ON f.path = e.src_path "
        "WHERE e.dst_path = ? AND e.derived = 0 AND e.src_path <> e.dst_path ORDER BY e.src_path, e.rel",
        (path,),
    )
    return [(src, rel, title or "", bool(archived), kind or "") for src, rel, title, archived, kind in rows]


def titles_of(conn: apsw.Connection, paths: Iterable[str]) -> dict[str, tuple[str, bool]]:
    """(title, archived) of each indexed path among `paths`."""
    wanted = json.dumps(list(dict.fromkeys(paths)), ensure_ascii=False)
    rows = conn.execute("SELECT path, title, archived FROM files WHERE path IN (SELECT value FROM json_each(?))",
                        (wanted,))  # fmt: skip
    return {p: (t or "", bool(a)) for p, t, a in rows}
