"""The caches a search reads, followed through the change log, against the same caches built whole.

The vector snapshot, the vector coverage count and the salience bound list each depend on every
memory; after an index change they patch in the rows of the memories the change log
(index/changes.py, migration 0010) names since their version. Each step below makes one kind of
change through the real indexer (a move, an archive-like status change and move, a delete, an
add, an edited body, a twin, a vector re-embedded in place, vectors lost and made again, a state
row written by another program) and then requires the patched cache to equal, field by field and
bit for bit, the cache built from nothing on the index as it stands, and to have been patched
(not rebuilt). Every step changes what a whole build returns, so a patch that ignored the delta
fails. Varied over seeds and over both embedders.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import apsw
import numpy as np
import pytest

from memfiles import write_memory
from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.domain.embedder import space_of
from memhtml_desktop.index import changes, db, salience, vectors
from memhtml_desktop.index.sidecar import import_file
from memhtml_desktop.index.store import Store


def _store(tmp_path: Path, seed: int, embedder: str, count: int = 120) -> Store:
    from memhtml_desktop.embedders.registry import make_embedder

    made = generate_store(tmp_path / "store", count, seed, state=True)
    store = Store(made.root, index_path=tmp_path / "index.db", embedder=make_embedder(embedder))
    import_file(store.reader(), store.root)
    store.index()
    return store


def _memories(store: Store) -> list[str]:
    return [r[0] for r in store.reader().execute("SELECT path FROM files WHERE archived = 0 ORDER BY path")]


# -- the changes ---------------------------------------------------------------------------------


def move(store: Store, rng: random.Random) -> None:
    src = rng.choice(_memories(store))
    dst = f"areas/moved-{rng.randrange(10**6)}/{src.rsplit('/', 1)[1]}"
    (store.root / dst).parent.mkdir(parents=True, exist_ok=True)
    os.rename(store.root / src, store.root / dst)
    store.update_paths([], [(src, dst)])


def archive(store: Store, rng: random.Random) -> None:
    """What an archive does to the index: the status says archived, the file moves under archive/."""
    src = rng.choice([p for p in _memories(store) if not p.startswith("archive/")])
    text = (store.root / src).read_text(encoding="utf-8")
    text = text.replace('<meta name="memhtml-status" content="active">',
                        '<meta name="memhtml-status" content="archived">\n'
                        '<meta name="memhtml-archived" content="2026-11-29T12:00:00Z">')  # fmt: skip
    dst = f"archive/2026/{src}"
    (store.root / dst).parent.mkdir(parents=True, exist_ok=True)
    (store.root / dst).write_text(text, encoding="utf-8")
    (store.root / src).unlink()
    store.update_paths([src, dst], [(src, dst)])
    (archived,) = store.reader().execute("SELECT archived FROM files WHERE path = ?", (dst,)).fetchone()
    assert archived == 1


def delete(store: Store, rng: random.Random) -> None:
    path = rng.choice(_memories(store))
    (store.root / path).unlink()
    store.update_paths([path])


def add(store: Store, rng: random.Random) -> None:
    n = rng.randrange(10**6)
    path = f"projects/added/{n}-note.html"
    words = " ".join(rng.choice(["queue", "ledger", "retry", "vip", "drain", "shard", "invoice"]) for _ in range(12))
    write_memory(store.root, path, title=f"Added {n}", claim=f"Added memory {n} says {words}.",
                 body=" ".join(f"<p>{words} {i}.</p>" for i in range(rng.randrange(1, 30))),
                 created="2026-11-20T10:00:00Z", updated="2026-11-28T10:00:00Z")  # fmt: skip
    store.update_paths([path])


def edit(store: Store, rng: random.Random) -> None:
    """A new body: new chunks, new vectors, the old ones released."""
    path = rng.choice(_memories(store))
    text = (store.root / path).read_text(encoding="utf-8")
    cut = text.index("</article>") if "</article>" in text else len(text)
    addition = " ".join(
        f"<p>Edited paragraph {i} about {rng.choice(['quotas', 'tokens', 'leases'])}.</p>" for i in range(3)
    )
    (store.root / path).write_text(text[:cut] + addition + text[cut:], encoding="utf-8")
    store.update_paths([path])


def twin(store: Store, rng: random.Random) -> None:
    """A second file with one's exact bytes: the two share chunk rows (and vectors)."""
    src = rng.choice(_memories(store))
    dst = f"resources/twins/{rng.randrange(10**6)}-{src.rsplit('/', 1)[1]}"
    (store.root / dst).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(store.root / src, store.root / dst)
    store.update_paths([dst])


