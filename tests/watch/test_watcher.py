"""The live watcher over a real store and a real observer: every disk event becomes the right index change.

Each test changes files the way a person, an editor or git would, then waits (with a deadline) for
the index, read through a fresh connection or `Store.search` on this thread, to show the result.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from memhtml_desktop.index import state
from memhtml_desktop.watch.status import measure_health

from .conftest import INVALID, Fresh, found, wait_until, write


@pytest.fixture
def three(store_root):
    write(store_root, "areas/oncall/drain.html", "Drain", "Drain the VIP before reverting the deploy.")
    write(store_root, "areas/oncall/pager.html", "Pager", "The pager rotates every Monday at noon.")
    write(store_root, "resources/tools/kettle.html", "Kettle", "The kettle in room four boils slowly.")
    return store_root


def test_created_modified_deleted(three, make_store, start_watcher):
    store = make_store(three)
    start_watcher(store)
    fresh = Fresh(store)
    assert fresh.paths() == {"areas/oncall/drain.html", "areas/oncall/pager.html", "resources/tools/kettle.html"}

    write(three, "projects/apollo/launch.html", "Launch", "The zeppelin launch window opens at dawn.")
    wait_until(lambda: found(store, "zeppelin", "projects/apollo/launch.html"), what="a created file in search")

    write(three, "areas/oncall/pager.html", "Pager", "The pager rotates every Friday at dusk.")
    wait_until(lambda: found(store, "friday", "areas/oncall/pager.html"), what="a modified file in search")
    assert not found(store, "monday", "areas/oncall/pager.html")

    os.remove(three / "resources/tools/kettle.html")
    wait_until(lambda: "resources/tools/kettle.html" not in fresh.paths(), what="a deleted file to leave the index")
    assert not found(store, "kettle", "resources/tools/kettle.html")


@pytest.mark.parametrize("temp", [".pager.html.swp", "pager.html~", "pager.html.tmp123", ".goutputstream-XYZ12"])
def test_editor_save_by_rename_updates_the_target(three, make_store, start_watcher, temp):
    store = make_store(three)
    batches = []
    start_watcher(store, on_batch=batches.append)
    folder = three / "areas/oncall"
    (folder / temp).write_text(
        (folder / "pager.html").read_text().replace("every Monday at noon", "every Tuesday at nine")
    )
    os.replace(folder / temp, folder / "pager.html")
    wait_until(lambda: found(store, "tuesday", "areas/oncall/pager.html"), what="the saved text in search")
    assert Fresh(store).paths() == {"areas/oncall/drain.html", "areas/oncall/pager.html", "resources/tools/kettle.html"}
    assert all(b.removed == 0 for b in batches), "a save must never look like a delete"


def test_vim_style_save_backup_then_write(three, make_store, start_watcher):
    store = make_store(three)
    start_watcher(store)
    folder = three / "areas/oncall"
    os.rename(folder / "pager.html", folder / "pager.html~")
    write(three, "areas/oncall/pager.html", "Pager", "The pager rotates every Sunday at six.")
    os.remove(folder / "pager.html~")
    wait_until(lambda: found(store, "sunday", "areas/oncall/pager.html"), what="the saved text in search")
    assert "areas/oncall/pager.html" in Fresh(store).paths()


def _git(root, *args):
    subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        check=True,
        capture_output=True,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_mv_into_archive_moves_rows_vectors_and_state(three, make_store, start_watcher, embedder):
    _git(three, "init", "-q")
    _git(three, "add", "-A")
    _git(three, "commit", "-qm", "start")
    store = make_store(three)
    batches = []
    start_watcher(store, on_batch=batches.append)
    src, dst = "areas/oncall/drain.html", "archive/2026/areas/oncall/drain.html"
    result = state.reinforce(store.reader(), [src], "positive", "2026-08-01T12:00:00Z")
    assert result.bumped == (src,)
    embedded_before = embedder.indexed

    (three / "archive/2026/areas/oncall").mkdir(parents=True)
    _git(three, "mv", src, dst)

    fresh = Fresh(store)
    wait_until(lambda: dst in fresh.paths() and src not in fresh.paths(), what="the archived path in the index")
    assert fresh.row(dst)[1:] == (1, src, "archive")  # archived, origin_path, para
    assert embedder.indexed == embedded_before, "a move must reuse the vectors, not re-embed"
    # index.db and state.db commit one after the other (WAL is atomic per database), so a reader
    # can see the moved row a moment before the moved state row.
    wait_until(lambda: fresh.access(dst) is not None, what="the state row at the new path")
    assert fresh.access(dst)["reinforcement_count"] == 1
    assert fresh.access(src) is None
    moves = [m for b in batches if b.report for m in b.report.moves]
    assert (src, dst) in moves
    assert not found(store, "drain", dst)  # archived memories are out of search unless asked for


def test_plain_rename_keeps_vectors_and_state(three, make_store, start_watcher, embedder):
    store = make_store(three)
    start_watcher(store)
    src, dst = "resources/tools/kettle.html", "areas/kitchen/kettle.html"
    state.reinforce(store.reader(), [src], "neutral", "2026-08-01T12:00:00Z")
    embedded_before = embedder.indexed
    (three / "areas/kitchen").mkdir()
    os.rename(three / src, three / dst)
    wait_until(lambda: found(store, "kettle", dst), what="the renamed file in search")
    fresh = Fresh(store)
    assert src not in fresh.paths()
    assert embedder.indexed == embedded_before
    wait_until(lambda: fresh.access(dst) is not None, what="the state row at the new path")
    assert fresh.access(dst)["access_count"] == 1 and fresh.access(src) is None


def test_state_row_is_not_moved_over_an_existing_one(three, make_store, start_watcher):
    """memhtml's CLI moves the row itself; if the destination already has one, it is left alone."""
    store = make_store(three)
    start_watcher(store)
    src, dst = "areas/oncall/pager.html", "areas/oncall/pager-moved.html"
    state.reinforce(store.reader(), [src], "positive", "2026-08-01T12:00:00Z")
    state.reinforce(store.reader(), [dst], "negative", "2026-08-01T12:00:00Z")
    os.rename(three / src, three / dst)
    fresh = Fresh(store)
    wait_until(lambda: dst in fresh.paths() and src not in fresh.paths(), what="the move")
    assert fresh.access(dst)["outcome_score"] < 0  # the destination's own history, untouched


