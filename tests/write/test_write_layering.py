"""write/ sits beside index/: it may use domain, html and index, never Qt, ui or cli; cli/ imports
the write core only inside functions (so `--help` and reading commands never load it)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "memhtml_desktop"
FORBIDDEN = ("PySide6", "shiboken6", "memhtml_desktop.ui", "memhtml_desktop.cli", "memhtml_desktop.watch", "sqlite3")


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_write_imports_no_qt_ui_or_cli() -> None:
    modules = sorted((PACKAGE / "write").glob("*.py"))
    assert len(modules) >= 10
    bad = [(m.name, n) for m in modules for n in _imports(m) if any(n == f or n.startswith(f + ".") for f in FORBIDDEN)]
    assert bad == []


def test_no_sql_in_the_write_core() -> None:
    """SQL lives in index/ (docs/architecture.md): the write core asks index/curation.py."""
    for module in (PACKAGE / "write").glob("*.py"):
        text = module.read_text(encoding="utf-8")
        assert "SELECT " not in text and "UPDATE " not in text and ".execute(" not in text, module.name


def test_the_check_catches_a_forbidden_import(tmp_path) -> None:
    bad = tmp_path / "x.py"
    bad.write_text("from memhtml_desktop.ui import app\nimport PySide6.QtCore\n")
    assert _imports(bad) == ["memhtml_desktop.ui", "PySide6.QtCore"]
