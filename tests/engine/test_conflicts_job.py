"""The conflicts scan as the window runs it: a `ConflictsJob` in the engine's process (never the
window's thread), cancelled mid-way — it ends within seconds, answers "cancelled", and leaves the
store, git and the index as they were; not cancelled, it answers what a direct scan finds."""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from memhtml_desktop.devtools.gen_store import generate_store, git_commit
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.engine.protocol import Done, Failed, Progress
from memhtml_desktop.index.store import Store
from memhtml_desktop.ops.curate import ConflictsJob
from memhtml_desktop.write.conflicts import scan_conflicts
from tests.engine import test_engine
from tests.engine.helpers import Gate


@dataclass(kw_only=True)
class GatedConflictsJob(ConflictsJob):
    """The real job, held after the twin search's first progress until the test cancels it or opens
    `gate`; the scan itself must then notice the cancel (nothing here raises it)."""

    kind: ClassVar[str] = "test-gated-conflicts"
    gate: str = ""

    def run(self, store, cancelled, progress):
        held = [False]

        def hold(phase: str, done: int, total: int) -> None:
            progress(phase, done, total)
            if not held[0]:
                held[0] = True
                Path(f"{self.gate}.waiting").write_text(f"{done}/{total}")
                deadline = time.monotonic() + 60
                while not (cancelled() or os.path.exists(self.gate) or time.monotonic() > deadline):
                    time.sleep(0.005)

        return super().run(store, cancelled, hold)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("conflicts-job") / "store"
    generate_store(root, 400, seed=31, probes=10)
    git_commit(root)
    s = Store(root, index_path=root.parent / "index" / "index.db", embedder=HashEmbedder())
    s.index()
    scan_conflicts(s)  # the index's vector file (index/vector_file.py) made once, as any search makes it
    s.close_thread_connection()
    return s


engine = test_engine.engine  # the engine's tests' engine, over this module's `store`


def fingerprint(store: Store) -> dict:
    """Every file of the store and beside the index (the index, its vector file), by content; git's
    HEAD and status."""
    out = {}
    for folder in (store.root, store.index_path.parent):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.name.endswith(("-shm", "-wal", ".lock")):
                out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    for args in (["rev-parse", "HEAD"], ["status", "--porcelain", "--untracked-files=all"]):
        out[" ".join(args)] = subprocess.run(
            ["git", "-C", str(store.root), *args], capture_output=True, text=True, check=True
        ).stdout
    return out


def test_a_scan_cancelled_mid_way_ends_promptly_and_writes_nothing(engine, store, tmp_path):
    client, inbox = engine
    before = fingerprint(store)
    gate = Gate(tmp_path)
    call = client.call(GatedConflictsJob(gate=gate.path))
    progress = inbox.wait(lambda m: isinstance(m, Progress) and m.id == call, 60)
    assert progress.phase == "conflicts" and 0 < progress.done <= progress.total
    deadline = time.monotonic() + 30
    while not gate.waiting() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert gate.waiting()
    cancelled_at = time.monotonic()
    client.cancel(call)
    ended = inbox.answer(call, 30)
    assert isinstance(ended, Failed) and ended.cancelled, ended
    assert time.monotonic() - cancelled_at < 5
    assert client.pid not in (None, os.getpid())  # it ran in the engine's process, not the window's
    assert fingerprint(store) == before


def test_a_scan_not_cancelled_answers_what_a_direct_scan_finds(engine, store, tmp_path):
    client, inbox = engine
    gate = Gate(tmp_path)
    gate.open()
    done = inbox.answer(client.call(GatedConflictsJob(gate=gate.path)), 120)
    assert isinstance(done, Done) and not done.value.cancelled
    direct = Store(store.root, index_path=store.index_path, embedder=HashEmbedder())
    expected = scan_conflicts(direct)
    assert expected.pairs
    assert [p.to_json() for p in done.value.pairs] == [p.to_json() for p in expected.pairs]
