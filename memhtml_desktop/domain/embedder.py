"""The embedder contract: a model id, a dimension, and a batch of texts in, unit vectors out.

The vector space is named `<model_id>@<dim>` (`space`), because a model id alone does not identify
a space. Implementations: `hash_embedder.HashEmbedder` (the deterministic default, pure) and
`memhtml_desktop.embedders.minilm` (optional, loads a model from disk).
"""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

import numpy as np


class EmbedderUnavailable(RuntimeError):
    """The embedder cannot run here (missing package, unreadable model). Search degrades."""


@runtime_checkable
class Embedder(Protocol):
    model_id: str
    dim: int

    @property
    def space(self) -> str:  # pragma: no cover - protocol
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:  # pragma: no cover - protocol
        """Return a float32 array of shape (len(texts), dim), each row L2-normalised (or zero)."""
        ...


def space_of(embedder: Embedder) -> str:
    return f"{embedder.model_id}@{embedder.dim}"


def pool_safe(embedder: Embedder) -> bool:
    """Whether `embedder` may run in the index's parse processes (an optional `pool_safe = True`):
    pure, cheap to pickle and to start, the same vectors in any process. The hash embedder is; a
    model (MiniLM: a file to load, threads of its own) is not, and embeds where it was made."""
    return getattr(embedder, "pool_safe", False) is True


def unavailable_reason(embedder: Embedder) -> str | None:
    """None if `embedder` looks runnable (cheap check, nothing loaded), else why not."""
    check = getattr(embedder, "unavailable_reason", None)
    return check() if callable(check) else None