def test_invalid_file_leaves_search_and_comes_back_when_fixed(three, make_store, start_watcher):
    store = make_store(three)
    start_watcher(store)
    path = "areas/oncall/drain.html"
    fresh = Fresh(store)
    (three / path).write_text(INVALID.format(title="Drain", claim="Drain the VIP before reverting."))
    wait_until(lambda: path in fresh.problems(), what="the broken file in problems")
    assert path not in fresh.paths()
    assert not found(store, "drain", path)
    assert path in {p.path for p in store.problems()}
    wait_until(lambda: store_status_failed(store) == 1, what="the health count of failed files")

    write(three, path, "Drain", "Drain the VIP before reverting the deploy.")
    wait_until(lambda: found(store, "drain", path), what="the fixed file back in search")
    assert path not in fresh.problems()


def store_status_failed(store):
    return measure_health(store.reader(), store.root).failed


def test_directory_deleted_removes_every_path_below(three, make_store, start_watcher):
    store = make_store(three)
    start_watcher(store)
    shutil.rmtree(three / "areas/oncall")
    fresh = Fresh(store)
    wait_until(lambda: fresh.paths() == {"resources/tools/kettle.html"}, what="the folder's rows to go")


def test_directory_moved_out_of_the_tree_removes_its_rows(three, make_store, start_watcher, tmp_path):
    """One event for the folder and none for its files: the index's own list of paths is used."""
    store = make_store(three)
    start_watcher(store)
    os.rename(three / "areas/oncall", tmp_path / "oncall-elsewhere")
    fresh = Fresh(store)
    wait_until(lambda: fresh.paths() == {"resources/tools/kettle.html"}, what="the folder's rows to go")


def test_directory_moved_within_the_tree_moves_its_files(three, make_store, start_watcher, embedder):
    store = make_store(three)
    batches = []
    start_watcher(store, on_batch=batches.append)
    state.reinforce(store.reader(), ["areas/oncall/pager.html"], "positive", "2026-08-01T12:00:00Z")
    embedded_before = embedder.indexed
    (three / "archive/2025/areas").mkdir(parents=True)
    os.rename(three / "areas/oncall", three / "archive/2025/areas/oncall")
    fresh = Fresh(store)
    expected = {
        "archive/2025/areas/oncall/drain.html",
        "archive/2025/areas/oncall/pager.html",
        "resources/tools/kettle.html",
    }
    wait_until(lambda: fresh.paths() == expected, what="the folder's files at their new paths")
    assert embedder.indexed == embedded_before
    # The batch is reported after its rows commit (and after the state rows follow), so the index
    # can show the new paths a moment before on_batch has run: wait for the report too.
    wait_until(lambda: sum(b.moved for b in batches if b.kind == "batch") == 2, what="the batch's report")
    assert fresh.row("archive/2025/areas/oncall/pager.html")[1:] == (1, "areas/oncall/pager.html", "archive")
    wait_until(lambda: fresh.access("archive/2025/areas/oncall/pager.html") is not None, what="the state row")
    assert fresh.access("archive/2025/areas/oncall/pager.html")["reinforcement_count"] == 1


