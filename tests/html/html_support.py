"""Shared test data for the html layer: the golden cases and memhtml's `fileWith()` template."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "golden"
CASES = GOLDEN / "cases"


@cache
def expected() -> dict[str, dict]:
    """`cases.expected.jsonl` keyed by case file name."""
    lines = (GOLDEN / "cases.expected.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["file"]: row for row in map(json.loads, lines) if row}


def case_names() -> list[str]:
    return sorted(path.name for path in CASES.glob("*.html"))


def case_bytes(name: str) -> bytes:
    return (CASES / name).read_bytes()


def store_path(name: str) -> str:
    """The store path a case file name encodes: `__` stands for `/`."""
    return name.replace("__", "/")


def file_with(article: str, *, head: str = "", memory_type: str = "semantic") -> str:
    """memhtml's `fileWith()` from `html/tests/fixtures.ts`: a valid head around `article`."""
    return (
        "<!doctype html>\n"
        '<html lang="en">\n'
        "<head>\n"
        '<meta charset="utf-8">\n'
        "<title>A test memory</title>\n"
        f'<meta name="memhtml-type" content="{memory_type}">\n'
        '<meta name="memhtml-status" content="active">\n'
        '<meta name="memhtml-created" content="2026-08-02T00:00:00Z">\n'
        '<meta name="memhtml-updated" content="2026-08-02T00:00:00Z">\n'
        f"{head}"
        "</head>\n"
        "<body>\n"
        "<article>\n"
        f"{article}\n"
        "</article>\n"
        "</body>\n"
        "</html>\n"
    )
