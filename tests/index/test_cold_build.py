"""A build from nothing writes its batches a table at a time (Indexer._bulk, migration 0011).

The cold path gathers a batch's rows, writes each table with one statement, lets the insert
triggers stand aside and feeds the two FTS tables and the change log one INSERT ... SELECT each.
It must leave exactly the index the row-at-a-time path leaves: every row of every table in the
same order, the same words found by both FTS tables, the same change log as far as the caches
read it. The stores vary (seeds, sizes on both sides of the parse pool's threshold, broken files,
twins, a file with warnings); a fault in the middle of a cold batch leaves nothing of it behind.
"""

from __future__ import annotations

import collections
import datetime as dt
import re
import shutil
from pathlib import Path

import apsw
import pytest

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index import changes, db, writer
from memhtml_desktop.index.indexer import POOL_THRESHOLD, Indexer, IndexReport, _batches
from memhtml_desktop.index.scanner import walk_store
from memhtml_desktop.index.store import Store

from .conftest import CountingEmbedder

NOW = dt.datetime(2026, 12, 1, 9, 30, tzinfo=dt.timezone.utc)
TABLES = ("files", "file_tags", "file_entities", "chunks", "file_facets", "file_citations", "edges",
          "sources", "problems")  # fmt: skip
# A path the index has never seen, listed as known: the run is then not a build from nothing and
# writes row at a time (the path before migration 0011), with everything else the same.
NOT_COLD = {"areas/never-there.html": (0, 0, "-", "failed")}


