"""The vector snapshot kept beside the index (index/vector_file.py): a new process maps it instead of
rebuilding it, and only when it is a whole file of this index at a version the change log can follow.

Each "process" here is a fresh `VectorCache` (what a new CLI call starts with) over a real index
built by the real indexer; the index is changed through the real indexer too (the steps of
tests/index/test_incremental_caches.py), and by another real process where concurrency is the
point. What every snapshot is held to: field by field and bit for bit, the snapshot built from
nothing on the index as it stands, in the same read transaction; and a search through it gives the
same answer, byte for byte, as a search without any file.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memhtml_desktop.domain.embedder import space_of
from memhtml_desktop.index import salience, vector_file, vectors
from memhtml_desktop.index.caches import StoreCaches
from memhtml_desktop.index.retrieval import Retriever
from memhtml_desktop.index.store import Store
from memhtml_desktop.index.vectors import VectorCache
from tests.index.test_incremental_caches import STEPS, _same_snapshot, _store, add, same_as_whole_list

ROOT = Path(__file__).resolve().parents[2]
NOW = dt.datetime(2026, 11, 29, 12, 0, 0, tzinfo=dt.timezone.utc)
QUERIES = ("drain the vip before reverting the deploy", "ledger vacuum", "token signing key rotation", "zzqx")


def _kept(store: Store) -> Path:
    return vector_file.path_for(store.index_path, space_of(store.embedder))


def _fresh(store: Store) -> tuple[VectorCache, vectors.VectorSnapshot, vectors.VectorSnapshot]:
    """A new process's cache and its snapshot, with the snapshot built whole in the same read."""
    conn, space, dim = store.reader(), space_of(store.embedder), store.embedder.dim
    cache = VectorCache()
    with conn:
        got = cache.snapshot(conn, str(store.index_path), space, dim)
        want = vectors._build(conn, got.version, space, dim, None)
    _same_snapshot(got, want)
    query = np.asarray(np.random.default_rng(got.version).standard_normal(dim), dtype=np.float32)
    for top in (1, 9, None):
        a, b = got.ranked_files(query, top), want.ranked_files(query, top)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1].view(np.uint32), b[1].view(np.uint32))
    some = want.file_rowids[:: max(1, want.file_rowids.shape[0] // 37)].tolist()
    assert got.best_similarities(query, some) == want.best_similarities(query, some)
    return cache, got, want


def _fresh_salience(store: Store) -> salience.SalienceCache:
    """A new process's salience list: equal, array for array, to the list read whole."""
    cache = salience.SalienceCache()
    conn = store.reader()
    with conn:
        same_as_whole_list(cache, conn, str(store.index_path))
    return cache


def _answers(store: Store, cache: VectorCache) -> list[str]:
    """The JSON of a few searches through `cache`, at one pinned instant (salience reads the clock)."""
    conn = store.reader()
    conn.clock.clock = lambda: NOW
    retriever = Retriever(conn, store.embedder, cache_key=str(store.index_path), caches=StoreCaches(vectors=cache))
    out = []
    for query in QUERIES:
        result = retriever.search(query, limit=10).to_json()
        result.pop("elapsed_ms", None)
        out.append(json.dumps(result, sort_keys=True))
    return out


@pytest.mark.parametrize(("seed", "embedder"), [(1, "hash"), (2, "hash"), (3, "minilm")])
def test_a_new_process_maps_the_kept_snapshot_and_answers_the_same(tmp_path, seed, embedder):
    if embedder == "minilm":
        pytest.importorskip("onnxruntime")
    store = _store(tmp_path, seed, embedder, count=90 if embedder == "minilm" else 160)
    first, built, _ = _fresh(store)
    assert (first.kept, first.mapped) == (1, 0) and built.pages is None and _kept(store).is_file()
    second, mapped, _ = _fresh(store)
    assert (second.kept, second.mapped, second.patched) == (0, 1, 0) and mapped.pages is not None
    without = VectorCache(beside_index=False)
    assert _answers(store, second) == _answers(store, without)


def test_a_stale_file_is_patched_through_the_change_log_and_kept_again(tmp_path):
    store = _store(tmp_path, 4, "hash")
    _fresh(store)
    first = _fresh_salience(store)
    assert (first.kept, first.mapped, first.rebuilt) == (1, 0, 1)
    assert _fresh_salience(store).mapped == 1
    rng = random.Random(4)
    for step in STEPS:
        before = _header(store)["version"]
        step(store, rng)
        cache, got, _ = _fresh(store)
        assert cache.mapped == 0, step.__name__
        assert cache.patched == 1 or got.version == before, f"{step.__name__}: rebuilt, not patched"
        assert _header(store)["version"] == got.version, f"{step.__name__}: the patched snapshot was not kept"
        again, _, _ = _fresh(store)
        assert again.mapped == 1, step.__name__
        listed = _fresh_salience(store)  # the salience list's index half, followed the same way
        assert listed.rebuilt == 0 and (listed.kept, listed.mapped) in ((1, 0), (0, 1)), step.__name__
        assert _fresh_salience(store).mapped == 1, step.__name__


def _header(store: Store) -> dict:
    head, _, _ = vector_file.read(_kept(store))
    return head


def _spoil(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    head, arrays, _ = vector_file.read(path)
    if how == "truncated":
        path.write_bytes(bytes(data[:-1]))
    elif how == "header bit":
        data[20] ^= 0x01
        path.write_bytes(bytes(data))
    elif how == "rows out of order":
        offset = head["sections"]["file_starts"][0]
        data[offset + 8 : offset + 16] = (10**9).to_bytes(8, "little")  # a file starting past the matrix
        path.write_bytes(bytes(data))
    elif how in ("another index", "a version ahead", "another space"):
        fields = {"another index": {"index": [1, 2]}, "a version ahead": {"version": head["version"] + 3},
                  "another space": {"space": "other@384"}}[how]  # fmt: skip
        keep = {k: v for k, v in head.items() if k not in ("format", "sections", "size")}
        vector_file.write(path, dict(keep, **fields), {k: np.array(v) for k, v in arrays.items()})
    elif how == "empty":
        path.write_bytes(b"")
    else:
        raise AssertionError(how)


@pytest.mark.parametrize(
    "how",
    ["truncated", "header bit", "rows out of order", "another index", "a version ahead", "another space", "empty"],
)
def test_a_file_that_is_not_whole_or_not_this_index_is_never_used(tmp_path, how):
    store = _store(tmp_path, 5, "hash", count=90)
    _fresh(store)
    _fresh_salience(store)
    _spoil(_kept(store), how)
    cache, got, _ = _fresh(store)  # equal to a whole build, bit for bit (checked inside)
    assert cache.mapped == 0 and cache.kept == 1 and got.pages is None
    again, _, _ = _fresh(store)
    assert again.mapped == 1  # written again, whole
    if how in ("truncated", "header bit", "another index", "empty"):  # the same file format and checks
        _spoil(vector_file.beside(store.index_path, salience._FILE), how)
        listed = _fresh_salience(store)
        assert listed.mapped == 0 and listed.rebuilt == 1 and listed.kept == 1


def test_a_copied_index_does_not_take_the_copy_s_file(tmp_path):
    """Another index file under the same name (a copy put back, a restore) is another index to the
    file beside it, even with the same rows: its inode differs."""
    store = _store(tmp_path, 6, "hash", count=90)
    _fresh(store)
    store.reader().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    store.close_thread_connection()
    copy = tmp_path / "copy.db"
    copy.write_bytes(store.index_path.read_bytes())
    os.replace(copy, store.index_path)
    assert _kept(store).is_file()
    cache, _, _ = _fresh(store)
    assert cache.mapped == 0 and cache.kept == 1


def _count_a_read_elsewhere(store: Store, path: str, count: int) -> None:
    """memhtml's CLI counting a read through its own connection: the state plane moves, the index not."""
    import apsw

    other = apsw.Connection(str(store.state_path))
    with other:
        other.execute(
            "INSERT INTO access (path, access_count, reinforcement_count, outcome_score, last_accessed_at, updated_at) "
            "VALUES (?, ?, 0, 0.5, '2026-11-29T11:00:00Z', '2026-11-29T11:00:00Z') "
            "ON CONFLICT(path) DO UPDATE SET access_count = excluded.access_count, "
            "last_accessed_at = '2026-11-29T11:00:00Z'",
            (path, count),
        )
    other.close()


def _eligible(store: Store, seed: int) -> str:
    rows = (
        store.reader()
        .execute(
            "SELECT path FROM files WHERE memory_type <> 'task' AND path NOT LIKE 'resources/people/%' ORDER BY path"
        )
        .fetchall()
    )
    return random.Random(seed).choice(rows)[0]


@pytest.mark.parametrize("seed", [7, 8])
def test_a_new_process_takes_the_state_half_kept_until_the_state_plane_moves(tmp_path, monkeypatch, seed):
    """The access rows' half of the salience list is kept beside the index and used by the next
    process while state.db is as `stat` saw it; a read counted by another program moves the file's
    mark, and the next process reads the rows again (equal, array for array, to the list read whole:
    checked inside `_fresh_salience`, so a stale half would fail there)."""
    monkeypatch.setattr(salience, "SETTLED_S", 0.0)  # the file was written a moment ago (see the next test)
    store = _store(tmp_path, seed, "hash", count=90 + seed)
    first = _fresh_salience(store)
    assert (first.kept_access, first.mapped_access) == (1, 0)
    assert vector_file.beside(store.index_path, salience._ACCESS_FILE).is_file()
    second = _fresh_salience(store)
    assert (second.kept_access, second.mapped_access, second.rebuilt) == (0, 1, 0)
    path = _eligible(store, seed)
    for count in (1000 + seed, 3):  # once with a new size of the file's contents, once the same rows count
        _count_a_read_elsewhere(store, path, count)
        moved = _fresh_salience(store)
        assert (moved.kept_access, moved.mapped_access) == (1, 0), count
        again = _fresh_salience(store)
        assert (again.kept_access, again.mapped_access) == (0, 1), count


def test_a_new_process_within_the_hour_takes_the_kept_bound_list(tmp_path, monkeypatch):
    """The bound list is kept with the state half, for its hour: a process within it takes the list
    as it is (exact for any instant of the hour: `_fresh_salience` compares it with the list computed
    whole at its t0), and the first one past it makes the list again and keeps that."""
    monkeypatch.setattr(salience, "SETTLED_S", 0.0)
    store = _store(tmp_path, 11, "hash", count=95)
    clock = [NOW]
    store.reader().clock.clock = lambda: clock[0]
    key = str(store.index_path)

    def t0_of(cache: salience.SalienceCache) -> dt.datetime:
        return dt.datetime.fromtimestamp(cache._kept[key][1].t0, dt.timezone.utc)

    assert _fresh_salience(store).kept_access == 1
    for later, t0, kept in (
        (dt.timedelta(minutes=30), NOW, 0),
        (dt.timedelta(minutes=58), NOW, 0),
        (dt.timedelta(hours=2), NOW + dt.timedelta(hours=2), 1),
        (dt.timedelta(hours=2, minutes=5), NOW + dt.timedelta(hours=2), 0),
    ):
        clock[0] = NOW + later
        cache = _fresh_salience(store)
        assert (cache.mapped_access, cache.kept_access, t0_of(cache)) == (1, kept, t0), later


def test_a_state_plane_written_a_moment_ago_is_not_kept(tmp_path, monkeypatch):
    """A state file whose last write is younger than SETTLED_S is read, not kept: a second write in
    the same clock tick could leave its size and times as they were."""
    store = _store(tmp_path, 9, "hash", count=90)
    _count_a_read_elsewhere(store, _eligible(store, 9), 77)
    listed = _fresh_salience(store)
    assert (listed.kept_access, listed.mapped_access) == (0, 0)
    assert not vector_file.beside(store.index_path, salience._ACCESS_FILE).exists()
    monkeypatch.setattr(salience, "SETTLED_S", 0.0)
    assert _fresh_salience(store).kept_access == 1


@pytest.mark.parametrize("how", ["truncated", "header bit", "another index", "empty", "another state", "fewer rows"])
def test_a_state_half_not_whole_or_not_of_this_state_is_never_used(tmp_path, monkeypatch, how):
    monkeypatch.setattr(salience, "SETTLED_S", 0.0)
    store = _store(tmp_path, 10, "hash", count=90)
    _count_a_read_elsewhere(store, _eligible(store, 10), 55)
    assert _fresh_salience(store).kept_access == 1
    path = vector_file.beside(store.index_path, salience._ACCESS_FILE)
    if how in ("another state", "fewer rows"):
        head, arrays, _ = vector_file.read(path)
        keep = {k: v for k, v in head.items() if k not in ("format", "sections", "size")}
        arrays = {k: np.array(v) for k, v in arrays.items()}
        if how == "another state":
            keep["state"] = [keep["state"][0], [1, 2, 3, 4], *keep["state"][2:]]
        else:
            arrays = {k: v[:-1] for k, v in arrays.items()}
        vector_file.write(path, keep, arrays)
    else:
        _spoil(path, how)
    listed = _fresh_salience(store)  # equal to the list read whole (checked inside)
    assert listed.mapped_access == 0 and listed.kept_access == 1


_BLOCKED = """
import json, sys
import numpy as np
from memhtml_desktop.index import vector_file
from memhtml_desktop.threads import blas_threads
vector_file.Pages.give_back = True  # as the command line runs: block by block
path = sys.argv[1]
_, arrays, mapped = vector_file.read(vector_file.Path(path))
pages = mapped.pages(vector_file.HEADER_BYTES)
query = np.frombuffer(bytes.fromhex(sys.argv[2]), dtype=np.float32)
pick = np.frombuffer(bytes.fromhex(sys.argv[3]), dtype=np.int64)
print(json.dumps({"threads": blas_threads(), "blocked": pages.blocked,
                  "product": pages.product(arrays["matrix"], query).tobytes().hex(),
                  "whole": (arrays["matrix"] @ query).tobytes().hex(),
                  "gather": (pages.rows(arrays["matrix"], pick) @ query).tobytes().hex(),
                  "gathered": (arrays["matrix"][pick] @ query).tobytes().hex()}))
"""


@pytest.mark.parametrize("threads", ["1", "2"])
def test_blocked_products_equal_one_product(tmp_path, threads):
    """What `Pages` computes is what one product over the whole matrix computes, bit for bit, rows
    at the tail included (odd row counts, both the arm's and a gather's): block by block on one
    BLAS thread (as the command runs), whole on two (the split of rows among threads differs)."""
    rng = np.random.default_rng(7)
    for rows, dim in ((2 * vector_file.Pages.BLOCK + 37, 384), (vector_file.Pages.BLOCK - 3, 48)):
        matrix = rng.standard_normal((rows, dim)).astype(np.float32)
        path = tmp_path / f"m{rows}"
        vector_file.write(path, {"n": rows}, {"matrix": matrix})
        query = rng.standard_normal(dim).astype(np.float32)
        pick = rng.choice(rows, size=vector_file.Pages.SCATTERED // 2 + 5, replace=True).astype(np.int64)
        env = {**_child_env(), "OPENBLAS_NUM_THREADS": threads, "OMP_NUM_THREADS": threads}
        proc = subprocess.run(
            [sys.executable, "-c", _BLOCKED, str(path), query.tobytes().hex(), pick.tobytes().hex()],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            cwd=ROOT,
        )
        assert proc.returncode == 0, proc.stderr
        got = json.loads(proc.stdout)
        assert got["threads"] == int(threads) and got["blocked"] == (threads == "1")
        assert got["product"] == got["whole"] and got["gather"] == got["gathered"]


@pytest.mark.parametrize("give_back", [True, False])
def test_blocks_in_this_process_equal_one_product(tmp_path, monkeypatch, give_back):
    monkeypatch.setattr(vector_file.Pages, "give_back", give_back)
    rng = np.random.default_rng(8)
    for rows, dim in ((2 * vector_file.Pages.BLOCK + 37, 384), (vector_file.Pages.BLOCK - 3, 48), (5, 384)):
        matrix = rng.standard_normal((rows, dim)).astype(np.float32)
        path = tmp_path / f"m{rows}"
        vector_file.write(path, {"n": rows}, {"matrix": matrix})
        _, arrays, mapped = vector_file.read(path)
        pages = mapped.pages(vector_file.HEADER_BYTES)
        for _ in range(4):
            query = rng.standard_normal(dim).astype(np.float32)
            whole = matrix @ query
            assert np.array_equal(pages.product(arrays["matrix"], query).view(np.uint32), whole.view(np.uint32))
            for size in (vector_file.Pages.SCATTERED // 2 + 5, vector_file.Pages.SCATTERED + 9):  # pread, mapped
                pick = rng.choice(rows, size=size, replace=True)
                assert np.array_equal(pages.rows(arrays["matrix"], pick), matrix[pick])
                gathered = matrix[pick] @ query
                assert np.array_equal(
                    (pages.rows(arrays["matrix"], pick) @ query).view(np.uint32), gathered.view(np.uint32)
                )


def _child_env() -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}


def _rss_file_kb() -> int:
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith("RssFile"))


def test_a_product_gives_the_file_s_pages_back(tmp_path, monkeypatch):
    monkeypatch.setattr(vector_file.Pages, "give_back", True)  # as the command line runs
    rows, dim = 60000, 384  # 92 MB of matrix
    matrix = np.ones((rows, dim), dtype=np.float32)
    path = tmp_path / "big"
    vector_file.write(path, {}, {"matrix": matrix})
    del matrix
    _, arrays, mapped = vector_file.read(path)
    pages = mapped.pages(vector_file.HEADER_BYTES)
    before = _rss_file_kb()
    pages.product(arrays["matrix"], np.ones(dim, dtype=np.float32))
    pages.rows(arrays["matrix"], np.random.default_rng(3).choice(rows, 400)) @ np.ones(dim, dtype=np.float32)
    assert _rss_file_kb() - before < 16 * 1024  # a block at a time, and scattered rows read, not mapped
    _ = float(arrays["matrix"].sum())  # what reading without giving back costs: the whole file
    assert _rss_file_kb() - before > 80 * 1024


def test_a_long_lived_process_keeps_the_pages_it_read(tmp_path, monkeypatch):
    """The engine (and any process but the command line) keeps the matrix mapped: each search's
    product would otherwise map it again, a page fault per few pages (vector_file.Pages)."""
    monkeypatch.setattr(vector_file.Pages, "give_back", False)
    rows, dim = 30000, 384  # 46 MB
    vector_file.write(tmp_path / "m", {}, {"matrix": np.ones((rows, dim), dtype=np.float32)})
    _, arrays, mapped = vector_file.read(tmp_path / "m")
    pages = mapped.pages(vector_file.HEADER_BYTES)
    before = _rss_file_kb()
    pages.product(arrays["matrix"], np.ones(dim, dtype=np.float32))
    assert _rss_file_kb() - before > 40 * 1024  # mapped, and kept


def test_the_command_line_gives_the_pages_back(tmp_path, monkeypatch):
    from memhtml_desktop.cli import parse
    from memhtml_desktop.cli.common import open_store
    from tests.ui.conftest import write_golden_store

    monkeypatch.setattr(vector_file.Pages, "give_back", False)
    root = write_golden_store(tmp_path / "store")
    store = open_store(parse(["--store", str(root), "--index", str(tmp_path / "i.db"), "search", "x"]))
    store.close_thread_connection()
    assert vector_file.Pages.give_back is True


_WRITER = """
import random
from memhtml_desktop.index.store import Store
from memhtml_desktop.index.vectors import VectorCache
from memhtml_desktop.domain.embedder import space_of
from tests.index.test_incremental_caches import add
store = Store({root!r}, index_path={index!r})
rng = random.Random(11)
for i in range({rounds}):
    add(store, rng)  # the real indexer, one memory a round
    conn = store.reader()
    VectorCache().snapshot(conn, str(store.index_path), space_of(store.embedder), store.embedder.dim)  # and keeps it
print("done", flush=True)
"""


def test_a_reader_beside_another_process_that_indexes_and_keeps_the_file(tmp_path):
    """Another process adds memories and writes the file after each; this one, meanwhile, takes
    the snapshot as a new process would, again and again: each equals the whole build of what it read."""
    store = _store(tmp_path, 8, "hash", count=100)
    _fresh(store)
    script = _WRITER.format(root=str(store.root), index=str(store.index_path), rounds=25)
    writer = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_child_env(),
    )
    seen, mapped = set(), 0
    try:
        while writer.poll() is None or len(seen) < 2:
            cache, got, _ = _fresh(store)
            seen.add(got.version)
            mapped += cache.mapped
            if writer.poll() is not None and len(seen) >= 2:
                break
    finally:
        out, err = writer.communicate(timeout=300)
    assert writer.returncode == 0 and "done" in out, err
    cache, got, _ = _fresh(store)
    assert len(seen) >= 2 and cache.mapped == 1  # the writer's last file, whole


_KILLED = """
import os, time
from memhtml_desktop.index.store import Store
from memhtml_desktop.index.vectors import VectorCache
from memhtml_desktop.domain.embedder import space_of
def stop_here(fd):  # the whole temp file is written: the writer dies before it is renamed
    print("writing", flush=True)
    time.sleep(600)
os.fsync = stop_here
store = Store({root!r}, index_path={index!r})
VectorCache().snapshot(store.reader(), str(store.index_path), space_of(store.embedder), store.embedder.dim)
"""


def test_a_writer_killed_midway_leaves_no_file_anyone_uses(tmp_path):
    store = _store(tmp_path, 9, "hash", count=90)
    _fresh(store)
    add(store, random.Random(9))  # the kept file is now a version behind
    before = _kept(store).read_bytes()
    script = _KILLED.format(root=str(store.root), index=str(store.index_path))
    writer = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True, env=_child_env()
    )
    try:
        assert writer.stdout.readline().strip() == "writing"
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=60)
    leftovers = [p for p in _kept(store).parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers and _kept(store).read_bytes() == before  # the temp file, never renamed
    cache, _, _ = _fresh(store)  # the old file, patched (never the temp one), and kept again
    assert cache.mapped == 0 and cache.patched == 1 and cache.kept == 1
    assert not [p for p in _kept(store).parent.iterdir() if p.name.endswith(".tmp")]  # the dead writer's, removed


_LIMITED = """
import json, resource, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))  # every write past it fails (EFBIG), as on a full disk
from memhtml_desktop.index.store import Store
from memhtml_desktop.index.vectors import VectorCache
from tests.index.test_vector_file import _answers
store = Store({root!r}, index_path={index!r})
cache = VectorCache()
print(json.dumps({{"answers": _answers(store, cache), "kept": cache.kept}}))
"""


def test_a_file_that_cannot_be_written_costs_nothing_but_the_file(tmp_path):
    """A process that can write no file past 64 KB (as a full disk refuses it): the search answers
    the same, no file or temp file is left, and the next process builds the snapshot again."""
    store = _store(tmp_path, 10, "hash", count=90)
    reference = _answers(store, VectorCache(beside_index=False))
    _kept(store).unlink(missing_ok=True)
    script = _LIMITED.format(root=str(store.root), index=str(store.index_path), limit=64 * 1024)
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300, env=_child_env()
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {"answers": reference, "kept": 0}
    assert not _kept(store).exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
