"""Polling costs what a change costs (issue 40, item 7): with inotify refused, an idle poll stats the
folders and a slice of the files, not the whole store; every kind of change is still seen within
the documented delay (docs/watching.md, "Polling")."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from watchdog.events import FileSystemEventHandler
from watchdog.observers.inotify import InotifyObserver

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.watch import poller

from .conftest import Fresh, found, memory, wait_until, write

ROOT = Path(__file__).resolve().parents[2]


class _NoWatchesLeft(InotifyObserver):
    """A real inotify observer on a machine whose watch limit is spent: scheduling fails with ENOSPC."""

    def schedule(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "inotify watch limit reached")


# What a change may take to be searchable: the poll that sees it (at most the backed-off pause), the
# watcher's burst window (at most 1 s) and the pass; an in-place edit waits for the sweep instead.
# Generous for a loaded 2-core machine: these are deadlines for being seen, not timings.
SEEN_S = poller.MAX_INTERVAL_S + 1.0 + 8.0


BACKED_OFF_S = 0.6
"""The longest pause of the poller in the test below: the app's back-off (0.2 s doubling to
MAX_INTERVAL_S, 2 s) made each of its six waits for "backed off" take ~5 s; the same doubling to
0.6 s reaches its end in three polls, and what is checked (a change made at the longest pause is
seen) is the same."""


def test_every_change_is_seen_after_the_poller_backed_off(store_root, make_store, start_watcher, embedder, monkeypatch):
    from functools import partial

    from memhtml_desktop.watch import observers

    monkeypatch.setattr(observers, "StatPoller", partial(poller.StatPoller, max_interval=BACKED_OFF_S))
    generate_store(store_root, 1_500, 17, invalid=0, force=True)  # more files than the sweep's 1,000 a second
    store = make_store(store_root)
    watcher = start_watcher(store, observer_factory=_NoWatchesLeft, poll_interval_s=0.2)
    assert watcher.status().mode == "polling" and "max_user_watches" in watcher.status().reason
    emitter = next(iter(watcher._observer.emitters))

    def backed_off(what: str = "the poller to back off again") -> None:
        """Each change is made once the poller is at its longest pause (not after a fixed 4 s sleep)."""
        wait_until(lambda: emitter._pause == BACKED_OFF_S, 30, what=what)

    backed_off("the poller to back off")
    fresh = Fresh(store)

    write(store_root, "areas/poll/new.html", "New", "The pangolin curls at noon.")  # a folder made, a file in it
    wait_until(lambda: found(store, "pangolin", "areas/poll/new.html"), SEEN_S, what="a new file")
    backed_off()
    write(store_root, "areas/poll/new.html", "New", "The pangolin sleeps at dusk.")  # rewritten in place
    wait_until(
        lambda: found(store, "dusk", "areas/poll/new.html"),
        SEEN_S + 1_500 / poller.SWEEP_MIN_RATE,
        what="an in-place rewrite",
    )
    backed_off()
    path = store_root / "areas/poll/new.html"
    with open(path, "a", encoding="utf-8") as handle:  # appended: same inode, the folder untouched
        handle.write("\n<!-- a trailing comment -->\n")
    before = embedder.indexed
    swept = emitter.swept  # the sweep has stat'ed every file since (the append among them), then backed off
    wait_until(
        lambda: emitter.swept >= swept + 1_500 and emitter._pause == BACKED_OFF_S,
        30,
        what="a sweep past the append",
    )
    (store_root / "archive/2026/areas/poll").mkdir(parents=True)
    os.rename(path, store_root / "archive/2026/areas/poll/new.html")  # moved: paired by inode
    wait_until(
        lambda: "archive/2026/areas/poll/new.html" in fresh.paths() and "areas/poll/new.html" not in fresh.paths(),
        SEEN_S,
        what="a moved file",
    )
    assert embedder.indexed == before, "a move is a move: nothing embedded again"
    backed_off()
    temp = store_root / "resources/.kettle.html.swp"
    temp.write_text(memory("Kettle", "The kettle hums in the tundra."), encoding="utf-8")
    victim = sorted((store_root / "resources").rglob("*.html"))[0]
    rel = victim.relative_to(store_root).as_posix()
    os.replace(temp, victim)  # an editor's save: a temp file renamed onto the memory
    wait_until(lambda: found(store, "tundra", rel), SEEN_S, what="an editor's save")
    backed_off()
    gone = sorted((store_root / "projects").iterdir())[0]
    known = [p for p in fresh.paths() if p.startswith(gone.relative_to(store_root).as_posix() + "/")]
    assert known
    shutil.rmtree(gone)  # a folder deleted
    wait_until(lambda: not set(known) & fresh.paths(), SEEN_S, what="a deleted folder")
    assert watcher.status().mode == "polling"


def test_a_racy_folder_is_listed_again(tmp_path):
    """A file created within the folder's timestamp tick leaves the folder's mtime as it was listed
    (coarse timestamps, remote filesystems): a folder whose mtime is that recent is listed again on
    the next polls. Here the tick is forced: the folder's mtime is set back to what was listed."""
    root = tmp_path / "store"
    (root / "areas").mkdir(parents=True)
    (root / "areas/a.html").write_text(memory("A", "Alpha."), encoding="utf-8")
    events = []

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event):
            events.append((event.event_type, event.src_path))

    observer = poller.StatPoller(0.1)
    observer.schedule(Handler(), str(root), recursive=True)
    observer.start()
    try:
        emitter = next(iter(observer.emitters))
        wait_until(lambda: emitter.polls >= 2, 10)
        listed = os.stat(root / "areas").st_mtime_ns
        (root / "areas/b.html").write_text(memory("B", "Beta."), encoding="utf-8")
        os.utime(root / "areas", ns=(listed, listed))
        wait_until(lambda: ("created", str(root / "areas/b.html")) in events, 10, what="the file in the racy folder")
    finally:
        observer.stop()
        observer.join(10)


