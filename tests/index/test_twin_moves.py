"""A memory and its byte-identical twin moved in one pass: each one's reads follow it, not the twin.

A scan pairs a vanished file with a new one by content; two vanished files with the same bytes were
paired in the order the index listed them, so the memory's state row could land on its twin's new
name (found by the kill trials at 2,000 files: "state row for ... lost")."""

from __future__ import annotations

import os
import shutil

import pytest

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.index.indexer import likeliest_source
from memhtml_desktop.index.state import access_stats
from memhtml_desktop.index.store import Store


def _reads(store: Store, path: str) -> dict | None:
    return access_stats(store.reader(), path)


@pytest.mark.parametrize(("seed", "twin_first"), [(3, True), (3, False), (12, True), (12, False)])
def test_each_twin_keeps_its_own_reads_when_both_move(tmp_path, seed, twin_first):
    root = tmp_path / "store"
    generate_store(root, 60, seed, invalid=0)
    store = Store(root, index_path=tmp_path / "index.db")
    store.index()
    (memory,) = [
        p for (p,) in store.reader().execute("SELECT path FROM files WHERE archived = 0 ORDER BY path LIMIT 1")
    ]
    folder, _, name = memory.rpartition("/")
    # the twin's path sorts before or after the memory's, so neither order of the index's list passes by luck
    twin = ("areas/aaa-copies/" if twin_first else "resources/zzz-copies/") + "copy-of-" + name
    (root / twin).parent.mkdir(parents=True)
    shutil.copyfile(root / memory, root / twin)
    store.index()
    store.reinforce([memory], "positive")
    store.reinforce([twin], "negative")
    before = {memory: _reads(store, memory), twin: _reads(store, twin)}
    assert before[memory] != before[twin] and None not in before.values()

    moved = {memory: f"projects/moved-{seed}/{name}", twin: f"projects/kept-{seed}/copy-of-{name}"}
    for src, dst in moved.items():
        (root / dst).parent.mkdir(parents=True, exist_ok=True)
        os.replace(root / src, root / dst)
    report = store.index()
    assert report.moved == 2
    assert _reads(store, moved[memory]) == before[memory]
    assert _reads(store, moved[twin]) == before[twin]
    assert _reads(store, memory) is None and _reads(store, twin) is None


def test_the_likeliest_source_is_the_one_whose_path_ends_alike():
    twins = ["areas/a/copy-of-x.html", "projects/p/x.html", "resources/r/x.html"]
    assert likeliest_source(twins, "projects/q/x.html") == "projects/p/x.html"  # the name, then the first
    assert likeliest_source(twins, "archive/2026/resources/r/x.html") == "resources/r/x.html"  # folders too
    assert likeliest_source(twins, "areas/b/copy-of-x.html") == "areas/a/copy-of-x.html"
    assert likeliest_source(twins, "elsewhere/y.html") == "areas/a/copy-of-x.html"  # no hint: path order
    assert likeliest_source([], "x.html") is None


def _move(root, src: str, dst: str) -> None:
    (root / dst).parent.mkdir(parents=True, exist_ok=True)
    os.replace(root / src, root / dst)


def test_a_move_committed_by_a_run_that_died_before_the_state_write_is_followed_by_the_next(tmp_path, monkeypatch):
    """The index commits a batch, then the state rows follow: a run killed between the two left the
    memory's reads at its old name for good. The move is now kept in the index with the batch; the
    next run follows it, and a second move after it, in order."""
    from memhtml_desktop.index.indexer import Indexer

    root = tmp_path / "store"
    generate_store(root, 80, 21, invalid=0)
    store = Store(root, index_path=tmp_path / "index.db")
    store.index()
    first, second = [p for (p,) in store.reader().execute("SELECT path FROM files WHERE archived = 0 ORDER BY path")][
        :2
    ]
    store.reinforce([first], "positive")
    store.reinforce([second], "negative")
    before = {first: _reads(store, first), second: _reads(store, second)}
    middle, last = "projects/went-once/" + first.rsplit("/", 1)[1], "areas/went-twice/" + first.rsplit("/", 1)[1]
    _move(root, first, middle)
    _move(root, second, "resources/went/" + second.rsplit("/", 1)[1])

    follow = Indexer._follow_state
    monkeypatch.setattr(Indexer, "_follow_state", lambda self: None)  # the run dies after its commit
    assert store.index().moved == 2
    assert _reads(store, first) == before[first] and _reads(store, middle) is None  # stranded, for now
    monkeypatch.setattr(Indexer, "_follow_state", follow)

    _move(root, middle, last)  # and the memory moves again before the next run
    assert store.index().moved == 1
    assert _reads(store, last) == before[first]
    assert _reads(store, first) is None and _reads(store, middle) is None
    assert _reads(store, "resources/went/" + second.rsplit("/", 1)[1]) == before[second]
    assert store.reader().execute("SELECT count(*) FROM state_moves").fetchone() == (0,)
