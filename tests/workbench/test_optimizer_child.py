"""The optimizer in the backend's child process (issue 24): it runs in another pid, its progress comes
back, the runner's cancel drops it, the window's Stop still answers with the best so far, and its
answer is the in-process answer on the same store and seed. An embedder that cannot cross keeps it
in this process (`crossing()`)."""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import threading

import pytest

from memhtml_desktop.domain.configs import shipped
from memhtml_desktop.index.store import Store
from memhtml_desktop.ops import backend
from memhtml_desktop.ops.jobs import Cancelled
from memhtml_desktop.ops.workbench import OptimizeJob
from memhtml_desktop.workbench.store_files import WorkbenchFiles
from tests.ops.test_backend import _HeldEmbedder  # an Event inside: it does not pickle

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


@pytest.mark.parametrize("seed", [1, 7])
def test_the_optimizer_runs_in_a_child_and_answers_what_this_process_would(committed, seed):
    lines: list[tuple] = []
    job = OptimizeJob(set_name="gate", base=DEFAULT, trials=12, holdout=0.3, seed=seed)
    there = backend.job_call(job, committed)(never, lambda *line: lines.append(line))
    here = OptimizeJob(set_name="gate", base=DEFAULT, trials=12, holdout=0.3, seed=seed).run(
        committed, never, lambda *_: None)
    assert there.pid != os.getpid() and here.pid == os.getpid()
    assert there.trials == here.trials == 12 and not there.cancelled
    for name, (a, b) in same_search(there, here).items():
        assert a == b, name
    assert ("trial", 12, 12) in lines, "the child's progress came back"


def test_cancelling_drops_the_child_and_stop_answers_with_the_best_so_far(committed):
    # the runner's cancel: the child stops at its next trial (the optimizer answers with what it had,
    # marked cancelled, and the runner drops that answer); no child is left behind
    flag = threading.Event()
    job = OptimizeJob(set_name="gate", base=DEFAULT, trials=100000)
    dropped = backend.job_call(job, committed)(flag.is_set, lambda phase, done, total: phase == "trial" and flag.set())
    assert dropped.cancelled and dropped.trials < 100000 and dropped.pid != os.getpid()
    assert not [c for c in multiprocessing.active_children() if c.name == "memhtml-wb-optimize"]
    # the window's Stop (its own flag, never pickled): the child ends its search and answers
    job = OptimizeJob(set_name="gate", base=DEFAULT, trials=100000)
    trials_seen: list[int] = []

    def progress(phase, done, total):
        if phase == "trial":
            trials_seen.append(done)
            job.stop.set()

    result = backend.job_call(job, committed)(never, progress)
    assert result is not None and result.cancelled and 0 < result.trials < 100000
    assert result.pid != os.getpid()


def test_stop_before_anything_was_tried_answers_none_from_the_child(committed):
    job = OptimizeJob(set_name="gate", base=DEFAULT, trials=50)
    job.stop.set()  # Stop pressed at once: the child is told before it reads the store
    assert backend.job_call(job, committed)(never, lambda *_: None) is None


def test_an_embedder_that_cannot_cross_keeps_the_optimizer_here(committed, tmp_path):
    held = Store(committed.root, index_path=tmp_path / "held.db", embedder=_HeldEmbedder())
    held.index()
    try:
        job = OptimizeJob(set_name="gate", base=DEFAULT, trials=6)
        result = backend.job_call(job, held)(never, lambda *_: None)
        assert result.pid == os.getpid() and result.trials == 6
    finally:
        held.close_thread_connection()


@pytest.mark.slow
def test_with_minilm_the_child_loads_the_same_model_and_answers_the_same(tmp_path):
    """MiniLM crosses by its registry name: the child loads its own copy of the same int8 model, and
    its search is the one this process makes (another space would rank, and so choose, otherwise)."""
    pytest.importorskip("onnxruntime")
    from workbench.support import build

    store, probes = build(tmp_path, 160, 23, 10, "shuffled", "minilm")
    WorkbenchFiles(store.root).save_probe_set("gate", probes)
    assert backend.crossing(store.embedder) == "minilm"
    there = backend.job_call(OptimizeJob(set_name="gate", base=DEFAULT, trials=8), store)(never, lambda *_: None)
    here = OptimizeJob(set_name="gate", base=DEFAULT, trials=8).run(store, never, lambda *_: None)
    assert there.pid != os.getpid() == here.pid
    for name, (a, b) in same_search(there, here).items():
        assert a == b, name
