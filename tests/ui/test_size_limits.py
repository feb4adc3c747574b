"""The house's size limits, kept (docs/architecture.md, the brief): MainWindow is at most 250 lines
and no module under ui/ is over 400, so a window stays a composition and a pane a few small parts.

Each check is a function of a folder, run on the real package and on a planted scratch copy that
breaks it (so the checks can fail).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

UI = Path(__file__).resolve().parents[2] / "memhtml_desktop" / "ui"
MODULE_LIMIT = 400
MAIN_WINDOW_LIMIT = 250


def oversized(root: Path, limit: int = MODULE_LIMIT) -> dict[str, int]:
    """Every module under `root` longer than `limit` lines, with its length."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            out[str(path.relative_to(root))] = lines
    return out


def class_lines(path: Path, name: str) -> int:
    """The lines class `name` spans in `path`, decorators included."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef) and node.name == name:
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            return node.end_lineno - first + 1
    raise LookupError(f"no class {name} in {path}")


def test_no_ui_module_is_over_400_lines():
    assert len(list(UI.rglob("*.py"))) > 90  # the whole tree, every pane's package
    assert oversized(UI) == {}, "split these (one concern per module): " + repr(oversized(UI))


def test_main_window_is_at_most_250_lines():
    lines = class_lines(UI / "shell" / "main_window.py", "MainWindow")
    assert lines <= MAIN_WINDOW_LIMIT, f"MainWindow is {lines} lines: move a concern out (ui/shell/...)"


def test_the_limits_catch_a_planted_breach(tmp_path: Path):
    pane = tmp_path / "ui" / "somepane"
    pane.mkdir(parents=True)
    (pane / "small.py").write_text("x = 1\n" * MODULE_LIMIT, encoding="utf-8")
    assert oversized(tmp_path / "ui") == {}
    (pane / "big.py").write_text("x = 1\n" * (MODULE_LIMIT + 1), encoding="utf-8")
    assert oversized(tmp_path / "ui") == {"somepane/big.py": MODULE_LIMIT + 1}
    body = "    def m(self):\n        pass\n" * 125  # 250 lines of body: 251 with the class line
    window = tmp_path / "main_window.py"
    window.write_text("class MainWindow:\n" + body, encoding="utf-8")
    assert class_lines(window, "MainWindow") == MAIN_WINDOW_LIMIT + 1
    window.write_text(
        "@decorated\nclass MainWindow:\n" + body[: -len("    def m(self):\n        pass\n")], encoding="utf-8"
    )
    assert class_lines(window, "MainWindow") == MAIN_WINDOW_LIMIT
    with pytest.raises(LookupError):
        class_lines(window, "Elsewhere")
