"""A store whose vectors are still being made: the header says how much of it has them.

The store is indexed for real and its embedding stopped after the first batch (the indexer embeds
in batches, newest memories first, each batch committed), exactly the state a cold store is in
while its vectors arrive; the window is the real MainWindow offscreen, the query typed with QTest.
"""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index import indexer as indexer_mod
from memhtml_desktop.index.store import Store

WAIT = 15000


class GatedEmbedder(HashEmbedder):
    """The hash embedder, holding its second batch of memory chunks until released: the window's
    own opening pass is then caught with some of the store's vectors made and the rest to come
    (a query, one text, always passes)."""

    def __init__(self) -> None:
        super().__init__()
        self.batches = 0
        self.release = threading.Event()

    def embed(self, texts):
        if len(texts) > 1:
            self.batches += 1
            if self.batches > 1:
                self.release.wait(30)
        return super().embed(texts)


def _counts(store) -> tuple[int, int, list[tuple[int, int]]]:
    rows = store.reader().execute(
        "SELECT unixepoch(f.updated_at), NOT EXISTS (SELECT 1 FROM chunks c LEFT JOIN embeddings e ON e.chunk_id = "
        "c.chunk_id WHERE c.content_hash = f.content_hash AND e.chunk_id IS NULL) FROM files f "
        "WHERE f.archived = 0").fetchall()  # the live store: archived memories are not counted  # fmt: skip
    return len(rows), sum(1 for _, done in rows if done), rows


@pytest.mark.parametrize("batch", [4, 11])
def test_the_header_says_how_much_of_the_store_has_vectors(qtbot, make_window, store_dir, tmp_path, monkeypatch, batch):
    monkeypatch.setattr(indexer_mod, "BATCH_EMBED", batch)
    embedder = GatedEmbedder()
    store = Store(store_dir, index_path=tmp_path / f"cold-{batch}.db", embedder=embedder)
    window = make_window(store, settle=False)  # the window's opening pass indexes the cold store
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: embedder.batches > 1, timeout=WAIT)  # words indexed, one batch of vectors made
    total, done, rows = _counts(store)
    assert 0 < done < total
    # Newest first: no memory without its vectors is newer than one with them.
    assert min((t or 0) for t, ok in rows if ok) >= max((t or 0) for t, ok in rows if not ok)
    window.search_bar.field.clear()
    window.search_bar.field.setFocus()
    qtbot.keyClicks(window.search_bar.field, "deploy rollback")
    qtbot.keyClick(window.search_bar.field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.results.model.result() is not None
                    and window.results.model.result().query == "deploy rollback", timeout=WAIT)  # fmt: skip
    sentence = f"vectors for {done:,} of {total:,}; search is words-only for the rest"
    qtbot.waitUntil(lambda: window.results.degraded.isVisibleTo(window), timeout=WAIT)
    assert window.results.degraded.text() == sentence  # progress, not a "Degraded" warning
    assert window.grab().save(str(tmp_path / "coverage.png"))  # looked at when the header changes
    # The rest embedded: the next search's header no longer mentions vectors.
    embedder.release.set()
    qtbot.waitUntil(lambda: _counts(store)[1] == total and not window.runner.is_busy(), timeout=WAIT)
    window.search_bar.field.clear()
    qtbot.keyClicks(window.search_bar.field, "deploy")
    qtbot.keyClick(window.search_bar.field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.results.model.result() is not None
                    and window.results.model.result().query == "deploy", timeout=WAIT)  # fmt: skip
    qtbot.waitUntil(lambda: "vectors for" not in window.results.degraded.text(), timeout=WAIT)
