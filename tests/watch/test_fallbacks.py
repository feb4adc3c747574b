"""When kernel events are not available, and when the store directory itself goes away."""

from __future__ import annotations

import errno
import os
import shutil

import pytest
from watchdog.observers.inotify import InotifyObserver

from memhtml_desktop.watch import observers

from .conftest import Fresh, found, wait_until, write


@pytest.fixture
def two(store_root):
    write(store_root, "areas/oncall/drain.html", "Drain", "Drain the VIP before reverting the deploy.")
    write(store_root, "resources/tools/kettle.html", "Kettle", "The kettle in room four boils slowly.")
    return store_root


def test_forced_polling_follows_every_kind_of_change(two, make_store, start_watcher, tmp_path, embedder):
    store = make_store(two)
    watcher = start_watcher(store, force_polling=True, poll_interval_s=0.2)
    status = watcher.status()
    assert status.mode == "polling"
    assert "polling was asked for" in status.reason
    fresh = Fresh(store)

    write(two, "projects/p/new.html", "New", "The wombat digs at dusk.")
    wait_until(lambda: found(store, "wombat", "projects/p/new.html"), what="a created file")
    write(two, "projects/p/new.html", "New", "The wombat sleeps at dawn.")
    wait_until(lambda: found(store, "sleeps", "projects/p/new.html"), what="a modified file")

    before = embedder.indexed
    (two / "archive/2026/areas/oncall").mkdir(parents=True)
    os.rename(two / "areas/oncall/drain.html", two / "archive/2026/areas/oncall/drain.html")
    wait_until(
        lambda: (
            "archive/2026/areas/oncall/drain.html" in fresh.paths() and "areas/oncall/drain.html" not in fresh.paths()
        ),
        what="a moved file",
    )
    assert embedder.indexed == before
    assert fresh.row("archive/2026/areas/oncall/drain.html")[1:] == (1, "areas/oncall/drain.html", "archive")

    os.rename(two / "resources/tools", tmp_path / "tools-outside")
    wait_until(lambda: "resources/tools/kettle.html" not in fresh.paths(), what="a folder moved out")
    os.remove(two / "projects/p/new.html")
    wait_until(lambda: "projects/p/new.html" not in fresh.paths(), what="a deleted file")


class _NoWatchesLeft(InotifyObserver):
    """A real inotify observer on a machine whose watch limit is spent: scheduling fails with ENOSPC."""

    def schedule(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "inotify watch limit reached")


class _NoInstancesLeft(InotifyObserver):
    def __init__(self, **kwargs):
        raise OSError(errno.EMFILE, "inotify instance limit reached")


@pytest.mark.parametrize(
    "factory, limit", [(_NoWatchesLeft, "max_user_watches"), (_NoInstancesLeft, "max_user_instances")]
)
def test_inotify_limits_fall_back_to_polling(two, make_store, start_watcher, factory, limit):
    store = make_store(two)
    watcher = start_watcher(store, observer_factory=factory, poll_interval_s=0.2)
    status = watcher.status()
    assert status.mode == "polling"
    assert limit in status.reason
    write(two, "areas/late.html", "Late", "The okapi hides in the forest.")
    wait_until(lambda: found(store, "okapi", "areas/late.html"), what="a change seen by polling")


def test_a_live_observer_watches_every_bucket_folder(two, threads_before):
    from watchdog.events import FileSystemEventHandler

    observer, mode, reason = observers.start_observer(str(two), FileSystemEventHandler())
    try:
        assert (mode, reason) == ("live", "")
        assert observers.unwatched_dirs(observer, str(two)) == []
    finally:
        observers.shutdown(observer)


