"""Issue 17, items 2 and 3: another process holds a write lock; reading goes on.

A second process (`lock_holder.py`) holds `BEGIN IMMEDIATE` on the index, as a second `index`, a
`watch` or `index --rebuild` does while it writes. Read-only commands must answer from the last
committed state (WAL readers are never blocked) and say that the refresh was skipped; `read` must
show the memory and count the read in the state plane. `index` and `index --rebuild` wait for the
lock instead of dying. With `state.db` held through every retry, `read` still shows the memory and
says in its result (`--json` included) that the read was not counted.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time

import pytest
from hardening_support import PYTHON, child_env, copy_demo, read_state, run_cli
from index_invariants import failed_paths, index_problems, path_hashes
from lock_holder import hold, release

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.index.store import Store

PATH = "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html"


@pytest.fixture()
def indexed(tmp_path):
    root = copy_demo(tmp_path / "store")
    index = tmp_path / "index.db"
    store = Store(root, index_path=index)
    store.index()
    store.close_thread_connection()
    assert (root / PATH).exists()
    return root, index


def _args(root, index, *extra):
    return [*extra, "--store", str(root), "--index", str(index)]


def _edit(root, path=PATH):
    """A change on disk, so a refresh has something to write."""
    target = root / path
    target.write_bytes(target.read_bytes().replace(b"</article>", b"<p>One more line.</p></article>"))


@pytest.mark.parametrize("command", [
    ["read", PATH],
    ["read", PATH, "--json"],
    ["list"],
    ["list", "--json"],
    ["search", "drain the vip"],
    ["search", "drain the vip", "--json"],
    ["recall", "drain the vip"],
    ["doctor"],
    ["doctor", "--json"],
])
def test_read_commands_answer_while_another_process_holds_the_index(indexed, command):
    root, index = indexed
    _edit(root)
    holder = hold(index, 60)
    try:
        started = time.monotonic()
        proc = run_cli(_args(root, index, *command), timeout=60)
        seconds = time.monotonic() - started
    finally:
        release(holder)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 0, err
    assert "BusyError" not in err and "database is locked" not in err and "Traceback" not in err
    assert "note: the index was not refreshed" in err, err
    assert "last committed state" in err
    if "--json" in command:
        json.loads(out)
    if command[0] == "read":
        assert "drain" in out.lower()
        _, rows = read_state(root / ".memhtml" / "state.db")
        assert rows[PATH][0] == 1, "the read was not counted"
    print(f"{command}: {seconds:.2f} s")


def test_the_index_command_waits_for_the_lock_and_then_indexes(indexed):
    root, index = indexed
    _edit(root)
    holder = hold(index, 7)  # longer than the 5 s busy timeout
    try:
        proc = run_cli(_args(root, index, "index", "--json"), timeout=120)
    finally:
        release(holder)
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout)["changed"] == 1
    assert "waiting" in proc.stderr.decode()


def test_a_rebuild_waits_for_the_lock_too(indexed):
    root, index = indexed
    holder = hold(index, 7)
    try:
        proc = run_cli(_args(root, index, "index", "--rebuild"), timeout=120)
    finally:
        release(holder)
    assert proc.returncode == 0, proc.stderr.decode()
    assert "waiting" in proc.stderr.decode()


@pytest.mark.slow
def test_rebuilds_beside_running_watchers_coordinate(tmp_path):
    """Two `watch` processes and two `index --rebuild` runs on one index while files keep changing:
    every command succeeds, and once quiet the index equals a fresh rebuild of the tree."""
    root = tmp_path / "store"
    generate_store(root, 1200, 41)
    index = tmp_path / "index.db"
    assert run_cli(_args(root, index, "index"), timeout=300).returncode == 0
    watchers = [subprocess.Popen([PYTHON, "-m", "memhtml_desktop", *_args(root, index, "watch")],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env())
                for _ in range(2)]
    stop = threading.Event()
    paths = sorted(p for p in root.rglob("*.html") if p.parts[-3] != "archive")[:300]

    def churn():
        n = 0
        while not stop.is_set():
            target = paths[n % len(paths)]
            data = target.read_bytes()
            target.write_bytes(data.replace(b"</article>", f"<p>churn {n}</p></article>".encode(), 1))
            n += 1
            time.sleep(0.01)

    churner = threading.Thread(target=churn)
    try:
        time.sleep(2)
        churner.start()
        rebuilds = [subprocess.Popen([PYTHON, "-m", "memhtml_desktop", *_args(root, index, "index", "--rebuild")],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env())
                    for _ in range(2)]
        outcomes = [(p.wait(timeout=600), p.stderr.read().decode()) for p in rebuilds]
        stop.set()
        churner.join()
    finally:
        stop.set()
        for watcher in watchers:
            watcher.send_signal(signal.SIGINT)
        codes = [w.wait(timeout=60) for w in watchers]
    for code, err in outcomes:
        assert code == 0, err
        assert "unexpected error" not in err
    assert codes == [0, 0], [w.stderr.read().decode()[-2000:] for w in watchers]
    assert run_cli(_args(root, index, "index"), timeout=300).returncode == 0
    fresh = Store(root, index_path=tmp_path / "fresh.db")
    fresh.index()
    mine = Store(root, index_path=index)
    assert index_problems(mine.reader()) == []
    assert path_hashes(mine.reader()) == path_hashes(fresh.reader())
    assert failed_paths(mine.reader()) == failed_paths(fresh.reader())


@pytest.mark.slow
def test_a_lost_bump_is_said_in_the_result(indexed):
    """state.db held through every retry (~32 s): the memory is shown, exit 0, and the result says
    the read was not counted, in JSON and in the human output; `reinforce` says it too."""
    root, index = indexed
    state_db = root / ".memhtml" / "state.db"
    holder = hold(state_db, 90)
    try:
        procs = {
            name: subprocess.Popen([PYTHON, "-m", "memhtml_desktop", *_args(root, index, *argv)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env())
            for name, argv in {
                "json": ["read", PATH, "--json", "--no-refresh"],
                "human": ["read", PATH, "--no-refresh"],
                "reinforce": ["reinforce", PATH, "--signal", "positive"],
            }.items()
        }
        done = {name: (p.wait(timeout=120), p.stdout.read().decode(), p.stderr.read().decode())
                for name, p in procs.items()}
    finally:
        release(holder)
    code, out, err = done["json"]
    assert code == 0, err
    detail = json.loads(out)
    assert detail["bump"]["lost"] is True
    assert "locked" in detail["bump"]["refused"] and detail["bump"]["bumped"] == []
    code, out, err = done["human"]
    assert code == 0, err
    assert "this read was not counted" in out
    code, out, err = done["reinforce"]
    assert code == 1
    assert "not recorded" in err and "locked" in err and "unexpected error" not in err
    _, rows = read_state(state_db)
    assert PATH not in rows


def test_a_refresh_skipped_in_process_leaves_the_store_usable(indexed):
    """The library door: `Store.refresh` says why it skipped; search and read answer meanwhile."""
    root, index = indexed
    _edit(root)
    store = Store(root, index_path=index)
    holder = hold(index, 60)
    try:
        assert store.refresh() is None
        assert any("not refreshed" in n for n in store.notices)
        assert store.search("drain the vip").hits
        assert store.read(PATH).bump.bumped == (PATH,)
    finally:
        release(holder)
    report = store.refresh()
    assert report is not None and report.changed == 1
