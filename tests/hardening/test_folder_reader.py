"""A batch of store files read through `guarded.FolderReader` comes out as `read_guarded` says.

The parse workers read a batch's files relative to each folder's descriptor, opened once, instead
of resolving every path (a fifth of reading 20,000 files). Whatever a hostile store holds, the
reader must give the bytes `read_guarded` gives, or raise what it raises with its words: a link
out of the store (file or folder), a link inside it, `..`, a FIFO (never blocked on), a device, a
folder named like a memory, a file over the cap, a file that grew since its stat, a missing one, a
name that cannot be a path. And it must never read outside the store, even when the store changes
under a reader that holds folders open.
"""

from __future__ import annotations

import os

import pytest

from memhtml_desktop.guarded import FolderReader, TooLarge, Unreadable, read_guarded
from memhtml_desktop.index.scanner import read_bytes, store_reader

CAP = 4096


def _outcome(call):
    try:
        return ("bytes", call())
    except (Unreadable, OSError, ValueError) as exc:
        return (type(exc).__name__, str(exc))


@pytest.fixture
def store(tmp_path):
    root = tmp_path / "store"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.html").write_text("s3cr3t")
    (outside / "x.html").write_text("outside x")
    real = root / "areas" / "real"
    real.mkdir(parents=True)
    (real / "x.html").write_text("<p>real x</p>")
    (real / "y.html").write_bytes(b"\xff\xfe not utf-8 \x00 bytes")
    (root / "areas" / "plain.html").write_text("<p>plain</p>")
    (root / "areas" / "empty.html").write_bytes(b"")
    (root / "areas" / "big.html").write_bytes(b"x" * (CAP + 1))
    (root / "areas" / "at-cap.html").write_bytes(b"y" * CAP)
    (root / "areas" / "dir.html").mkdir()
    os.mkfifo(root / "areas" / "fifo.html")
    os.symlink(real / "x.html", root / "areas" / "link-in.html")
    os.symlink(outside / "secret.html", root / "areas" / "link-out.html")
    os.symlink("/dev/zero", root / "areas" / "zero.html")
    os.symlink(real, root / "areas" / "in-dir")
    os.symlink(outside, root / "areas" / "out-dir")
    os.symlink("nowhere.html", root / "areas" / "dangling.html")
    return root, outside


PATHS = [
    "areas/plain.html", "areas/empty.html", "areas/real/x.html", "areas/real/y.html", "areas/big.html",
    "areas/at-cap.html", "areas/dir.html", "areas/fifo.html", "areas/link-in.html", "areas/link-out.html",
    "areas/zero.html", "areas/in-dir/x.html", "areas/out-dir/x.html", "areas/out-dir/secret.html",
    "areas/dangling.html", "areas/missing.html", "areas/real/../real/x.html", "areas/../../outside/x.html",
    "../outside/x.html", "areas/./plain.html", "areas//plain.html", "areas/real/", "", "areas/nul\x00.html",
    "areas/missing-dir/x.html", "areas/plain.html/x.html",
]  # fmt: skip


@pytest.mark.parametrize("path", PATHS)
def test_each_path_reads_as_the_full_guard_reads_it(store, path):
    root, _ = store
    expected = _outcome(
        lambda: read_guarded(os.path.join(*path.split("/")) if path else "", root=root, cap=CAP, what=path)
    )
    with FolderReader(root, cap=CAP) as reader:
        assert _outcome(lambda: reader.read(path, what=path)) == expected
        assert _outcome(lambda: reader.read(path, what=path)) == expected  # its folders kept open


def test_one_reader_reads_a_whole_mixed_batch_and_nothing_outside(store):
    root, _ = store
    with FolderReader(root, cap=CAP) as reader:
        got = {path: _outcome(lambda: reader.read(path, what=path)) for path in PATHS * 2}
    assert got["areas/plain.html"] == ("bytes", b"<p>plain</p>")
    assert got["areas/link-in.html"] == ("bytes", b"<p>real x</p>")  # a link inside the store is read
    assert got["areas/in-dir/x.html"] == ("bytes", b"<p>real x</p>")
    assert got["areas/at-cap.html"] == ("bytes", b"y" * CAP)
    assert got["areas/big.html"][0] == "TooLarge"
    assert "is a FIFO" in got["areas/fifo.html"][1]
    assert "a directory" in got["areas/dir.html"][1]
    assert got["areas/missing.html"][0] == "FileNotFoundError"
    for path, (kind, value) in got.items():
        assert b"s3cr3t" not in (value if kind == "bytes" else b""), path
        assert value != b"outside x", path


def test_read_bytes_with_a_reader_says_what_it_says_without(store):
    root, _ = store
    reader = store_reader(root)
    try:
        for path in PATHS:
            assert _outcome(lambda: read_bytes(root, path, reader)) == _outcome(lambda: read_bytes(root, path)), path
    finally:
        reader.close()


def test_a_file_swapped_for_a_link_or_a_fifo_under_an_open_reader(store):
    root, outside = store
    target = root / "areas" / "real" / "x.html"
    with FolderReader(root, cap=CAP) as reader:
        assert reader.read("areas/real/x.html") == b"<p>real x</p>"  # the folder is now held open
        target.unlink()
        os.symlink(outside / "secret.html", target)
        with pytest.raises(Unreadable, match="leads out of the store"):
            reader.read("areas/real/x.html")
        target.unlink()
        os.mkfifo(target)
        with pytest.raises(Unreadable, match="FIFO"):
            reader.read("areas/real/x.html")


def test_a_folder_swapped_for_a_link_out_under_an_open_reader_is_not_followed(store):
    """The reader holds the folder it opened: after `areas/real` is moved aside and a link to a
    folder outside takes its name, what is read is the store's own folder (moved), never the
    outside one the path now leads to."""
    root, outside = store
    with FolderReader(root, cap=CAP) as reader:
        assert reader.read("areas/real/x.html") == b"<p>real x</p>"
        os.rename(root / "areas" / "real", root / "areas" / "moved")
        os.symlink(outside, root / "areas" / "real")
        assert reader.read("areas/real/x.html") == b"<p>real x</p>"
    with FolderReader(root, cap=CAP) as fresh:
        with pytest.raises(Unreadable, match="leads out of the store"):
            fresh.read("areas/real/x.html")


def test_a_file_that_grew_past_the_cap_since_its_stat_is_refused(store, monkeypatch):
    root, _ = store
    path = root / "areas" / "plain.html"
    real_fstat = os.fstat

    def fstat_then_grow(fd):  # the file grows between the reader's fstat and its read
        st = real_fstat(fd)
        if os.path.samestat(st, os.stat(path)) and path.stat().st_size < CAP:
            path.write_bytes(b"z" * (CAP + 10))
        return st

    monkeypatch.setattr(os, "fstat", fstat_then_grow)
    with FolderReader(root, cap=CAP) as reader:
        with pytest.raises(TooLarge):
            reader.read("areas/plain.html")


def test_closing_lets_go_of_every_folder(store):
    root, _ = store
    before = len(os.listdir("/proc/self/fd"))
    reader = FolderReader(root, cap=CAP)
    for path in PATHS:
        _outcome(lambda: reader.read(path))
    assert len(os.listdir("/proc/self/fd")) > before
    reader.close()
    assert len(os.listdir("/proc/self/fd")) == before