IDLE = textwrap.dedent("""
    import os, sys, time
    from watchdog.events import FileSystemEventHandler
    from memhtml_desktop.watch import observers, poller
    observer = observers.start_polling(sys.argv[1], FileSystemEventHandler(), 0.2)
    emitter = next(iter(observer.emitters))
    deadline = time.monotonic() + 30
    while emitter._pause < poller.MAX_INTERVAL_S and time.monotonic() < deadline:
        time.sleep(0.05)             # the first snapshot, then the back-off (was a fixed 8 s)
    os.path.exists("/idle-window-opens")    # markers in the trace (no such files)
    time.sleep(float(sys.argv[2]))
    os.path.exists("/idle-window-closes")
    os._exit(0)
""")


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace counts the poller's stat calls")
def test_an_idle_poll_stats_folders_and_a_slice_of_the_files(tmp_path):
    """The stat calls a polling process makes over 4 idle seconds, counted by strace (a count, not a
    timing). Before: every file at every poll (3,000 files, 5 polls a second: about 60,000 calls);
    now: the folders at every poll plus the sweep's 1,000 files a second."""
    root = tmp_path / "store"
    generate_store(root, 3_000, 9, invalid=0)
    folders = sum(1 for _ in root.rglob("*") if _.is_dir()) + 1
    window = 4.0
    trace = tmp_path / "trace"
    done = subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-e",
            "trace=/stat",
            "-o",
            str(trace),
            sys.executable,
            "-c",
            IDLE,
            str(root),
            str(window),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    if done.returncode != 0 and "ptrace" in done.stderr:
        pytest.skip(f"strace cannot trace here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stderr
    lines = trace.read_text().splitlines()
    opens = next(i for i, line in enumerate(lines) if "/idle-window-opens" in line)
    closes = next(i for i, line in enumerate(lines) if "/idle-window-closes" in line)
    calls = closes - opens - 1
    polls = window / 0.2  # at most: the back-off only lowers it
    bound = polls * folders + window * poller.SWEEP_MIN_RATE * 1.5 + 500
    print(f"{calls} stat calls in {window:g} s of idle, {folders} folders")
    assert calls <= bound, f"{calls} stat calls in {window:g} s of idle (bound {bound:.0f}; 3,000 files)"
