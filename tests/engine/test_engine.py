"""The engine (engine/): one process owning a real store, spoken to in typed messages.

Real stores on disk, real engine processes started as the window starts them; only the window's
Qt side is left out (tests/ui covers the Runner over the engine)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.results import Answer
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.engine.client import EngineClient
from memhtml_desktop.engine.protocol import (
    Batch,
    Done,
    Failed,
    Gone,
    Idle,
    Notices,
    Opened,
    OpenFailed,
    Progress,
    Status,
)
from memhtml_desktop.index.store import Store
from memhtml_desktop.ops.jobs import ReconcileJob, SearchJob
from memhtml_desktop.ops.spec import StoreSpec, spec_of
from tests.engine.helpers import (
    BumpJob,
    CurateLaneJob,
    FailJob,
    Inbox,
    LeakJob,
    NoticeJob,
    StoppableJob,
    WaitJob,
    WhereJob,
)
from tests.memfiles import memory_html
from tests.ui.conftest import write_golden_store


@pytest.fixture
def store(tmp_path: Path):
    root = write_golden_store(tmp_path / "store")
    s = Store(root, index_path=tmp_path / "index" / "index.db", embedder=HashEmbedder())
    s.index()
    s.close_thread_connection()
    return s


@pytest.fixture
def engine(store):
    inbox = Inbox()
    client = EngineClient(store, inbox).start()
    inbox.wait(lambda m: isinstance(m, Opened))
    yield client, inbox
    client.close()


def test_the_engine_opens_the_store_in_its_own_process_and_answers_a_search(engine, store):
    client, inbox = engine
    assert not client.in_process and client.pid not in (None, os.getpid())
    opened = inbox.wait(lambda m: isinstance(m, Opened))
    assert opened.facts.root == str(store.root) and opened.facts.embedder == HashEmbedder().space
    answer = inbox.answer(client.call(SearchJob("rollback order", Scope(), 5)))
    assert isinstance(answer, Done) and isinstance(answer.value, Answer)
    here = store.search("rollback order", Scope(), limit=5)
    assert [h.path for h in answer.value.result.hits] == [h.path for h in here.hits]


def test_a_lane_keeps_its_connection_across_calls(engine):
    """Two readers, each opening its connection once: five calls see at most two connections, all in
    the engine's process, none in the window's."""
    client, inbox = engine
    seen = [inbox.answer(client.call(WhereJob())).value for _ in range(5)]
    pids = {pid for pid, _, _ in seen}
    assert pids == {client.pid}
    assert len({conn for _, _, conn in seen}) <= 2 and len({thread for _, thread, _ in seen}) <= 2


def test_progress_and_the_one_answer_of_a_reconciliation(engine, store):
    client, inbox = engine
    (store.root / "areas" / "new").mkdir(parents=True)
    for i in range(30):
        (store.root / "areas" / "new" / f"note-{i}.html").write_text(
            memory_html(title=f"Note {i}", claim=f"The quota for shard {i} is {i * 7} requests."), encoding="utf-8"
        )
    call = client.call(ReconcileJob())
    done = inbox.answer(call, 60)
    assert isinstance(done, Done) and done.value.added == 30
    answers = [m for m in inbox.messages if isinstance(m, (Done, Failed)) and m.id == call]
    assert len(answers) == 1
    assert any(isinstance(m, Progress) and m.id == call for m in inbox.messages)


def test_a_cancelled_call_ends_cancelled_and_a_failing_one_in_its_own_words(engine):
    client, inbox = engine
    waiting = client.call(WaitJob())
    inbox.wait(lambda m: isinstance(m, Progress) and m.id == waiting)
    client.cancel(waiting)
    ended = inbox.answer(waiting, 10)
    assert isinstance(ended, Failed) and ended.cancelled
    failed = inbox.answer(client.call(FailJob()))
    assert isinstance(failed, Failed) and not failed.cancelled and failed.message == "no such probe set in store"


def test_a_stoppable_call_answers_with_what_it_has(engine):
    client, inbox = engine
    call = client.call(StoppableJob())
    inbox.wait(lambda m: isinstance(m, Progress) and m.id == call)
    client.stop(call)
    done = inbox.answer(call, 10)
    assert isinstance(done, Done) and done.value == "stopped with the best so far"


def test_a_lane_of_its_own_is_not_queued_behind_busy_readers(engine):
    """Both readers busy for 20 s: a call of the curate lane (the person's writes) answers at once."""
    client, inbox = engine
    busy = [client.call(WaitJob(seconds=20)) for _ in range(2)]
    for call in busy:
        inbox.wait(lambda m, c=call: isinstance(m, Progress) and m.id == c)
    started = time.monotonic()
    done = inbox.answer(client.call(CurateLaneJob()), 10)
    assert isinstance(done, Done) and done.value == "curated" and time.monotonic() - started < 5
    queued = client.call(WaitJob(seconds=0))  # a third read waits for a reader
    time.sleep(0.3)
    assert not any(isinstance(m, (Done, Failed)) and m.id == queued for m in inbox.messages)
    for call in busy:
        client.cancel(call)
    assert isinstance(inbox.answer(queued, 10), Done)


def test_notices_reach_the_window(engine):
    client, inbox = engine
    inbox.answer(client.call(NoticeJob()))
    said = inbox.wait(lambda m: isinstance(m, Notices) and m.texts)
    assert said.texts == ("The index was damaged; it was moved aside and rebuilt.",)


def test_the_watcher_runs_in_the_engine_and_says_each_batch(engine, store):
    client, inbox = engine
    client.watch(quiet_s=0.05, max_delay_s=0.2)
    inbox.wait(lambda m: isinstance(m, Status) and m.status.mode in ("live", "polling"), 30)
    inbox.wait(lambda m: isinstance(m, Idle) and m.idle, 30)
    path = store.root / "areas" / "oncall" / "pager-rotation.html"
    path.write_text(
        memory_html(title="Pager rotation", claim="The pager rotates every Monday at 09:00."), encoding="utf-8"
    )
    batch = inbox.wait(lambda m: isinstance(m, Batch) and m.summary.added, 30)
    assert batch.summary.added >= 1
    found = inbox.answer(client.call(SearchJob("pager rotates monday", Scope(), 3)))
    assert found.value.result.hits[0].path == "areas/oncall/pager-rotation.html"


def test_a_killed_engine_fails_its_calls_then_a_new_one_answers(engine):
    client, inbox = engine
    client.watch(quiet_s=0.05)
    waiting = client.call(WaitJob())
    inbox.wait(lambda m: isinstance(m, Progress) and m.id == waiting)
    first = client.pid
    client.kill()
    ended = inbox.answer(waiting, 10)
    assert isinstance(ended, Failed) and "SIGKILL" in ended.message and not ended.cancelled
    gone = inbox.wait(lambda m: isinstance(m, Gone))
    assert not gone.expected and "SIGKILL" in gone.reason
    done = inbox.answer(client.call(SearchJob("rollback", Scope(), 3)), 30)
    assert isinstance(done, Done) and client.pid != first
    # the watcher was started again in the new engine
    inbox.wait(
        lambda m: (
            isinstance(m, Status)
            and m.status.mode in ("live", "polling")
            and inbox.messages.index(m) > inbox.messages.index(gone)
        ),
        30,
    )


def test_an_engine_that_keeps_dying_is_not_restarted_by_a_request(store):
    inbox = Inbox()
    client = EngineClient(store, inbox).start()
    try:
        for _ in range(3):
            inbox.wait(lambda m: isinstance(m, Opened) and inbox.messages.count(m) >= 1)
            pid = client.pid
            client.kill()
            inbox.wait(
                lambda m, n=len([x for x in inbox.messages if isinstance(x, Gone)]): (
                    len([x for x in inbox.messages if isinstance(x, Gone)]) > n
                )
            )
            if _ < 2:
                assert isinstance(inbox.answer(client.call(SearchJob("rollback", Scope(), 1))), Done)
                assert client.pid != pid
        refused = inbox.answer(client.call(SearchJob("rollback", Scope(), 1)))
        assert isinstance(refused, Failed) and "not running" in refused.message and "SIGKILL" in refused.message
        client.restart()
        assert isinstance(inbox.answer(client.call(SearchJob("rollback", Scope(), 1)), 30), Done)
    finally:
        client.close()


def test_a_store_that_cannot_open_is_said(tmp_path):
    inbox = Inbox()
    spec = StoreSpec(str(tmp_path / "missing"), str(tmp_path / "index.db"), HashEmbedder(), "numpy", True, None)
    client = EngineClient(spec, inbox).start()
    try:
        failed = inbox.wait(lambda m: isinstance(m, OpenFailed))
        assert "not a directory" in failed.message
        refused = inbox.answer(client.call(SearchJob("x", Scope(), 1)), 10)
        assert isinstance(refused, Failed)
    finally:
        client.close()
    assert not client.running


def test_an_embedder_that_cannot_cross_runs_the_engine_here(store, tmp_path):
    class Unpicklable(HashEmbedder):
        def __reduce__(self):
            raise TypeError("stays here")

    held = Store(store.root, index_path=store.index_path, embedder=Unpicklable())
    assert spec_of(held) is None
    inbox = Inbox()
    client = EngineClient(held, inbox).start()
    try:
        inbox.wait(lambda m: isinstance(m, Opened))
        assert client.in_process
        pid, _, _ = inbox.answer(client.call(WhereJob())).value
        assert pid == os.getpid()
        assert isinstance(inbox.answer(client.call(SearchJob("rollback", Scope(), 2))), Done)
    finally:
        client.close()
        held.close_thread_connection()


def test_a_clean_close_reads_as_clean_while_other_threads_ask_whether_it_runs(store, caplog):
    """Under the forkserver a child's exit code is written once on its sentinel; two threads polling
    together made the second reader get EOF, and multiprocessing then recorded 255 over the real 0:
    a clean exit said as a crash. Six engines closed while three threads keep asking."""
    for _ in range(6):
        inbox = Inbox()
        client = EngineClient(store, inbox).start()
        client.watch(quiet_s=0.1)
        inbox.wait(lambda m: isinstance(m, Idle) and m.idle, 30)
        asking = threading.Event()

        def ask() -> None:
            while not asking.is_set():
                client.running  # noqa: B018 - the poll is the point

        askers = [threading.Thread(target=ask) for _ in range(3)]
        for thread in askers:
            thread.start()
        try:
            client.close(10)
        finally:
            asking.set()
            for thread in askers:
                thread.join()
        gone = inbox.wait(lambda m: isinstance(m, Gone), 10)
        assert gone.expected and gone.reason == "exit code 0"
    assert "the engine stopped" not in caplog.text


def test_which_embedders_cross_to_an_engine_process(store, tmp_path):
    from memhtml_desktop.ops.spec import crossing
    from tests.engine.helpers import HeldEmbedder

    held = Store(store.root, index_path=tmp_path / "held.db", embedder=HeldEmbedder())
    assert spec_of(held) is None
    assert crossing(HashEmbedder()) is not None and spec_of(store) is not None
    pytest.importorskip("onnxruntime")
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    assert crossing(MiniLMEmbedder()) == "minilm"
    assert crossing(MiniLMEmbedder(precision="fp32")) is None, "fp32 is not the registry's int8 space"
    assert crossing(MiniLMEmbedder(model_dir=tmp_path)) is None


def test_a_reconciliation_asked_of_the_watcher_runs_and_is_said(engine, store):
    client, inbox = engine
    client.watch(quiet_s=0.05)
    inbox.wait(lambda m: isinstance(m, Batch) and m.summary.kind == "reconcile", 30)
    inbox.wait(lambda m: isinstance(m, Idle) and m.idle, 30)
    client.reconcile("asked for")
    inbox.wait(
        lambda m: len([x for x in inbox.messages if isinstance(x, Batch) and x.summary.kind == "reconcile"]) >= 2, 30
    )


@pytest.mark.parametrize("asked, expected", [(None, 0), ("0", 0), ("5", 5), ("nonsense", 0), ("40", 0)])
def test_the_engine_runs_at_the_windows_niceness_unless_told(store, monkeypatch, asked, expected):
    """ENGINE_NICE (0) steps nicer than the window, unless MEMHTML_DESKTOP_ENGINE_NICE names 0-19 (the
    benchmark that weighs the niceness sets it; anything else is the default)."""
    from memhtml_desktop.engine.process import ENGINE_NICE, engine_nice

    assert engine_nice({}) == ENGINE_NICE == 0
    if asked is None:
        monkeypatch.delenv("MEMHTML_DESKTOP_ENGINE_NICE", raising=False)
    else:
        monkeypatch.setenv("MEMHTML_DESKTOP_ENGINE_NICE", asked)
    inbox = Inbox()
    client = EngineClient(store, inbox).start()
    try:
        inbox.wait(lambda m: isinstance(m, Opened))
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, client.pid) == min(19, mine + expected)
    finally:
        client.close()


