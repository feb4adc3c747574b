"""watch/ is a watchdog adapter with plain callbacks: no Qt, no UI, and SQL only through index/."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

WATCH = Path(__file__).resolve().parents[2] / "memhtml_desktop" / "watch"
FORBIDDEN = ("PySide6", "shiboken6", "memhtml_desktop.ui", "sqlite3")


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


@pytest.mark.parametrize("module", sorted(WATCH.glob("*.py")), ids=lambda p: p.name)
def test_watch_module_has_no_qt(module: Path) -> None:
    bad = [n for n in _imports(module) if any(n == f or n.startswith(f + ".") for f in FORBIDDEN)]
    assert not bad, f"{module.name} imports {bad}"
