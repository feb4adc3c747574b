"""Indexing runs over real stores: change detection, moves, problems, and bad input."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from memfiles import memory_html, write_memory

from .conftest import CountingEmbedder


def _paths(store) -> set[str]:
    return {r[0] for r in store.reader().execute("SELECT path FROM files")}


def _problem(store, path):
    row = store.reader().execute("SELECT kind, violations FROM problems WHERE path = ?", (path,)).fetchone()
    return (row[0], json.loads(row[1])) if row else None


def test_cold_then_noop_rescan(store_root, make_store):
    for i in range(12):
        write_memory(store_root, f"areas/notes/n{i}.html", title=f"Note {i}", claim=f"Fact number {i} holds.")
    store = make_store(store_root)
    first = store.index()
    assert (first.seen, first.added, first.failed) == (12, 12, 0)
    assert first.embedded == 12
    second = store.index()
    assert (second.added, second.changed, second.unchanged, second.embedded) == (0, 0, 12, 0)


def test_touch_without_change_is_not_reparsed(store_root, make_store):
    path = write_memory(store_root, "areas/a.html", title="A", claim="Alpha holds.")
    store = make_store(store_root)
    store.index()
    os.utime(path, ns=(1, 1))  # mtime moved, bytes did not
    report = store.index()
    assert (report.changed, report.unchanged) == (0, 1)


def test_edit_reindexes_and_search_sees_it(store_root, make_store):
    write_memory(store_root, "areas/a.html", title="A", claim="The compactor merges intervals.")
    store = make_store(store_root)
    store.index()
    write_memory(store_root, "areas/a.html", title="A", claim="The zeppelin docks at noon.")
    report = store.index()
    assert report.changed == 1
    hits = store.search("zeppelin").hits
    assert [h.path for h in hits] == ["areas/a.html"]
    assert store.search("compactor").fts_form == "all"
    assert all(h.arm("fts") is None for h in store.search("compactor").hits)


def test_move_reuses_rows_and_vectors(store_root, make_store):
    embedder = CountingEmbedder()
    write_memory(
        store_root, "areas/oncall/drain.html", title="Drain", claim="Drain the VIP before reverting.", tags=["deploy"]
    )
    store = make_store(store_root, embedder=embedder)
    store.index()
    texts_before = embedder.texts
    target = store_root / "archive/2026/areas/oncall/drain.html"
    target.parent.mkdir(parents=True)
    shutil.move(store_root / "areas/oncall/drain.html", target)
    report = store.index()
    assert report.moved == 1 and report.added == 0 and report.removed == 0
    assert embedder.texts == texts_before, "a move must not re-embed"
    row = (
        store.reader()
        .execute(
            "SELECT archived, origin_path, para FROM files WHERE path = ?", ("archive/2026/areas/oncall/drain.html",)
        )
        .fetchone()
    )
    assert row == (1, "areas/oncall/drain.html", "archive")
    assert _paths(store) == {"archive/2026/areas/oncall/drain.html"}
    tags = store.reader().execute("SELECT path, tag FROM file_tags").fetchall()
    assert tags == [("archive/2026/areas/oncall/drain.html", "deploy")]


def test_move_with_status_change_is_still_a_move(store_root, make_store):
    """memhtml's archive rewrites the status meta too: the blob changes, the article does not."""
    embedder = CountingEmbedder()
    write_memory(store_root, "areas/x.html", title="X", claim="Xylophones are loud.")
    store = make_store(store_root, embedder=embedder)
    store.index()
    texts = embedder.texts
    (store_root / "areas/x.html").unlink()
    write_memory(
        store_root,
        "archive/2026/areas/x.html",
        title="X",
        claim="Xylophones are loud.",
        status="archived",
        extra_metas=[("memhtml-archived", "2026-11-01")],
    )
    report = store.index()
    assert report.moved == 1
    assert embedder.texts == texts
    assert store.reader().execute("SELECT archived_at FROM files").fetchone() == ("2026-11-01",)


