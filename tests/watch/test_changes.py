"""From watchdog events to index passes: classification (observer thread) and merging (worker thread).

Real watchdog event objects and a real directory; `known_under` is a plain function standing in
for what the index knows, because these tests are about the merge rules, not the index.
"""

from __future__ import annotations

import os
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirModifiedEvent,
    DirMovedEvent,
    FileClosedNoWriteEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileOpenedEvent,
)

from memhtml_desktop.watch.changes import ChangeSet, walk_dir
from memhtml_desktop.watch.events import (
    DIR_GONE,
    DIR_MOVE,
    DIR_NEW,
    MOVE,
    ROOT,
    UPDATE,
    RawChange,
    classify,
)

ROOT_DIR = "/s"


def c(event):
    return classify(ROOT_DIR, event)


def test_file_events_become_updates_of_memory_paths_only():
    assert c(FileCreatedEvent("/s/areas/a.html")) == RawChange(UPDATE, "areas/a.html")
    assert c(FileModifiedEvent("/s/areas/a.html")) == RawChange(UPDATE, "areas/a.html")
    assert c(FileDeletedEvent("/s/areas/a.html")) == RawChange(UPDATE, "areas/a.html")
    for ignored in (
        "/s/.git/index",
        "/s/.memhtml/state.db",
        "/s/README.html",
        "/s/areas/index.html",
        "/s/areas/a.html.swp",
        "/s/areas/a.md",
        "/s/other/a.html",
        "/elsewhere/areas/a.html",
    ):
        assert c(FileModifiedEvent(ignored)) is None, ignored
    # Reads are never events: the indexer's own reads must not come back as changes.
    assert c(FileOpenedEvent("/s/areas/a.html")) is None
    assert c(FileClosedNoWriteEvent("/s/areas/a.html")) is None
    assert c(DirModifiedEvent("/s/areas")) is None


def test_editor_saves_update_the_target():
    for temp in (".a.html.swp", "a.html~", "a.html.tmp123", "a.html.part"):
        assert c(FileMovedEvent(f"/s/areas/{temp}", "/s/areas/a.html")) == RawChange(UPDATE, "areas/a.html"), temp
    # vim's other way: the memory renamed to a backup first (the memory is "gone" until rewritten).
    assert c(FileMovedEvent("/s/areas/a.html", "/s/areas/a.html~")) == RawChange(UPDATE, "areas/a.html")


def test_moves_between_memory_paths_are_moves():
    assert c(FileMovedEvent("/s/areas/x/a.html", "/s/archive/2026/areas/x/a.html")) == RawChange(
        MOVE, "areas/x/a.html", "archive/2026/areas/x/a.html"
    )
    assert c(FileMovedEvent("/s/areas/a.html", "/s/.git/a.html")) == RawChange(UPDATE, "areas/a.html")


def test_directory_events():
    assert c(DirDeletedEvent("/s/areas/x")) == RawChange(DIR_GONE, "areas/x")
    assert c(DirCreatedEvent("/s/areas/x")) == RawChange(DIR_NEW, "areas/x")
    assert c(DirMovedEvent("/s/areas/x", "/s/projects/x")) == RawChange(DIR_MOVE, "areas/x", "projects/x")
    assert c(DirMovedEvent("/s/areas/x", "/s/tmp/x")) == RawChange(DIR_GONE, "areas/x")
    assert c(DirMovedEvent("/s/tmp/x", "/s/areas/x")) == RawChange(DIR_NEW, "areas/x")
    assert c(DirDeletedEvent("/s/areas")) == RawChange(DIR_GONE, "areas")  # a whole bucket
    assert c(DirDeletedEvent("/s/.git/objects/ab")) is None
    assert c(DirDeletedEvent("/s")) == RawChange(ROOT, "")


def _touch(root: Path, *paths: str) -> None:
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x")


def _plan(changes: ChangeSet, size: int = 1000):
    passes = changes.passes(size)
    return sorted(p for x in passes for p in x.paths), sorted(m for x in passes for m in x.moves)


def test_moves_chain_and_cancel(tmp_path):
    _touch(tmp_path, "areas/c.html")
    changes = ChangeSet(tmp_path, lambda d: [])
    changes.extend([RawChange(MOVE, "areas/a.html", "areas/b.html"), RawChange(MOVE, "areas/b.html", "areas/c.html")])
    assert _plan(changes) == ([], [("areas/a.html", "areas/c.html")])

    changes = ChangeSet(tmp_path, lambda d: [])
    changes.extend([RawChange(MOVE, "areas/c.html", "areas/d.html"), RawChange(MOVE, "areas/d.html", "areas/c.html")])
    assert _plan(changes) == (["areas/c.html"], [])


def test_a_move_whose_source_came_back_is_two_paths(tmp_path):
    _touch(tmp_path, "areas/a.html", "areas/b.html")  # git mv a b, then a new a written
    changes = ChangeSet(tmp_path, lambda d: [])
    changes.extend([RawChange(MOVE, "areas/a.html", "areas/b.html"), RawChange(UPDATE, "areas/a.html")])
    assert _plan(changes) == (["areas/a.html", "areas/b.html"], [])


def test_directory_gone_expands_to_what_the_index_knows(tmp_path):
    known = {"areas/x": ["areas/x/a.html", "areas/x/deep/b.html"]}
    changes = ChangeSet(tmp_path, lambda d: known.get(d, []))
    changes.add(RawChange(DIR_GONE, "areas/x"))
    assert _plan(changes) == (["areas/x/a.html", "areas/x/deep/b.html"], [])


def test_directory_moved_twice_in_one_burst_still_moves_its_files(tmp_path):
    _touch(tmp_path, "resources/z/a.html", "resources/z/new.html")
    known = {"areas/x": ["areas/x/a.html"]}
    changes = ChangeSet(tmp_path, lambda d: known.get(d, []))
    changes.add(RawChange(DIR_MOVE, "areas/x", "projects/y"))
    changes.add(RawChange(DIR_MOVE, "projects/y", "resources/z"))
    paths, moves = _plan(changes)
    assert moves == [("areas/x/a.html", "resources/z/a.html")]
    assert "resources/z/new.html" in paths


def test_passes_are_bounded(tmp_path):
    names = [f"areas/n{i}.html" for i in range(25)]
    _touch(tmp_path, *names)
    changes = ChangeSet(tmp_path, lambda d: [])
    changes.extend(RawChange(UPDATE, n) for n in names)
    passes = changes.passes(10)
    assert [len(p) for p in passes] == [10, 10, 5]
    assert sorted(p for x in passes for p in x.paths) == sorted(names)


def test_walk_dir_finds_memories_only(tmp_path):
    _touch(tmp_path, "areas/x/a.html", "areas/x/deep/b.html", "areas/x/index.html", "areas/x/c.txt")
    os.symlink(tmp_path / "areas/x/deep", tmp_path / "areas/x/link")
    assert sorted(walk_dir(tmp_path, "areas/x")) == ["areas/x/a.html", "areas/x/deep/b.html"]
