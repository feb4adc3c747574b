"""Help → About: the versions a bug report needs, copied as text; and ui/ never imports SQLite."""

from __future__ import annotations

import ast
from pathlib import Path

import apsw
import pytest
import sqlite_vec
from PySide6.QtGui import QGuiApplication

from memhtml_desktop import __version__
from memhtml_desktop.index.versions import library_versions
from memhtml_desktop.ops.jobs import store_facts
from memhtml_desktop.ui.shell.about_dialog import ICON_SIZES, AboutDialog, about_facts, app_icon, facts_text

UI = Path(__file__).resolve().parents[2] / "memhtml_desktop" / "ui"


def test_library_versions_come_from_the_loaded_libraries():
    versions = library_versions()
    assert versions["SQLite"] == apsw.sqlite_lib_version()
    assert versions["apsw"] == apsw.apsw_version()
    assert versions["sqlite-vec"].lstrip("v") == sqlite_vec.__version__  # vec_version() of the loaded extension
    assert versions["FTS5"] == "yes"
    assert all(isinstance(v, str) for v in versions.values())


def test_the_facts_name_the_build_the_embedder_and_the_files(store, tmp_path):
    facts = dict(about_facts(store_facts(store), log_file=tmp_path / "memhtml-desktop.log"))
    assert facts["memhtml desktop"] == __version__
    for name in ("Python", "Qt", "PySide6", "SQLite", "apsw", "sqlite-vec", "Platform"):
        assert facts[name]
    embedder = store.embedder
    assert facts["Embedder"] == embedder.model_id
    assert facts["Embedding dimension"] == str(embedder.dim)
    assert facts["Vector space"] == f"{embedder.model_id}@{embedder.dim}"
    assert facts["Store"] == str(store.root) and facts["Index"] == str(store.index_path)
    assert facts["State plane"] == str(store.state_path)
    assert facts["Log file"].endswith("memhtml-desktop.log")


def test_without_a_store_only_the_windows_versions(tmp_path):
    names = [name for name, _ in about_facts()]
    assert "Qt" in names and "SQLite" not in names and "Store" not in names and "Embedder" not in names


def test_the_window_asks_the_engine_and_shows_both_sides(qtbot, window):
    """Help → About: the store's rows come from the engine (its process id among them), the build's
    from the window."""
    window.dialogs.show_about()
    qtbot.waitUntil(lambda: window.dialogs.about is not None, timeout=15000)
    shown = dict(window.dialogs.about.rows)
    assert shown["Engine process"] == str(window.runner.client.pid) and shown["Qt"]
    assert shown["Store"] == str(window.store.root) and shown["SQLite"] == apsw.sqlite_lib_version()


def test_the_dialog_shows_every_fact_and_copies_them(qtbot, store):
    rows = about_facts(store_facts(store))
    dialog = AboutDialog(rows)
    qtbot.addWidget(dialog)
    shown = {dialog.table.item(r, 0).text(): dialog.table.item(r, 1).text() for r in range(dialog.table.rowCount())}
    assert {name: value for name, value in rows}.items() <= shown.items()
    assert shown["Qt platform"] == QGuiApplication.platformName()
    dialog.copy_button.click()
    copied = QGuiApplication.clipboard().text()
    assert copied == dialog.text() == facts_text(dialog.rows)
    assert f"memhtml desktop: {__version__}\n" in copied and f"SQLite: {apsw.sqlite_lib_version()}\n" in copied


def test_the_app_icon_has_every_size():
    icon = app_icon()
    assert not icon.isNull()
    assert sorted(s.width() for s in icon.availableSizes()) == sorted(ICON_SIZES)


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


SQLITE = ("apsw", "sqlite3", "sqlite_vec")
UI_MODULES = sorted(UI.rglob("*.py"))


def _assert_no_sqlite(module: Path, root: Path = UI) -> None:
    bad = [n for n in _imports(module) if n.split(".")[0] in SQLITE]
    assert not bad, f"{module.relative_to(root)} imports {bad}: ask index/ (e.g. index/versions.py) instead"


def test_every_ui_module_is_checked():
    """Every package under ui/, not only its top level (the check once saw 3 of ~100 files)."""
    packages = {p.parent.name for p in UI_MODULES if p.parent != UI}
    assert {"session", "shell", "results", "workbench", "kit", "curate"} <= packages
    assert len(UI_MODULES) > 90


@pytest.mark.parametrize("module", UI_MODULES, ids=lambda p: str(p.relative_to(UI)))
def test_ui_never_imports_sqlite(module: Path):
    _assert_no_sqlite(module)


@pytest.mark.parametrize(
    "line", ["import apsw", "import sqlite3 as db", "from sqlite_vec import load", "def f():\n    import apsw.ext"]
)
def test_the_sqlite_check_fails_on_a_planted_import(tmp_path: Path, line: str):
    """A module deep under a ui package that imports SQLite, even inside a function, is caught."""
    planted = tmp_path / "ui" / "workbench" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text(f'"""a pane."""\nfrom PySide6.QtWidgets import QWidget\n{line}\n', encoding="utf-8")
    with pytest.raises(AssertionError, match="planted.py imports"):
        _assert_no_sqlite(planted, tmp_path)
    planted.write_text('"""a pane."""\nfrom memhtml_desktop.index.versions import library_versions\n', encoding="utf-8")
    _assert_no_sqlite(planted, tmp_path)
