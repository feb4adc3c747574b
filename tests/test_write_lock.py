"""The write lock's wait (`write_lock.wait_for_writes`): the watcher's pass waits while this app
writes, and the wait never keeps a write waiting. Real lock files under a private cache folder."""

from __future__ import annotations

import threading
import time

from memhtml_desktop.write_lock import WriteLock, wait_for_writes, write_dir


def test_it_waits_while_a_write_holds_the_lock_and_says_when_it_gave_up(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMHTML_DESKTOP_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "store"
    root.mkdir()
    assert wait_for_writes(root, 0.1)  # no write ever ran here: nothing to wait for
    lock = WriteLock(write_dir(root), wait_s=1.0)
    with lock:
        started = time.monotonic()
        assert not wait_for_writes(root, 0.3)  # held for the whole wait
        assert time.monotonic() - started >= 0.3
        assert not wait_for_writes(root, 30, stop=lambda: True)  # stopping ends the wait at once
    assert wait_for_writes(root, 0.1)  # free again

    released = threading.Event()

    def write_for_a_moment() -> None:
        with WriteLock(write_dir(root), wait_s=1.0):
            time.sleep(0.4)
        released.set()

    writer = threading.Thread(target=write_for_a_moment)
    writer.start()
    time.sleep(0.1)
    assert wait_for_writes(root, 10)  # returns once the write let go
    assert released.is_set()
    writer.join()


def test_a_write_is_never_kept_waiting_by_a_waiter(tmp_path, monkeypatch):
    """The waiter's shared lock is taken and let go in the same breath: twenty writes, each giving
    up after 0.5 s, all take the lock while a thread asks `wait_for_writes` over and over."""
    monkeypatch.setenv("MEMHTML_DESKTOP_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "store"
    root.mkdir()
    with WriteLock(write_dir(root), wait_s=1.0):
        pass  # the lock file exists: every wait below takes and lets go a real shared lock
    stop = threading.Event()
    asked = []

    def keep_asking() -> None:
        while not stop.is_set():
            asked.append(wait_for_writes(root, 2.0))  # longer than a write's own 0.5 s wait

    waiter = threading.Thread(target=keep_asking)
    waiter.start()
    try:
        for _ in range(20):  # a LockTimeout here fails the test
            with WriteLock(write_dir(root), wait_s=0.5):
                time.sleep(0.01)
            time.sleep(0.005)  # a moment between writes, as a watcher finds them
    finally:
        stop.set()
        waiter.join()
    assert len(asked) >= 20 and all(asked)  # it saw the lock free again after each write
