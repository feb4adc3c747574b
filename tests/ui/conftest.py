"""Window fixtures, shared by every ui test: a real store on disk, a real Store, a real window.

Names are a contract (other ui tests import them by name): `store_dir`, `store`, `window`, plus
`make_window` for a window with other options (watching on, another store) and `demo_store_dir`
for a copy of the bundled demo store.

Nothing here touches the user's settings or caches: every test gets its own QSettings INI file
and its own index directory, through the same environment variables app.py reads.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store
from memhtml_desktop.settings import Settings
from memhtml_desktop.ui.app import tune_for_gui
from memhtml_desktop.ui.kit.pyside_fixes import guard_singleton_refcounts

guard_singleton_refcounts()  # before any widget exists: see its docstring (a PySide6 6.12 refcount bug)
tune_for_gui()  # what app.ensure_app does for the real window

# The offscreen platform's one screen is 800x800, smaller than the window's minimum width, so a
# restored geometry would be clamped. A 1920x1200 virtual screen (before the QApplication exists).
SCREEN = {
    "synchronousWindowSystemEvents": False,
    "windowFrameMargins": False,
    "screens": [
        {
            "name": "OffscreenScreen",
            "x": 0,
            "y": 0,
            "width": 1920,
            "height": 1200,
            "logicalDpi": 96,
            "logicalBaseDpi": 96,
            "dpr": 1,
        }
    ],
}
if os.environ.get("QT_QPA_PLATFORM") == "offscreen" and QApplication.instance() is None:
    # pytest-xdist's workers start together and share this file: each writes its own copy and renames it into
    # place, so no worker's Qt reads a file another is halfway through writing (same content, no leftovers).
    _screen = Path(tempfile.gettempdir()) / "memhtml-desktop-ui-tests-screen.json"
    _part = _screen.with_name(f"{_screen.name}.{os.getpid()}")
    _part.write_text(json.dumps(SCREEN), encoding="utf-8")
    os.replace(_part, _screen)
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_screen}"

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "cases"  # memhtml's golden cases

# Valid golden cases (their encoded file names, `__` for `/`), plus one invalid file for the problems tab.
GOLDEN_CASES = (
    "areas__oncall__format-md-procedural.html",
    "resources__infra__one-writer-and-many-readers-share-the-index.html",
    "projects__checkout-api__tasks__format-md-task.html",
    "areas__x__self.html",
    "resources__edge__long.html",
    "areas__bad__warnings-only.html",
    "areas__bad__task-ok.html",
    "areas__bad__no-article.html",
) + tuple(
    f"areas__edge__{name}.html"
    for name in (
        "bom",
        "br_sub",
        "comment",
        "crlf",
        "emoji",
        "entity_amp",
        "list_flat",
        "list_pretty",
        "minimal",
        "nbsp",
        "pre_code_lang",
        "pre_div",
        "pre_lead_spaces",
        "pre_leading_nl",
        "pre_nolead",
        "table",
    )
)
# The procedural case supersedes archive/2026/areas/oncall/rollback-order.html; the archived golden
# case (its own supersedes link dropped) stands in for that loser, so the store holds a supersedes
# chain whose archived end has a live successor.
SUPERSEDED = ("archive__2026__areas__oncall__html-tests-fixture.html", "archive/2026/areas/oncall/rollback-order.html")
SUPERSEDES_LINK = b'<link rel="memhtml-supersedes" href="/archive/2026/areas/oncall/rollback-order.html">\n'


PROCEDURAL = "areas/oncall/format-md-procedural.html"
INFRA = "resources/infra/one-writer-and-many-readers-share-the-index.html"
ARCHIVED = "archive/2026/areas/oncall/rollback-order.html"


def write_golden_store(root: Path) -> Path:
    for name in GOLDEN_CASES:
        target = root / name.replace("__", "/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(GOLDEN / name, target)
    source, path = SUPERSEDED
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    data = (GOLDEN / source).read_bytes()
    assert SUPERSEDES_LINK in data
    (root / path).write_bytes(data.replace(SUPERSEDES_LINK, b""))
    return root


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, monkeypatch):
    """Per test: a throwaway QSettings INI and index cache (never the user's)."""
    base = tmp_path_factory.mktemp("qt-settings")
    monkeypatch.setenv("MEMHTML_DESKTOP_SETTINGS", str(base / "settings.ini"))
    monkeypatch.setenv("MEMHTML_DESKTOP_CACHE", str(base / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(base / "data"))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(base / "user"))
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(base / "user"))
    yield base


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    """A small valid store (golden cases at their store paths) in a temp directory."""
    return write_golden_store(tmp_path / "store")


@pytest.fixture
def demo_store_dir(tmp_path: Path) -> Path:
    """A fresh copy of the bundled demo store (skips when it is not there)."""
    from memhtml_desktop.ui.app import copy_demo_store

    try:
        return copy_demo_store(tmp_path / "demo-store")
    except FileNotFoundError as exc:
        pytest.skip(str(exc))


@pytest.fixture
def store(store_dir: Path, tmp_path: Path):
    """A real Store over `store_dir`, indexed, with the deterministic embedder."""
    s = Store(store_dir, index_path=tmp_path / "index" / "index.db", embedder=HashEmbedder())
    s.index()
    yield s
    s.close_thread_connection()


@pytest.fixture
def qsettings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def make_window(qtbot, qsettings):
    """`make_window(store, **options)`: a shown MainWindow whose first answers have arrived."""
    from memhtml_desktop.ui.shell.main_window import MainWindow

    made = []

    def make(store, *, settings: Settings | None = None, watch: bool = False, settle: bool = True, **options):
        settings = settings or Settings(debounce_ms=30)
        win = MainWindow(store, settings, qsettings=options.pop("qsettings", qsettings), watch=watch, **options)
        qtbot.addWidget(win)
        made.append(win)
        if not win.qsettings or not win.qsettings.contains("window/geometry"):
            win.resize(1300, 800)
        win.show()
        if settle:
            qtbot.waitUntil(lambda: win.results.model.result() is not None and not win.runner.is_busy(), timeout=15000)
        return win

    yield make
    for win in made:
        win.shutdown()


@pytest.fixture
def window(make_window, store):
    """The main window over `store`, not watching (the store is indexed already), settled."""
    return make_window(store)


# -- a window over a real git repository (the curation and workbench tests) ----------------------
# Each such test module defines `repo`: a seeded git repository with its own git settings.


@pytest.fixture
def git_store(repo, tmp_path):
    store = Store(repo, index_path=tmp_path / "index" / "index.db", embedder=HashEmbedder())
    store.import_sidecar()
    store.index()
    yield store
    store.close_thread_connection()


@pytest.fixture
def win(make_window, git_store):
    return make_window(git_store)
