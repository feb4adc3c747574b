"""The store walk (index/scanner.py `stat_walk`): its order, on a real tree with every odd entry it
knows (the kept walk's digest and a cold build's rowids follow it), its skips, and what a walk
promises a scan (a memory changed in place is seen; see docs/benchmarks.md, issue 43).

Real files, links, FIFOs and folders; the order is checked against the walk's rule written out by
hand (depth first, a folder's files in name order before its subfolders, subfolders last name first).
"""

from __future__ import annotations

import os
from pathlib import Path

from memfiles import write_memory
from memhtml_desktop.index import scanner


def _odd_tree(root: Path, outside: Path) -> None:
    for rel in [
        "areas/b.html",
        "areas/a.html",
        "areas/z/deep/x.html",
        "areas/z/y.html",
        "areas/m/one.html",
        "projects/p/q/r.html",
        "resources/notes.html",
        "archive/old.html",
    ]:
        write_memory(root, rel, title=rel, claim=f"{rel} holds.")
    (root / "areas/notes.txt").write_text("not a memory")
    (root / "areas/m/index.html").write_text("<p>not a memory by its name</p>")
    os.mkfifo(root / "areas/m/pipe.html")
    outside.mkdir()
    (outside / "secret.html").write_text("<p>outside</p>")
    os.symlink(outside / "secret.html", root / "areas/out.html")  # a link out of the store
    os.symlink(root / "areas/z", root / "areas/zlink.html")  # a link to a folder
    os.symlink(root / "areas/a.html", root / "areas/twin.html")  # a link to a memory inside
    os.symlink(root / "areas/gone.html", root / "areas/dangling.html")
    os.mkdir(os.path.join(os.fsencode(root / "areas"), b"bad\xff"))  # a name that is not UTF-8
    with open(os.path.join(os.fsencode(root / "projects"), b"odd\xfe.html"), "wb") as handle:
        handle.write(b"<p>x</p>")
    for n in range(12):
        write_memory(root, f"resources/many/f{n:02d}/m.html", title=f"m{n}", claim=f"Memory {n} holds.")


def _by_hand(root: Path) -> list[str]:
    """The walk's order, written out: depth first, a folder's own files (by name) first, then its
    subfolders from the last name to the first (the stack)."""
    out: list[str] = []
    for bucket in scanner.BUCKETS:
        stack = [root / bucket]
        while stack:
            folder = stack.pop()
            entries = sorted(os.listdir(folder))
            for name in entries:
                full = folder / name
                if (
                    full.is_symlink()
                    or not name.isascii()
                    or not name.endswith(".html")
                    or name == "index.html"
                    or not full.is_file()
                ):
                    continue
                out.append(str(full.relative_to(root)))
            stack.extend(
                folder / n for n in entries if (folder / n).is_dir() and not (folder / n).is_symlink() and n.isascii()
            )
    return out


def test_the_walk_goes_depth_first_files_before_subfolders_and_tells_every_odd_entry(store_root, tmp_path):
    _odd_tree(store_root, tmp_path / "outside")
    skips: list[scanner.Skipped] = []
    walked = list(scanner.stat_walk(store_root, on_skip=skips.append))
    twin = ("areas/twin.html", *[(s, m) for p, s, m in walked if p == "areas/a.html"][0])
    assert twin in walked  # a link to a memory inside is walked as its target's size and time
    assert [p for p, _, _ in walked if p != "areas/twin.html"] == _by_hand(store_root)
    reasons = {s.path: s.reason for s in skips}
    assert reasons["areas/out.html"] == "symlink points outside the store; not read"
    assert reasons["areas/zlink.html"] == "symlink to a directory; not followed"
    assert reasons["areas/m/pipe.html"] == "not a regular file"
    assert any("not valid UTF-8" in r for r in reasons.values())
    assert [d.path for d in scanner.walk_store(store_root)] == [p for p, _, _ in walked]


def test_a_memory_changed_in_place_at_the_same_size_is_seen_by_the_next_index(store_root, make_store):
    """What the walk promises (docs/benchmarks.md): a file whose bytes changed is re-read when its size
    or its mtime (to the nanosecond) differs from the index's row; bytes changed with both put back
    by hand, to the nanosecond, are the one change a walk does not see (`index --rebuild` does)."""
    write_memory(store_root, "areas/a.html", title="A", claim="The ferry leaves at 0900 sharp.")
    for n in range(30):
        write_memory(store_root, f"projects/p{n % 3}/m{n}.html", title=f"M{n}", claim=f"Memory {n} holds.")
    store = make_store(store_root)
    store.index()
    assert store.index().changed == 0  # a pass with nothing to do: keeps its walk
    path = store_root / "areas/a.html"
    before = path.stat()
    path.write_bytes(path.read_bytes().replace(b"0900", b"1100"))
    assert path.stat().st_size == before.st_size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1))  # one nanosecond on
    report = store.index()
    assert report.changed == 1
    assert store.search("ferry 1100").hits[0].path == "areas/a.html"
    path.write_bytes(path.read_bytes().replace(b"1100", b"1300"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1))  # put back by hand, exactly
    assert store.index().changed == 0  # not seen: the one change a walk cannot tell
    assert store.index(rebuild=True).changed >= 1
    assert store.search("ferry 1300").hits[0].path == "areas/a.html"