def _writer(store: Store) -> apsw.Connection:
    return db.open_index(store.index_path, state_path=store.state_path)


def reembed(store: Store, rng: random.Random) -> None:
    """A chunk's vector replaced in place (same chunk, same space: a re-embedding), the version moved."""
    conn = _writer(store)
    chunk_ids = [r[0] for r in conn.execute("SELECT chunk_id FROM embeddings ORDER BY chunk_id")]
    with db.writing(conn):
        for chunk_id in rng.sample(chunk_ids, 3):
            vec = np.asarray(
                np.random.default_rng(rng.randrange(10**6)).standard_normal(store.embedder.dim), dtype="<f4"
            )
            conn.execute("UPDATE embeddings SET vec = ? WHERE chunk_id = ?", (vec.tobytes(), chunk_id))
        conn.execute("UPDATE index_state SET vectors_version = vectors_version + 1 WHERE id = 1")
    conn.close()


def lose_vectors(store: Store, rng: random.Random) -> None:
    """Some memories' vectors gone (a space switch half done): coverage falls, the snapshot shrinks."""
    conn = _writer(store)
    hashes = [r[0] for r in conn.execute("SELECT DISTINCT content_hash FROM files ORDER BY content_hash")]
    with db.writing(conn):
        for content_hash in rng.sample(hashes, 4):
            conn.execute("DELETE FROM embeddings WHERE chunk_id IN (SELECT chunk_id FROM chunks WHERE content_hash = ?)",
                         (content_hash,))  # fmt: skip
        conn.execute("UPDATE index_state SET vectors_version = vectors_version + 1 WHERE id = 1")
    conn.close()


def embed_again(store: Store, rng: random.Random) -> None:
    store.index()


def read_elsewhere(store: Store, rng: random.Random) -> None:
    """memhtml's CLI counting a read, through its own connection, and an index change beside it."""
    other = apsw.Connection(str(store.state_path))
    with other:
        other.execute(
            "INSERT INTO access (path, access_count, reinforcement_count, outcome_score, last_accessed_at, updated_at) "
            "VALUES (?, 40, 0, 0.5, '2026-11-29T11:00:00Z', '2026-11-29T11:00:00Z') "
            "ON CONFLICT(path) DO UPDATE SET access_count = 40, last_accessed_at = '2026-11-29T11:00:00Z'",
            (rng.choice(_memories(store)),),
        )
    other.close()
    add(store, rng)


STEPS = (move, archive, delete, add, edit, twin, reembed, lose_vectors, read_elsewhere, move, edit)


# -- the comparisons -----------------------------------------------------------------------------


