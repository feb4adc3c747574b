"""Fetching what a result list shows about its paths, one statement per kind of fact.

Every function takes the final (or fused) paths and binds them as one carray, so the cost is one
statement per fact whatever the list length, and never a query per hit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import apsw
import numpy as np

from memhtml_desktop.domain.disclosure import utf16_len
from memhtml_desktop.index.vectors import VectorSnapshot

SNIPPET_MAX_CHARS = 700

_FILE_FIELDS = (
    "rowid",
    "path",
    "title",
    "gist",
    "memory_type",
    "confidence",
    "importance",
    "updated_at",
    "event_at",
    "archived",
    "disclosure_text",
    "workspace",
    "para",
    "content_hash",
    "created_at",
    "frame_key",
    "contradiction_keys",
)


def _paths(paths: Sequence[str]) -> apsw.CArrayBinding:
    return apsw.carray(tuple(paths))


def file_rows(conn: apsw.Connection, paths: Sequence[str]) -> dict[str, dict[str, Any]]:
    if not paths:
        return {}
    cols = ", ".join(_FILE_FIELDS)
    rows = conn.execute(f"SELECT {cols} FROM files WHERE path IN carray(?1)", (_paths(paths),)).fetchall()
    return {row[1]: dict(zip(_FILE_FIELDS, row)) for row in rows}


def suspicious_dates(conn: apsw.Connection, rows: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Per path, the first stamp it claims (event, updated, created) that lies after the
    connection's clock: recency did not believe it, and a reader should not either."""
    from memhtml_desktop.domain.instants import CLAIMED_STAMPS, future_claim
    from memhtml_desktop.index.db import utc_now

    box = getattr(conn, "clock", None)
    now = box.clock() if box is not None else utc_now()
    out = {}
    for path, row in rows.items():
        claim = future_claim(((name, row.get(name)) for name in CLAIMED_STAMPS), now)
        if claim is not None:
            out[path] = claim
    return out


def entity_refs(conn: apsw.Connection, paths: Sequence[str]) -> dict[str, list[str]]:
    """`type:name` per path, de-duplicated, sorted in UTF-16 order like memhtml's JS sort."""
    if not paths:
        return {}
    out: dict[str, set[str]] = {}
    for path, ref in conn.execute(
        "SELECT path, entity_type || ':' || entity_name FROM file_entities WHERE path IN carray(?1)",
        (_paths(paths),),
    ):
        out.setdefault(path, set()).add(ref)
    return {p: sorted(refs, key=lambda r: r.encode("utf-16-be")) for p, refs in out.items()}


def entity_names(conn: apsw.Connection, paths: Sequence[str]) -> dict[str, list[str]]:
    """Bare entity names per path, first-seen order: the recall fold caps quotes per NAME."""
    if not paths:
        return {}
    out: dict[str, list[str]] = {}
    for path, name in conn.execute(
        "SELECT path, entity_name FROM file_entities WHERE path IN carray(?1) ORDER BY rowid",
        (_paths(paths),),
    ):
        names = out.setdefault(path, [])
        if name not in names:
            names.append(name)
    return out


def superseded_by(conn: apsw.Connection, paths: Sequence[str]) -> dict[str, str]:
    """The newest authored `supersedes` edge pointing AT each path (memhtml's derivation)."""
    if not paths:
        return {}
    out: dict[str, str] = {}
    # Driven by the paths (edges_dst): the planner otherwise walks every supersedes edge of the
    # store (edges_derived) and tests each against the list, 1.4 ms a search at 100,000 memories.
    for dst, src in conn.execute(
        "SELECT dst_path, src_path FROM edges INDEXED BY edges_dst WHERE dst_path IN carray(?1) AND rel = 'supersedes' "
        "AND derived = 0 ORDER BY dst_path, created_at DESC, src_path ASC",
        (_paths(paths),),
    ):
        out.setdefault(dst, src)
    return out


def first_vectors(conn: apsw.Connection, paths: Sequence[str], space: str) -> dict[str, bytes]:
    """Each file's lowest-ordinal embedded chunk vector (what MMR compares), as stored BLOBs."""
    if not paths:
        return {}
    out: dict[str, bytes] = {}
    for path, vec in conn.execute(
        "SELECT f.path, e.vec FROM files f JOIN chunks c ON c.content_hash = f.content_hash "
        "JOIN embeddings e ON e.chunk_id = c.chunk_id "
        "WHERE f.path IN carray(?1) AND e.model = ?2 ORDER BY f.path, c.ordinal",
        (_paths(paths), space),
    ):
        out.setdefault(path, vec)
    return out


def cap_snippet(text: str, limit: int = SNIPPET_MAX_CHARS) -> str:
    """At most `limit` UTF-16 units; an over-long text ends in `…` with no space before it."""
    if utf16_len(text) <= limit:
        return text
    cut: list[str] = []
    used = 0
    for ch in text:
        width = 2 if ord(ch) > 0xFFFF else 1
        if used + width > limit - 1:
            break
        cut.append(ch)
        used += width
    return "".join(cut).rstrip() + "…"


def snippets(
    conn: apsw.Connection,
    paths: Sequence[str],
    query_vector: np.ndarray | None,
    snapshot: VectorSnapshot | None,
) -> dict[str, str]:
    """Each hit's best-matching chunk for this query, capped at 700 characters.

    A NULL distance (no vector) loses to any scored chunk; ties and NULLs fall to the lower
    ordinal, so the winner is deterministic. Without a query vector, chunk 0 wins.
    """
    if not paths:
        return {}
    rows = conn.execute(
        "SELECT f.path, c.ordinal, c.text, c.chunk_id FROM files f "
        "JOIN chunks c ON c.content_hash = f.content_hash WHERE f.path IN carray(?1)",
        (_paths(paths),),
    ).fetchall()
    dist: dict[str, float] = {}
    if query_vector is not None and rows:
        if snapshot is not None:
            found = [(cid, snapshot.chunk_row[cid]) for _, _, _, cid in rows if cid in snapshot.chunk_row]
            if found:
                values = snapshot.chunk_distances(query_vector, np.array([r for _, r in found], dtype=np.int64))
                dist = {cid: float(d) for (cid, _), d in zip(found, values)}
        else:
            for cid, d in conn.execute(
                "SELECT e.chunk_id, vec_distance_cosine(e.vec, ?2) FROM embeddings e WHERE e.chunk_id IN carray(?1)",
                (apsw.carray(tuple(r[3] for r in rows)), np.ascontiguousarray(query_vector, dtype="<f4").tobytes()),
            ):
                if d is not None:
                    dist[cid] = float(d)
    best: dict[str, tuple[int, float, int, str]] = {}
    for path, ordinal, text, cid in rows:
        d = dist.get(cid)
        key = (0, d, ordinal, text) if d is not None else (1, 0.0, ordinal, text)
        if path not in best or key[:3] < best[path][:3]:
            best[path] = key
    return {path: cap_snippet(key[3]) for path, key in best.items()}
