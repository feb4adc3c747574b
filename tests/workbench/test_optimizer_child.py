"""The optimizer in the store's engine (engine/; issue 24, then 42): it runs in the engine's process,
its progress comes back, the runner's cancel drops it, the window's Stop still answers with the best
so far, and its answer is the in-process answer on the same store and seed. An embedder that cannot
cross runs the engine in this process (`crossing()`)."""

from __future__ import annotations

import dataclasses
import os

import pytest

from memhtml_desktop.domain.configs import shipped
from memhtml_desktop.engine.client import EngineClient
from memhtml_desktop.engine.protocol import Done, Failed, Opened, Progress
from memhtml_desktop.index.store import Store
from memhtml_desktop.ops.spec import crossing
from memhtml_desktop.ops.workbench import OptimizeJob
from memhtml_desktop.workbench.store_files import WorkbenchFiles
from tests.engine.helpers import HeldEmbedder, Inbox, LongLaneJob

DEFAULT = {c.name: c for c in shipped()}["default"]


def never() -> bool:
    return False


def same_search(a, b) -> dict:
    """The fields of two OptimizeResults that do not depend on the clock or the process."""
    skip = {"elapsed_s", "pid"}
    return {f.name: (getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a) if f.name not in skip}


@pytest.fixture
def committed(gen):
    store, probes = gen
    WorkbenchFiles(store.root).save_probe_set("gate", probes)
    return store


class Engine:
    """An engine over `store` for one test: `ask(job)` waits for its one answer (the test thread
    waits, never a GUI)."""

    def __init__(self, store) -> None:
        self.inbox = Inbox()
        self.client = EngineClient(store, self.inbox).start()
        self.inbox.wait(lambda m: isinstance(m, Opened))

    def ask(self, job, *, on_progress=None, timeout: float = 120.0):
        call = self.client.call(job)
        if on_progress is not None:
            seen = 0
            while True:  # progress lines in order, as they come, until the answer
                answer = self.inbox.wait(
                    lambda m: (
                        isinstance(m, (Done, Failed))
                        and m.id == call
                        or isinstance(m, Progress)
                        and m.id == call
                        and self.inbox.messages.index(m) >= seen
                    ),
                    timeout,
                )
                if not isinstance(answer, Progress):
                    break
                seen = self.inbox.messages.index(answer) + 1
                on_progress(call, answer)
        return self.inbox.answer(call, timeout)

    def close(self) -> None:
        self.client.close()


@pytest.fixture
def engine(committed):
    engine = Engine(committed)
    yield engine
    engine.close()


#: Six trials, each searched in the engine and here: twelve took 24 s of the suite for the same check
#: (every field of the two answers equal, on two stores and two seeds).
TRIALS = 6


@pytest.mark.parametrize("seed", [1, 7])
def test_the_optimizer_runs_in_the_engine_and_answers_what_this_process_would(committed, engine, seed):
    lines: list[tuple] = []
    there = engine.ask(
        OptimizeJob(set_name="gate", base=DEFAULT, trials=TRIALS, holdout=0.3, seed=seed),
        on_progress=lambda call, p: lines.append((p.phase, p.done, p.total)),
    )
    assert isinstance(there, Done)
    there = there.value
    here = OptimizeJob(set_name="gate", base=DEFAULT, trials=TRIALS, holdout=0.3, seed=seed).run(
        committed, never, lambda *_: None
    )
    assert there.pid == engine.client.pid != os.getpid() and here.pid == os.getpid()
    assert there.trials == here.trials == TRIALS and not there.cancelled
    for name, (a, b) in same_search(there, here).items():
        assert a == b, name
    assert ("trial", TRIALS, TRIALS) in lines, "the engine's progress came back"


def test_cancelling_drops_it_and_stop_answers_with_the_best_so_far(engine):
    # the runner's cancel: the search stops at its next trial; whatever it answers, the runner drops it
    cancelled = engine.ask(
        OptimizeJob(set_name="gate", base=DEFAULT, trials=100000),
        on_progress=lambda call, p: p.phase == "trial" and engine.client.cancel(call),
    )
    assert isinstance(cancelled, Failed) and cancelled.cancelled or cancelled.value.cancelled
    # the window's Stop (the engine's Stop message): the search ends and answers
    stopped = engine.ask(
        OptimizeJob(set_name="gate", base=DEFAULT, trials=100000),
        on_progress=lambda call, p: p.phase == "trial" and engine.client.stop(call),
    )
    assert isinstance(stopped, Done)
    result = stopped.value
    assert result is not None and result.cancelled and 0 < result.trials < 100000
    assert result.pid == engine.client.pid != os.getpid()


def test_stop_before_anything_was_tried_answers_none(engine):
    blocker = engine.client.call(LongLaneJob(seconds=30))  # the workbench lane is busy: the optimizer waits
    engine.inbox.wait(lambda m: isinstance(m, Progress) and m.id == blocker)
    call = engine.client.call(OptimizeJob(set_name="gate", base=DEFAULT, trials=50))
    engine.client.stop(call)  # Stop pressed at once: set before it reads the store
    engine.client.cancel(blocker)
    done = engine.inbox.answer(call, 60)
    assert isinstance(done, Done) and done.value is None


def test_an_embedder_that_cannot_cross_runs_the_optimizer_here(committed, tmp_path):
    held = Store(committed.root, index_path=tmp_path / "held.db", embedder=HeldEmbedder())
    held.index()
    engine = Engine(held)
    try:
        assert engine.client.in_process
        result = engine.ask(OptimizeJob(set_name="gate", base=DEFAULT, trials=6)).value
        assert result.pid == os.getpid() and result.trials == 6
    finally:
        engine.close()
        held.close_thread_connection()


@pytest.mark.slow
def test_with_minilm_the_engine_loads_the_same_model_and_answers_the_same(tmp_path):
    """MiniLM crosses by its registry name: the engine loads its own copy of the same int8 model, and
    its search is the one this process makes (another space would rank, and so choose, otherwise)."""
    pytest.importorskip("onnxruntime")
    from workbench.support import build

    store, probes = build(tmp_path, 160, 23, 10, "shuffled", "minilm")
    WorkbenchFiles(store.root).save_probe_set("gate", probes)
    assert crossing(store.embedder) == "minilm"
    engine = Engine(store)
    try:
        there = engine.ask(OptimizeJob(set_name="gate", base=DEFAULT, trials=8)).value
    finally:
        engine.close()
    here = OptimizeJob(set_name="gate", base=DEFAULT, trials=8).run(store, never, lambda *_: None)
    assert there.pid != os.getpid() == here.pid
    for name, (a, b) in same_search(there, here).items():
        assert a == b, name