def _same_snapshot(got: vectors.VectorSnapshot, want: vectors.VectorSnapshot) -> None:
    assert list(got.chunk_ids) == list(want.chunk_ids)
    for name in ("chunk_file", "chunk_ordinal", "file_rowids", "file_starts", "file_path_rank", "first_chunk_row"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    assert got.matrix.shape == want.matrix.shape and np.array_equal(got.matrix, want.matrix)
    assert list(got.file_paths) == list(want.file_paths)
    assert got.chunk_row == want.chunk_row and got.rowid_to_file == want.rowid_to_file
    assert got.version == want.version


def _reference_coverage(conn, space: str) -> tuple[int, int]:
    """The count as the header means it, spelled the slow way: live memories, and those of them
    with no chunk lacking a vector in the space."""
    total, done = conn.execute(
        "SELECT count(*), coalesce(sum(NOT EXISTS (SELECT 1 FROM chunks c LEFT JOIN embeddings e "
        "ON e.chunk_id = c.chunk_id WHERE c.content_hash = f.content_hash AND e.model IS NOT ?)), 0) "
        "FROM files f WHERE f.archived = 0",
        (space,),
    ).fetchone()
    return int(total), int(done)


def same_as_whole_list(cache: salience.SalienceCache, conn, key: str) -> None:
    """`cache`'s bound list for the index `key` equals, array for array, the list read whole."""
    bounds, now = cache.bounds(conn, key)
    memories, _ = cache._kept[key]
    whole = salience.Memories.read(conn, changes.mark(conn), salience.state_mark(conn))
    for name in ("rowids", "updated", "since", "base"):
        assert np.array_equal(getattr(memories, name), getattr(whole, name), equal_nan=True), name
    full = salience.bound(whole, bounds.mark, bounds.t0)  # exact for any instant of its hour
    for name in ("rowids", "upper", "lower"):
        assert np.array_equal(getattr(bounds, name), getattr(full, name), equal_nan=True), name


def _check(store: Store, rng: random.Random, previous: vectors.VectorSnapshot, step) -> vectors.VectorSnapshot:
    conn, key = store.reader(), str(store.index_path)
    space, dim = space_of(store.embedder), store.embedder.dim
    patched, rebuilt = store.caches.vectors.patched, store.caches.salience.rebuilt
    with conn:
        got = store.caches.vectors.snapshot(conn, key, space, dim)
        want = vectors._build(conn, got.version, space, dim, None)
        assert store.caches.vectors.patched == patched + 1, f"{step.__name__}: the snapshot was rebuilt, not patched"
        _same_snapshot(got, want)
        changed = previous.size != want.size or list(previous.file_paths) != list(want.file_paths) \
            or not np.array_equal(previous.matrix, want.matrix)  # fmt: skip
        assert changed, f"{step.__name__} changed nothing the snapshot holds: the test would not see an ignored delta"
        for _ in range(3):
            query = np.asarray(np.random.default_rng(rng.randrange(10**6)).standard_normal(dim), dtype=np.float32)
            for top in (1, 7, None):
                a, b = got.ranked_files(query, top), want.ranked_files(query, top)
                assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])

        counts = store.caches.vectors.coverage(conn, key, space)
        assert (
            counts
            == _reference_coverage(conn, space)
            == vectors._Coverage.count(conn, space, changes.mark(conn)).counts
        )

        same_as_whole_list(store.caches.salience, conn, key)
        assert store.caches.salience.rebuilt == rebuilt, f"{step.__name__}: the salience list re-read every memory"
    return got


def _walk(store: Store, seed: int) -> None:
    rng = random.Random(seed)
    conn, key = store.reader(), str(store.index_path)
    with conn:
        previous = store.caches.vectors.snapshot(conn, key, space_of(store.embedder), store.embedder.dim)
        store.caches.vectors.coverage(conn, key, space_of(store.embedder))
        store.caches.salience.bounds(conn, key)
    steps = list(STEPS)
    rng.shuffle(steps)
    steps.insert(steps.index(lose_vectors) + 1, embed_again)  # the vectors made again, newest first
    for step in steps:
        step(store, rng)
        previous = _check(store, rng, previous, step)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_patched_caches_equal_whole_builds_hash(tmp_path, seed):
    _walk(_store(tmp_path, seed, "hash"), seed)


def test_patched_caches_equal_whole_builds_minilm(tmp_path):
    pytest.importorskip("onnxruntime")
    _walk(_store(tmp_path, 5, "minilm", count=80), 5)