def test_delete_removes_rows_everywhere(store_root, make_store):
    write_memory(
        store_root, "areas/a.html", title="A", claim="Alpha holds.", tags=["t"], links=[("supports", "/areas/b.html")]
    )
    write_memory(store_root, "areas/b.html", title="B", claim="Beta holds.")
    store = make_store(store_root)
    store.index()
    (store_root / "areas/a.html").unlink()
    report = store.index()
    assert report.removed == 1
    conn = store.reader()
    for table, column in (("files", "path"), ("file_tags", "path"), ("edges", "src_path"), ("sources", "path")):
        assert conn.execute(f"SELECT count(*) FROM {table} WHERE {column} = 'areas/a.html'").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM files_fts").fetchone()[0] == 1
    assert all(h.path != "areas/a.html" for h in store.search("alpha").hits)


def test_file_turning_invalid_leaves_search_and_comes_back(store_root, make_store):
    path = write_memory(store_root, "areas/a.html", title="A", claim="Quokkas smile.")
    store = make_store(store_root)
    store.index()
    assert [h.path for h in store.search("quokkas").hits] == ["areas/a.html"]
    path.write_text(memory_html(title="A", claim="Quokkas smile.").replace("<mark>", "").replace("</mark>", ""))
    report = store.index()
    assert report.failed == 1
    assert all(h.path != "areas/a.html" for h in store.search("quokkas").hits)
    assert _problem(store, "areas/a.html") == ("invalid", ["no <mark>: a memory states its claim in one <mark>"]) or (
        _problem(store, "areas/a.html")[0] == "invalid"
    )
    path.write_text(memory_html(title="A", claim="Quokkas smile."))
    report = store.index()
    assert report.changed + report.added == 1
    assert _problem(store, "areas/a.html") is None
    assert [h.path for h in store.search("quokkas").hits] == ["areas/a.html"]


def test_duplicate_bodies_index_both_and_report(store_root, make_store):
    write_memory(store_root, "areas/a.html", title="A", claim="Same body.")
    write_memory(store_root, "areas/b.html", title="B", claim="Same body.")
    store = make_store(store_root)
    report = store.index()
    assert report.added == 2 and report.failed == 0
    dupes = {p.path: p.duplicates for p in store.problems() if p.kind == "duplicate"}
    assert dupes == {"areas/a.html": ("areas/b.html",), "areas/b.html": ("areas/a.html",)}
    # deleting one twin must not take the shared chunk (and the other twin's vector) with it
    (store_root / "areas/b.html").unlink()
    store.index()
    conn = store.reader()
    assert conn.execute("SELECT path FROM chunks").fetchall() == [("areas/a.html",)]
    assert conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 1
    assert store.search("same body").hits[0].arm("vector") is not None


@pytest.mark.parametrize(
    "name, data",
    [
        ("empty.html", b""),
        ("garbage.html", bytes(range(256)) * 8),
        ("bad-utf8.html", memory_html(title="U", claim="Bytes \xff").encode("latin-1")),
    ],
)
def test_bad_bytes_are_reported_not_fatal(store_root, make_store, name, data):
    write_memory(store_root, "areas/good.html", title="Good", claim="This one parses.")
    (store_root / "areas" / name).write_bytes(data)
    store = make_store(store_root)
    report = store.index()
    assert "areas/good.html" in _paths(store)
    if name == "bad-utf8.html":
        # invalid bytes decode to U+FFFD and the file is otherwise valid
        assert report.failed == 0
        assert (
            "\ufffd"
            in store.reader().execute("SELECT gist FROM files WHERE path = ?", (f"areas/{name}",)).fetchone()[0]
        )
    else:
        assert report.failed == 1
        kind, violations = _problem(store, f"areas/{name}")
        assert kind == "invalid" and violations


def test_bom_file_parses(store_root, make_store):
    (store_root / "areas").mkdir()
    (store_root / "areas/bom.html").write_bytes(b"\xef\xbb\xbf" + memory_html(title="B", claim="Byte order.").encode())
    store = make_store(store_root)
    assert store.index().added == 1


