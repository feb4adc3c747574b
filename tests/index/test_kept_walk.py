"""The walk kept beside the index (index/kept_walk.py): a pass with nothing to do keeps its walk, the
next one that walks the same files, sizes and times at the same index mark has nothing to do without
reading `sources`, and every other walk is compared with the index as before.

Real stores, the real indexer and real files; whether the kept walk stood in for the comparison is
read from the file itself (a pass that compared and found nothing to do writes it again: a new
inode, by the atomic rename), not from a spy.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from memfiles import write_memory
from memhtml_desktop.index import kept_walk, vector_file


def _kept(store) -> Path:
    return vector_file.beside(store.index_path, kept_walk._FILE)


def _identity(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_ino, st.st_mtime_ns


def _store_of(store_root, make_store, seed: int, count: int):
    rng = random.Random(seed)
    names = []
    for i in range(count):
        bucket = rng.choice(["areas", "projects/alpha", "resources/notes", "areas/deep/er"])
        name = f"{bucket}/m{seed}-{i}-{rng.randrange(10**6)}.html"
        write_memory(store_root, name, title=f"Memory {i}", claim=f"Fact {i} of seed {seed} holds {rng.random():.6f}.")
        names.append(name)
    store = make_store(store_root)
    first = store.index()
    assert first.added == count
    return store, names, rng


def _noop(store) -> None:
    report = store.index()
    assert (report.added, report.changed, report.moved, report.removed, report.failed) == (0, 0, 0, 0, 0)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_pass_with_nothing_to_do_keeps_its_walk_and_the_next_stands_on_it(store_root, make_store, seed):
    store, _, _ = _store_of(store_root, make_store, seed, 9 + seed)
    assert not _kept(store).exists()  # the first pass indexed everything: it keeps nothing
    _noop(store)
    kept = _identity(_kept(store))
    for _ in range(3):
        _noop(store)
        assert _identity(_kept(store)) == kept  # used, not written again


def _edit_same_size(root: Path, name: str, rng: random.Random) -> None:
    path = root / name
    data = path.read_bytes()
    at = data.index(b"holds ") + len(b"holds ")
    path.write_bytes(data[:at] + (b"%.6f" % rng.random())[:8] + data[at + 8 :])
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


CHANGES = ["edit in place, same size", "edit", "touch", "add", "delete", "rename", "new folder"]


@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize("seed", [3, 4])
def test_a_walk_unlike_the_kept_one_is_compared_with_the_index(store_root, make_store, change, seed):
    store, names, rng = _store_of(store_root, make_store, seed, 8)
    _noop(store)
    assert _kept(store).is_file()
    name = rng.choice(names)
    if change == "edit in place, same size":
        _edit_same_size(store_root, name, rng)
    elif change == "edit":
        write_memory(store_root, name, title="Edited", claim="The zeppelin docks at noon.")
    elif change == "touch":
        st = (store_root / name).stat()
        os.utime(store_root / name, ns=(st.st_atime_ns, st.st_mtime_ns - 5_000_000_000))
    elif change == "add":
        write_memory(store_root, "areas/added.html", title="Added", claim="An added memory holds.")
    elif change == "delete":
        (store_root / name).unlink()
    elif change == "rename":
        os.rename(store_root / name, store_root / "areas" / f"renamed-{seed}.html")
    elif change == "new folder":
        write_memory(store_root, "projects/newer/x.html", title="X", claim="A memory in a new folder.")
    report = store.index()
    want = {
        "edit in place, same size": "changed",
        "edit": "changed",
        "touch": "unchanged",
        "add": "added",
        "delete": "removed",
        "rename": "moved",
        "new folder": "added",
    }[change]
    if want == "unchanged":
        assert (report.added, report.changed, report.removed, report.moved) == (0, 0, 0, 0)
        assert report.seen == 8
    else:
        assert getattr(report, want) == 1, (change, report)
    if change == "edit":
        assert store.search("zeppelin").hits[0].path == name
    paths = {r[0] for r in store.reader().execute("SELECT path FROM sources")}
    on_disk = {str(p.relative_to(store_root)) for p in store_root.rglob("*.html")}
    assert paths == on_disk
    before = _identity(_kept(store))
    _noop(store)  # compared (the walk moved), found nothing: keeps the new walk
    assert _identity(_kept(store)) != before
    after = _identity(_kept(store))
    _noop(store)
    assert _identity(_kept(store)) == after


SPOILS = ["version", "uid", "store", "index file", "walk", "truncated", "header bit"]


@pytest.mark.parametrize("spoil", SPOILS)
def test_a_kept_walk_of_another_mark_or_not_whole_is_not_stood_on(store_root, make_store, spoil):
    """The walk on disk is the kept one here, so only the checks keep a pass from standing on a
    file that is not this index's at this mark: it compares, and keeps a whole walk again."""
    import numpy as np

    store, _, _ = _store_of(store_root, make_store, 5, 10)
    _noop(store)
    path = _kept(store)
    head, arrays, _ = vector_file.read(path)
    fields = {k: v for k, v in head.items() if k not in ("format", "sections", "size")}
    data = {k: np.array(v) for k, v in arrays.items()}
    if spoil == "version":
        fields["version"] += 1
    elif spoil in ("uid", "store"):
        fields[spoil] = "other"
    elif spoil == "index file":
        fields["index"] = [fields["index"][0], fields["index"][1] + 1]
    elif spoil == "walk":  # another walk's digest: a file's mtime one nanosecond on
        walked = _walk(store)
        walked[3] = (walked[3][0], walked[3][1], walked[3][2] + 1)
        fields["walk"] = kept_walk.digest(walked)
    vector_file.write(path, fields, data)
    if spoil == "truncated":
        path.write_bytes(path.read_bytes()[:-3])
    elif spoil == "header bit":
        raw = bytearray(path.read_bytes())
        raw[20] ^= 0x01
        path.write_bytes(bytes(raw))
    spoiled = _identity(path)
    _noop(store)
    assert _identity(path) != spoiled  # compared with `sources`, and kept again
    assert kept_walk.same(str(store.index_path), store.root, *_mark(store), kept_walk.digest(_walk(store)))