def test_the_engine_gives_freed_memory_back_between_calls_never_during_one(store, monkeypatch):
    """glibc keeps what a call freed in its thread's arena: the engine trims between calls (at most every
    TRIM_EVERY_S, only when no call runs and one finished since the last trim)."""
    from memhtml_desktop.engine import core

    monkeypatch.setattr(core, "TRIM_EVERY_S", 0.0)
    sent: list = []
    engine = core.Engine(spec_of(store), sent.append, store=store)
    engine._tick()
    assert engine.trims == 0  # nothing finished yet: nothing to give back
    engine._running[1] = core._Running(kind="search")
    engine._running[2] = core._Running(kind="count")
    engine._finish(1, Done(1, None))
    engine._tick()
    assert engine.trims == 0  # a call still runs: its memory is in use
    engine._finish(2, Done(2, None))
    engine._tick()
    engine._tick()
    assert engine.trims == 1  # once for what finished, not at every tick
    assert core.give_back_freed_memory() is True  # glibc here: the trim is real


def test_the_engine_process_holds_glibcs_allocator_to_few_arenas_and_a_fixed_mmap_threshold():
    """`engine_main` calls tune_allocator before its threads start; here: it takes on this glibc, and the
    engine's module calls it where the process begins."""
    import inspect

    from memhtml_desktop.engine import core, process

    assert core.tune_allocator() is True
    source = inspect.getsource(process.engine_main)
    assert source.index("tune_allocator()") < source.index("Engine(spec, send)")


