"""Safe beside the agent (issue 21): every row of the issue's table, as a deterministic race.

The other writer is real: memhtml's CLI as write-paths §1.3 describes it (write, `git add`,
`git commit -m` taking the whole index), an agent's plain `git add X && git commit`, or a second
instance of this app with another cache directory (so no shared lock). The interleaving is fixed
with a `git` wrapper on PATH that stops one tool at a chosen git call, with hooks that wait for a
file, or with the executor's checkpoints. After each race: the other writer's commit, files and
staged work are untouched; the app's write either landed whole with its own sha (a commit that
carries exactly its paths) or left its paths as they were, with a message saying what happened.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from write.agents import (
    Barrier,
    agent_commit,
    app_commit_is_its_own,
    changed_paths,
    hook,
    in_history,
    memhtml_write,
    memory_text,
    no_dirty_tree,
    slow_git,
    wait_for,
)
from write.support import git, open_store, pin_git, seed, snapshot

ROOT = Path(__file__).resolve().parents[2]
MEMORY = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"  # has a state.access row
ARCHIVED = "archive/2026/" + MEMORY
OTHER = "areas/oncall/page-the-secondary-after-15-minutes-without-an-ack.html"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    pin_git(monkeypatch, tmp_path)
    monkeypatch.setenv("MEMHTML_DESKTOP_NOW", "2026-12-01T12:00:00Z")
    root = seed(tmp_path)
    return root, open_store(root)


def _curator(store, **kwargs):
    from memhtml_desktop.write.curator import Curator

    return Curator(store, **kwargs)


def _correct(title: str = "Delay is 300 s"):
    from memhtml_desktop.write.requests import CorrectRequest

    return CorrectRequest(MEMORY, title, claim=f"The prod ALB now uses a 300-second delay ({title}).")


def _archive(reason: str = "retired"):
    from memhtml_desktop.write.requests import ArchiveRequest

    return ArchiveRequest(MEMORY, reason)


def _in_thread(work):
    """Run `work` in a thread; returns (thread, box) where box holds its value or exception."""
    box: dict = {}

    def run():
        try:
            box["value"] = work()
        except BaseException as exc:  # noqa: BLE001
            box["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread, box


def _row(store, path: str):
    return store.reader().execute("SELECT access_count FROM state.access WHERE path = ?", (path,)).fetchone()


# -- row 1: memhtml's staged, not yet committed memory is never swept in ------------------------------


def test_row1_memhtmls_staged_write_is_not_swept_into_the_apps_commit(repo, tmp_path):
    """memhtml has written and staged its memory; its `git commit` is held by the wrapper. The app
    corrects a memory meanwhile: its commit carries its paths only, memhtml's memory stays staged,
    and memhtml's own commit (released afterwards) has it. memhtml's CLI: its commit takes the
    whole index, so the reverse race sweeps the app's staged files into memhtml's commit."""
    root, store = repo
    barrier = Barrier.make(tmp_path, "memhtml")
    barrier.arm("commit")
    theirs = "areas/inbox/memhtml-wrote-this.html"
    env = {**os.environ, "PATH": f"{slow_git(tmp_path)}:{os.environ['PATH']}", **barrier.env(),
           "TEXT": memory_text("Theirs", "memhtml wrote this.")}  # fmt: skip
    memhtml = subprocess.Popen(["sh", "-c", f'printf "%s" "$TEXT" > {theirs} && git add {theirs} && '
                                f'git commit -q -m "memhtml(write): Theirs"'], cwd=root, env=env)  # fmt: skip
    try:
        barrier.wait_arrived("commit")
        assert git(root, "diff", "--cached", "--name-only").split() == [theirs]
        applied = _curator(store).run(_correct())
        app_commit_is_its_own(root, applied.commit_sha, applied.plan.paths)
        assert theirs not in changed_paths(root, applied.commit_sha)
        assert git(root, "diff", "--cached", "--name-only").split() == [theirs], (
            "memhtml's staged work is as it left it"
        )
    finally:
        barrier.release("commit")  # memhtml's commit goes on (also when the test failed: no process left waiting)
    assert memhtml.wait(timeout=60) == 0
    assert changed_paths(root, "HEAD") == [theirs]
    assert git(root, "rev-parse", "HEAD~1").strip() == applied.commit_sha
    no_dirty_tree(root)


def test_row1_the_branch_moves_under_the_apps_commit_and_it_is_reparented(repo, tmp_path, monkeypatch):
    """The app is held just before it makes its commit; memhtml writes and commits meanwhile (another
    path). The app's compare-and-swap sees the branch moved, re-parents onto memhtml's commit, and
    lands with exactly its paths; memhtml's commit is the parent, untouched."""
    root, store = repo
    barrier = Barrier.make(tmp_path, "app")
    barrier.arm("commit-tree")
    monkeypatch.setenv("PATH", f"{slow_git(tmp_path)}:{os.environ['PATH']}")
    monkeypatch.setenv("GIT_BARRIER", str(barrier.folder))
    curator = _curator(store)  # resolves `git`: the wrapper
    thread, box = _in_thread(lambda: curator.run(_archive()))
    try:
        barrier.wait_arrived("commit-tree")
        theirs = "areas/inbox/memhtml-meanwhile.html"
        assert memhtml_write(root, theirs, memory_text("Meanwhile", "Written meanwhile."), "memhtml(write): Meanwhile",
                             env={"GIT_BARRIER": ""}).returncode == 0  # fmt: skip
        theirs_sha = git(root, "rev-parse", "HEAD").strip()
    finally:
        barrier.release("commit-tree")
        thread.join(timeout=120)
    applied = box["value"]
    app_commit_is_its_own(root, applied.commit_sha, applied.plan.paths)
    assert git(root, "rev-parse", f"{applied.commit_sha}~1").strip() == theirs_sha
    assert applied.commit_sha == git(root, "rev-parse", "HEAD").strip()
    assert changed_paths(root, theirs_sha) == [theirs]
    no_dirty_tree(root)


