"""domain/ is pure: no Qt, no SQLite, no watchdog, no file or network I/O.

Walks the `ast` of every module under memhtml_desktop/domain and fails on a forbidden import or a
call to `open()`. This is the test memhtml's packages/domain/tests/layering.test.ts is for.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

DOMAIN = Path(__file__).resolve().parents[2] / "memhtml_desktop" / "domain"
FORBIDDEN_MODULES = {
    "PySide6",
    "shiboken6",
    "apsw",
    "sqlite3",
    "sqlite_vec",
    "watchdog",
    "selectolax",
    "os",
    "pathlib",
    "shutil",
    "subprocess",
    "socket",
    "urllib",
    "http",
    "requests",
    "io",
    "glob",
    "tempfile",
    "memhtml_desktop.index",
    "memhtml_desktop.ui",
    "memhtml_desktop.watch",
    "memhtml_desktop.html",
    "memhtml_desktop.cli",
}
FORBIDDEN_CALLS = {"open", "exec", "eval", "__import__"}


def _modules() -> list[Path]:
    return sorted(DOMAIN.rglob("*.py"))


def _violations(source: str) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            for bad in FORBIDDEN_MODULES:
                if name == bad or name.startswith(bad + "."):
                    found.append(f"imports {name}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS:
            found.append(f"calls {node.func.id}()")
    return found


def test_domain_has_modules() -> None:
    assert len(_modules()) >= 3


@pytest.mark.parametrize("module", _modules(), ids=lambda p: p.name)
def test_domain_module_is_pure(module: Path) -> None:
    assert _violations(module.read_text(encoding="utf-8")) == []


def test_the_check_catches_a_violation() -> None:
    assert _violations("import apsw\nfrom PySide6 import QtCore\nopen('x')\n") == [
        "imports apsw",
        "imports PySide6",
        "calls open()",
    ]
