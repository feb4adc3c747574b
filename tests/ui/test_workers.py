"""The runner (generations, cancelling, progress) and the plain job functions (no Qt needed)."""

from __future__ import annotations

import json
import threading

import pytest

from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.state import access_stats
from memhtml_desktop.ui import workers
from tests.ui.conftest import INFRA, PROCEDURAL

WAIT = 10000


# -- the jobs, as plain functions ------------------------------------------------------------------


def never() -> bool:
    return False


def test_search_and_counts_jobs_bump_nothing(store):
    result = workers.search(store, "drain the vip", Scope(), 10, never)
    assert result.hits[0].path == PROCEDURAL
    counts = workers.counts(store, "drain the vip", Scope(), never)
    assert counts.types.get("procedural") == 1 and counts.query_matches >= 1
    assert access_stats(store.reader(), PROCEDURAL) is None


def test_a_cancelled_job_stops_before_it_starts(store):
    with pytest.raises(workers.Cancelled):
        workers.search(store, "drain", Scope(), 10, lambda: True)


def test_open_bumps_only_when_asked(store):
    opened = workers.open_memory(store, PROCEDURAL, ("drain",), False, never)
    assert opened.detail.path == PROCEDURAL and access_stats(store.reader(), PROCEDURAL) is None
    assert "drain" in opened.safe_html
    opened = workers.open_memory(store, PROCEDURAL, ("drain",), True, never)
    assert opened.detail.access["access_count"] == 1


def test_reinforce_rereads_without_a_bump(store):
    workers.open_memory(store, INFRA, (), True, never)
    result, opened = workers.reinforce(store, INFRA, "positive", (), never)
    assert INFRA in result.signal_applied
    assert opened.detail.access["access_count"] == 1 and opened.detail.access["reinforcement_count"] == 1


def test_problems_stats_why_recall(store):
    problems, stats = workers.problems(store, never)
    assert "areas/bad/no-article.html" in {p.path for p in problems} and stats["memories"] > 0
    assert workers.why(store, "drain", Scope(), INFRA, never).path == INFRA
    pack = workers.recall(store, "drain the vip", Scope(), 500, 10, never)
    assert pack.memories.spent <= 500


def test_reconcile_seeds_salience_from_the_sidecar(store_dir, tmp_path):
    from memhtml_desktop.index.store import Store

    sidecar = store_dir / ".memhtml" / "state" / "access.jsonl"
    sidecar.parent.mkdir(parents=True)
    row = {"path": INFRA, "accessCount": 7, "reinforcementCount": 0, "outcomeScore": 0,
           "lastAccessedAt": "2026-08-01T00:00:00Z", "lastReinforcedAt": None, "updatedAt": "2026-08-01T00:00:00Z"}
    sidecar.write_text(json.dumps(row) + "\n", encoding="utf-8")
    fresh = Store(store_dir, index_path=tmp_path / "fresh.db")
    report = workers.reconcile(fresh, never, lambda *a: None, import_sidecar=True)
    assert report.added > 0
    assert access_stats(fresh.reader(), INFRA)["access_count"] == 7


# -- the runner -----------------------------------------------------------------------------------


def test_only_the_latest_generation_is_delivered(qtbot):
    runner = workers.Runner()
    gate = threading.Event()
    got = []
    first = runner.submit("search", lambda c, p: (gate.wait(5), "first")[1], got.append)
    second = runner.submit("search", lambda c, p: "second", got.append)
    assert (first, second) == (1, 2) and runner.latest("search") == 2
    qtbot.waitUntil(lambda: got == ["second"], timeout=WAIT)
    gate.set()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=WAIT)
    assert got == ["second"] and runner.dropped == 1
    runner.shutdown()


def test_replaced_jobs_see_their_cancel_flag(qtbot):
    runner = workers.Runner()
    seen = threading.Event()
    started = threading.Event()

    def slow(cancelled, progress):
        started.set()
        for _ in range(500):
            if cancelled():
                seen.set()
                raise workers.Cancelled()
            threading.Event().wait(0.01)
        return "late"

    got = []
    runner.submit("search", slow, got.append)
    assert started.wait(5)
    runner.submit("search", lambda c, p: "new", got.append)
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=WAIT)
    assert seen.is_set() and got == ["new"]
    runner.shutdown()


def test_non_replacing_kinds_deliver_everything_and_errors_are_reported(qtbot):
    runner = workers.Runner()
    got, errors = [], []
    for n in range(3):
        runner.submit("reinforce", lambda c, p, n=n: n, got.append, replace=False)
    runner.submit("boom", lambda c, p: 1 / 0, got.append, on_error=errors.append)
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=WAIT)
    assert sorted(got) == [0, 1, 2] and errors == ["division by zero"]
    runner.shutdown()


def test_progress_is_throttled_and_busy_is_signalled(qtbot):
    runner = workers.Runner()
    steps, busy = [], []
    runner.busy_changed.connect(lambda kind, b: busy.append((kind, b)))

    def job(cancelled, progress):
        for i in range(1, 1001):
            progress("index", i, 1000)
        return "done"

    with qtbot.waitSignal(runner.busy_changed, timeout=WAIT, check_params_cb=lambda k, b: not b):
        runner.submit("index", job, on_progress=lambda *a: steps.append(a), writer=True)
    assert steps[-1] == ("index", 1000, 1000) and len(steps) < 100
    assert busy == [("index", True), ("index", False)]
    runner.shutdown()


def test_thread_closers_run_after_every_job(qtbot, store):
    """Connections never outlive a job (PySide drops a QRunnable's Python thread state after run)."""
    runner = workers.Runner()
    runner.thread_closers = [store.close_thread_connection]
    got = []
    for _ in range(6):
        runner.submit("stats", lambda c, p: workers.stats(store, c), got.append, replace=False)
    qtbot.waitUntil(lambda: len(got) == 6, timeout=WAIT)
    assert all(s["memories"] == got[0]["memories"] for s in got)
    runner.shutdown()
