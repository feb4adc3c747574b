"""Authored links among a few memories: what both the conflicts view (write/conflicts.py, through the
curation door) and a search's disagreement marks (index/disagreements.py) ask. A module of its own so
a search that meets contradicting hits imports this query alone, not the curation module (which brings
the sidecar, the state plane's moves and the results types)."""

from __future__ import annotations

import json
from typing import Iterable

import apsw


def links_among(conn: apsw.Connection, paths: Iterable[str]) -> dict[tuple[str, str], list[str]]:
    """Authored links between any two of `paths`: (src, dst) -> rels (the conflicts view's "both hold").

    The statement names its index: left to choose, SQLite walked every authored edge through
    `edges_derived` (derived = 0 holds for nearly all of them) and filtered: 90-140 ms at 20,000
    memories, on every search whose hits contradict each other; through `edges_src`, 0.07 ms."""
    wanted = json.dumps(list(dict.fromkeys(paths)), ensure_ascii=False)
    out: dict[tuple[str, str], list[str]] = {}
    for src, dst, rel in conn.execute(
        "SELECT e.src_path, e.dst_path, e.rel FROM edges AS e INDEXED BY edges_src "
        "WHERE e.src_path IN (SELECT value FROM json_each(?1)) AND e.derived = 0 "
        "AND e.dst_path IN (SELECT value FROM json_each(?1)) ORDER BY e.src_path, e.dst_path, e.rel",
        (wanted,),
    ):
        out.setdefault((src, dst), []).append(rel)
    return out
