"""The tree compared with the index: how far the index is behind the disk.

The watcher asks for this (through `Store.health`) a while after each burst and every minute; a
disagreement means events were lost (an inotify overflow, a folder without a watch) and a full
reconciliation is due. One read transaction over `sources` and `files`, after one walk of the
buckets, so it costs a directory walk: it runs only when the store has been quiet.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import apsw

from memhtml_desktop.domain.results import SAMPLE, Health
from memhtml_desktop.index.listing import source_states
from memhtml_desktop.index.scanner import walk_store


def _now_iso() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def measure_health(conn: apsw.Connection, root: Path, cancelled: Callable[[], bool] | None = None) -> Health | None:
    """Walk the buckets and compare with `sources` and `files` (one read transaction).

    None when `cancelled` cut the walk short: a partial walk would call every file it did not
    reach a row without a file (a watcher stopped mid-audit reported 17,023 and reconciled).
    """
    on_disk = {disk.path: disk for disk in walk_store(root, cancelled=cancelled)}
    if cancelled is not None and cancelled():
        return None
    sources, files = source_states(conn)
    unindexed = sorted(
        path
        for path, disk in on_disk.items()
        if (known := sources.get(path)) is None or known[0] != disk.size or known[1] != disk.mtime_ns
    )
    orphans = sorted({p for p in sources if p not in on_disk} | {p for p in files if p not in on_disk})
    failed = sorted(p for p, (_, _, status) in sources.items() if status == "failed" and p in on_disk)
    return Health(
        len(unindexed),
        len(orphans),
        len(failed),
        tuple(unindexed[:SAMPLE]),
        tuple(orphans[:SAMPLE]),
        tuple(failed[:SAMPLE]),
        _now_iso(),
    )
