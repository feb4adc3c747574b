"""Acceptance: every golden case projects exactly as memhtml's own TypeScript indexer did.

The expected rows in `tests/data/golden/cases.expected.jsonl` were produced by memhtml at
`e5cc592`. Numbers are compared numerically (JSON writes 1.0 as 1); everything else, including
column order within each row and row order within each table, must be identical.
"""

from __future__ import annotations

import pytest
from html_support import case_bytes, case_names, expected, store_path

from memhtml_desktop.html.project import TABLES, project


def test_all_42_cases_are_present() -> None:
    assert len(case_names()) == 42
    assert set(case_names()) == set(expected())


def _same(got: object, want: object) -> bool:
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and got == want
    return got == want and type(got) is type(want)


@pytest.mark.parametrize("name", case_names())
def test_case_matches_memhtml(name: str) -> None:
    want = expected()[name]
    assert want["path"] == store_path(name)
    got = project(want["path"], case_bytes(name), indexed_at="INDEXED_AT")

    assert got.ok is want["ok"]
    assert got.violations == want.get("violations", [])
    assert got.warnings == want["warnings"]
    if not want["ok"]:
        assert got.tables == {}
        assert got.reason == want["reason"]
        return
    assert got.aliases == want["aliases"]
    assert got.meta_content_hash == want["metaContentHash"]
    assert list(got.tables) == list(TABLES) == list(want["tables"])
    for table, rows in want["tables"].items():
        got_rows = got.tables[table]
        assert len(got_rows) == len(rows), table
        for index, (got_row, want_row) in enumerate(zip(got_rows, rows, strict=True)):
            assert list(got_row) == list(want_row), (table, index)
            for column, value in want_row.items():
                assert _same(got_row[column], value), (table, index, column, got_row[column], value)
