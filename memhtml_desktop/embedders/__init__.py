"""Embedders that live outside the pure domain: the optional neural one, and the registry.

`registry.make_embedder(name)` / `make_embedder_or_default(name)` are the entry points; `minilm`
holds `MiniLMEmbedder` (all-MiniLM-L6-v2 through onnxruntime), `bert_onnx` builds its graph.
Importing this package imports neither onnxruntime nor the model.
"""

from __future__ import annotations

from memhtml_desktop.embedders.registry import (
    EMBEDDERS,
    available_embedders,
    make_embedder,
    make_embedder_or_default,
)

__all__ = ["EMBEDDERS", "available_embedders", "make_embedder", "make_embedder_or_default"]
