"""Workbench fixtures: generated stores in real git repositories, a private cache and data directory.

Stores vary by generator seed, size and control naming (`target_last` makes every exact RRF tie go
to a control), and by embedder, so nothing passes by luck of path order.
"""

from __future__ import annotations

import pytest

from workbench.support import build

IDENTITY = {
    "GIT_AUTHOR_NAME": "workbench test",
    "GIT_COMMITTER_NAME": "workbench test",
    "GIT_AUTHOR_EMAIL": "wb@example.invalid",
    "GIT_COMMITTER_EMAIL": "wb@example.invalid",
}


@pytest.fixture(autouse=True)
def private_dirs(monkeypatch, tmp_path):
    """A private cache (write lock, journal) and data directory (history, judgments); a pinned
    git identity and no user or system git config."""
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("MEMHTML_DESKTOP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MEMHTML_DESKTOP_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("MEMHTML_ROOT", raising=False)


STORES = [(300, 5, 12, "target_last"), (400, 77, 16, "shuffled")]


@pytest.fixture(params=STORES, ids=lambda s: f"{s[0]}-{s[1]}-{s[3]}")
def gen(request, tmp_path):
    return build(tmp_path, *request.param)


@pytest.fixture
def small(tmp_path):
    return build(tmp_path, 300, 5, 12, "target_last")
