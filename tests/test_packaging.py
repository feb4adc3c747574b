"""Packaging: the two ways to start the program agree, the bundle carries what the app needs, and
the desktop integration files are consistent with the code (and valid, where the validators exist).

The PyInstaller build itself is not run here (it takes half a minute and needs PyInstaller):
`bash packaging/build.sh` builds and checks the built app. What the spec bundles is decided by
`packaging/bundle.py`, which these tests check without PyInstaller.
"""

from __future__ import annotations

import ast
import configparser
import re
import shutil
import struct
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from memhtml_desktop import __version__, data

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
ICONS = ROOT / "resources" / "icons"
DESKTOP = PACKAGING / "memhtml-desktop.desktop"
METAINFO = PACKAGING / "io.github.memhtml.Desktop.metainfo.xml"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SIZES = (16, 32, 48, 64, 128, 256, 512)

sys.path.insert(0, str(PACKAGING))
import bundle


def _run(*cmd: str) -> str:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True, timeout=60).stdout


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", path
    return struct.unpack(">II", head[16:24])


# -- the two entry points ------------------------------------------------------------------------


def test_python_m_and_the_console_script_print_the_same_version():
    module = _run(sys.executable, "-m", "memhtml_desktop", "--version").strip()
    assert module == f"memhtml-desktop {__version__}"
    target = PYPROJECT["project"]["scripts"]["memhtml-desktop"]
    assert target == "memhtml_desktop.cli:main"
    script = Path(sys.executable).with_name("memhtml-desktop")
    if script.exists():  # an installed project (CI): the generated console script itself
        assert _run(str(script), "--version").strip() == module
    # What pip's generated wrapper does, from the entry point definition:
    name, func = target.split(":")
    wrapper = f"import sys; from {name} import {func}; sys.argv[0] = 'memhtml-desktop'; sys.exit({func}())"
    assert _run(sys.executable, "-c", wrapper, "--version").strip() == module


def test_the_frozen_entry_calls_freeze_support_before_the_cli():
    tree = ast.parse((PACKAGING / "entry.py").read_text(encoding="utf-8"))
    main_block = next(n for n in tree.body if isinstance(n, ast.If))
    calls = [ast.unparse(n) for n in main_block.body]
    assert calls[0] == "multiprocessing.freeze_support()"
    assert any("memhtml_desktop.cli" in c for c in calls[1:])


# -- what the bundle carries ---------------------------------------------------------------------


def test_the_bundle_carries_every_migration_and_resource_file_dotfiles_included():
    bundled = {(Path(src).resolve(), dest) for src, dest in bundle.datas()}
    for top in ("migrations", "resources"):
        for path in (ROOT / top).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and not path.name.endswith((".db", ".db-wal")):
                dest = f"memhtml_desktop/_data/{path.parent.relative_to(ROOT).as_posix()}"
                assert (path.resolve(), dest) in bundled, path
    names = {Path(src).name for src, _ in bundle.datas()}
    assert {".gitignore", "access.jsonl", "memhtml-desktop.svg", "memhtml-desktop-16.png"} <= names
    assert not any(re.match(r"(index|state)\.db", name) for name in names)


def test_the_bundle_layout_is_where_data_py_looks_when_frozen(tmp_path, monkeypatch):
    for src, dest in bundle.datas():
        if Path(src).suffix == ".sql" or Path(src).name == "access.jsonl":
            target = tmp_path / dest / Path(src).name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert data.migrations_dir() == tmp_path / "memhtml_desktop" / "_data" / "migrations"
    assert (data.demo_store_dir() / ".memhtml" / "state" / "access.jsonl").is_file()
    assert str(data.demo_store_dir()).startswith(str(tmp_path))


def test_the_sqlite_vec_library_goes_where_the_frozen_package_looks():
    import sqlite_vec

    [(library, dest)] = bundle.binaries()
    assert Path(library).is_file() and dest == "sqlite_vec"
    assert Path(library).stem == Path(sqlite_vec.loadable_path()).name  # vec0(.so) beside sqlite_vec/__init__