def test_row1_the_branch_moves_over_the_apps_own_paths_and_it_stops(repo, tmp_path, monkeypatch):
    """Same, but memhtml's commit edits the very memory the app archives: the app stops (a Conflict
    naming the path and memhtml's commit), removes only what it wrote, and memhtml's edit stands."""
    from memhtml_desktop.write.errors import Conflict

    root, store = repo
    barrier = Barrier.make(tmp_path, "app")
    barrier.arm("commit-tree")
    monkeypatch.setenv("PATH", f"{slow_git(tmp_path)}:{os.environ['PATH']}")
    monkeypatch.setenv("GIT_BARRIER", str(barrier.folder))
    curator = _curator(store)
    thread, box = _in_thread(lambda: curator.run(_correct()))
    try:
        barrier.wait_arrived("commit-tree")
        # memhtml archives the same memory (git mv, new bytes, commit): the archive path is the app's too
        env = {**os.environ, "GIT_BARRIER": ""}
        subprocess.run([git_bin(), "-C", str(root), "rm", "-q", "--cached", MEMORY], check=True, env=env)
        (root / ARCHIVED).write_text((root / ARCHIVED).read_text() + "<!-- memhtml's archive -->\n")
        subprocess.run([git_bin(), "-C", str(root), "add", ARCHIVED], check=True, env=env)
        subprocess.run([git_bin(), "-C", str(root), "commit", "-qm", "memhtml(archive): theirs"], check=True, env=env)
        theirs = git(root, "rev-parse", "HEAD").strip()
    finally:
        barrier.release("commit-tree")
        thread.join(timeout=120)
    assert isinstance(box.get("error"), Conflict), box
    assert ARCHIVED in str(box["error"]) and theirs[:12] in str(box["error"])
    assert git(root, "rev-parse", "HEAD").strip() == theirs
    assert "<!-- memhtml's archive -->" in (root / ARCHIVED).read_text()
    assert not (root / "resources/infra/delay-is-300-s.html").exists(), "the app's own new file is gone"
    no_dirty_tree(root)


def git_bin() -> str:
    from write.support import GIT

    return GIT


# -- row 2: the app knows its own sha; undo reverts only its own commit ---------------------------------