def _store(tmp_path: Path, count: int, seed: int) -> Path:
    made = generate_store(tmp_path / "store", count, seed, invalid=max(2, count // 40))
    root = made.root
    files = sorted(p for p in root.rglob("*.html") if ".git" not in p.parts)
    twin = files[seed % len(files)]
    shutil.copyfile(twin, root / "resources" / f"twin-of-{twin.name}")  # one body, two files
    (root / "areas" / "a-file-with-a-warning.html").write_text(
        files[(seed * 7) % len(files)]
        .read_text(encoding="utf-8")
        .replace("</article>", "<my-note>outside the vocabulary</my-note></article>", 1),
        encoding="utf-8",
    )
    return root


def _build(root: Path, index: Path, *, cold: bool, batch_files: int = 50) -> tuple[apsw.Connection, IndexReport]:
    conn = db.open_index(index, clock=lambda: NOW)
    indexer = Indexer(conn, root, HashEmbedder(), clock=lambda: NOW, batch_files=batch_files)
    disks = list(walk_store(root))
    report = IndexReport()
    indexer._apply(disks, [], (), report, None, None, known=None if cold else dict(NOT_COLD))
    return conn, report


def _rows(conn: apsw.Connection, table: str) -> list[tuple]:
    return conn.execute(f"SELECT rowid, * FROM {table} ORDER BY rowid").fetchall()


def _words(conn: apsw.Connection, limit: int = 40) -> list[str]:
    counts = collections.Counter()
    for (text,) in conn.execute("SELECT fts_text FROM files"):
        counts.update(w for w in re.findall(r"[a-z]{4,}", text.lower()))
    return [w for w, _ in counts.most_common(limit)] + [w for w, n in counts.items() if n == 1][:20]


@pytest.mark.parametrize("count, seed", [(120, 3), (POOL_THRESHOLD + 60, 17)])
def test_a_cold_build_leaves_the_index_the_row_at_a_time_path_leaves(tmp_path, count, seed):
    root = _store(tmp_path, count, seed)
    cold, cold_report = _build(root, tmp_path / "cold.db", cold=True)
    warm, warm_report = _build(root, tmp_path / "warm.db", cold=False)
    assert cold_report.added == warm_report.added > count // 2
    assert cold_report.failed == warm_report.failed >= 2
    for table in TABLES:
        assert _rows(cold, table) == _rows(warm, table), table
    assert cold.execute("SELECT count(*) FROM problems WHERE kind = 'warnings'").fetchone()[0] >= 1
    words = _words(warm)
    assert len(words) > 30
    for fts, column_text in (("files_fts", "fts_text"), ("files_fts_stemmed", "body_text")):
        for conn in (cold, warm):
            conn.execute(f"INSERT INTO {fts} ({fts}) VALUES ('integrity-check')")
        for word in words:
            found = [
                conn.execute(f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? ORDER BY rowid", (word,)).fetchall()
                for conn in (cold, warm)
            ]
            assert found[0] == found[1], (fts, word)
        assert cold.execute(f"SELECT count(*) FROM {fts}_docsize").fetchone()[0] == cold_report.added
    assert cold.execute("SELECT bulk FROM index_state").fetchone() == (0,)
    # The caches read the log: from before the build, both logs name every memory.
    start = changes.IndexMark(0, cold.execute("SELECT uid FROM index_state").fetchone()[0], 0)
    everything = sorted(r[0] for r in cold.execute("SELECT rowid FROM files"))
    assert changes.changed_files(cold, start, changes.mark(cold), limit=10**6).tolist() == everything
    start = changes.IndexMark(0, warm.execute("SELECT uid FROM index_state").fetchone()[0], 0)
    assert changes.changed_files(warm, start, changes.mark(warm), limit=10**6).tolist() == everything


def test_a_cold_batch_that_fails_midway_leaves_nothing_of_itself(tmp_path, monkeypatch):
    """A fault between the batch's tables (after its files rows, before the rest): the batch's
    transaction rolls back whole, `bulk` is not left set, the batches before it stay searchable,
    and the next run completes the index with every word found."""
    root = _store(tmp_path, 150, 29)
    written = {"batches": 0}
    real_write = writer.Rows.write

    def failing_write(self, conn):
        written["batches"] += 1
        if written["batches"] == 3:
            conn.executemany(writer._UPSERT_FILE, self.files)
            raise apsw.IOError("disk I/O error (provoked)")
        real_write(self, conn)

    monkeypatch.setattr(writer.Rows, "write", failing_write)
    index = tmp_path / "index.db"
    with pytest.raises(apsw.IOError):
        _build(root, index, cold=True, batch_files=20)  # batches of 20, 40, 80: the third fails
    conn = db.open_index(index, clock=lambda: NOW)
    assert conn.execute("SELECT bulk FROM index_state").fetchone() == (0,)
    (kept,) = conn.execute("SELECT count(*) FROM files").fetchone()
    assert kept == conn.execute("SELECT count(*) FROM files_fts_docsize").fetchone()[0]
    assert 0 < kept <= 60
    assert conn.execute("SELECT count(*) FROM file_tags WHERE path NOT IN (SELECT path FROM files)").fetchone() == (0,)
    monkeypatch.setattr(writer.Rows, "write", real_write)
    conn.close()
    resumed, _ = _build(root, index, cold=True)
    reference, _ = _build(root, tmp_path / "reference.db", cold=False)
    assert sorted(r[1:] for r in _rows(resumed, "files")) == sorted(r[1:] for r in _rows(reference, "files"))
    for word in _words(reference):
        found = [
            sorted(
                p
                for (p,) in c.execute(
                    "SELECT f.path FROM files_fts JOIN files f ON f.rowid = files_fts.rowid WHERE files_fts MATCH ?",
                    (word,),
                )
            )
            for c in (resumed, reference)
        ]
        assert found[0] == found[1], word


def test_the_first_batch_is_searchable_while_the_build_goes_on(tmp_path):
    root = _store(tmp_path, 160, 41)
    index = tmp_path / "index.db"
    conn = db.open_index(index, clock=lambda: NOW)
    seen: list[tuple[int, int]] = []
    reader = db.open_index(index, clock=lambda: NOW)

    def progress(phase, done, total):
        if phase == "index":
            (files,) = reader.execute("SELECT count(*) FROM files").fetchone()
            (matched,) = reader.execute(
                "SELECT count(*) FROM files_fts_stemmed WHERE files_fts_stemmed MATCH ?",
                (reader.execute("SELECT title FROM files ORDER BY rowid LIMIT 1").fetchone()[0].split()[0],),
            ).fetchone()
            seen.append((files, matched))

    indexer = Indexer(conn, root, HashEmbedder(), clock=lambda: NOW, batch_files=25)
    report = IndexReport()
    indexer._apply(list(walk_store(root)), [], (), report, progress, None)
    assert len(seen) >= 3
    assert seen[0][0] > 0 and seen[0][1] >= 1  # the first batch's words are found before the rest
    assert [files for files, _ in seen] == sorted(files for files, _ in seen)


def test_cold_batches_grow_and_cover_every_file_in_order():
    items = list(range(1234))
    grown = _batches(items, 50, grow=True)
    assert [len(b) for b in grown][:4] == [50, 100, 200, 200]
    assert [x for b in grown for x in b] == items
    fixed = _batches(items, 50)
    assert {len(b) for b in fixed[:-1]} == {50} and [x for b in fixed for x in b] == items
    assert _batches([], 50, grow=True) == []


@pytest.mark.parametrize("seed", [5, 23])
def test_while_the_first_words_go_in_the_query_is_not_embedded(tmp_path, make_store, seed):
    """Mid-way through a first index there is no vector to compare a query with: the search does
    not embed it (a model's load would only slow the index), says how far the vectors are, and
    embeds again once the index is complete."""
    root = _store(tmp_path, 140, seed)
    store = make_store(root)  # its embedder counts its calls (tests/index/conftest.CountingEmbedder)
    flag = {"stop": False}

    def progress(phase, done, total):
        flag["stop"] = flag["stop"] or (phase == "index" and done > 0)

    indexer = Indexer(store.reader(), store.root, store.embedder, batch_files=30)
    assert indexer.scan(progress=progress, cancelled=lambda: flag["stop"]).cancelled
    word = store.reader().execute("SELECT title FROM files ORDER BY rowid LIMIT 1").fetchone()[0].split()[0]
    calls = store.embedder.calls
    mid = store.search(word)
    assert store.embedder.calls == calls
    assert mid.hits and "vector" not in mid.arms
    assert any("vectors for 0 of" in r for r in mid.degraded_reasons)
    assert any("incomplete" in r for r in mid.degraded_reasons)
    store.index()
    done = store.search(word)
    assert store.embedder.calls > calls and "vector" in done.arms
    assert not any("vectors for" in r or "incomplete" in r for r in done.degraded_reasons)


class LazyModel(CountingEmbedder):
    """A counted embedder that loads on first use, as MiniLM does (`is_loaded`, `load`,
    `unavailable_reason`): the hash embedder behind it, so its vectors are real."""

    def __init__(self, problem: str | None = None) -> None:
        super().__init__()
        self.loaded, self.problem = False, problem

    @property
    def is_loaded(self) -> bool:
        return self.loaded

    def unavailable_reason(self) -> str | None:
        return self.problem

    def load(self) -> None:
        if self.problem:
            raise RuntimeError(self.problem)
        self.loaded = True

    def embed(self, texts):
        self.load()
        return super().embed(texts)


@pytest.mark.parametrize("seed", [7, 31])
def test_a_model_not_loaded_is_not_loaded_for_a_query_no_vector_can_answer(tmp_path, make_store, seed):
    """The words are all in, the vectors not yet (the index makes them newest first): a search
    answers by words without loading the model, and says how far the vectors are; once one vector
    exists, or the model is loaded anyway, the query is embedded. A model that says it cannot load
    is asked all the same, so its error reaches the header."""
    root = _store(tmp_path, 90, seed)
    model = LazyModel()
    store = make_store(root, embedder=model)
    store.index()
    word = store.reader().execute("SELECT title FROM files ORDER BY rowid DESC LIMIT 1").fetchone()[0].split()[0]
    conn = store.reader()
    with conn:
        vectors = conn.execute("SELECT chunk_id, model, dim, vec, created_at FROM embeddings").fetchall()
        conn.execute("DELETE FROM embeddings")  # the moment the words are in and no vector is
    calls, model.loaded = model.calls, False
    words = store.search(word)
    assert model.calls == calls and not model.is_loaded
    assert words.hits and "vector" not in words.arms
    assert any("vectors for 0 of" in r and "words-only" in r for r in words.degraded_reasons), words.degraded_reasons
    with conn:
        conn.execute(
            "INSERT INTO embeddings (chunk_id, model, dim, vec, created_at) VALUES (?, ?, ?, ?, ?)", vectors[0]
        )
    some = store.search(word)
    assert model.calls > calls and model.is_loaded and "vector" in some.arms

    broken = LazyModel(problem="the model package is not installed")
    other = Store(root, index_path=tmp_path / "other.db", embedder=broken)
    other.index()
    with other.reader() as c:
        c.execute("DELETE FROM embeddings")
    result = other.search(word)
    assert "vector" not in result.arms
    assert any("not installed" in r for r in result.degraded_reasons), result.degraded_reasons
    other.close_thread_connection()
