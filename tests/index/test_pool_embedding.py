"""The hash embedder's vectors are made in the parse processes while this process writes them.

A cold index made its vectors after the words, embedding one batch, then writing it, on one core
while the other idled. Now a `pool_safe` embedder (the hash embedder) embeds in the parse workers,
a few batches ahead of the writes. Nothing else may change: the same vectors, the same batches
(rows, `created_at`, the version they bump), newest first; a model (not pool-safe) still embeds
in this process; a worker killed while embedding costs nothing but the time.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.domain.embedder import pool_safe
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index import parse_pool
from memhtml_desktop.index.store import Store

EMBEDDINGS = "SELECT rowid, chunk_id, model, dim, vec, created_at FROM embeddings ORDER BY rowid"


class Watched(HashEmbedder):
    """The hash embedder, counting the calls made in THIS process (a worker has its own copy)."""

    def __init__(self) -> None:
        self.here = 0

    def embed(self, texts):
        if multiprocessing.parent_process() is None:
            self.here += 1
        return super().embed(texts)


class Slow(Watched):
    """A worker's embedding takes a while, so a kill at the first write finds tasks still queued
    (the hash embedder's tasks are done in a few ms: the kill would otherwise race the last one)."""

    def embed(self, texts):
        if multiprocessing.parent_process() is not None:
            time.sleep(0.05)
        return super().embed(texts)


def _index(root, path, clock, embedder, **kwargs):
    store = Store(root, index_path=path, embedder=embedder, clock=clock)
    report = store.index(**kwargs)
    rows = store.reader().execute(EMBEDDINGS).fetchall()
    version = store.reader().execute("SELECT vectors_version FROM index_state").fetchone()[0]
    store.close_thread_connection()
    return report, rows, version


@pytest.mark.parametrize("count, seed", [(700, 4), (1_300, 19)])
def test_vectors_made_in_the_workers_are_the_ones_made_here(tmp_path, clock, monkeypatch, count, seed):
    root = generate_store(tmp_path / "store", count, seed).root
    pooled = Watched()
    report, rows, version = _index(root, tmp_path / "pooled.db", clock, pooled)
    assert pooled.here == 0  # every batch was embedded in a parse process
    assert report.embedded == len(rows) > parse_pool.POOL_THRESHOLD
    monkeypatch.setenv("MEMHTML_DESKTOP_NO_POOL", "1")
    inline = Watched()
    _, reference, reference_version = _index(root, tmp_path / "inline.db", clock, inline)
    assert inline.here == -(-len(reference) // 256)  # one call a batch of BATCH_EMBED
    assert rows == reference and version == reference_version


def test_a_model_embeds_in_this_process(store_root, make_store):
    generate_store(store_root, 600, 6)
    store = make_store(store_root)  # CountingEmbedder: a wrapper, not pool-safe
    assert not pool_safe(store.embedder) and pool_safe(HashEmbedder())
    report = store.index()
    assert store.embedder.texts == report.embedded > parse_pool.POOL_THRESHOLD


def test_a_worker_killed_while_embedding_costs_only_time(tmp_path, clock):
    root = generate_store(tmp_path / "store", 900, 12).root
    killed: list[int] = []

    def progress(phase, done, total):
        if phase == "embed" and not killed:
            workers = [p for p in multiprocessing.active_children() if type(p).__name__ == "SpawnProcess"]
            assert workers
            os.kill(workers[0].pid, signal.SIGKILL)
            killed.append(workers[0].pid)

    embedder = Slow()
    report, rows, _ = _index(root, tmp_path / "killed.db", clock, embedder, progress=progress)
    assert killed and embedder.here > 0  # the rest was embedded here
    _, reference, _ = _index(root, tmp_path / "reference.db", clock, HashEmbedder())
    assert report.embed_error is None and rows == reference
    # the pool was renewed: the next cold run embeds in workers again
    again = Watched()
    _index(root, tmp_path / "again.db", clock, again)
    assert again.here == 0


def test_a_cancelled_pass_leaves_nothing_queued_and_the_next_finishes(tmp_path, clock):
    root = generate_store(tmp_path / "store", 800, 33).root
    stop = {"after": None}

    def progress(phase, done, total):
        if phase == "embed" and stop["after"] is None:
            stop["after"] = done

    store = Store(root, index_path=tmp_path / "index.db", embedder=HashEmbedder(), clock=clock)
    first = store.index(progress=progress, cancelled=lambda: stop["after"] is not None)
    assert first.embedded == stop["after"] == 256
    second = store.index()
    assert first.embedded + second.embedded == store.reader().execute("SELECT count(*) FROM embeddings").fetchone()[0]
    _, reference, _ = _index(root, tmp_path / "reference.db", clock, HashEmbedder())
    assert store.reader().execute(EMBEDDINGS).fetchall()[:256] == reference[:256]
