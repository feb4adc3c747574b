"""A connection keeps a read-sized page cache between index passes and a write-sized one during a pass
(the engine keeps one connection a thread for hours: at the write size each filled 32 MB over
thousands of reads, and the engine's memory climbed through the soak)."""

from __future__ import annotations

import apsw

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.index import db as dbmod
from memhtml_desktop.index.store import Store


def _cache_kb(conn) -> int:
    (value,) = conn.execute("PRAGMA cache_size").fetchone()
    return -value


def _cache_used_mb(conn) -> float:
    return conn.status(apsw.SQLITE_DBSTATUS_CACHE_USED)[0] / 2**20


def test_an_index_pass_has_the_write_cache_and_gives_it_back(tmp_path, monkeypatch):
    root = tmp_path / "store"
    generate_store(root, 300, 31)
    store = Store(root, index_path=tmp_path / "index.db")
    seen: list[int] = []
    from memhtml_desktop.index import indexer as indexer_mod

    scan = indexer_mod.Indexer.scan

    def watched_scan(self, *args, **kwargs):
        seen.append(_cache_kb(self.conn))
        return scan(self, *args, **kwargs)

    monkeypatch.setattr(indexer_mod.Indexer, "scan", watched_scan)
    store.index()
    assert seen == [dbmod.WRITE_CACHE_KB]
    conn = store.reader()
    assert _cache_kb(conn) == dbmod.READ_CACHE_KB


def test_reads_stay_within_the_read_cache(tmp_path):
    """Many different searches on one connection: its page cache stops at the read size."""
    root = tmp_path / "store"
    generate_store(root, 1500, 8)
    store = Store(root, index_path=tmp_path / "index.db")
    store.index()
    conn = store.reader()
    words = sorted({w for (t,) in conn.execute("SELECT title FROM files") for w in t.lower().split() if len(w) > 4})
    for i in range(0, min(len(words), 600), 2):
        store.search(f"{words[i]} {words[i + 1]}")
    used = _cache_used_mb(conn)
    # a full read-sized cache (the searches touched more pages than it holds), and no more: at most
    # 10 MB a connection, so the engine's half-dozen long-lived ones stay within ~60 MB together
    assert dbmod.READ_CACHE_KB / 1024 * 0.5 < used <= min(10.0, dbmod.READ_CACHE_KB / 1024 * 1.1), used
