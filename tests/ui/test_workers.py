"""The typed jobs (plain objects, no Qt needed) and the runner (generations, cancelling, progress)."""

from __future__ import annotations

import json
import time

import pytest

from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.state import access_stats
from memhtml_desktop.index.store import Store
from memhtml_desktop.ops import jobs
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ui.session import runner as workers
from tests.engine.helpers import ChattyJob, FailJob, Gate, GatedSearch, HoldJob, WaitJob
from tests.ui.conftest import INFRA, PROCEDURAL

WAIT = 10000


# -- the jobs, as plain objects --------------------------------------------------------------------


def never() -> bool:
    return False


def quiet(*_) -> None:
    return None


def test_search_and_counts_jobs_bump_nothing(store):
    result = jobs.SearchJob("drain the vip", Scope(), 10).run(store, never, quiet)
    assert result.hits[0].path == PROCEDURAL
    counts = jobs.CountsJob("drain the vip", Scope()).run(store, never, quiet)
    assert counts.types.get("procedural") == 1 and counts.query_matches >= 1
    assert access_stats(store.reader(), PROCEDURAL) is None


class CountedAt(Store):
    """A store that notes when it was asked to count."""

    asked_at: list[float]

    def counts(self, query, scope=None):
        self.asked_at.append(time.monotonic())
        return super().counts(query, scope)


def test_a_count_counts_at_once_and_a_cancelled_one_never(store_dir, tmp_path):
    """Counts run in the engine's process: no wait before counting (issue 42), and a count
    cancelled before it starts asks the store nothing."""
    store = CountedAt(store_dir, index_path=tmp_path / "counted.db")
    store.asked_at = []
    store.index()
    try:
        start = time.monotonic()
        counts = jobs.CountsJob("", Scope()).run(store, never, quiet)
        assert counts.types and store.asked_at and store.asked_at[0] - start < 0.1
        store.asked_at.clear()
        with pytest.raises(jobs.Cancelled):
            jobs.CountsJob("", Scope()).run(store, lambda: True, quiet)
        assert store.asked_at == []
    finally:
        store.close_thread_connection()


def test_a_cancelled_job_stops_before_it_starts(store):
    with pytest.raises(jobs.Cancelled):
        jobs.SearchJob("drain", Scope(), 10).run(store, lambda: True, quiet)


def test_open_bumps_only_when_asked_and_says_what_it_changed(store):
    job = jobs.OpenJob(PROCEDURAL, ("drain",), bump=False)
    opened = job.run(store, never, quiet)
    assert opened.detail.path == PROCEDURAL and access_stats(store.reader(), PROCEDURAL) is None
    assert "drain" in opened.safe_html and job.changes(opened) is None
    job = jobs.OpenJob(PROCEDURAL, ("drain",))
    opened = job.run(store, never, quiet)
    assert opened.detail.access["access_count"] == 1
    assert job.changes(opened) == StoreChange(state=frozenset({PROCEDURAL}))


class SavedBetweenReads(Store):
    """A store whose file is saved by "an editor" right after each read of it (a real write on disk)."""

    def file_bytes(self, path):
        data = super().file_bytes(path)
        target = self.root / path
        target.write_bytes(target.read_bytes().replace(b"Zebra-v1", b"Zebra-v2"))
        return data


def test_opening_reads_the_file_once_so_details_and_article_agree(store_dir, tmp_path):
    """Defect (issue 12): the detail and the rendered article came from two reads of the file."""
    target = store_dir / PROCEDURAL
    target.write_bytes(target.read_bytes().replace(b"<mark>", b"<mark>Zebra-v1 ", 1))
    store = SavedBetweenReads(store_dir, index_path=tmp_path / "saved.db")
    store.index()
    opened = jobs.open_memory(store, PROCEDURAL, (), False, never)
    assert "Zebra-v1" in opened.detail.text and "Zebra-v1" in opened.safe_html
    assert "Zebra-v2" not in opened.safe_html
    assert b"Zebra-v2" in target.read_bytes()  # the editor's save did happen
    store.close_thread_connection()


def test_reinforce_rereads_without_a_bump(store):
    jobs.OpenJob(INFRA).run(store, never, quiet)
    result, opened, before = jobs.ReinforceJob(INFRA, "positive").run(store, never, quiet)
    assert INFRA in result.signal_applied
    assert opened.detail.access["access_count"] == 1 and opened.detail.access["reinforcement_count"] == 1
    assert before["access_count"] == 1 and before["reinforcement_count"] == 0  # the row the note compares with


def test_problems_stats_why_recall(store):
    problems, stats = jobs.ProblemsJob().run(store, never, quiet)
    assert "areas/bad/no-article.html" in {p.path for p in problems} and stats["memories"] > 0
    assert jobs.WhyJob("drain", Scope(), INFRA).run(store, never, quiet).path == INFRA
    pack = jobs.RecallJob("drain the vip", Scope(), 500, 10).run(store, never, quiet)
    assert pack.memories.spent <= 500


