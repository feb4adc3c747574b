"""Index-layer fixtures: a real store directory, a real Store over real SQLite files."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import numpy as np
import pytest

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
SHARED_GOLDEN = Path("/work/shared/spec/store-format-golden")
NOW = dt.datetime(2026, 11, 29, 12, 0, 0, tzinfo=dt.timezone.utc)


def golden_dir() -> Path:
    return GOLDEN if (GOLDEN / "cases").is_dir() else SHARED_GOLDEN


class CountingEmbedder:
    """The default embedder with a call counter: a real embedder, counted (not a mock)."""

    def __init__(self) -> None:
        self.inner = HashEmbedder()
        self.model_id = self.inner.model_id
        self.dim = self.inner.dim
        self.texts = 0
        self.calls = 0

    @property
    def space(self) -> str:
        return f"{self.model_id}@{self.dim}"

    def embed(self, texts):
        self.calls += 1
        self.texts += len(texts)
        return self.inner.embed(texts)


class FailingEmbedder(CountingEmbedder):
    """An embedding provider that is down: every call raises."""

    def embed(self, texts):
        raise ConnectionError("embedding provider unreachable")


class Clock:
    def __init__(self, now: dt.datetime = NOW) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store_root(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    root.mkdir()
    return root


@pytest.fixture
def make_store(tmp_path: Path, clock: Clock):
    def make(root: Path, embedder=None, **kwargs) -> Store:
        return Store(
            root,
            index_path=tmp_path / "index" / "index.db",
            embedder=embedder or CountingEmbedder(),
            clock=clock,
            **kwargs,
        )

    return make


def copy_golden(root: Path, *, valid_only: bool = False) -> list[str]:
    """Copy the golden cases into `root` at the paths their names encode."""
    import json

    ok = {}
    for line in (golden_dir() / "cases.expected.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        ok[row["file"]] = row["ok"]
    paths = []
    for case in sorted((golden_dir() / "cases").iterdir()):
        if valid_only and not ok.get(case.name, False):
            continue
        path = case.name.replace("__", "/")
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(case, target)
        paths.append(path)
    return paths


def unit(vec) -> np.ndarray:
    vec = np.asarray(vec, dtype=np.float32)
    return vec / np.linalg.norm(vec)
