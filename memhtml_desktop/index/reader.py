"""Reading one memory: the file as parsed now, what the index knows about it, and the read itself.

Reading is the one act that counts as evidence: the caller chose this memory, so `read_memory`
bumps its salience (a neutral reinforce, gated by the cooldown) unless told not to. Search results,
recall packs, listings and previews never come through here with `bump=True`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw

from memhtml_desktop.domain.types import Link, MemoryDetail
from memhtml_desktop.html.detail import read_document
from memhtml_desktop.html.project import decode
from memhtml_desktop.index import hydrate
from memhtml_desktop.index.state import lost

log = logging.getLogger(__name__)


class MemoryNotFound(LookupError):
    pass


def read_memory(
    conn: apsw.Connection, root: Path, path: str, data: bytes | None, *, bump: Callable[[], Any] | None = None
) -> MemoryDetail:
    """The detail of `path` parsed from `data` (its bytes, read once by the caller; None: unreadable).

    `bump` records the read (Store passes its neutral reinforce); None reads without counting.
    The Store hands everything in, so this module never calls back into it.
    """
    if data is None:
        from memhtml_desktop.index.scanner import MAX_FILE_BYTES, stat_one

        disk = stat_one(root, path)
        if disk is not None and disk.size > MAX_FILE_BYTES:
            raise MemoryNotFound(
                f"{path} is {disk.size / 1_048_576:.1f} MB; memory files over "
                f"{MAX_FILE_BYTES // 1_048_576} MB are not read"
            )
        archived_copy = conn.execute("SELECT 1 FROM files WHERE path = ?", (path,)).fetchone()
        if archived_copy is None:
            raise MemoryNotFound(f"no memory file at {path}")
        raise MemoryNotFound(f"{path} is in the index but gone from disk (the next scan removes it)")
    doc = read_document(path, data)
    with conn:
        row = conn.execute(
            "SELECT memory_type, archived, event_at, updated_at, created_at FROM files WHERE path = ?", (path,)
        ).fetchone()
        links = _outgoing(conn, path, doc.links)
        backlinks = _incoming(conn, path)
        successor = hydrate.superseded_by(conn, [path]).get(path)
    bump_result = None
    # A valid memory counts when read, indexed yet or not (mid-rebuild, before the watcher's
    # batch): the state plane is keyed by path, as in memhtml. A broken file is not a memory.
    if bump is not None and (row is not None or doc.ok):
        try:
            bump_result = bump()  # a lock or a full disk comes back as `lost`
        except Exception as exc:  # noqa: BLE001 - a failed bump must never stop the read
            log.warning("read of %s not counted: %s", path, exc)
            bump_result = lost([path], "neutral", f"{type(exc).__name__}: {exc}")
        if bump_result.lost:
            log.warning("read of %s not counted: %s", path, bump_result.refused)
    access, earlier_reads = None, ()
    try:
        from memhtml_desktop.index.state import access_stats, access_stats_many

        access = access_stats(conn, path)
        earlier = [link.path for link in links if link.rel == "supersedes" and link.path != path]
        if earlier:
            rows = access_stats_many(conn, earlier)
            earlier_reads = tuple((p, int(r["access_count"] or 0)) for p, r in rows.items() if r.get("access_count"))
    except Exception as exc:  # noqa: BLE001 - no state plane: no stats, still a read
        log.debug("no access stats for %s: %s", path, exc)
    memory_type = row[0] if row else next((v for n, v in doc.metas if n == "memhtml-type"), None)
    metas = dict(doc.metas)
    stamps = (
        {"event_at": row[2], "updated_at": row[3], "created_at": row[4]}
        if row
        else {"updated_at": metas.get("memhtml-updated"), "created_at": metas.get("memhtml-created")}
    )
    return MemoryDetail(
        path=path,
        title=doc.title,
        gist=doc.gist,
        memory_type=memory_type,
        metas=tuple(doc.metas),
        entities=tuple(f"{t}:{n}" for t, n in doc.entities),
        tags=tuple(doc.tags),
        facets=tuple(doc.facets),
        citations=tuple(doc.citations),
        links=tuple(links),
        backlinks=tuple(backlinks),
        text=doc.article_text,
        html=decode(data),
        archived=bool(row[1]) if row else path.startswith("archive/"),
        superseded_by=successor,
        indexed=row is not None,
        violations=tuple(doc.violations),
        warnings=tuple(doc.warnings),
        access=access,
        bump=bump_result,
        suspicious_date=hydrate.suspicious_dates(conn, {path: stamps}).get(path),
        earlier_reads=earlier_reads,
    )


def _targets(conn, paths: list[str]) -> dict[str, tuple[bool, str]]:
    rows = hydrate.file_rows(conn, paths)
    return {p: (bool(r["archived"]), r["title"]) for p, r in rows.items()}


def _outgoing(conn, path: str, links: list[dict]) -> list[Link]:
    dsts = [link.get("dst_path") or "" for link in links]
    known = _targets(conn, [d for d in dsts if d])
    out = []
    for link, dst in zip(links, dsts):
        archived, title = known.get(dst, (dst.startswith("archive/"), ""))
        out.append(
            Link(
                rel=link.get("rel", ""),
                path=dst,
                edge_class=link.get("edge_class") or "memory",
                exists=dst in known,
                archived=archived,
                title=title,
            )
        )
    return out


def _incoming(conn, path: str) -> list[Link]:
    rows = conn.execute(
        "SELECT src_path, rel, edge_class FROM edges WHERE dst_path = ? AND derived = 0 ORDER BY rel, src_path",
        (path,),
    ).fetchall()
    known = _targets(conn, [r[0] for r in rows])
    return [
        Link(
            rel=rel,
            path=src,
            edge_class=cls,
            exists=src in known,
            archived=known.get(src, (False, ""))[0],
            title=known.get(src, (False, ""))[1],
        )
        for src, rel, cls in rows
    ]
