"""Every Watcher setting is documented in docs/watching.md (datasette's tests/test_docs.py idea)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from memhtml_desktop.watch.watcher import Watcher

DOC = Path(__file__).resolve().parents[2] / "docs" / "watching.md"
SETTINGS = [name for name in inspect.signature(Watcher.__init__).parameters if name not in ("self", "store")]


@pytest.mark.parametrize("name", SETTINGS)
def test_watcher_setting_is_documented(name: str) -> None:
    assert f"| `{name}` |" in DOC.read_text(encoding="utf-8"), f"document `{name}` in docs/watching.md"