def test_row2_a_slow_post_commit_hook_does_not_make_memhtmls_commit_the_apps(repo, tmp_path):
    """The app's post-commit hook sleeps (waits for a file); memhtml commits meanwhile. The app still
    reports its own commit, and `undo` reverts that one: memhtml's memory stays, committed.
    Before: the app read HEAD after committing, reported memhtml's commit, and undo deleted it."""
    root, store = repo
    armed, arrived, go = tmp_path / "armed", tmp_path / "arrived", tmp_path / "go"
    armed.touch()
    hook(root, "post-commit", f'if [ -f "{armed}" ]; then rm "{armed}"; touch "{arrived}"; '
                              f'while [ ! -f "{go}" ]; do sleep 0.02; done; fi\n')  # fmt: skip
    curator = _curator(store)
    thread, box = _in_thread(lambda: curator.run(_archive()))
    try:
        wait_for(arrived)
        theirs = "areas/inbox/memhtml-during-the-hook.html"
        assert memhtml_write(root, theirs, memory_text("During", "Written during the hook."),
                             "memhtml(write): During").returncode == 0  # fmt: skip
        theirs_sha = git(root, "rev-parse", "HEAD").strip()
    finally:
        go.touch()
        thread.join(timeout=120)
    applied = box["value"]
    assert applied.commit_sha != theirs_sha
    assert git(root, "rev-parse", "HEAD~1").strip() == applied.commit_sha
    app_commit_is_its_own(root, applied.commit_sha, applied.plan.paths)
    undone = curator.undo()
    assert undone.result["reverted"] == applied.commit_sha
    app_commit_is_its_own(root, undone.commit_sha, applied.plan.paths)
    assert (root / theirs).exists() and git(root, "ls-files", theirs).strip() == theirs
    assert (root / MEMORY).exists() and not (root / ARCHIVED).exists()
    no_dirty_tree(root)


# -- row 3: two instances without a shared lock correct one memory --------------------------------------


