"""The composition root and the screenshot tool: settings, store resolution, the demo copy, a PNG."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QSize
from PySide6.QtGui import QImage

from memhtml_desktop.index.state import access_stats
from memhtml_desktop.index.store import Store
from memhtml_desktop.settings import Settings
from memhtml_desktop.ui import app
from memhtml_desktop.ui.screenshot import parse_size, take_screenshot
from memhtml_desktop.ui.shell.layout import first_size


def test_qsettings_come_from_the_environment_not_the_user(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMHTML_DESKTOP_SETTINGS", str(tmp_path / "s.ini"))
    qs = app.make_qsettings()
    assert qs.fileName() == str(tmp_path / "s.ini")
    monkeypatch.delenv("MEMHTML_DESKTOP_SETTINGS")
    monkeypatch.setenv("MEMHTML_DESKTOP_NO_USER_CONFIG", "1")
    assert app.make_qsettings().fileName().endswith("settings.ini")
    assert "memhtml-settings-" in app.make_qsettings().fileName()


def test_persisted_settings_fill_only_what_flags_left_at_default(tmp_path):
    qs = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    qs.setValue("settings/store", "/persisted/store")
    qs.setValue("settings/recall_budget", 4000)
    qs.setValue("settings/theme", "dark")
    merged = app.merge_persisted(Settings(theme="light"), qs)
    assert merged.store == "/persisted/store" and merged.recall_budget == 4000 and merged.theme == "light"
    assert app.merge_persisted(Settings(store="/flag"), qs).store == "/flag"


def test_store_resolution_order(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    fresh, seeded = app.resolve_initial_store(Settings(), demo=False, explicit_store=False, fresh_demo=True)
    assert seeded and (fresh / ".memhtml" / "state" / "access.jsonl").is_file()
    assert not list(fresh.rglob("*.db")) and fresh.parent.name.startswith("memhtml-demo-")
    assert app.resolve_initial_store(Settings(store=str(tmp_path)), demo=False, explicit_store=True) == (
        tmp_path,
        False,
    )
    first, made = app.resolve_initial_store(Settings(), demo=False, explicit_store=False)
    assert made and first.name == "demo-store" and str(first).startswith(os.environ["XDG_DATA_HOME"])
    assert app.resolve_initial_store(Settings(), demo=True, explicit_store=False) == (
        first,
        False,
    )  # --demo: the kept copy
    again, made_again = app.resolve_initial_store(Settings(), demo=False, explicit_store=False)
    assert again == first and not made_again  # made once, then reused
    (tmp_path / "home" / "memhtml").mkdir(parents=True)
    assert app.resolve_initial_store(Settings(), demo=False, explicit_store=False) == (
        tmp_path / "home" / "memhtml",
        False,
    )


def test_a_first_run_window_opens_the_demo_copy_with_salience(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    try:
        window = app.build_window(Settings(debounce_ms=0), watch=False)
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.results.model.rowCount() > 0 and not window.runner.is_busy(), timeout=20000)
    assert window.store.root.name == "demo-store"
    window.shutdown()  # the engine closed: the test reads what it left (a Store of its own)
    seen = Store(window.store.root, index_path=window.store.index_path)
    conn = seen.reader()
    seeded = [p for (p,) in conn.execute("SELECT path FROM files").fetchall() if access_stats(conn, p)]
    assert seeded  # the sidecar was imported: salience has something to say
    assert window.stores.recent()[0] == str(window.store.root)
    seen.close_thread_connection()


def test_parse_size():
    assert parse_size("1400x900") == (1400, 900)
    assert parse_size(None) == (1400, 900)
    with pytest.raises(ValueError):
        parse_size("wide")
    with pytest.raises(ValueError):
        parse_size("10x10")


@pytest.mark.parametrize("view", ["results", "reader", "recall", "problems"])
def test_screenshot_writes_the_real_window(qtbot, store_dir, tmp_path, view):
    out = tmp_path / f"{view}.png"
    args = argparse.Namespace(out=str(out), query="drain the vip", view=view, open=None, size="1200x800", demo=False)
    before = (store_dir / "areas/oncall/format-md-procedural.html").stat().st_mtime_ns
    assert take_screenshot(Settings(store=str(store_dir)), args) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1200, 800)
    assert (store_dir / "areas/oncall/format-md-procedural.html").stat().st_mtime_ns == before


def test_screenshot_never_counts_a_read(qtbot, store_dir, tmp_path):
    from memhtml_desktop.index.store import Store

    args = argparse.Namespace(
        out=str(tmp_path / "r.png"),
        query="drain",
        view="reader",
        open="areas/oncall/format-md-procedural.html",
        size="1200x800",
        demo=False,
    )
    assert take_screenshot(Settings(store=str(store_dir)), args) == 0
    store = Store(store_dir)
    assert access_stats(store.reader(), "areas/oncall/format-md-procedural.html") is None
    store.close_thread_connection()


def test_screenshot_of_a_missing_store_fails_cleanly(tmp_path, capsys):
    args = argparse.Namespace(out=str(tmp_path / "x.png"), query="", view="results", open=None, size=None, demo=False)
    assert take_screenshot(Settings(store=str(tmp_path / "nope")), args) == 1
    assert "store not found" in capsys.readouterr().err
    assert not Path(tmp_path / "x.png").exists()


def test_a_missing_display_is_explained_not_aborted():
    from memhtml_desktop.ui.app import missing_display

    assert "xvfb-run" in missing_display({}, "linux")
    assert missing_display({"DISPLAY": ":0"}, "linux") is None
    assert missing_display({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert missing_display({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert missing_display({}, "darwin") is None


def test_the_first_size_fits_the_screen_it_opens_on():
    assert first_size(QSize(1920, 1200)) == QSize(1400, 900)
    assert first_size(QSize(1366, 740)) == QSize(1366, 740)
    assert first_size(QSize(1024, 700)) == QSize(1024, 700)
    assert first_size(QSize()) == QSize(1400, 900)  # no screen to ask: the usual size


FIRST_RUN_ON_A_SMALL_SCREEN = """
import sys
from memhtml_desktop.settings import Settings
from memhtml_desktop.ui import app
from memhtml_desktop.ui.app import ensure_app
ensure_app()
window = app.build_window(Settings(debounce_ms=0), watch=False)
window.show()
screen = window.screen().availableGeometry()
print(window.width(), window.height(), screen.width(), screen.height(), window.tabs.geometry().right(), flush=True)
window.shutdown()
"""


def test_a_first_run_on_a_small_screen_keeps_the_reader_on_screen(tmp_path):
    """Under Xvfb at 1024x700 the first window was 1400x900: the reader sat off the right edge."""
    import json
    import subprocess
    import sys

    screen = tmp_path / "screen.json"
    screen.write_text(
        json.dumps(
            {
                "screens": [
                    {
                        "name": "small",
                        "x": 0,
                        "y": 0,
                        "width": 1024,
                        "height": 700,
                        "logicalDpi": 96,
                        "logicalBaseDpi": 96,
                        "dpr": 1,
                    }
                ]
            }
        )
    )
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": f"offscreen:configfile={screen}",
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "MEMHTML_DESKTOP_SETTINGS": str(tmp_path / "settings.ini"),
    }
    done = subprocess.run(
        [sys.executable, "-c", FIRST_RUN_ON_A_SMALL_SCREEN], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    width, height, screen_w, screen_h, reader_right = map(int, done.stdout.split()[-5:])
    assert (screen_w, screen_h) == (1024, 700)
    assert width <= 1024 and height <= 700
    assert reader_right < width  # the reader's pane ends inside the window, which ends inside the screen


def test_the_app_holds_qts_pixmap_cache_small(qapp):
    """Qt's 10 MB pixmap cache filled for thousands of actions in the soak: the app sets 1 MB."""
    from PySide6.QtGui import QPixmapCache

    from memhtml_desktop.ui.app import PIXMAP_CACHE_KB, ensure_app

    QPixmapCache.setCacheLimit(10240)
    ensure_app()
    assert QPixmapCache.cacheLimit() == PIXMAP_CACHE_KB <= 2048