def test_oversized_file_is_a_problem(store_root, make_store):
    big = memory_html(title="Big", claim="Huge.", article_extra="<p>" + "x " * (10 * 1024 * 1024) + "</p>")
    (store_root / "areas").mkdir()
    (store_root / "areas/big.html").write_text(big)
    write_memory(store_root, "areas/ok.html", title="Ok", claim="Fine.")
    store = make_store(store_root)
    report = store.index()
    assert report.failed == 1
    kind, violations = _problem(store, "areas/big.html")
    assert kind == "unreadable" and "MB" in violations[0]
    assert _paths(store) == {"areas/ok.html"}


def test_odd_filesystem_entries_are_skipped(store_root, make_store, tmp_path):
    write_memory(store_root, "areas/ok.html", title="Ok", claim="Fine.")
    (store_root / "areas/dir.html").mkdir()  # a directory named like a memory
    (store_root / "areas/loop").symlink_to(store_root / "areas")  # a symlink loop
    outside = tmp_path / "secret.html"
    outside.write_text(memory_html(title="Secret", claim="Do not read me."))
    (store_root / "areas/escape.html").symlink_to(outside)
    os.mkfifo(store_root / "areas/fifo.html")
    store = make_store(store_root)
    report = store.index()
    assert _paths(store) == {"areas/ok.html"}
    reasons = {s.path: s.reason for s in report.skipped}
    assert "outside the store" in reasons["areas/escape.html"]
    assert "regular file" in reasons["areas/fifo.html"]
    assert all(h.path == "areas/ok.html" for h in store.search("secret").hits)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files regardless of permissions")
def test_unreadable_file_is_a_problem(store_root, make_store):
    path = write_memory(store_root, "areas/locked.html", title="L", claim="Locked.")
    path.chmod(0)
    store = make_store(store_root)
    report = store.index()
    assert report.failed == 1
    assert _problem(store, "areas/locked.html")[0] == "unreadable"


def test_vanishing_file_mid_run(store_root, make_store, monkeypatch):
    for i in range(5):
        write_memory(store_root, f"areas/v{i}.html", title=f"V{i}", claim=f"Vanishing {i}.")
    store = make_store(store_root)
    from memhtml_desktop.index import parse_pool as indexer_module  # the parse reads the file

    real_read = indexer_module.read_bytes

    def read_and_vanish(root, path, reader=None):
        if path == "areas/v2.html":
            (Path(root) / path).unlink()
        return real_read(root, path, reader)

    monkeypatch.setattr(indexer_module, "read_bytes", read_and_vanish)
    report = store.index()
    assert report.failed == 0
    assert _paths(store) == {f"areas/v{i}.html" for i in (0, 1, 3, 4)}


def test_cancelled_run_leaves_a_consistent_index(store_root, make_store):
    for i in range(30):
        write_memory(store_root, f"areas/c{i:02d}.html", title=f"C{i}", claim=f"Claim {i} stands.")
    store = make_store(store_root)
    flag = {"stop": False, "done": 0}

    def progress(phase, done, total):
        if phase == "index" and done >= 10 and not flag["stop"]:
            flag["stop"] = True  # cancel after the first batch committed (a cold run's batches then grow)
            flag["done"] = done

    from memhtml_desktop.index.indexer import Indexer

    indexer = Indexer(store.reader(), store.root, store.embedder, batch_files=10)
    report = indexer.scan(progress=progress, cancelled=lambda: flag["stop"])
    assert report.cancelled
    conn = store.reader()
    files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
    assert files == flag["done"] == 10
    assert conn.execute("SELECT count(*) FROM files_fts").fetchone()[0] == files
    assert (
        conn.execute(
            "SELECT count(*) FROM files f LEFT JOIN sources s ON s.path = f.path WHERE s.path IS NULL"
        ).fetchone()[0]
        == 0
    )
    finished = store.index()
    assert finished.added == 30 - files
    assert conn.execute("SELECT count(*) FROM files").fetchone()[0] == 30
    assert (
        conn.execute(
            "SELECT count(*) FROM chunks c LEFT JOIN embeddings e ON e.chunk_id = c.chunk_id WHERE e.chunk_id IS NULL"
        ).fetchone()[0]
        == 0
    )


