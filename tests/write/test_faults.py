"""Bad input and faults: each gives a clear message, exit 1 (2 for usage), and leaves the store,
git's index and the state rows exactly as they were (issue 15, "Bad input and faults").

Every test runs on a real git repository (the golden seed store) through the real CLI or the
Curator, and compares a full snapshot (working-tree bytes, `git status`, `git diff --cached`,
`git ls-files -s`, HEAD, `state.access`) before and after.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from write.golden_run import cli
from write.support import git, open_store, pin_git, seed, snapshot

ROOT = Path(__file__).resolve().parents[2]
MEMORY = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"  # has a state.access row
TASK = "projects/checkout-api/tasks/alarm-on-canary-p99-above-800-ms.html"
ARCHIVED = "archive/2026/areas/oncall/rollback-order.html"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    pin_git(monkeypatch, tmp_path)
    monkeypatch.setenv("MEMHTML_DESKTOP_NOW", "2026-12-01T12:00:00Z")
    root = seed(tmp_path)
    store = open_store(root)
    return root, store


def refused(root, store, capsys, argv, *, code=1, error_code=None, says=()):
    """Run argv; assert the exit code, the error code and words, and that nothing changed."""
    before = snapshot(root, store)
    exit_code, out, err = cli(["--repo", str(root), *argv, "--json"], capsys)
    assert exit_code == code, err
    import json

    payload = json.loads(out)
    if error_code:
        assert payload["code"] == error_code, payload
    for words in says:
        assert words in payload["error"], payload["error"]
    assert err.startswith("memhtml-desktop: ")
    assert snapshot(root, store) == before
    return payload


# -- bad input ------------------------------------------------------------------------------------


def test_invalid_memory_content(repo, capsys) -> None:
    root, store = repo
    refused(root, store, capsys, ["write", "--title", "T", "--type", "semantic", "--article-html",
            "<p>No mark.</p><script>x()</script>"], error_code="ERR_INVALID_MEMORY",
            says=("no <mark>", "<script>"))  # fmt: skip
    refused(root, store, capsys, ["write", "--title", "  ", "--type", "semantic", "--claim", "A claim."],
            error_code="ERR_INVALID_MEMORY", says=("empty <title>",))  # fmt: skip


def test_missing_target(repo, capsys) -> None:
    root, store = repo
    gone = "areas/oncall/no-such-memory.html"
    for argv in (["correct", gone, "--title", "X", "--claim", "Y."], ["archive", gone, "--reason", "r"],
                 ["task", "status", gone, "doing"], ["link", gone, "relates_to", MEMORY],
                 ["link", MEMORY, "relates_to", gone]):  # fmt: skip
        refused(root, store, capsys, argv, error_code="ERR_PATH_NOT_FOUND", says=(f"no memory at {gone}",))


def test_archived_target(repo, capsys) -> None:
    root, store = repo
    refused(root, store, capsys, ["correct", ARCHIVED, "--title", "X", "--claim", "Y."], says=("already archived",))
    refused(root, store, capsys, ["archive", ARCHIVED, "--reason", "again"], says=("already archived",))


def test_not_a_memory_is_not_archived(repo, capsys) -> None:
    root, store = repo
    refused(root, store, capsys, ["archive", "README.html", "--reason", "tidy"], says=("not a memory",))


def test_self_link_and_unknown_relation(repo, capsys) -> None:
    root, store = repo
    refused(root, store, capsys, ["link", MEMORY, "relates_to", "/" + MEMORY], error_code="ERR_INVALID_MEMORY",
            says=("a memory cannot link to itself",))  # fmt: skip
    refused(root, store, capsys, ["link", MEMORY, "relates-to", TASK], error_code="ERR_INVALID_MEMORY",
            says=("unknown rel: relates-to",))  # fmt: skip
    refused(root, store, capsys, ["link", TASK, "blocks", MEMORY], says=("is a task rel", "is not a task"))


def test_bogus_task_status(repo, capsys) -> None:
    root, store = repo
    refused(root, store, capsys, ["task", "status", TASK, "finished"], error_code="ERR_INVALID_MEMORY",
            says=("unknown task status: finished", "todo, doing, blocked, done"))  # fmt: skip
    refused(root, store, capsys, ["task", "add", "--title", "X", "--status", "finished"], code=2,
            error_code="ERR_INVALID_FLAG", says=("--status must be one of",))  # fmt: skip


def test_usage_errors_come_in_memhtmls_order(repo, capsys) -> None:
    root, store = repo
    # unknown flag before everything else, even a missing required flag
    refused(root, store, capsys, ["write", "--titel", "x"], code=2, says=("unknown flag: --titel",))
    refused(root, store, capsys, ["task", "finish", TASK], code=2, says=("unknown command: task finish",))
    refused(root, store, capsys, ["link", MEMORY, "relates_to"], code=2, error_code="ERR_MISSING_ARGUMENT",
            says=("link requires: dst",))  # fmt: skip
    refused(root, store, capsys, ["write", "--claim", "x"], code=2, says=("write requires: --title, --type",))
    refused(root, store, capsys, ["correct", MEMORY, "--title", "x"], code=2, says=("correct requires: --claim or",))
    refused(root, store, capsys, ["correct", MEMORY, "--title", "x", "--claim", "y", "--article-html", "<p>y</p>"],
            code=2, says=("exactly one of --claim or --article-html, not both",))  # fmt: skip
    refused(root, store, capsys, ["write", "--title", "x", "--claim", "y", "--type", "arc"], code=2,
            says=("--type must be one of",))  # fmt: skip


# -- the repository ---------------------------------------------------------------------------------


def test_not_a_git_repository(tmp_path, monkeypatch, capsys) -> None:
    pin_git(monkeypatch, tmp_path)
    root = tmp_path / "plain"
    (root / "areas").mkdir(parents=True)
    code, out, err = cli(["--repo", str(root), "archive", "areas/x.html", "--reason", "r"], capsys)
    assert code == 1 and "not a git repository" in err
    assert [p.name for p in root.iterdir()] == ["areas"]  # not even .memhtml/


def test_detached_head(repo, capsys) -> None:
    root, store = repo
    git(root, "checkout", "-q", "--detach")
    refused(root, store, capsys, ["archive", MEMORY, "--reason", "r"], error_code="ERR_GIT", says=("HEAD is detached",))


def test_merge_in_progress(repo, capsys) -> None:
    root, store = repo
    git(root, "checkout", "-q", "-b", "other")
    (root / MEMORY).write_text((root / MEMORY).read_text() + "<!-- other -->\n")
    git(root, "commit", "-qam", "other")
    git(root, "checkout", "-q", "main")
    (root / MEMORY).write_text((root / MEMORY).read_text() + "<!-- main -->\n")
    git(root, "commit", "-qam", "main")
    git(root, "merge", "other", check=False)  # conflicts: MERGE_HEAD, an unmerged index entry
    assert "UU" in git(root, "status", "--porcelain")
    refused(root, store, capsys, ["write", "--title", "T", "--type", "semantic", "--claim", "A claim here."],
            error_code="ERR_GIT", says=("a merge is in progress",))  # fmt: skip


def test_no_git_identity(repo, capsys, monkeypatch, tmp_path) -> None:
    root, store = repo
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "nohome"))
    refused(root, store, capsys, ["archive", MEMORY, "--reason", "r"], error_code="ERR_GIT", says=("identity",))


def test_git_missing_from_path(repo, capsys, monkeypatch, tmp_path) -> None:
    root, store = repo
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    refused(
        root, store, capsys, ["archive", MEMORY, "--reason", "r"], error_code="ERR_GIT", says=("git was not found",)
    )


def test_other_staged_changes_are_left_alone_and_a_staged_target_is_named(repo, capsys) -> None:
    root, store = repo
    (root / TASK).write_text((root / TASK).read_text() + "<!-- staged -->\n")
    git(root, "add", TASK)
    staged_diff = git(root, "diff", "--cached")
    # Staged work on another path: the write lands with its own path only; the staged edit stays staged.
    code, out, err = cli(["--repo", str(root), "archive", MEMORY, "--reason", "r"], capsys)
    assert code == 0, err
    assert sorted(git(root, "show", "--name-only", "--no-renames", "--format=", "HEAD").split()) == [
        f"archive/2026/{MEMORY}",
        MEMORY,
    ]
    assert git(root, "diff", "--cached") == staged_diff
    # Staged work on the path the write would edit: refused, naming it, nothing touched.
    refused(root, store, capsys, ["task", "status", TASK, "doing"], error_code="ERR_CONFLICT", says=(TASK, "staged"))


def test_uncommitted_edits_of_the_target_are_refused(repo, capsys) -> None:
    root, store = repo
    (root / MEMORY).write_text((root / MEMORY).read_text() + "<!-- unsaved to git -->\n")
    refused(root, store, capsys, ["archive", MEMORY, "--reason", "r"], error_code="ERR_CONFLICT",
            says=(MEMORY, "changes git has not committed"))  # fmt: skip


def test_a_hook_that_rejects_the_commit(repo, capsys) -> None:
    root, store = repo
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'rejected by policy' >&2\nexit 1\n")
    hook.chmod(0o755)
    assert MEMORY in store.reader().execute("SELECT path FROM state.access").fetchall().__str__()
    # correct: a new file, a git mv, a state row moved; all of it must come back
    payload = refused(root, store, capsys, ["correct", MEMORY, "--title", "Delay is 300 s", "--claim",
                      "The prod ALB target groups use a 300-second deregistration delay."],
                      error_code="ERR_GIT", says=("git commit failed (exit 1)", "rejected by policy"))  # fmt: skip
    assert payload
    refused(root, store, capsys, ["write", "--title", "T", "--type", "semantic", "--claim", "A new claim."],
            error_code="ERR_GIT")  # fmt: skip
    assert not (root / "areas" / "inbox" / "t.html").exists()


def test_index_lock_held_is_waited_for_then_refused(repo, capsys, monkeypatch) -> None:
    root, store = repo
    monkeypatch.setattr("memhtml_desktop.write.git.LOCK_WAIT_S", 0.5)
    lock = root / ".git" / "index.lock"
    lock.write_text("")
    try:
        refused(root, store, capsys, ["archive", MEMORY, "--reason", "r"], error_code="ERR_GIT",
                says=("index.lock",))  # fmt: skip
    finally:
        lock.unlink()


def test_index_lock_released_meanwhile_lets_the_write_through(repo, capsys, monkeypatch) -> None:
    root, _ = repo
    lock = root / ".git" / "index.lock"
    lock.write_text("")
    threading.Timer(0.4, lock.unlink).start()
    code, out, err = cli(["--repo", str(root), "archive", MEMORY, "--reason", "r"], capsys)
    assert code == 0, err
    assert git(root, "log", "-1", "--format=%s").startswith("memhtml(archive): " + MEMORY)


@pytest.mark.skipif(os.geteuid() != 0 or not __import__("shutil").which("setpriv"), reason="needs root and setpriv")
def test_read_only_store(monkeypatch) -> None:
    """Root ignores file modes, so the CLI runs as `nobody` over a store it may read but not write."""
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="memhtml-ro-write-"))
    try:
        base.chmod(0o755)
        pin_git(monkeypatch, base)
        root = seed(base)
        store = open_store(root)
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        cache = base / "cache"
        for path in [cache, *cache.rglob("*")]:
            path.chmod(0o777 if path.is_dir() else 0o666)
        before = snapshot(root, store)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "GIT_CONFIG_COUNT": "1",
               "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": "*"}  # fmt: skip
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        for argv in (["archive", MEMORY, "--reason", "r"],
                     ["write", "--title", "T", "--type", "semantic", "--claim", "A read-only claim."]):  # fmt: skip
            proc = subprocess.run([*nobody, sys.executable, "-m", "memhtml_desktop", "--repo", str(root), *argv],
                                  env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
            assert proc.returncode == 1, proc.stderr
            assert "read-only" in proc.stderr, proc.stderr
            assert snapshot(root, store) == before
    finally:
        for path in [base, *base.rglob("*")]:
            path.chmod(0o777 if path.is_dir() else 0o666)
        shutil.rmtree(base, ignore_errors=True)


# -- the file changed under the caller ----------------------------------------------------------------


def test_file_changed_since_it_was_opened(repo, capsys) -> None:
    root, store = repo
    from memhtml_desktop.html.project import blob_sha_of

    seen = blob_sha_of((root / MEMORY).read_bytes())
    (root / MEMORY).write_text((root / MEMORY).read_text().replace("120-second", "90-second"))
    git(root, "commit", "-qam", "someone else's edit")
    refused(root, store, capsys, ["archive", MEMORY, "--reason", "r", "--expect", seen], error_code="ERR_CONFLICT",
            says=("changed on disk since it was opened",))  # fmt: skip


def test_a_preview_goes_stale_when_the_file_changes(repo) -> None:
    root, store = repo
    from memhtml_desktop.write.curator import Curator
    from memhtml_desktop.write.errors import Conflict
    from memhtml_desktop.write.requests import ArchiveRequest

    curator = Curator(store)
    plan = curator.plan(ArchiveRequest(MEMORY, "retired"))
    (root / MEMORY).write_text((root / MEMORY).read_text().replace("120-second", "90-second"))
    git(root, "commit", "-qam", "someone else's edit")
    before = snapshot(root, store)
    with pytest.raises(Conflict, match="changed since this change was previewed"):
        curator.apply(plan)
    assert snapshot(root, store) == before


# -- kill -9 between writing and committing ------------------------------------------------------------

KILLER = """#!/bin/sh
# Kill the memhtml-desktop process that is running this commit (git's parent), then fail the commit.
python_pid=$(awk '{print $4}' /proc/$PPID/stat)
kill -9 "$python_pid"
sleep 0.2
exit 1
"""


def test_kill_9_between_writing_and_committing_is_rolled_back(repo, tmp_path) -> None:
    root, store = repo
    before = snapshot(root, store)
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text(KILLER)
    hook.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "memhtml_desktop", "--repo", str(root), "correct", MEMORY,
                           "--title", "Delay is 300 s", "--claim", "The prod ALB uses a 300-second delay."],
                          env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == -9, proc.stderr
    hook.unlink()
    # Killed mid-write: the old file moved into archive/, a new file written, the state row moved;
    # git's index was never touched (the commit is built in a private index), so nothing is staged.
    assert git(root, "diff", "--cached", "--name-only") == ""
    assert not (root / MEMORY).exists() and (root / "archive/2026" / MEMORY).exists()
    assert snapshot(root, store) != before
    from memhtml_desktop.write.curator import Curator

    said = Curator(open_store(root, index=False, state=False)).recover()
    assert said and said.startswith("rolled back an interrupted write")
    assert snapshot(root, store) == before


def test_kill_9_after_the_commit_landed_is_finished(repo) -> None:
    root, store = repo
    hook = root / ".git" / "hooks" / "post-commit"
    hook.write_text(KILLER.replace("exit 1", "exit 0"))
    hook.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "memhtml_desktop", "--repo", str(root), "archive", MEMORY,
                           "--reason", "retired"], env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == -9, proc.stderr
    hook.unlink()
    target = "archive/2026/" + MEMORY
    assert git(root, "log", "-1", "--format=%s").startswith("memhtml(archive): ")
    from memhtml_desktop.write.curator import Curator

    reopened = open_store(root, index=False, state=False)
    said = Curator(reopened).recover()
    assert said and said.startswith("finished an interrupted write")
    conn = reopened.reader()
    assert conn.execute("SELECT 1 FROM files WHERE path = ?", (target,)).fetchone() is not None
    assert conn.execute("SELECT 1 FROM state.access WHERE path = ?", (target,)).fetchone() is not None
    assert git(root, "status", "--porcelain") == ""


# -- this app's own writes are serialised ------------------------------------------------------------


def test_concurrent_writes_from_two_processes_both_land(repo) -> None:
    root, _ = repo
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "memhtml_desktop",
                "--repo",
                str(root),
                "write",
                "--title",
                f"Parallel {i}",
                "--type",
                "semantic",
                "--claim",
                f"Parallel write number {i} lands.",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(3)
    ]
    results = [p.communicate(timeout=180) + (p.returncode,) for p in procs]
    assert all(code == 0 for _, _, code in results), results
    subjects = git(root, "log", "--format=%s", "-3").splitlines()
    assert sorted(subjects) == [f"memhtml(write): Parallel {i}" for i in range(3)]
    for back in range(3):  # each commit carries exactly its own file, none swept another's in
        subject = git(root, "log", "-1", "--format=%s", f"HEAD~{back}").strip()
        files = git(root, "show", "--name-only", "--format=", f"HEAD~{back}").split()
        n = subject.rsplit(" ", 1)[1]
        assert files == [f"areas/inbox/parallel-{n}.html"]
    assert git(root, "status", "--porcelain") == ""


def test_the_write_lock_times_out_with_a_message(repo) -> None:
    root, store = repo
    from memhtml_desktop.write.curator import Curator
    from memhtml_desktop.write.errors import Refused
    from memhtml_desktop.write.requests import ArchiveRequest

    holder = Curator(store)
    waiter = Curator(store, lock_wait_s=0.2)
    before = snapshot(root, store)
    with holder.lock:
        start = time.monotonic()
        with pytest.raises(Refused, match="another write to this store"):
            waiter.run(ArchiveRequest(MEMORY, "r"))
        assert time.monotonic() - start < 5
    assert snapshot(root, store) == before


def test_two_threads_sharing_one_curator_take_turns(repo) -> None:
    """The window shares one Curator between its worker threads: their writes must not interleave."""
    root, store = repo
    from memhtml_desktop.write.curator import Curator
    from memhtml_desktop.write.requests import WriteRequest

    curator = Curator(store)
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            curator.run(WriteRequest(f"Threaded {i}", "semantic", claim=f"Threaded write {i} lands alone."))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            store.close_thread_connection()

    threads = [threading.Thread(target=write, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    for back in range(3):
        files = git(root, "show", "--name-only", "--format=", f"HEAD~{back}").split()
        assert len(files) == 1 and files[0].startswith("areas/inbox/threaded-")
    assert git(root, "status", "--porcelain") == ""
