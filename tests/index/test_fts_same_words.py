"""The FTS tables follow a memory's words, not its row (migration 0013): a memory re-read with the
same words leaves both FTS tables' data as it was; one whose title or body changed has exactly its
new words there, as a rebuilt index has them.

Real store files, the real indexer and migrations; the FTS tables' own storage (`*_data`) is read
to tell whether they were written.
"""

from __future__ import annotations

import apsw

from memfiles import write_memory
from memhtml_desktop.index.store import Store
from tests.index.conftest import CountingEmbedder

FTS = ("files_fts", "files_fts_stemmed")


def _data(conn: apsw.Connection) -> dict[str, list]:
    return {fts: conn.execute(f"SELECT id, block FROM {fts}_data ORDER BY id").fetchall() for fts in FTS}


def _store(store_root, make_store):
    for n in range(12):
        write_memory(
            store_root,
            f"areas/a/m{n}.html",
            title=f"Harbour note {n}",
            claim=f"The ferry number {n} leaves from pier {n + 3} at dawn.",
        )
    store = make_store(store_root)
    assert store.index().added == 12
    return store


def _matches(conn: apsw.Connection, word: str) -> dict[str, list]:
    return {
        fts: [r[0] for r in conn.execute(f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? ORDER BY rowid", (word,))]
        for fts in FTS
    }


def test_a_memory_read_again_with_the_same_words_leaves_both_fts_tables_alone(store_root, make_store):
    store = _store(store_root, make_store)
    conn = store.reader()
    before = _data(conn)
    path = store_root / "areas/a/m4.html"
    path.write_bytes(path.read_bytes() + b"\n")  # new bytes, a new blob: the same words
    report = store.index()
    assert report.changed == 1
    assert _data(conn) == before  # neither table was written: no words left it or came to it
    for fts in FTS:
        conn.execute(f"INSERT INTO {fts} ({fts}) VALUES ('integrity-check')")
    assert [h.path for h in store.search("ferry number 4 pier 7").hits][:1] == ["areas/a/m4.html"]


def test_changed_words_reach_both_fts_tables_as_a_rebuild_has_them(store_root, make_store, tmp_path):
    store = _store(store_root, make_store)
    conn = store.reader()
    write_memory(
        store_root, "areas/a/m2.html", title="Lighthouse note 2", claim="The ferry number 2 leaves from pier 5 at dawn."
    )  # the title alone changed
    write_memory(
        store_root, "areas/a/m7.html", title="Harbour note 7", claim="The zeppelin number 7 lands on mast 10 at dusk."
    )  # the body alone changed
    report = store.index()
    assert report.changed == 2
    for fts in FTS:
        conn.execute(f"INSERT INTO {fts} ({fts}) VALUES ('integrity-check')")
    rebuilt = Store(store_root, index_path=tmp_path / "rebuilt.db", embedder=CountingEmbedder())
    rebuilt.index()
    fresh = rebuilt.reader()
    rowid = dict(conn.execute("SELECT path, rowid FROM files").fetchall())
    fresh_rowid = dict(fresh.execute("SELECT path, rowid FROM files").fetchall())
    back = {v: k for k, v in rowid.items()}
    fresh_back = {v: k for k, v in fresh_rowid.items()}
    for word in ("lighthouse", "harbour", "zeppelin", "ferry", "dusk", "dawn", "mast", "pier"):
        got = {fts: sorted(back[r] for r in rows) for fts, rows in _matches(conn, word).items()}
        want = {fts: sorted(fresh_back[r] for r in rows) for fts, rows in _matches(fresh, word).items()}
        assert got == want, word
    assert _matches(conn, "lighthouse")["files_fts_stemmed"] == [rowid["areas/a/m2.html"]]
    assert rowid["areas/a/m7.html"] not in _matches(conn, "ferry")["files_fts"]