def test_the_coverage_counts_live_memories_only(tmp_path):
    store = _store(tmp_path, 4, "hash")
    conn, key, space = store.reader(), str(store.index_path), space_of(store.embedder)
    (archived,) = conn.execute("SELECT count(*) FROM files WHERE archived = 1").fetchone()
    (live,) = conn.execute("SELECT count(*) FROM files WHERE archived = 0").fetchone()
    assert archived > 0
    assert store.caches.vectors.coverage(conn, key, space) == (live, live)
    archive(store, random.Random(4))
    assert store.caches.vectors.coverage(conn, key, space) == (live - 1, live - 1)


def test_a_cache_older_than_the_kept_log_is_built_whole(tmp_path):
    """Pruned past its version, or another index file at the same path: the log cannot vouch, so
    the cache is built whole (and still equals a whole build)."""
    store = _store(tmp_path, 6, "hash")
    conn, key, space, dim = store.reader(), str(store.index_path), space_of(store.embedder), store.embedder.dim
    rng = random.Random(6)
    with conn:
        store.caches.vectors.snapshot(conn, key, space, dim)
    for _ in range(3):
        add(store, rng)
    writer = _writer(store)
    with db.writing(writer):
        changes.prune(writer, keep_rows=1)
    writer.close()
    patched = store.caches.vectors.patched
    with conn:
        got = store.caches.vectors.snapshot(conn, key, space, dim)
        _same_snapshot(got, vectors._build(conn, got.version, space, dim, None))
    assert store.caches.vectors.patched == patched
    # the log covers what came after the prune again
    add(store, rng)
    with conn:
        store.caches.vectors.snapshot(conn, key, space, dim)
    assert store.caches.vectors.patched == patched + 1


def test_the_change_log_stays_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(changes, "KEEP_ROWS", 50)
    store = _store(tmp_path, 7, "hash")
    rng = random.Random(7)
    for _ in range(40):
        add(store, rng)
    conn = store.reader()
    (rows,) = conn.execute("SELECT count(*) FROM index_changes").fetchone()
    (start, version) = conn.execute("SELECT changes_from, vectors_version FROM index_state").fetchone()
    assert rows <= 50 and 0 < start <= version
    (oldest,) = conn.execute("SELECT min(version) FROM index_changes").fetchone()
    assert oldest >= start


def test_a_rewrite_of_the_same_bytes_logs_nothing(tmp_path):
    """The watcher's pass over files the app just indexed leaves the caches as they are."""
    store = _store(tmp_path, 8, "hash")
    path = _memories(store)[3]
    conn = store.reader()
    (before,) = conn.execute("SELECT count(*) FROM index_changes").fetchone()
    data = (store.root / path).read_bytes()
    (store.root / path).write_bytes(data)
    store.update_paths([path])
    (after,) = conn.execute("SELECT count(*) FROM index_changes").fetchone()
    assert after == before


def test_a_version_moved_with_nothing_logged_keeps_the_caches(tmp_path):
    """A write that moved the version and touched no memory: the caches keep their rows (and
    still equal whole builds); the change log names nothing, which must not be an error."""
    store = _store(tmp_path, 9, "hash")
    conn, key, space, dim = store.reader(), str(store.index_path), space_of(store.embedder), store.embedder.dim
    with conn:
        before = store.caches.vectors.snapshot(conn, key, space, dim)
        counts = store.caches.vectors.coverage(conn, key, space)
        store.caches.salience.bounds(conn, key)
    writer = _writer(store)
    with db.writing(writer):
        writer.execute("UPDATE index_state SET vectors_version = vectors_version + 1 WHERE id = 1")
    writer.close()
    patched, rebuilt = store.caches.vectors.patched, store.caches.salience.rebuilt
    with conn:
        got = store.caches.vectors.snapshot(conn, key, space, dim)
        assert got.version == before.version + 1 and store.caches.vectors.patched == patched + 1
        _same_snapshot(got, vectors._build(conn, got.version, space, dim, None))
        assert store.caches.vectors.coverage(conn, key, space) == counts == _reference_coverage(conn, space)
        store.caches.salience.bounds(conn, key)
        assert store.caches.salience.rebuilt == rebuilt
