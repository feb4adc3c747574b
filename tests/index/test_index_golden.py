"""The 42 golden cases, indexed as a store and read back from the real index database.

tests/html/test_golden.py checks the projection itself; this checks that the indexer writes those
rows, in memhtml's tables, unchanged, and that every failing case lands in `problems` with
memhtml's exact violation strings. Two columns are the clock's (`indexed_at`, edges'
`created_at`). A chunk row is keyed by content, so identical bodies share one row (its path
names one of them): chunks are compared by content hash.
"""

from __future__ import annotations

import json

import pytest

from .conftest import copy_golden, golden_dir

CLOCK_COLUMNS = {("files", "indexed_at"), ("edges", "created_at")}


def _expected() -> list[dict]:
    text = (golden_dir() / "cases.expected.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _norm(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    return value


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    from memhtml_desktop.index.store import Store

    root = tmp_path_factory.mktemp("golden") / "store"
    root.mkdir()
    copy_golden(root)
    store = Store(root, index_path=root.parent / "index.db")
    report = store.index()
    return store, report


def test_every_case_is_seen(indexed):
    store, report = indexed
    cases = _expected()
    assert report.seen == len(cases) == 42
    assert report.failed == sum(1 for c in cases if not c["ok"])
    assert report.added == sum(1 for c in cases if c["ok"])


@pytest.mark.parametrize("case", _expected(), ids=lambda c: c["file"])
def test_rows_match_memhtml(indexed, case):
    store, _ = indexed
    conn = store.reader()
    path = case["path"]
    if not case["ok"]:
        row = conn.execute("SELECT kind, violations, warnings FROM problems WHERE path = ?", (path,)).fetchone()
        assert row is not None, "a failing file must be listed under problems"
        assert row[0] == "invalid"
        assert json.loads(row[1]) == case["violations"]
        assert json.loads(row[2]) == case["warnings"]
        assert conn.execute("SELECT count(*) FROM files WHERE path = ?", (path,)).fetchone()[0] == 0
        return
    for table, rows in case["tables"].items():
        if table == "chunks":
            content_hash = case["tables"]["files"][0]["content_hash"]
            got = conn.execute(
                "SELECT chunk_id, content_hash, ordinal, text, char_count FROM chunks WHERE content_hash = ? ORDER BY ordinal",
                (content_hash,),
            ).fetchall()
            want = [(r["chunk_id"], r["content_hash"], r["ordinal"], r["text"], r["char_count"]) for r in rows]
            assert got == want
            continue
        key = "src_path" if table == "edges" else "path"
        if not rows:
            assert conn.execute(f"SELECT count(*) FROM {table} WHERE {key} = ?", (path,)).fetchone()[0] == 0
            continue
        columns = list(rows[0])
        got = conn.execute(
            f"SELECT {', '.join(columns)} FROM {table} WHERE {key} = ? ORDER BY rowid", (path,)
        ).fetchall()
        assert len(got) == len(rows), table
        for got_row, want_row in zip(got, rows):
            for column, value in zip(columns, got_row):
                if (table, column) in CLOCK_COLUMNS:
                    continue
                assert _norm(value) == _norm(want_row[column]), f"{table}.{column}"
    warnings = conn.execute("SELECT warnings FROM problems WHERE path = ?", (path,)).fetchone()
    assert (json.loads(warnings[0]) if warnings else []) == case["warnings"]


def test_identical_bodies_are_indexed_and_listed(indexed):
    store, _ = indexed
    duplicates = [p for p in store.problems() if p.kind == "duplicate"]
    paths = {p.path for p in duplicates}
    # minimal, comment, bom and dropped-optionals all say only "A claim."
    assert {"areas/edge/minimal.html", "areas/edge/comment.html", "areas/edge/bom.html"} <= paths
    conn = store.reader()
    for path in paths:
        assert conn.execute("SELECT 1 FROM files WHERE path = ?", (path,)).fetchone()


def test_fts_has_no_orphans(indexed):
    store, _ = indexed
    conn = store.reader()
    (files,) = conn.execute("SELECT count(*) FROM files").fetchone()
    (docs,) = conn.execute("SELECT count(*) FROM files_fts").fetchone()
    assert files == docs
    assert conn.execute("SELECT count(*) FROM files_fts WHERE files_fts MATCH 'vip'").fetchone()[0] >= 1