def test_modules_loaded_by_name_are_hidden_imports():
    hidden = set(bundle.hiddenimports())
    for name in (
        "memhtml_desktop.ui.reader.reader_pane",
        "memhtml_desktop.ui.recall.recall_pane",
        "memhtml_desktop.ui.problems.problems_pane",
        "memhtml_desktop.domain.hash_embedder",
        "memhtml_desktop.embedders.minilm",
        "memhtml_desktop.cli",
        "watchdog.observers.inotify",
        "watchdog.observers.polling",
    ):
        assert name in hidden, name
    assert not any(name.startswith("memhtml_desktop.devtools") for name in hidden)
    excluded = set(bundle.excludes())
    assert not any(name.startswith("memhtml_desktop") and name not in bundle.NOT_BUNDLED_PACKAGES for name in excluded)
    for needed in ("PySide6", "apsw", "selectolax", "numpy", "watchdog", "platformdirs", "sqlite_vec", "regex"):
        assert needed not in excluded


def test_the_spec_builds_from_bundle_and_entry():
    spec = (PACKAGING / "memhtml-desktop.spec").read_text(encoding="utf-8")
    for needle in (
        "bundle.datas()",
        "bundle.binaries()",
        "bundle.hiddenimports()",
        "bundle.excludes()",
        '"entry.py"',
        'name="memhtml-desktop"',
        "COLLECT(",
    ):
        assert needle in spec, needle


# -- icons ---------------------------------------------------------------------------------------


def test_the_icon_is_an_svg_with_png_renders_at_every_size():
    svg = ET.parse(ICONS / "memhtml-desktop.svg").getroot()
    assert svg.tag.endswith("svg") and svg.get("viewBox") == "0 0 64 64"
    for size in SIZES:
        assert png_size(ICONS / f"memhtml-desktop-{size}.png") == (size, size)


# -- desktop entry and AppStream -----------------------------------------------------------------


def _desktop() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    return parser


def test_the_desktop_entry_matches_the_program():
    entry = _desktop()["Desktop Entry"]
    assert entry["Type"] == "Application" and entry["Terminal"] == "false"
    assert entry["Exec"].split()[0] == entry["TryExec"] == next(iter(PYPROJECT["project"]["scripts"]))
    assert entry["Icon"] == "memhtml-desktop" and (ICONS / f"{entry['Icon']}.svg").is_file()
    assert entry["Categories"] == "Development;Utility;"
    assert "memhtml" in entry["Keywords"].split(";")
    app_py = (ROOT / "memhtml_desktop" / "ui" / "app.py").read_text(encoding="utf-8")
    application_name = re.search(r'^APP = "([^"]+)"', app_py, flags=re.MULTILINE).group(1)
    assert entry["StartupWMClass"] == application_name == DESKTOP.stem  # X11 WM_CLASS, Wayland app id
    assert _desktop()["Desktop Action demo"]["Exec"] == "memhtml-desktop --demo"


def test_the_metainfo_agrees_with_the_project():
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == METAINFO.name.removesuffix(".metainfo.xml")
    assert root.findtext("metadata_license") == "CC0-1.0"
    assert root.findtext("project_license") == PYPROJECT["project"]["license"] == "Apache-2.0"
    assert root.find("launchable").text == DESKTOP.name
    assert root.find("provides/binary").text == "memhtml-desktop"
    assert root.find("content_rating").get("type") == "oars-1.1"
    releases = root.findall("releases/release")
    assert releases and releases[0].get("version") == __version__
    images = root.findall("screenshots/screenshot/image")
    assert len(images) == 4
    for image in images:
        local = ROOT / "docs" / "screenshots" / image.text.rsplit("/", 1)[1]
        assert image.text.endswith(f"/docs/screenshots/{local.name}")
        assert png_size(local) == (int(image.get("width")), int(image.get("height")))


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils not installed")
def test_desktop_file_validate():
    proc = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "error" not in proc.stdout


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="appstream not installed")
def test_appstreamcli_validate():
    proc = subprocess.run(
        ["appstreamcli", "validate", "--no-net", str(METAINFO)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
