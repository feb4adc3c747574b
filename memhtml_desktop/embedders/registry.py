"""Which embedders exist, which can run here, and how to get one (or the default instead).

`hash` is the deterministic default (`memhtml_desktop.domain.hash_embedder.HashEmbedder`): pure,
always available. `minilm` is the optional neural embedder (`embedders.minilm.MiniLMEmbedder`),
usable once its extra and model package are installed. Both are imported lazily, so asking what is
available costs no onnxruntime import.

Switching embedders changes the vector space (`<model_id>@<dim>`), so stored vectors of the old
space no longer compare; the index re-embeds in the background (see docs/embedders.md).
"""

from __future__ import annotations

import importlib
from typing import Callable

from memhtml_desktop.domain.embedder import Embedder, EmbedderUnavailable, unavailable_reason  # noqa: F401 - part of this module's API

DEFAULT_EMBEDDER = "hash"


def _hash() -> Embedder:
    try:
        module = importlib.import_module("memhtml_desktop.domain.hash_embedder")
    except ImportError as exc:
        raise EmbedderUnavailable(f"The hash embedder module cannot be imported ({exc}).") from None
    return module.HashEmbedder()


def _minilm() -> Embedder:
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


# name -> factory. Factories are cheap: no model is loaded until the first embed.
EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "hash": _hash,
    "minilm": _minilm,
}


def _factory(name: str) -> Callable[[], Embedder]:
    try:
        return EMBEDDERS[name]
    except KeyError:
        choices = ", ".join(sorted(EMBEDDERS))
        raise ValueError(f"unknown embedder {name!r}; choose one of: {choices}") from None


def make_embedder(name: str) -> Embedder:
    """A new, not yet loaded embedder. ValueError for an unknown name; EmbedderUnavailable when the
    embedder's module cannot even be imported (MiniLM's heavy packages are checked on load)."""
    return _factory(name)()


def available_embedders() -> dict[str, str | None]:
    """name -> None when usable here, else the human-readable reason (with install hint)."""
    result: dict[str, str | None] = {}
    for name in EMBEDDERS:
        try:
            result[name] = unavailable_reason(make_embedder(name))
        except EmbedderUnavailable as exc:
            result[name] = str(exc)
    return result


def make_embedder_or_default(name: str, *, load: bool = False) -> tuple[Embedder, str | None]:
    """The requested embedder, or the default hash embedder plus the reason it stands in.

    With `load=True` the requested embedder is loaded now, so a model that is present but broken
    also falls back here instead of failing on the first embed. Unknown names still raise ValueError.
    """
    factory = _factory(name)
    try:
        embedder = factory()
        reason = unavailable_reason(embedder)
        if reason is None and load and callable(getattr(embedder, "load", None)):
            embedder.load()
    except EmbedderUnavailable as exc:
        reason = str(exc)
    if reason is None:
        return embedder, None
    if name == DEFAULT_EMBEDDER:
        raise EmbedderUnavailable(reason)
    return make_embedder(DEFAULT_EMBEDDER), reason
