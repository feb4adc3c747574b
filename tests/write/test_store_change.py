"""Every write answers with the StoreChange the write core computed (`Applied.change`, issue 24):
its paths are exactly the paths its commits carried (`git diff-tree` of each new commit), its moves
the files it moved, and the window's jobs announce that change, never one rebuilt from the request."""

from __future__ import annotations

import time

import pytest

from memhtml_desktop.ops.curate import ApplyJob, UndoJob
from memhtml_desktop.write.batch import ApplyRequest, BatchOp
from memhtml_desktop.write.requests import (
    ArchiveRequest,
    CorrectRequest,
    LinkRequest,
    SupersedeRequest,
    TaskStatusRequest,
    WriteRequest,
)
from write.support import git, open_store, pin_git, seed

MEMORY = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"
MERGES = "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html"
DOES_NOT = "projects/billing-service/compactor-leaves-overlapping-usage-rows-alone.html"
TASK = "projects/mobile-app/tasks/migrate-push-to-fcm-http-v1.html"


@pytest.fixture
def curator(tmp_path, monkeypatch):
    from memhtml_desktop.write.curator import Curator

    pin_git(monkeypatch, tmp_path)
    return Curator(open_store(seed(tmp_path)))


def committed_since(root, before: str) -> tuple[set[str], set[tuple[str, str]]]:
    """(every path the commits after `before` carried, the renames git sees among them)."""
    paths: set[str] = set()
    renames: set[tuple[str, str]] = set()
    for sha in git(root, "rev-list", f"{before}..HEAD").split():
        paths |= set(git(root, "diff-tree", "--no-commit-id", "--name-only", "-r", "--no-renames", sha).split())
        for line in git(root, "diff-tree", "--no-commit-id", "-r", "-M", "--name-status", sha).splitlines():
            status, *names = line.split("\t")
            if status.startswith("R"):
                renames.add((names[0], names[1]))
    return paths, renames


VERBS = {
    "archive": lambda: ArchiveRequest(MEMORY, "retired"),
    "correct": lambda: CorrectRequest(
        MEMORY,
        "Delay is 300 seconds",
        reason="raised",
        claim="The prod ALB target groups use a 300-second deregistration delay.",
    ),
    "link": lambda: LinkRequest(MERGES, "relates_to", DOES_NOT),
    "task-done": lambda: TaskStatusRequest(TASK, "done", reason="shipped"),
    "supersede": lambda: SupersedeRequest(DOES_NOT, MERGES, reason="the compactor was fixed"),
    "write": lambda: WriteRequest("A fresh fact about queues", "semantic", claim="Queue depth alarms fire at 500."),
    "apply": lambda: ApplyRequest(
        (
            BatchOp(
                WriteRequest("Batch fact one", "semantic", claim="Batch fact one holds.", tags=("ops",)),
                "Batch fact one holds.",
            ),
            BatchOp(
                WriteRequest("Batch fact two", "procedural", claim="Batch fact two holds."), "Batch fact two holds."
            ),
        )
    ),
}


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_each_verbs_change_is_what_its_commit_carried(curator, verb):
    root = curator.root
    before = git(root, "rev-parse", "HEAD").strip()
    plan = curator.plan(VERBS[verb]())
    job = ApplyJob(plan=plan)
    attempt = job.run(curator.store, lambda: False, lambda *_: None)
    assert attempt.ok, attempt.error
    change = attempt.value.change
    paths, renames = committed_since(root, before)
    assert paths, "the write committed something"
    assert change.paths == frozenset(paths), verb
    assert change.index and change.problems and not change.reopened
    assert set(change.moves) == renames, verb
    assert job.changes(attempt) is change, "the job announces the core's change, not one of its own"


def test_undo_and_a_noop_answer_with_their_own_change(curator):
    root = curator.root
    curator.run(ArchiveRequest(MERGES, "retired"))
    before = git(root, "rev-parse", "HEAD").strip()
    job = UndoJob()
    attempt = job.run(curator.store, lambda: False, lambda *_: None)
    assert attempt.ok, attempt.error
    paths, renames = committed_since(root, before)
    change = job.changes(attempt)
    assert change is attempt.value.change and change.paths == frozenset(paths) == {MERGES, "archive/2026/" + MERGES}
    assert set(change.moves) == renames == {("archive/2026/" + MERGES, MERGES)}
    # linking what is already linked commits nothing: no change to announce
    curator.run(LinkRequest(MERGES, "relates_to", DOES_NOT))
    again = ApplyJob(plan=curator.plan(LinkRequest(MERGES, "relates_to", DOES_NOT)))
    attempt = again.run(curator.store, lambda: False, lambda *_: None)
    assert attempt.ok and attempt.value.commit_sha is None
    assert attempt.value.change is None and again.changes(attempt) is None


@pytest.mark.parametrize("index_after_s", [0.0, 1.0])
def test_the_watcher_recognises_what_the_write_already_indexed(curator, index_after_s):
    """The app's own commit reaches the watcher as file events; its pass finds the blob ids the
    write already indexed, parses nothing and announces no second change. A file edited behind
    the app's back in the same way is indexed (so the check can fail).

    With `index_after_s`, the write's files are committed a second before it indexes them (a
    loaded machine; a fresh clone's CI once took 0.3 s): the watcher, whose pass is due 0.3 s
    after the first event, must wait for the write's lock and not index the move itself."""
    from memhtml_desktop.domain.changes import StoreChange
    from memhtml_desktop.watch.watcher import Watcher

    store, root = curator.store, curator.root
    if index_after_s:
        update_index = curator._update_index

        def slow_update_index(*args, **kwargs):
            time.sleep(index_after_s)
            return update_index(*args, **kwargs)

        curator._update_index = slow_update_index
    batches: list = []
    watcher = Watcher(store, on_batch=batches.append, quiet_s=0.1, max_delay_s=0.3, health_after_s=60)
    watcher.start()
    try:
        assert watcher.wait_idle(60)
        batches.clear()
        applied = curator.run(ArchiveRequest(MEMORY, "retired"))
        assert watcher.wait_idle(60)
        seen = [b for b in batches if b.kind == "batch"]
        deadline = time.monotonic() + 20
        while sum(b.paths for b in seen) < 1 and time.monotonic() < deadline:
            watcher.wait_idle(1)
            seen = [b for b in batches if b.kind == "batch"]
        assert seen, "the watcher saw the write's files"
        assert all((b.added, b.changed, b.moved, b.removed, b.failed) == (0, 0, 0, 0, 0) for b in seen), seen
        assert sum(b.report.unchanged for b in seen) >= 1, "it looked at the files and found them indexed"
        assert all(StoreChange.of_batch(b) is None for b in seen)
        assert applied.change.paths == {MEMORY, "archive/2026/" + MEMORY}
        # the same kind of change from outside the app is indexed and announced
        batches.clear()
        (root / MERGES).write_text((root / MERGES).read_text().replace("overlapping", "overlapping, adjacent"))
        deadline = time.monotonic() + 20
        while not any(b.changed for b in batches) and time.monotonic() < deadline:
            watcher.wait_idle(1)
        outside = [b for b in batches if b.changed]
        assert outside and StoreChange.of_batch(outside[0]).index
    finally:
        watcher.stop()