def test_reconcile_seeds_salience_from_the_sidecar(store_dir, tmp_path):
    sidecar = store_dir / ".memhtml" / "state" / "access.jsonl"
    sidecar.parent.mkdir(parents=True)
    row = {
        "path": INFRA,
        "accessCount": 7,
        "reinforcementCount": 0,
        "outcomeScore": 0,
        "lastAccessedAt": "2026-08-01T00:00:00Z",
        "lastReinforcedAt": None,
        "updatedAt": "2026-08-01T00:00:00Z",
    }
    sidecar.write_text(json.dumps(row) + "\n", encoding="utf-8")
    fresh = Store(store_dir, index_path=tmp_path / "fresh.db")
    job = jobs.ReconcileJob(import_sidecar=True)
    report = job.run(fresh, never, quiet)
    assert report.added > 0 and job.changes(report).index
    assert access_stats(fresh.reader(), INFRA)["access_count"] == 7


# -- the runner (over a real engine: tests/engine has the engine's own tests) ----------------------


@pytest.fixture
def runner(qtbot, store):
    made = workers.Runner()
    made.open(store)
    qtbot.waitUntil(lambda: made.store.is_open, timeout=WAIT)
    yield made
    made.shutdown()


def test_only_the_latest_generation_is_delivered(qtbot, runner, tmp_path):
    gate = Gate(tmp_path)
    got = []
    first = runner.run(GatedSearch("drain", Scope(), 3, gate=gate.path).success(lambda a: got.append("first")))
    second = runner.run(jobs.SearchJob("drain", Scope(), 3).success(lambda a: got.append("second")))
    assert (first, second) == (1, 2) and runner.latest("search") == 2
    qtbot.waitUntil(lambda: got == ["second"], timeout=WAIT)
    gate.open()  # the first answers now (it ignores its cancel): late, and dropped
    qtbot.waitUntil(lambda: runner.dropped == 1, timeout=WAIT)
    assert got == ["second"]


def test_replaced_jobs_see_their_cancel_flag(qtbot, runner):
    got, progress = [], []
    runner.run(WaitJob(seconds=60).success(got.append).progress(lambda *line: progress.append(line)))
    qtbot.waitUntil(lambda: bool(progress), timeout=WAIT)  # it runs, in the engine
    started = time.monotonic()
    runner.run(WaitJob(seconds=0).success(got.append))
    qtbot.waitUntil(lambda: got == ["waited"] and runner.dropped == 1, timeout=WAIT)
    assert time.monotonic() - started < 10  # the first stopped at its flag, not after its 60 s


def test_non_replacing_kinds_deliver_everything_and_errors_are_reported(qtbot, runner, tmp_path):
    gate = Gate(tmp_path)
    gate.open()
    got, errors = [], []
    for _ in range(3):
        runner.run(HoldJob(gate=gate.path).success(got.append))
    runner.run(FailJob().failure(errors.append))
    qtbot.waitUntil(lambda: len(got) == 3 and bool(errors) and not runner.is_busy(), timeout=WAIT)
    assert got == ["released"] * 3 and errors == ["no such probe set in store"]


def test_progress_is_throttled_and_busy_is_signalled(qtbot, runner):
    steps, busy = [], []
    runner.busy_changed.connect(lambda kind, b: busy.append((kind, b)))
    with qtbot.waitSignal(runner.busy_changed, timeout=WAIT, check_params_cb=lambda k, b: not b):
        runner.run(ChattyJob().progress(lambda *a: steps.append(a)))
    assert steps[-1] == ("index", 1000, 1000) and len(steps) < 100
    assert busy == [("test-chatty", True), ("test-chatty", False)]


def test_a_typed_job_runs_its_handlers_and_announces_its_change(qtbot, runner):
    order, changes, errors = [], [], []
    runner.events.changed.connect(lambda change: (changes.append(change), order.append("changed")))
    runner.run(jobs.OpenJob(INFRA, bump=True).success(lambda opened: order.append("success")))
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=WAIT)
    runner.run(jobs.OpenJob("areas/nowhere.html").failure(errors.append))  # (a second open replaces a first)
    qtbot.waitUntil(lambda: not runner.is_busy() and bool(errors), timeout=WAIT)
    assert order == ["success", "changed"] and changes == [StoreChange(state=frozenset({INFRA}))]
    assert "nowhere" in errors[0]


def test_a_runner_without_an_engine_runs_nothing(qtbot):
    runner = workers.Runner()
    assert runner.run(jobs.StatsJob()) == -1 and not runner.is_busy()
    runner.shutdown()