def test_directory_moved_in_or_copied_in_is_indexed(three, make_store, start_watcher, tmp_path):
    store = make_store(three)
    start_watcher(store)
    outside = tmp_path / "incoming"
    write(outside, "a.html", "Alpha", "The albatross nests on the cliff.")
    write(outside, "deep/b.html", "Beta", "The barnacle clings to the hull.")
    os.rename(outside, three / "projects/incoming")
    shutil.copytree(three / "projects/incoming", three / "resources/copied")
    wait_until(lambda: found(store, "barnacle", "projects/incoming/deep/b.html"), what="the moved-in folder")
    fresh = Fresh(store)
    wait_until(
        lambda: {"resources/copied/a.html", "resources/copied/deep/b.html"} <= fresh.paths(), what="the copied folder"
    )


def test_startup_reconciliation_finds_changes_made_while_closed(three, make_store, start_watcher, embedder):
    store = make_store(three)
    store.index()
    store.close_thread_connection()
    # While the app was closed: an edit, a delete, a new file and a rename.
    write(three, "areas/oncall/pager.html", "Pager", "The pager rotates every Wednesday.")
    os.remove(three / "resources/tools/kettle.html")
    write(three, "projects/new.html", "New", "The quokka smiles at visitors.")
    os.rename(three / "areas/oncall/drain.html", three / "areas/oncall/drain-renamed.html")
    embedded_before = embedder.indexed

    progress, batches = [], []
    start_watcher(store, on_progress=lambda *p: progress.append(p), on_batch=batches.append)
    first = batches[0]
    assert first.kind == "reconcile"
    assert (first.added, first.changed, first.moved, first.removed) == (1, 1, 1, 1)
    assert progress and progress[-1][0] in ("index", "embed")
    assert embedder.indexed - embedded_before == 2  # the edit and the new file; the rename reused its vector
    assert found(store, "quokka", "projects/new.html")
    assert Fresh(store).paths() == {"areas/oncall/pager.html", "areas/oncall/drain-renamed.html", "projects/new.html"}


def test_status_snapshot_and_health(three, make_store, start_watcher):
    store = make_store(three)
    statuses = []
    watcher = start_watcher(store, on_status=statuses.append)
    status = watcher.status()
    assert status.mode == "live" and status.reason == ""
    assert status.queue_depth == 0
    assert status.last_batch.kind == "reconcile" and status.last_batch.added == 3
    assert (status.unindexed_files, status.orphan_rows, status.failed_files) == (0, 0, 0)
    assert statuses[0].mode == "starting"

    (three / "areas/broken.html").write_text(INVALID.format(title="Broken", claim="No claim span."))
    wait_until(lambda: watcher.status().failed_files == 1, what="the failed file counted")
    status = watcher.status()
    assert status.health.failed_paths == ("areas/broken.html",)
    assert status.last_batch.failed == 1 and status.last_batch.ms >= 0 and status.last_batch.finished_at
    assert status.to_json()["failed_files"] == 1


def test_a_failing_callback_does_not_stop_watching(three, make_store, start_watcher):
    store = make_store(three)

    def broken(_):
        raise RuntimeError("listener bug")

    watcher = start_watcher(store, on_batch=broken, on_status=broken)
    write(three, "areas/later.html", "Later", "The narwhal surfaces at night.")
    wait_until(lambda: found(store, "narwhal", "areas/later.html"), what="indexing to go on")
    assert watcher.running


def test_stop_is_prompt_and_leaves_no_threads(three, make_store, start_watcher):
    store = make_store(three)
    watcher = start_watcher(store)
    watcher.stop()
    assert not watcher.running
    assert watcher.status().mode == "stopped"


def test_a_health_walk_cut_short_reports_nothing_rather_than_orphans(three, make_store):
    """A watcher stopped mid-audit cut the walk short, and every file not reached was counted as a
    row without a file (17,023 at 20,000 memories, then a reconciliation on the way out)."""
    store = make_store(three)
    store.index()
    whole = measure_health(store.reader(), store.root)
    assert whole is not None and whole.in_step and whole.orphans == 0
    asked = {"n": 0}

    def stop_after_two() -> bool:
        asked["n"] += 1
        return asked["n"] > 2

    assert measure_health(store.reader(), store.root, cancelled=stop_after_two) is None
    assert store.health(cancelled=lambda: True) is None


def test_a_health_walk_that_yields_keeps_the_last_comparison(three, make_store):
    """A walk cut short by a change (or a stop) left `status().health` None, and the lease's next
    renewal read `health.in_step` from it: the watcher's thread died with an AttributeError and the
    window's index went stale for good (found by bench/soak.py at 20,000 memories)."""
    from memhtml_desktop.watch.watcher import Watcher

    store = make_store(three)
    store.index()
    watcher = Watcher(store)
    before = watcher.status().health
    watcher._stopping.set()  # the walk's `cancelled` answers yes at once, as for a change arriving
    assert watcher._measure_health() is None
    assert watcher.status().health is before and watcher.status().health is not None
    with watcher._cond:
        assert watcher._vouch() is None  # not live: no lease, and no AttributeError