def test_rebuild_reprojects_everything_in_place(store_root, make_store):
    write_memory(store_root, "areas/a.html", title="A", claim="Alpha.")
    write_memory(store_root, "areas/b.html", title="B", claim="Beta.")
    store = make_store(store_root)
    store.index()
    conn = store.reader()
    with conn:  # rows the tree does not explain: a stale file row, a tampered title, orphan FTS
        conn.execute("UPDATE files SET title = 'tampered' WHERE path = 'areas/a.html'")
        conn.execute("DELETE FROM sources WHERE path = 'areas/b.html'")
    (store_root / "areas/b.html").unlink()
    report = store.index(rebuild=True)
    assert report.changed == 1 and report.unchanged == 0 and report.removed == 1
    assert conn.execute("SELECT path, title FROM files").fetchall() == [("areas/a.html", "A")]
    assert conn.execute("SELECT count(*) FROM files_fts").fetchone() == (1,)
    assert conn.execute("SELECT rebuilt_at IS NOT NULL FROM index_state").fetchone() == (1,)


def test_changing_the_embedder_re_embeds(store_root, make_store, tmp_path):
    write_memory(store_root, "areas/a.html", title="A", claim="Alpha.")
    store = make_store(store_root)
    store.index()

    class Other(CountingEmbedder):
        def __init__(self):
            super().__init__()
            self.model_id = "other-model"

    other = Other()
    from memhtml_desktop.index.store import Store

    second = Store(store_root, index_path=store.index_path, embedder=other)
    report = second.index()
    assert report.embedded == 1 and other.texts == 1
    assert second.reader().execute("SELECT model FROM embeddings").fetchall() == [("other-model@384",)]