def test_the_idle_collector_waits_for_a_quiet_window_then_collects_and_freezes(qtbot, runner, tmp_path):
    """Issue 14: full collections happen when nobody waits (a full pass held the GIL 260 ms mid-burst)."""
    import gc

    from memhtml_desktop.ui.shell import idle_gc
    from memhtml_desktop.ui.shell.idle_gc import IdleCollector

    class Driver:
        def __init__(self) -> None:
            self.waiting = False

        def pending(self) -> bool:
            return self.waiting

    driver = Driver()
    collector = IdleCollector(runner, driver)
    collector.timer.stop()
    collector._busy_at -= idle_gc.QUIET_S + 1
    gate = Gate(tmp_path)
    runner.run(HoldJob(gate=gate.path))
    assert not collector.maybe_collect()  # a job runs
    gate.open()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=5000)
    assert not collector.maybe_collect()  # it just finished: not quiet yet
    collector._busy_at -= idle_gc.QUIET_S + 1
    driver.waiting = True
    assert not collector.maybe_collect()  # a search waits for its debounce
    driver.waiting = False
    import weakref

    class Node(list):
        pass

    garbage = [Node() for _ in range(1000)]
    for a, b in zip(garbage, garbage[1:]):
        a.append(b), b.append(a)  # cycles only the collector frees
    gone = weakref.ref(garbage[500])
    del garbage, a, b
    assert collector.maybe_collect() and collector.collections == 1
    assert gone() is None and gc.get_freeze_count() > 0  # collected; the survivors frozen again


def test_a_shut_down_window_collects_nothing_more(window):
    """A closed window's collector went on settling and, nothing busy holding it back, walked the
    whole heap in the middle of what ran next in the process (99 ms beside the next round's cold
    index, event_loop_gaps --trace). Shut down, it neither settles nor collects deeply."""
    import gc

    from memhtml_desktop.ui.shell import idle_gc

    collector = window.idle_gc
    assert collector.timer.isActive() and collector.settle_timer.isActive()
    window.shutdown()
    assert not collector.timer.isActive() and not collector.settle_timer.isActive()
    collector._busy_at -= idle_gc.QUIET_S + 1  # quiet long enough, never collected deeply
    collector._deep_at = float("-inf")
    collections, settles = collector.collections, collector.settles
    assert not collector.maybe_collect()
    collector.settle()
    assert (collector.collections, collector.settles) == (collections, settles)
    assert gc.isenabled()  # the automatic collector is the process's own business still


def test_the_collector_settles_while_busy_and_frees_frozen_cycles_only_when_all_is_quiet(qtbot):
    """Issue 24: during a cold index the window never went quiet, so what it gathered was walked
    by an automatic full collection (63-76 ms). A settle collects what is not frozen and freezes
    the survivors whatever runs; a garbage cycle among frozen objects is freed by the deep
    collection, which waits for the runner, the search, the watcher's pass and DEEP_EVERY_S."""
    import gc
    import weakref

    from memhtml_desktop.ui.shell import idle_gc
    from memhtml_desktop.ui.shell.idle_gc import IdleCollector

    class Driver:
        def pending(self) -> bool:
            return False

    class Node:
        def __init__(self) -> None:
            self.other = None

    class Status:
        def __init__(self, busy: bool) -> None:
            self.busy = busy

    runner = workers.Runner()
    collector = IdleCollector(runner, Driver())
    collector.heard(Status(busy=True))
    collector.timer.stop()
    collector.settle_timer.stop()
    try:
        young_a, young_b = Node(), Node()
        young_a.other, young_b.other = young_b, young_a  # a cycle, garbage before any settle
        young = weakref.ref(young_a)
        del young_a, young_b
        kept = [Node() for _ in range(500)]
        frozen = gc.get_freeze_count()
        collector.settle()
        assert young() is None  # the unfrozen cycle was collected
        assert gc.get_freeze_count() >= frozen + len(kept)  # the survivors are frozen
        old_a, old_b = kept[0], kept[1]
        old_a.other, old_b.other = old_b, old_a  # frozen objects, now a garbage cycle
        old = weakref.ref(old_a)
        del kept, old_a, old_b
        collector.settle()
        assert old() is not None  # frozen: a settle does not walk it
        collector._busy_at -= idle_gc.QUIET_S + 1
        assert not collector.maybe_collect()  # the watcher's pass is under way
        collector.heard(Status(busy=False))
        assert not collector.maybe_collect()  # it has just said so: not quiet yet
        collector._busy_at -= idle_gc.QUIET_S + 1
        assert collector.maybe_collect() and collector.collections == 1
        assert old() is None  # freed by the deep collection
        collector._busy_at -= idle_gc.QUIET_S + 1
        assert not collector.maybe_collect()  # at most every DEEP_EVERY_S
        collector._deep_at -= idle_gc.DEEP_EVERY_S + 1
        assert collector.maybe_collect() and collector.collections == 2
    finally:
        runner.shutdown()