def test_the_engine_says_where_its_memory_is(store):
    """`MemoryJob` asks the engine itself where its memory is (the soak samples it beside the RSS):
    SQLite's heap of every lane's connection, glibc's heap, Python's objects; SQLite unbounded."""
    from memhtml_desktop.ops.jobs import MemoryJob

    inbox = Inbox()
    client = EngineClient(store, inbox).start()
    try:
        inbox.wait(lambda m: isinstance(m, Opened))
        inbox.answer(client.call(SearchJob("rollback", Scope(), 5)))  # a lane's connection open and read
        call = client.call(MemoryJob())
        done = inbox.wait(lambda m: isinstance(m, Done) and m.id == call)
    finally:
        client.close()
    report = done.value
    assert report["sqlite_limit_mb"] == 0  # no soft heap limit (the one tried is in docs/reliability.md)
    assert 0 < report["sqlite_mb"] < 200
    assert report["objects"] > 1000 and report["heap_in_use_mb"] > 1


def test_a_job_that_leaves_a_state_read_running_does_not_lock_the_other_lanes_out(engine):
    """A job that leaves a cursor over state.db alive (a kept generator) kept its lane's connection
    holding state.db's shared lock (rollback-journal mode) while that lane idled: every other
    thread's bump met "state plane busy" for as long as it idled (the soak at aa3408c, action
    7,250). The lane settles its connection after each job: named in the log, closed."""
    client, inbox = engine
    leaked = inbox.answer(client.call(LeakJob()))
    assert isinstance(leaked, Done) and leaked.value == "engine-test-leak-0"
    bumped = inbox.answer(client.call(BumpJob()))
    assert isinstance(bumped, Done), bumped
    held, moved = bumped.value
    assert held == [] and moved >= 1