def test_filesystems_without_events_are_recognised(tmp_path):
    store = tmp_path / "mnt" / "share" / "store"
    store.mkdir(parents=True)
    mounts = tmp_path / "mounts"
    mounts.write_text(
        "/dev/vda / ext4 rw 0 0\n"
        f"server:/export {tmp_path / 'mnt' / 'share'} nfs4 rw,relatime 0 0\n"
        f"tmpfs {tmp_path / 'mnt'} tmpfs rw 0 0\n"
    )
    assert observers.filesystem_of(str(store), str(mounts)) == "nfs4"
    assert "nfs4" in observers.no_events_reason(str(store), str(mounts))
    assert observers.no_events_reason(str(tmp_path / "mnt"), str(mounts)) is None
    spaced = tmp_path / "with space"
    spaced.mkdir()
    mounts.write_text(f"//host/share {str(spaced).replace(' ', chr(92) + '040')} cifs rw 0 0\n")
    assert observers.filesystem_of(str(spaced), str(mounts)) == "cifs"


def test_store_deleted_then_restored(two, make_store, start_watcher, tmp_path):
    backup = tmp_path / "backup"
    shutil.copytree(two, backup)
    store = make_store(two)
    statuses = []
    watcher = start_watcher(store, on_status=statuses.append, root_check_s=0.2)

    shutil.rmtree(two)
    wait_until(lambda: watcher.status().mode == "stopped", what="watching to stop")
    assert "gone" in watcher.status().reason and str(two) in watcher.status().reason
    assert watcher.running, "a vanished store must not end the watcher"
    # Search still answers from the last committed state. (Opening a connection recreates
    # `.memhtml/` under the vanished path, see the report; that alone must not count as the
    # store's return, or the reconciliation would empty the index.)
    assert found(store, "kettle", "resources/tools/kettle.html")
    with pytest.raises(AssertionError, match="timed out"):
        wait_until(lambda: watcher.status().mode != "stopped", timeout=0.6)
    assert Fresh(store).paths() == {"areas/oncall/drain.html", "resources/tools/kettle.html"}

    # It comes back (restored from a backup, with one file changed meanwhile).
    shutil.copytree(backup, two, dirs_exist_ok=True)
    write(two, "resources/tools/kettle.html", "Kettle", "The kettle in room four whistles loudly.")
    wait_until(lambda: watcher.status().mode == "live", what="watching to resume")
    wait_until(lambda: found(store, "whistles", "resources/tools/kettle.html"), what="the reconciled change")
    assert Fresh(store).paths() == {"areas/oncall/drain.html", "resources/tools/kettle.html"}
    # ...and it is live again, not just reconciled once.
    write(two, "areas/after.html", "After", "The pangolin curls into a ball.")
    wait_until(lambda: found(store, "pangolin", "areas/after.html"), what="a change after resuming")
    modes = [s.mode for s in statuses]
    assert "stopped" in modes and modes[-1] == "live"


def test_store_moved_away_and_back(two, make_store, start_watcher, tmp_path):
    store = make_store(two)
    watcher = start_watcher(store, root_check_s=0.2)
    aside = tmp_path / "aside"
    os.rename(two, aside)  # no event says this; the directory check does
    wait_until(lambda: watcher.status().mode == "stopped", what="watching to stop")
    write(aside, "areas/while-away.html", "Away", "The axolotl regrows its gills.")
    os.rename(aside, two)
    wait_until(lambda: found(store, "axolotl", "areas/while-away.html"), what="the change made while away")
    wait_until(lambda: watcher.status().mode == "live", what="watching to resume")


def test_an_empty_mount_point_is_not_taken_for_the_store(two, make_store, start_watcher):
    """Unmounted, the mount point stays as an empty folder: the index must not be emptied to match it."""
    store = make_store(two)
    watcher = start_watcher(store, root_check_s=0.2)
    fresh = Fresh(store)
    shutil.rmtree(two)
    wait_until(lambda: watcher.status().mode == "stopped", what="watching to stop")
    two.mkdir()  # an empty folder at the same path
    with pytest.raises(AssertionError, match="timed out"):  # five presence checks, none of them resumes
        wait_until(lambda: watcher.status().mode != "stopped", timeout=1.0)
    assert fresh.paths() == {"areas/oncall/drain.html", "resources/tools/kettle.html"}
