"""The archive click after its preview: the plan is not made again and `git` runs at most 8 times.

Counted on the real code path: `subprocess.run` is wrapped to count the `git` processes started
(each still runs); nothing else is replaced. Varied over memories in different folders, and over a
repository whose refs are packed (HEAD's tip read from packed-refs, not a loose ref file).
"""

from __future__ import annotations

import subprocess

import pytest

from write.support import git, open_store, pin_git, seed

TARGETS = (
    "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html",
    "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html",
)


@pytest.fixture
def curator(tmp_path, monkeypatch):
    from memhtml_desktop.write.curator import Curator

    pin_git(monkeypatch, tmp_path)
    return Curator(open_store(seed(tmp_path)))


def _counting(monkeypatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real = subprocess.run

    def counted(args, *a, **k):
        if isinstance(args, (list, tuple)) and args and str(args[0]).endswith("git"):
            calls.append([str(x) for x in args[3:5]])
        return real(args, *a, **k)

    monkeypatch.setattr(subprocess, "run", counted)
    return calls


@pytest.mark.parametrize("packed", [False, True])
def test_an_archive_after_its_preview_runs_git_at_most_8_times(curator, monkeypatch, packed) -> None:
    from memhtml_desktop.write.requests import ArchiveRequest

    if packed:
        git(curator.root, "pack-refs", "--all")
        assert not (curator.root / ".git" / "refs" / "heads" / "main").exists()
    for target in TARGETS:
        head = git(curator.root, "rev-parse", "HEAD").strip()
        plan = curator.plan(ArchiveRequest(target, reason="done"))
        calls = _counting(monkeypatch)
        applied = curator.apply(plan)
        monkeypatch.undo()
        assert len(calls) <= 8, calls
        assert git(curator.root, "rev-parse", "HEAD~1").strip() == head
        assert applied.commit_sha == git(curator.root, "rev-parse", "HEAD").strip()
        assert git(curator.root, "status", "--porcelain") == ""
        assert git(curator.root, "log", "-1", "--format=%s").startswith("memhtml(archive): ")


def test_a_signing_setting_made_after_the_preview_is_seen(curator, monkeypatch) -> None:
    """git's answers are remembered only while its config files are unchanged."""
    from memhtml_desktop.write.errors import WriteError
    from memhtml_desktop.write.requests import ArchiveRequest

    plan = curator.plan(ArchiveRequest(TARGETS[0], reason="done"))
    git(curator.root, "config", "commit.gpgsign", "true")
    git(curator.root, "config", "gpg.program", "/nonexistent/gpg")
    head = git(curator.root, "rev-parse", "HEAD").strip()
    with pytest.raises(WriteError):
        curator.apply(plan)  # signing asked for, and the signer missing: refused, nothing committed
    assert git(curator.root, "rev-parse", "HEAD").strip() == head
    assert (curator.root / TARGETS[0]).exists()


def test_the_watchers_pass_over_the_apps_own_write_rebuilds_nothing(curator) -> None:
    """After the click the watcher reports the two paths the app just indexed: its pass reads and
    hashes them, finds the bytes indexed, and leaves the index's version (so the vector snapshot
    and the salience list) as they are; a real change still moves it."""
    from memhtml_desktop.write.requests import ArchiveRequest

    store = curator.store
    store.search("deregistration delay", limit=10)
    applied = curator.apply(curator.plan(ArchiveRequest(TARGETS[0], reason="done")))
    store.search("deregistration delay", limit=10)  # the list after the click: the snapshot follows the write
    version = lambda: store.reader().execute("SELECT vectors_version FROM index_state WHERE id = 1").fetchone()[0]  # noqa: E731
    kept = store.caches.vectors._snapshots
    after_click, snapshot = version(), kept.get((str(store.index_path), store.embedder.space))
    report = store.update_paths([TARGETS[0], "archive/2026/" + TARGETS[0]])
    assert report.unchanged == 1 and not report.touched
    assert version() == after_click
    store.search("deregistration delay", limit=10)
    assert store.caches.vectors._snapshots.get((str(store.index_path), store.embedder.space)) is snapshot
    other = curator.root / TARGETS[1]
    other.write_bytes(other.read_bytes().replace(b"</article>", b"<p>Edited by hand.</p></article>"))
    assert store.update_paths([TARGETS[1]]).changed == 1 and version() > after_click
    assert applied.commit_sha


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_after_the_click_the_search_caches_are_patched_not_rebuilt(curator, order) -> None:
    """The list's next search after an archive brings the vector snapshot, the coverage count and
    the salience list up to date from the rows the click changed (index/changes.py), and each
    equals what a build from nothing gives on the index as it stands."""
    import numpy as np

    from memhtml_desktop.index import changes, salience, vectors
    from memhtml_desktop.write.requests import ArchiveRequest

    store = curator.store
    conn, key, space, dim = store.reader(), str(store.index_path), store.embedder.space, store.embedder.dim
    store.search("deregistration delay", limit=10)
    (live,) = conn.execute("SELECT count(*) FROM files WHERE archived = 0").fetchone()
    for n, index in enumerate(order, start=1):
        patched, rebuilt = store.caches.vectors.patched, store.caches.salience.rebuilt
        curator.apply(curator.plan(ArchiveRequest(TARGETS[index], reason="done")))
        hits = store.search("deregistration delay", limit=10).hits
        assert TARGETS[index] not in {h.path for h in hits}
        assert store.caches.vectors.patched == patched + 1 and store.caches.salience.rebuilt == rebuilt
        with conn:
            got = store.caches.vectors.snapshot(conn, key, space, dim)
            want = vectors._build(conn, got.version, space, dim, None)
            assert list(got.file_paths) == list(want.file_paths) and "archive/2026/" + TARGETS[index] in got.file_paths
            assert np.array_equal(got.file_path_rank, want.file_path_rank) and np.array_equal(got.matrix, want.matrix)
            assert got.chunk_row == want.chunk_row and got.rowid_to_file == want.rowid_to_file
            assert store.caches.vectors.coverage(conn, key, space) == (
                live - n,
                live - n,
            )  # archived memories are not counted
            memories, _ = store.caches.salience._kept[key]
            whole = salience.Memories.read(conn, changes.mark(conn), salience.state_mark(conn))
            for name in ("rowids", "updated", "since", "base"):
                assert np.array_equal(getattr(memories, name), getattr(whole, name), equal_nan=True), name
