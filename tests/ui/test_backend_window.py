"""The window over the backend's child processes: the watcher's process killed (the window says so,
F5 starts another and the index catches up) and a heavy job's child killed (its failure is said)."""

from __future__ import annotations

import multiprocessing
import os
import signal

from memhtml_desktop.ops.jobs import ReconcileJob
from tests.ui.conftest import PROCEDURAL

WAIT = 30000


def test_a_killed_watcher_process_is_said_and_f5_starts_another(qtbot, make_window, store):
    window = make_window(store, watch=True)
    qtbot.waitUntil(lambda: window.bridge.watcher is not None and window.bridge.wait_idle(0.01), timeout=WAIT)
    messages: list[str] = []
    window.bridge.failed.connect(messages.append)
    first = window.bridge.watcher
    os.kill(first._proc.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: bool(messages), timeout=WAIT)
    assert "SIGKILL" in messages[0] and "Re-index" in messages[0]
    assert window.bridge.status().mode == "stopped" and "SIGKILL" in window.status.watch.toolTip()
    # edited while nothing watched; F5 starts a new watcher process, whose reconciliation catches up
    path = store.root / PROCEDURAL
    path.write_text(path.read_text(encoding="utf-8").replace("</h1>", " quokkafix</h1>", 1), encoding="utf-8")
    window.reindex()
    assert window.bridge.watcher is not first
    qtbot.waitUntil(lambda: window.bridge.watcher.running and window.bridge.wait_idle(0.01), timeout=WAIT)
    qtbot.waitUntil(lambda: bool(store.search("quokkafix", limit=3).hits), timeout=WAIT)


def test_a_heavy_job_whose_child_is_killed_fails_in_words(qtbot, make_window, store):
    window = make_window(store)
    failures: list[str] = []

    def child():
        return next((c for c in multiprocessing.active_children() if c.name == "memhtml-reconcile"), None)

    job = ReconcileJob().failure(failures.append)
    (store.root / "areas" / "many").mkdir(parents=True)
    text = (store.root / PROCEDURAL).read_text(encoding="utf-8")
    for i in range(60):
        (store.root / "areas" / "many" / f"n{i}.html").write_text(text.replace("</h1>", f" n{i}</h1>", 1))
    window.runner.run(job, store)
    # Killed as soon as it exists (its start-up alone takes a few hundred ms): killed from its first
    # progress report instead, a child on a loaded machine could finish the 60 files first.
    started: list = []
    qtbot.waitUntil(lambda: bool(started.append(child()) or started[-1]), timeout=WAIT)
    os.kill(started[-1].pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: bool(failures) and not window.runner.is_busy("reconcile"), timeout=WAIT)
    assert "stopped without an answer" in failures[0] and "SIGKILL" in failures[0]
