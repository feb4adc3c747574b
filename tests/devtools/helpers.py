"""Helpers for the devtools tests: project every memory file of a store with the real parser."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from memhtml_desktop.domain.paths import is_indexable

INDEXED_AT = "2026-11-01T00:00:00Z"
ISO_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


def parser():
    """`memhtml_desktop.html.project.project`, or skip: these tests validate through the real parser."""
    module = pytest.importorskip(
        "memhtml_desktop.html.project",
        reason="memhtml_desktop/html/project.py (the parser) does not exist yet",
    )
    return module.project


def memory_paths(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*.html") if is_indexable(p.relative_to(root).as_posix())
    )


@dataclass
class ParsedStore:
    root: Path
    ok: dict[str, dict] = field(default_factory=dict)  # path -> tables
    warnings: dict[str, list[str]] = field(default_factory=dict)
    failed: dict[str, list[str]] = field(default_factory=dict)

    def files(self) -> dict[str, dict]:
        return {path: tables["files"][0] for path, tables in self.ok.items()}

    def rows(self, table: str) -> list[dict]:
        return [row for tables in self.ok.values() for row in tables[table]]

    def edges(self, rel: str | None = None) -> list[dict]:
        return [e for e in self.rows("edges") if rel is None or e["rel"] == rel]


def parse_store(root: Path) -> ParsedStore:
    project = parser()
    parsed = ParsedStore(root)
    for path in memory_paths(root):
        result = project(path, (root / path).read_bytes(), INDEXED_AT)
        if result.ok:
            parsed.ok[path] = result.tables
            if result.warnings:
                parsed.warnings[path] = list(result.warnings)
        else:
            parsed.failed[path] = list(result.violations)
    return parsed