@pytest.mark.parametrize("same_title", [False, True])
def test_row3_two_instances_correct_one_memory_one_wins_the_other_leaves_nothing(repo, tmp_path, monkeypatch,
                                                                                 same_title):  # fmt: skip
    """Instance A (a process with its own cache directory) and instance B (this process, another
    cache directory: no shared lock) correct the same memory. B has planned and passed its checks;
    A writes its tree and waits in its pre-commit hook; then B writes: B's rename of the memory
    finds it gone (or its new file's path taken) and B rolls back its own steps only. A commits.
    Before: 7 of 40 broke (the loser restored the old file and staged the reverse of the winner)."""
    from memhtml_desktop.write.errors import Conflict
    from memhtml_desktop.write.journal import WriteLock

    root, store = repo
    arrived, go = tmp_path / "a-arrived", tmp_path / "a-go"
    hook(root, "pre-commit", f'if [ -n "$INSTANCE_A" ]; then touch "{arrived}"; '
                             f'while [ ! -f "{go}" ]; do sleep 0.02; done; fi\n')  # fmt: skip
    b = _curator(store)
    b.lock = WriteLock(tmp_path / "instance-b-lock")  # B's own lock: A's cache directory is another
    a_title = "Delay is 300 s" if same_title else "Delay is 300 s (A)"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MEMHTML_DESKTOP_CACHE": str(tmp_path / "cache-a"),
           "INSTANCE_A": "1"}  # fmt: skip

    def b_planned(step: str) -> None:
        if step == "journal":
            instance_a = subprocess.Popen([sys.executable, "-m", "memhtml_desktop", "--repo", str(root), "correct",
                                           MEMORY, "--title", a_title, "--claim", "A says 300 seconds.", "--json"],
                                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
            holder["a"] = instance_a
            wait_for(arrived, timeout=120)

    holder: dict = {}
    b.checkpoint = b_planned
    try:
        with pytest.raises(Conflict) as lost:
            b.run(_correct("Delay is 300 s"))
        assert "another writer" in str(lost.value) or "gone" in str(lost.value)
    finally:
        b.checkpoint = None
        go.touch()  # A's hook lets go (also when the test failed: no process left waiting)
    out, err = holder["a"].communicate(timeout=120)
    assert holder["a"].returncode == 0, err
    import json

    won = json.loads(out)
    assert won["commit_sha"] == git(root, "rev-parse", "HEAD").strip()
    assert sorted(changed_paths(root, won["commit_sha"])) == sorted([won["path"], MEMORY, ARCHIVED])
    assert not (root / MEMORY).exists() and (root / ARCHIVED).exists() and (root / won["path"]).exists()
    assert "A says 300 seconds." in (root / won["path"]).read_text()
    assert _row(store, ARCHIVED) is not None and _row(store, MEMORY) is None
    no_dirty_tree(root)


# -- row 4: an agent's plain `git add X && git commit` loop ----------------------------------------------


def test_row4_an_agents_commit_loop_never_sweeps_or_loses_the_apps_writes(repo):
    """An agent commits its own files in a loop (`git add X && git commit`) while the app writes,
    corrects and archives. Every app write lands with a commit of exactly its paths (or is refused
    cleanly); every agent commit carries only its file; nothing of either is deleted; the tree
    ends clean. Before: the agent's commit swept the app's staged correction in, the app's
    rollback then deleted the committed correction from disk."""
    from memhtml_desktop.write.errors import WriteError
    from memhtml_desktop.write.requests import LinkRequest, WriteRequest

    root, store = repo
    curator = _curator(store)
    stop = threading.Event()
    agent_shas: list[tuple[str, str]] = []

    def agent() -> None:
        n = 0
        while not stop.is_set() and n < 200:
            path = f"areas/agent/note-{n:03d}.html"
            sha = agent_commit(root, path, memory_text(f"Agent {n}", f"Agent note {n}."), f"agent: note {n}")
            if sha:
                agent_shas.append((sha, path))
            n += 1

    thread = threading.Thread(target=agent)
    thread.start()
    landed, refused = [], []
    requests = [
        WriteRequest(f"App memory {i}", "semantic", claim=f"The app wrote memory number {i}.") for i in range(6)
    ]
    requests += [
        LinkRequest(OTHER, "relates_to", MEMORY),
        _correct(),
    ]
    try:
        for request in requests:
            try:
                landed.append(curator.run(request))
            except WriteError as exc:
                refused.append(exc)
    finally:
        stop.set()
        thread.join(timeout=300)
    assert len(agent_shas) >= 3 and landed, (len(agent_shas), refused)
    for applied in landed:
        app_commit_is_its_own(root, applied.commit_sha, applied.plan.paths)
        for change in applied.plan.changes:
            assert (root / change.path).exists(), f"{change.path} was deleted"
    for sha, path in agent_shas:
        assert in_history(root, sha) and changed_paths(root, sha) == [path]
        assert (root / path).exists()
    no_dirty_tree(root)
    assert git(root, "ls-files", "--deleted") == ""


FOREIGN = ("commit-other", "stage-other", "commit-ours", "add-all", "plumbing-other")


def _foreign(kind: str, root: Path, n: int, target: str) -> dict:
    """One act of another writer; returns what it did, for the checks."""
    env = {**os.environ}
    if kind == "commit-other":
        path = f"areas/agent/injected-{n}.html"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(memory_text(f"Injected {n}", f"Injected note {n}."))
        add = subprocess.run([git_bin(), "-C", str(root), "add", path], capture_output=True, env=env)
        commit = subprocess.run(
            [git_bin(), "-C", str(root), "commit", "-qm", f"agent {n}"], capture_output=True, env=env
        )
        if add.returncode or commit.returncode:  # git's index was locked (by the app): the agent's git said so
            return {"kind": kind, "path": path, "late": True}
        return {"kind": kind, "path": path, "sha": git(root, "rev-parse", "HEAD").strip()}
    if kind == "stage-other":
        path = f"areas/agent/staged-{n}.html"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(memory_text(f"Staged {n}", f"Staged note {n}."))
        add = subprocess.run([git_bin(), "-C", str(root), "add", path], capture_output=True, env=env)
        return {"kind": kind, "path": path, "late": add.returncode != 0}
    if kind == "commit-ours":
        full = root / target
        if not full.exists():
            return {"kind": kind, "skipped": True}
        full.write_text(full.read_text() + f"<!-- the agent's edit {n} -->\n")
        add = subprocess.run([git_bin(), "-C", str(root), "add", target], capture_output=True, env=env)
        commit = subprocess.run([git_bin(), "-C", str(root), "commit", "-qm", f"agent edit {n}"], capture_output=True)
        return {
            "kind": kind,
            "path": target,
            "late": bool(add.returncode or commit.returncode),
            "sha": git(root, "rev-parse", "HEAD").strip() if not (add.returncode or commit.returncode) else None,
        }
    if kind == "add-all":
        add = subprocess.run([git_bin(), "-C", str(root), "add", "-A", "--", "areas", "resources", "archive"],
                             capture_output=True, env=env)  # fmt: skip
        commit = subprocess.run(
            [git_bin(), "-C", str(root), "commit", "-qm", f"agent add-all {n}"], capture_output=True
        )
        return {
            "kind": kind,
            "late": bool(add.returncode),
            "sha": git(root, "rev-parse", "HEAD").strip() if commit.returncode == 0 else None,
        }
    # plumbing-other: a writer that never touches the index (another tool's commit-tree + update-ref)
    blob = subprocess.run([git_bin(), "-C", str(root), "hash-object", "-w", "--stdin"], input=f"plumbing {n}\n",
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    index = root / ".git" / f"plumbing-index-{n}"
    penv = {**env, "GIT_INDEX_FILE": str(index)}
    head = git(root, "rev-parse", "HEAD").strip()
    subprocess.run([git_bin(), "-C", str(root), "read-tree", head], env=penv, check=True)
    path = f"resources/plumbing/p-{n}.txt"
    subprocess.run([git_bin(), "-C", str(root), "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}"],
                   env=penv, check=True)  # fmt: skip
    tree = subprocess.run([git_bin(), "-C", str(root), "write-tree"], env=penv, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip
    sha = subprocess.run([git_bin(), "-C", str(root), "commit-tree", tree, "-p", head, "-m", f"plumbing {n}"],
                         capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    subprocess.run([git_bin(), "-C", str(root), "update-ref", "refs/heads/main", sha, head], check=True)
    index.unlink()
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(f"plumbing {n}\n")
    staged = subprocess.run([git_bin(), "-C", str(root), "update-index", "--add", "--cacheinfo",
                             f"100644,{blob},{path}"], capture_output=True)  # fmt: skip
    return {
        "kind": kind,
        "path": path,
        "sha": sha,
        "late_index": f"100644,{blob},{path}" if staged.returncode else None,
    }


STEPS = ("journal", "put", "rename", "rows", "index", "commit-tree", "index-lock", "update-ref", "landed")


@pytest.mark.parametrize("kind", FOREIGN)
def test_row4_a_foreign_writer_between_every_step_of_the_executor(repo, kind):
    """A correction (a new file, a move with new bytes, a state row) with another writer acting at
    every one of the executor's steps in turn. After each: their work stands, the app's write
    landed whole with its own sha or left its paths as they were, and nothing is dirty."""
    from memhtml_desktop.write.errors import WriteError

    root, store = repo
    seen_steps: list[str] = []
    for n, step in enumerate(STEPS):
        curator = _curator(store, git_lock_wait_s=0.5)
        before_head = git(root, "rev-parse", "HEAD").strip()
        acted: list[dict] = []

        def inject(name: str, step=step, n=n) -> None:
            seen_steps.append(name)
            if name.split(" ")[0] == step and not acted:
                acted.append(
                    _foreign(
                        kind,
                        root,
                        n,
                        "resources/infra/" + f"delay-is-300-s-{n}.html"
                        if kind == "commit-ours" and step not in ("journal",)
                        else MEMORY,
                    )
                )

        curator.checkpoint = inject
        request = _correct(f"Delay is 300 s {n}")
        try:
            applied = curator.run(request)
            error = None
        except WriteError as exc:
            applied, error = None, exc
        curator.checkpoint = None
        assert acted, f"step {step} was never reached ({seen_steps})"
        done = acted[0]
        if done.get("late") and done["kind"] in ("commit-other", "stage-other", "commit-ours"):
            # the app held git's index lock at that moment: the agent's git refused; it retries now
            path = done.get("path")
            subprocess.run([git_bin(), "-C", str(root), "add", path], check=True)
            if done["kind"] != "stage-other":
                subprocess.run([git_bin(), "-C", str(root), "commit", "-qm", f"agent retry {n}"], check=True)
                done["sha"] = git(root, "rev-parse", "HEAD").strip()
        if done.get("late_index"):  # the app held git's index lock: the plumbing writer stages its file now
            subprocess.run([git_bin(), "-C", str(root), "update-index", "--add", "--cacheinfo", done["late_index"]],
                           check=True)  # fmt: skip
        if done.get("late") and done["kind"] == "add-all":
            subprocess.run([git_bin(), "-C", str(root), "add", "-A", "--", "areas", "resources", "archive"], check=True)
            if git(root, "diff", "--cached", "--name-only").strip():
                subprocess.run([git_bin(), "-C", str(root), "commit", "-qm", f"agent add-all retry {n}"], check=True)
            done["sha"] = git(root, "rev-parse", "HEAD").strip()
        # their work stands
        if done.get("sha"):
            assert in_history(root, done["sha"]), (step, done)
        if done["kind"] in ("commit-other", "plumbing-other", "stage-other"):
            assert (root / done["path"]).exists()
        # the app's write: whole with its own sha, or its paths as they were
        if applied is not None:
            app_commit_is_its_own(root, applied.commit_sha, applied.plan.paths)
        else:
            assert str(error), step
            assert git(root, "ls-files", "--deleted") == "", (step, error)
        staged = git(root, "diff", "--cached", "--name-only").split()
        if done["kind"] == "stage-other":
            assert staged == [done["path"]], (step, staged)
            subprocess.run(
                [git_bin(), "-C", str(root), "commit", "-qm", f"agent commits its staged note {n}"], check=True
            )
        else:
            assert staged == [], (step, staged, error)
        no_dirty_tree(root)
        if applied is None and kind != "add-all":
            assert MEMORY in git(root, "ls-files", MEMORY) or not (root / MEMORY).exists()
        # put the memory back for the next round (a plain revert of whatever the round did to it)
        if not (root / MEMORY).exists():
            subprocess.run([git_bin(), "-C", str(root), "checkout", "-q", before_head, "--", MEMORY], check=True)
            subprocess.run([git_bin(), "-C", str(root), "rm", "-q", "--ignore-unmatch", ARCHIVED], check=True)
            subprocess.run([git_bin(), "-C", str(root), "commit", "-qm", f"restore {n}"], check=True)
            store.update_paths([MEMORY, ARCHIVED])
        no_dirty_tree(root)


# -- row 5: a stale lock, a full disk --------------------------------------------------------------


def test_row5_a_stale_index_lock_is_named_and_refused_before_anything_is_written(repo, capsys, monkeypatch):
    from write.golden_run import cli

    root, store = repo
    monkeypatch.setattr("memhtml_desktop.write.git.LOCK_WAIT_S", 0.4)
    lock = root / ".git" / "index.lock"
    lock.write_text("")
    before = snapshot(root, store)
    code, out, err = cli(["--repo", str(root), "archive", MEMORY, "--reason", "r"], capsys)
    assert code == 1 and "index.lock" in err and "stale" in err and f"rm '{lock}'" in err, err
    assert snapshot(root, store) == before
    lock.unlink()
    code, out, err = cli(["--repo", str(root), "archive", MEMORY, "--reason", "r"], capsys)
    assert code == 0, err
    no_dirty_tree(root)


def test_row5_an_index_lock_that_appears_mid_write_rolls_it_back_and_later_writes_go_on(repo):
    """A crashed git's `index.lock` appears after the app wrote its files: the commit cannot land,
    the files go back, nothing was staged, and once the lock is gone the next write lands.
    Before: the rollback's `git reset` failed unnoticed, "rolled back" was said, and every later
    write was refused ("other changes are staged")."""
    from memhtml_desktop.write.errors import GitFailed

    root, store = repo
    before = snapshot(root, store)
    lock = root / ".git" / "index.lock"
    curator = _curator(store, git_lock_wait_s=0.3)
    curator.checkpoint = lambda name: lock.write_text("") if name == "rows" else None
    with pytest.raises(GitFailed) as failed:
        curator.run(_correct())
    assert "index.lock" in str(failed.value) and "stale" in str(failed.value)
    assert snapshot(root, store) == {**before, "files": {**before["files"]}}
    assert not list((root / ".git" / "memhtml-desktop" / "journals").iterdir()), "nothing left to recover"
    lock.unlink()
    curator.checkpoint = None
    applied = curator.run(_correct())
    app_commit_is_its_own(root, applied.commit_sha, applied.plan.paths)
    no_dirty_tree(root)


def test_row5_a_stale_head_lock_is_named_as_head_lock(repo):
    from memhtml_desktop.write.errors import GitFailed

    root, store = repo
    before = snapshot(root, store)
    lock = root / ".git" / "HEAD.lock"
    curator = _curator(store, git_lock_wait_s=0.3)
    curator.checkpoint = lambda name: lock.write_text("") if name == "update-ref" else None
    with pytest.raises(GitFailed) as failed:
        curator.run(_archive())
    assert "HEAD.lock" in str(failed.value) and "index.lock" not in str(failed.value) and "stale" in str(failed.value)
    assert snapshot(root, store) == before
    lock.unlink()


# -- row 6: undo whose commit cannot be made ------------------------------------------------------


def test_row6_undo_with_signing_on_and_no_key_leaves_the_store_as_it_was(repo, tmp_path, monkeypatch):
    """Before: the memory was left deleted and the deletion staged, and every later write refused."""
    from memhtml_desktop.write.errors import GitFailed

    root, store = repo
    curator = _curator(store)
    applied = curator.run(_archive())
    monkeypatch.setenv("GNUPGHOME", str(tmp_path / "no-keys"))
    (tmp_path / "no-keys").mkdir(mode=0o700)
    git(root, "config", "commit.gpgsign", "true")
    before = snapshot(root, store)
    with pytest.raises(GitFailed) as failed:
        curator.undo()
    assert "git commit failed" in str(failed.value) and ("gpg" in str(failed.value) or "sign" in str(failed.value))
    assert snapshot(root, store) == before
    ok, why = curator.undo_status()
    assert ok, why
    git(root, "config", "commit.gpgsign", "false")
    undone = curator.undo()
    app_commit_is_its_own(root, undone.commit_sha, applied.plan.paths)
    assert (root / MEMORY).exists() and not (root / ARCHIVED).exists()
    no_dirty_tree(root)


def test_row6_a_signing_key_signs_the_apps_commits_as_git_commit_would(repo, tmp_path):
    """commit-tree does not read `commit.gpgsign`; the app passes -S when it is on (ssh signing here)."""
    import shutil

    if not shutil.which("ssh-keygen"):
        pytest.skip("ssh-keygen is not installed")
    root, store = repo
    key = tmp_path / "signing-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    git(root, "config", "gpg.format", "ssh")
    git(root, "config", "user.signingkey", str(key))
    git(root, "config", "commit.gpgsign", "true")
    applied = _curator(store).run(_archive())
    raw = git(root, "cat-file", "commit", applied.commit_sha)
    assert "gpgsig -----BEGIN SSH SIGNATURE-----" in raw
    app_commit_is_its_own(root, applied.commit_sha, applied.plan.paths)


def test_hooks_run_as_git_commit_runs_them_on_exactly_the_apps_paths(repo, tmp_path):
    """pre-commit sees an index holding the app's change only (even with someone's file staged in
    the real index), prepare-commit-msg gets `message`, commit-msg may edit the message, post-commit
    runs once the commit is on the branch."""
    root, store = repo
    record = tmp_path / "hooks.log"
    hook(root, "pre-commit", f'git diff --cached --name-only --no-renames > "{tmp_path}/pre-commit.paths"\n')
    hook(root, "prepare-commit-msg", f'echo "prepare $2" >> "{record}"\n')
    hook(root, "commit-msg", f'echo "Hooked-By: commit-msg" >> "$1"; echo commit-msg >> "{record}"\n')
    hook(root, "post-commit", f'git rev-parse HEAD >> "{record}"\n')
    (root / "areas/staged-by-someone.html").write_text("staged\n")
    git(root, "add", "areas/staged-by-someone.html")
    applied = _curator(store).run(_archive())
    assert (tmp_path / "pre-commit.paths").read_text().split() == sorted([ARCHIVED, MEMORY])
    assert record.read_text().split("\n")[:3] == ["prepare message", "commit-msg", applied.commit_sha]
    assert git(root, "log", "-1", "--format=%B").rstrip("\n").endswith("Hooked-By: commit-msg")
    assert git(root, "diff", "--cached", "--name-only").split() == ["areas/staged-by-someone.html"]


# -- row 7: memhtml's order on disk --------------------------------------------------------------------


@pytest.mark.parametrize("request_of", [_archive, _correct])
def test_row7_a_move_never_shows_both_paths(repo, request_of):
    """Checked at every step of the executor and by a thread polling both paths throughout.
    Before: the destination was written before the source was removed (memhtml's `index update`
    then failed on `UNIQUE constraint failed: files.path` until a rebuild)."""
    root, store = repo
    both: list[str] = []
    stop = threading.Event()

    def poll() -> None:
        # source, destination, source again: two checks in a row are not one instant, but a source
        # still there after the destination was seen means both existed at that moment
        while not stop.is_set():
            if (root / MEMORY).exists() and (root / ARCHIVED).exists() and (root / MEMORY).exists():
                both.append("poll")

    curator = _curator(store)
    curator.checkpoint = lambda name: (
        both.append(name) if (root / MEMORY).exists() and (root / ARCHIVED).exists() else None
    )
    thread = threading.Thread(target=poll)
    thread.start()
    try:
        applied = curator.run(request_of())
    finally:
        stop.set()
        thread.join()
    assert both == []
    assert not (root / MEMORY).exists() and (root / ARCHIVED).exists()
    renamed = git(root, "show", "-M", "--name-status", "--format=", applied.commit_sha)
    assert f"\t{MEMORY}\t{ARCHIVED}" in renamed  # git sees the rename memhtml's `git mv` makes


# -- row 11: what a killed write leaves, recovered from any cache directory -----------------------------

KILL_AT_PUT = """
import os, signal, sys
from memhtml_desktop.write import journal
record = journal.Journal.record
def killing(self, step):
    record(self, step)
    if step.get("op") == "put" and step["path"].startswith("archive/"):
        os.kill(os.getpid(), signal.SIGKILL)  # after the temp file is written, before its rename
journal.Journal.record = killing
from memhtml_desktop.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_row11_a_killed_writes_temp_file_is_named_and_any_instance_recovers_it(repo, tmp_path, monkeypatch, capsys):
    from write.golden_run import cli

    root, store = repo
    before = snapshot(root, store)
    proc = subprocess.run([sys.executable, "-c", KILL_AT_PUT, "--repo", str(root), "correct", MEMORY, "--title",
                           "Delay is 300 s", "--claim", "The prod ALB uses a 300-second delay."],
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == -9, proc.stderr
    temps = [p for p in (root / "archive/2026/resources/infra").iterdir() if p.name.endswith(".tmp")]
    assert len(temps) == 1 and temps[0].name.startswith("." + Path(MEMORY).name + ".")
    # another instance (another cache directory) sees it: doctor names the write and the temp file
    monkeypatch.setenv("MEMHTML_DESKTOP_CACHE", str(tmp_path / "another-cache"))
    code, out, err = cli(["--store", str(root), "doctor"], capsys)
    assert code == 0
    assert "interrupted write" in out and "memhtml(correct): Delay is 300 s" in out and "nothing committed" in out
    assert "temp file " + temps[0].relative_to(root).as_posix() in out and "stale" in out
    # a read from that instance finishes it first: it lists the memory where it was, not half-moved
    code, out, err = cli(["--store", str(root), "list", "--json", "--limit", "500"], capsys)
    assert code == 0 and "rolled back an interrupted write: memhtml(correct): Delay is 300 s" in err
    listed = {item["path"] for item in __import__("json").loads(out)["files"]}
    assert MEMORY in listed and ARCHIVED not in listed
    assert snapshot(root, store)["files"] == before["files"] and snapshot(root, store)["status"] == ""
    assert not temps[0].exists()


def test_row11_a_stale_git_lock_is_named_by_doctor_with_its_owner_gone(repo, capsys):
    from write.golden_run import cli

    root, _ = repo
    (root / ".git" / "HEAD.lock").write_text("")
    code, out, err = cli(["--store", str(root), "doctor", "--json"], capsys)
    assert code == 0
    import json

    locks = json.loads(out)["git_locks"]
    assert [Path(lock["path"]).name for lock in locks] == ["HEAD.lock"]
    assert locks[0]["stale"] is True and "no git process" in locks[0]["owner"], locks[0]["owner"]
    code, out, err = cli(["--store", str(root), "doctor"], capsys)
    assert "git lock .git/HEAD.lock (stale" in out and "rm '" in out
