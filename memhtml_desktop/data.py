"""Where the shipped data lives: migrations and resources.

A wheel carries them under `memhtml_desktop/_data/` (hatch `force-include`); a source checkout or an
editable install keeps them at the repository root. Both layouts resolve here, so no caller needs to
know which one it runs from.
"""

from __future__ import annotations

import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _first_existing(*candidates: Path) -> Path:
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return candidates[0]


def _frozen_root() -> Path | None:
    # PyInstaller unpacks data next to the executable and records it in sys._MEIPASS.
    root = getattr(sys, "_MEIPASS", None)
    return Path(root) / "memhtml_desktop" / "_data" if root else None


def data_root() -> Path:
    frozen = _frozen_root()
    if frozen is not None and frozen.is_dir():
        return frozen
    return _PACKAGE / "_data"


def migrations_dir() -> Path:
    return _first_existing(data_root() / "migrations", _PACKAGE.parent / "migrations")


def resources_dir() -> Path:
    return _first_existing(data_root() / "resources", _PACKAGE.parent / "resources")


def demo_store_dir() -> Path:
    return resources_dir() / "demo-store"