def test_closing_waits_once_for_all_the_lanes_and_says_which_stage_was_slow(store, monkeypatch, caplog):
    """Three lanes, each running a job that ignores its cancel flag: closing waits LANE_JOIN_S for them
    together (it waited that long for each lane in turn, three times over), and the warning names the
    stage the time went to — the window terminates an engine whose close outlasts CLOSE_WAIT_S, and
    only this line says why it took so long."""
    import logging

    from memhtml_desktop.engine import core
    from memhtml_desktop.engine.protocol import Call
    from tests.engine.helpers import DeafJob

    monkeypatch.setattr(core, "LANE_JOIN_S", 1.2)
    engine = core.Engine(spec_of(store), [].append, store=store)
    engine._owns_parse_workers = False
    started, release = threading.Semaphore(0), threading.Event()
    try:
        for call_id, lane in enumerate(("first", "second", "third"), 1):
            engine.handle(Call(call_id, DeafJob(pool=lane, started=started, release=release)))
        for _ in range(3):
            assert started.acquire(timeout=20)
        with caplog.at_level(logging.WARNING, logger="memhtml_desktop.engine.core"):
            began = time.monotonic()
            engine.close()
            took = time.monotonic() - began
    finally:
        release.set()
    assert 1.2 <= took < 2.4  # one wait of 1.2 s; three in turn are 3.6 s at least
    assert any("closing the engine: joining the lanes took 1." in r.getMessage() for r in caplog.records)


def test_closing_kills_parse_workers_that_cannot_run_instead_of_waiting_for_them(engine):
    """The engine's parse workers are niced: beside two busy processes they got no core for seconds,
    the engine's close waited for them to finish their chunks, and the window terminated it after
    CLOSE_WAIT_S. Stopped workers (SIGSTOP: a worker that gets no core at all) are killed at close,
    and the engine leaves on its own, exit code 0."""
    import signal

    from tests.engine.helpers import ParseWorkersJob

    client, inbox = engine
    done = inbox.answer(client.call(ParseWorkersJob()), 60)
    assert isinstance(done, Done) and done.value
    workers = done.value
    try:
        for pid in workers:
            os.kill(pid, signal.SIGSTOP)
        client.close(10)
        gone = inbox.wait(lambda m: isinstance(m, Gone), 10)
        assert gone.expected and gone.reason == "exit code 0"
        assert not [pid for pid in workers if _alive(pid)]
    finally:
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:  # a zombie is dead, only not reaped yet
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
