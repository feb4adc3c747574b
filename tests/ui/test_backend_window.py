"""The window over its store's engine (engine/): the engine killed while it watches (the window says
so, F5 starts another and the index catches up) and killed under a running job (its failure is said,
in words, and the next search is answered by a new engine)."""

from __future__ import annotations

import os
import signal

from tests.engine.helpers import Gate, HoldJob
from tests.ui.conftest import PROCEDURAL

WAIT = 30000


def test_a_killed_engine_is_said_and_f5_starts_another(qtbot, make_window, store):
    window = make_window(store, watch=True)
    qtbot.waitUntil(lambda: window.bridge.watching and window.bridge.wait_idle(), timeout=WAIT)
    messages: list[str] = []
    window.bridge.failed.connect(messages.append)
    first = window.runner.client.pid
    os.kill(first, signal.SIGKILL)
    qtbot.waitUntil(lambda: bool(messages), timeout=WAIT)
    assert "SIGKILL" in messages[0] and "Re-index" in messages[0]
    assert window.bridge.status().mode == "stopped" and "SIGKILL" in window.status.watch.toolTip()
    # edited while nothing watched; F5 starts a new engine, whose watcher's reconciliation catches up
    path = store.root / PROCEDURAL
    path.write_text(path.read_text(encoding="utf-8").replace("</h1>", " quokkafix</h1>", 1), encoding="utf-8")
    window.reindex()
    assert window.runner.client.pid != first
    qtbot.waitUntil(
        lambda: (
            window.runner.client.running
            and window.bridge.status().mode in ("live", "polling")
            and window.bridge.wait_idle()
        ),
        timeout=WAIT,
    )
    qtbot.waitUntil(lambda: bool(store.search("quokkafix", limit=3).hits), timeout=WAIT)
    window.set_query("quokkafix")
    qtbot.waitUntil(
        lambda: (r := window.results.model.result()) is not None and r.query == "quokkafix" and bool(r.hits),
        timeout=WAIT,
    )


def test_a_job_whose_engine_is_killed_fails_in_words_and_the_next_search_is_answered(
    qtbot, make_window, store, tmp_path
):
    window = make_window(store)
    failures: list[str] = []
    progress: list[tuple] = []
    window.runner.run(
        HoldJob(gate=Gate(tmp_path).path).failure(failures.append).progress(lambda *line: progress.append(line))
    )
    qtbot.waitUntil(lambda: bool(progress), timeout=WAIT)  # it runs in the engine
    os.kill(window.runner.client.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: bool(failures) and not window.runner.is_busy(), timeout=WAIT)
    assert failures[0] == "the engine stopped (killed by SIGKILL)"
    window.set_query("drain the vip")
    qtbot.waitUntil(
        lambda: (r := window.results.model.result()) is not None and r.query == "drain the vip" and bool(r.hits),
        timeout=WAIT,
    )