def test_index_is_outside_the_store(store_root, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMHTML_DESKTOP_CACHE", str(tmp_path / "cache"))
    write_memory(store_root, "areas/a.html", title="A", claim="Alpha.")
    from memhtml_desktop.index.store import Store

    store = Store(store_root)
    store.index()
    assert str(store.index_path).startswith(str(tmp_path / "cache"))
    created = {p.relative_to(store_root).as_posix() for p in store_root.rglob("*") if p.is_file()}
    assert created == {"areas/a.html", ".memhtml/state.db"} | {p for p in created if p.startswith(".memhtml/state.db-")}


def test_corrupt_index_is_moved_aside_and_rebuilt(store_root, tmp_path):
    write_memory(store_root, "areas/a.html", title="A", claim="Alpha.")
    index = tmp_path / "idx" / "index.db"
    index.parent.mkdir()
    index.write_bytes(b"this is not a database" * 100)
    from memhtml_desktop.index.store import Store

    store = Store(store_root, index_path=index)
    report = store.index()
    assert report.added == 1
    assert store.notices and "moved" in store.notices[0]
    assert list(index.parent.glob("index.db.corrupt-*"))
    assert (store_root / ".memhtml/state.db").exists()


def test_read_error_is_a_problem_even_as_root(store_root, make_store, monkeypatch):
    """Root ignores file modes, so the OS error is raised at the read itself here."""
    write_memory(store_root, "areas/locked.html", title="L", claim="Locked.")
    write_memory(store_root, "areas/ok.html", title="Ok", claim="Fine.")
    from memhtml_desktop.index import parse_pool as indexer_module  # the parse reads the file

    real_read = indexer_module.read_bytes

    def refuse(root, path, reader=None):
        if path == "areas/locked.html":
            raise PermissionError(13, "Permission denied")
        return real_read(root, path, reader)

    monkeypatch.setattr(indexer_module, "read_bytes", refuse)
    store = make_store(store_root)
    report = store.index()
    assert report.failed == 1
    assert _problem(store, "areas/locked.html") == ("unreadable", ["unreadable: Permission denied"])
    assert _paths(store) == {"areas/ok.html"}


def test_failing_embedder_leaves_a_searchable_index(store_root, make_store):
    from .conftest import FailingEmbedder

    write_memory(store_root, "areas/a.html", title="A", claim="Alpha holds.")
    store = make_store(store_root, embedder=FailingEmbedder())
    report = store.index()
    assert report.added == 1 and report.embedded == 0
    assert "ConnectionError" in report.embed_error
    result = store.search("alpha")
    assert result.hits[0].path == "areas/a.html" and result.degraded


def test_a_vanished_store_is_not_recreated_nor_emptied(store_root, make_store, tmp_path):
    write_memory(store_root, "areas/a.html", title="A", claim="Alpha.")
    store = make_store(store_root)
    store.index()
    from memhtml_desktop.index.store import StoreError

    moved = tmp_path / "away"
    store_root.rename(moved)
    with pytest.raises(StoreError, match="gone"):
        store.index()
    store.close_thread_connection()
    store.reader()  # reopening must not bring the directory back
    assert not store_root.exists()
    moved.rename(store_root)
    for bucket in ("areas",):
        shutil.move(str(store_root / bucket), str(tmp_path / "aside"))
    with pytest.raises(StoreError, match="unmounted"):
        store.index()
    assert store.reader().execute("SELECT count(*) FROM files").fetchone() == (1,)


def test_unchanged_bytes_skip_the_parse(store_root, make_store, monkeypatch):
    path = write_memory(store_root, "areas/a.html", title="A", claim="Alpha.")
    store = make_store(store_root)
    store.index()
    from memhtml_desktop.index import parse_pool as indexer_module  # the parse projects it

    calls = []
    real = indexer_module.project
    monkeypatch.setattr(indexer_module, "project", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    os.utime(path, ns=(5, 5))
    report = store.update_paths(["areas/a.html"])
    assert report.unchanged == 1 and calls == []


def test_an_explicit_move_whose_source_came_back_is_not_a_move(store_root, make_store):
    write_memory(store_root, "areas/a.html", title="A", claim="First alpha.")
    store = make_store(store_root)
    store.index()
    shutil.copy(store_root / "areas/a.html", store_root / "areas/b.html")
    write_memory(store_root, "areas/a.html", title="A2", claim="A different file now lives here.")
    report = store.update_paths([], moves=[("areas/a.html", "areas/b.html")])
    titles = dict(store.reader().execute("SELECT path, title FROM files").fetchall())
    assert titles == {"areas/a.html": "A2", "areas/b.html": "A"}
    assert report.moved == 0


def test_a_changed_file_is_hashed_once(store_root, make_store, monkeypatch):
    """The indexer hashes first (to skip unchanged bytes) and hands the blob id to the projection."""
    import hashlib

    from memhtml_desktop.index import indexer, scanner

    target = write_memory(store_root, "areas/a/one.html", title="One", claim="The first claim.")
    store = make_store(store_root)
    store.index()
    target.write_text(memory_html(title="One", claim="The first claim, edited."), encoding="utf-8")
    blob_hashes = []
    real_sha1 = hashlib.sha1

    def counting_sha1(data=b"", **kwargs):
        if bytes(data[:5]) == b"blob ":
            blob_hashes.append(len(data))
        return real_sha1(data, **kwargs)

    monkeypatch.setattr(hashlib, "sha1", counting_sha1)
    disk = next(d for d in scanner.walk_store(store_root) if d.path == "areas/a/one.html")
    parsed = indexer.parse_file(store_root, disk, "2026-08-02T00:00:00Z", unchanged_sha="0" * 40)
    assert parsed.projection is not None and parsed.projection.ok
    assert parsed.projection.blob_sha == parsed.sha
    assert len(blob_hashes) == 1
