"""What a process of ours needs to open the same store, and how such a process is started.

`StoreSpec` is the store as plain, picklable values (root, index, the embedder or its registry
name, the vector backend, the ranking profile, the environment): the engine (engine/) opens its
`Store` from one. `context()` is the one multiprocessing context our processes start from.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import signal
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

PRELOAD = (
    "memhtml_desktop.engine.process",
    "memhtml_desktop.ops.jobs",
    "memhtml_desktop.index.store",
    "memhtml_desktop.index.indexer",
    "memhtml_desktop.watch.watcher",
    # what every engine imported on its first calls (the first search and its counts, the recovery
    # check, the review inbox's mark): 64 of the app's modules, 0.2-0.5 s before its last first answer
    "memhtml_desktop.index.retrieval",
    "memhtml_desktop.index.pool",
    "memhtml_desktop.index.facets",
    "memhtml_desktop.index.sidecar",
    "memhtml_desktop.index.state_watch",
    "memhtml_desktop.ops.curate",
    "memhtml_desktop.ops.curators",
    "memhtml_desktop.ops.review",
    "memhtml_desktop.write.curator",
    "memhtml_desktop.domain.hash_embedder",
    "memhtml_desktop.settings",
)
"""What the forkserver imports once, so each engine forked from it starts in milliseconds and
answers its first calls without importing (tests/ui/test_engine_imports.py holds the list whole)."""


@dataclass(frozen=True)
class StoreSpec:
    """What a child needs to open the same store: plain, picklable values (no connection)."""

    root: str
    index_path: str  # "" for the store's default place (under the user cache)
    embedder: Any  # the embedder itself when it pickles (the hash embedder), else its registry name
    vector_backend: str
    create_state: bool
    ranking: Any
    environ: dict = field(default_factory=dict, compare=False, repr=False)
    curation_off: str | None = None
    """Why the store cannot be curated (no git of its own: `index.store.StoreCheck.git_problem`)."""
    notes: tuple[str, ...] = ()
    """What the store says when it opens (curation off, a demo copy's whereabouts): its first notices."""
    """The caller's environment when it asked (the data and cache folders are found through it;
    a forkserver's children would otherwise see the environment of the moment it started)."""

    def open(self) -> Any:
        """The Store this spec names, in this process (an embedder named by the registry is made
        here; when it cannot be, the default is used and the store says so in a notice)."""
        from memhtml_desktop.index.store import Store

        if self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
        embedder, notice = self.embedder, ""
        if isinstance(embedder, str):
            from memhtml_desktop.embedders.registry import make_embedder_or_default

            embedder, notice = make_embedder_or_default(embedder)
        store = Store(
            self.root,
            index_path=self.index_path or None,
            embedder=embedder,
            vector_backend=self.vector_backend,
            create_state=self.create_state,
            ranking=self.ranking,
            curation_off=self.curation_off,
        )
        for note in self.notes:
            store.notice(note)
        if notice:
            store.notice(f"Embedder: {notice}")
        return store


def spec_of(store: Any) -> StoreSpec | None:
    """The spec of an open store (its current ranking profile included), or None when its embedder
    cannot reach a child as itself: the caller then runs the work in this process. A child with
    another embedder would write vectors of another space and rank with them (a MiniLM at fp32
    named as the registry's int8 `minilm`, a custom embedder replaced by the hash one)."""
    embedder = crossing(store.embedder)
    if embedder is None:
        return None
    return StoreSpec(
        str(store.root),
        str(store.index_path),
        embedder,
        store.vector_backend,
        store.create_state,
        store.ranking,
        dict(os.environ),
        getattr(store, "curation_off", None),
    )


def crossing(embedder: Any) -> Any | None:
    """What carries `embedder` to a child faithfully: the registry's name for the registry's own
    MiniLM (its loaded model never pickles; the child loads its own), the embedder itself when it
    pickles (the hash embedder), else None."""
    if type(embedder).__name__ == "MiniLMEmbedder":
        from memhtml_desktop.embedders.registry import make_embedder

        try:
            same = make_embedder("minilm").space == embedder.space and embedder._model_dir is None
        except Exception:  # noqa: BLE001 - the registry's MiniLM cannot even be made: not the same
            same = False
        return "minilm" if same else None
    try:
        pickle.dumps(embedder)
    except Exception:  # noqa: BLE001 - whatever pickling raises, it stays in this process
        log.info("the embedder %r cannot cross to a child process; its heavy work runs in this one", embedder)
        return None
    return embedder


_CONTEXT: Any = None
_CONTEXT_LOCK = threading.Lock()


def context() -> Any:
    """The multiprocessing context children start from: forkserver (Linux), else spawn (and spawn in
    a frozen app, whose children are the app's own executable: packaging/entry.py's freeze_support)."""
    global _CONTEXT
    with _CONTEXT_LOCK:
        if _CONTEXT is None:
            if "forkserver" in multiprocessing.get_all_start_methods() and not getattr(sys, "frozen", False):
                _CONTEXT = multiprocessing.get_context("forkserver")
                _CONTEXT.set_forkserver_preload(list(PRELOAD))
            else:
                _CONTEXT = multiprocessing.get_context("spawn")
        return _CONTEXT


def describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def alive(pid: int) -> bool:
    """Whether process `pid` still exists (a process of ours stops when the one that asked for it is gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