def test_a_new_index_beside_a_kept_walk_indexes_every_file(store_root, make_store, tmp_path):
    """The index file deleted and made again (the walk on disk unchanged): a new index, whose pass
    reads every file."""
    store, names, _ = _store_of(store_root, make_store, 8, 7)
    _noop(store)
    store.close_thread_connection()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store.index_path}{suffix}").unlink(missing_ok=True)
    assert _kept(store).is_file()
    again = make_store(store_root)
    assert again.index().added == len(names)


def _mark(store) -> tuple[int, str]:
    version, uid = store.reader().execute("SELECT vectors_version, uid FROM index_state").fetchone()
    return version, uid


def _walk(store) -> list:
    from memhtml_desktop.index.scanner import stat_walk

    return list(stat_walk(store.root))


def test_a_non_ascii_name_and_an_empty_store_keep_their_walk(store_root, make_store):
    store, _, _ = _store_of(store_root, make_store, 6, 3)
    write_memory(store_root, "areas/ünïcödé — ☃.html", title="Snow", claim="A memory with a non-ASCII name.")
    assert store.index().added == 1
    _noop(store)
    assert kept_walk.same(str(store.index_path), store.root, *_mark(store), kept_walk.digest(_walk(store)))
    for path in store_root.rglob("*.html"):
        path.unlink()
    assert store.index().removed == 4
    _noop(store)
    assert kept_walk.same(str(store.index_path), store.root, *_mark(store), kept_walk.digest([]))
    write_memory(store_root, "areas/back.html", title="Back", claim="One memory again.")
    assert store.index().added == 1
