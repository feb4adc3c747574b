"""Two writers on one store that share no lock (issue 21): rounds of concurrent writes, and the checks.

Each round starts two writers at the same instant (a thread barrier) and waits for both:

* `app`: an instance of this app with its own index and its own write lock (another cache
  directory, as a second window, `sudo` or another user would have): a `Curator` on its own
  `Store`, running `correct`, `archive`, `write` or `link`, often on the same memory as the other;
* `git`: an agent's plain git (`git add X && git commit -m`, retried while git's lock is held):
  a new note of its own, or an edit of the memory the other writer is working on.

After each round: `git status` must be empty (a **dirty tree** otherwise: something left
written, staged or half-moved); every commit a writer reported must be in the branch and carry
exactly that writer's paths (a **swept path** otherwise: a commit carrying another's work), and an
app's reported sha must be its own commit (a **wrong sha** otherwise); a file a writer committed
must still be in the branch at the end of the round unless the other writer moved it on purpose.
A refused write is fine (two writers on one memory: one loses) as long as it said why.

`tests/hardening/test_two_writers.py` runs a few rounds; `bench/two_writers_bench.py` runs 200.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GIT = shutil.which("git") or "git"
IDENTITY = {
    "GIT_AUTHOR_NAME": "two writers", "GIT_AUTHOR_EMAIL": "two@example.invalid",
    "GIT_COMMITTER_NAME": "two writers", "GIT_COMMITTER_EMAIL": "two@example.invalid",
}  # fmt: skip


def git(root: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run([GIT, "-C", str(root), *args], capture_output=True, text=True,
                          env={**IDENTITY, **os.environ})  # fmt: skip
    if check and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr}")
    return proc.stdout


def make_store(base: Path, source: Path) -> Path:
    """`source` (a memhtml store) copied to `base/store`, made a repository with one commit."""
    root = base / "store"
    shutil.copytree(source, root, ignore=shutil.ignore_patterns("index.db*", "state.db*", ".git"))
    for path in [root, *root.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "seed")
    return root


@dataclass
class Outcome:
    writer: str
    op: str
    ok: bool
    sha: str | None = None
    paths: tuple[str, ...] = ()
    error: str = ""
    created: tuple[str, ...] = ()  # files this write added (they must survive the round)


@dataclass
class Figures:
    rounds: int = 0
    app_landed: int = 0
    app_refused: int = 0
    git_commits: int = 0
    git_refused: int = 0
    dirty_trees: int = 0
    swept_paths: int = 0
    wrong_shas: int = 0
    lost_files: int = 0
    refusals: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "problems"} | {"problems": self.problems[:20]}


def _changed(root: Path, sha: str) -> list[str]:
    out = git(root, "diff-tree", "-r", "--no-commit-id", "--name-only", "--no-renames", "--root", sha)
    return sorted(p for p in out.splitlines() if p)


def _in_branch(root: Path, sha: str) -> bool:
    return subprocess.run([GIT, "-C", str(root), "merge-base", "--is-ancestor", sha, "HEAD"],
                          capture_output=True).returncode == 0  # fmt: skip


def _live_memories(root: Path) -> list[str]:
    out = git(root, "ls-files", "--", "areas", "resources", "projects")
    return [p for p in out.splitlines() if p.endswith(".html") and "/agent/" not in p and not p.endswith("index.html")]


class AppWriter:
    """One instance of the app: its own Store (own index) and its own write lock."""

    def __init__(self, root: Path, private: Path, name: str) -> None:
        from memhtml_desktop.index.store import Store
        from memhtml_desktop.write.curator import Curator
        from memhtml_desktop.write.journal import WriteLock

        self.name = name
        self.store = Store(root, index_path=private / f"{name}-index.db")
        self.store.index()
        self.curator = Curator(self.store, refresh_index=True)
        # another cache directory: its own write lock and its own undo record (and, in the app before
        # issue 21, its own journal, which lived there)
        self.curator.directory = private / f"{name}-writes"
        self.curator.lock = WriteLock(self.curator.directory)
        if hasattr(self.curator, "journal"):
            from memhtml_desktop.write.journal import Journal

            self.curator.journal = Journal(self.curator.directory)

    def act(self, op: str, target: str, other: str, n: int) -> Outcome:
        from memhtml_desktop.write.errors import WriteError
        from memhtml_desktop.write.requests import ArchiveRequest, CorrectRequest, LinkRequest, WriteRequest

        title = f"{self.name} round {n}"
        requests = {
            "correct": lambda: CorrectRequest(target, title, claim=f"{self.name} corrects this in round {n}."),
            "archive": lambda: ArchiveRequest(target, f"{self.name} retires it in round {n}"),
            "write": lambda: WriteRequest(title, "semantic", claim=f"{self.name} learned fact {n}."),
            "link": lambda: LinkRequest(target, "relates_to", other),
        }
        try:
            applied = self.curator.run(requests[op]())
        except WriteError as exc:
            return Outcome(self.name, op, False, error=f"{type(exc).__name__}: {exc}")
        finally:
            self.store.close_thread_connection()
        created = tuple(c.path for c in applied.plan.changes if c.action in ("create", "move"))
        return Outcome(self.name, op, True, applied.commit_sha, applied.plan.paths, created=created)


def _git_retrying(root: Path, *args: str) -> subprocess.CompletedProcess:
    for _ in range(500):
        proc = subprocess.run([GIT, "-C", str(root), *args], capture_output=True, text=True)
        if proc.returncode == 0 or ".lock" not in proc.stderr:
            return proc
        time.sleep(0.01)
    return proc


def git_writer(root: Path, op: str, target: str, n: int) -> Outcome:
    """An agent's plain git: a note of its own, or an edit of `target`, each `git add X && git commit`."""
    if op == "edit":
        full = root / target
        try:
            text = full.read_text(encoding="utf-8")
        except OSError:
            return Outcome("git", op, False, error="the file was gone when the agent read it")
        full.write_text(text + f"<!-- agent edit {n} -->\n", encoding="utf-8")
        path = target
    else:
        path = f"areas/agent/note-{n:04d}.html"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"<!doctype html><title>Agent {n}</title><p><mark>Agent note {n}.</mark></p>\n")
    add = _git_retrying(root, "add", "--", path)
    if add.returncode != 0:
        return Outcome("git", op, False, error=f"git add: {add.stderr.strip()}")
    commit = _git_retrying(root, "commit", "-q", "-m", f"agent {op} {n}")
    if commit.returncode != 0:
        return Outcome("git", op, False, error=f"git commit: {(commit.stderr or commit.stdout).strip()}")
    sha = git(root, "log", "-1", "--format=%H", "--", path).strip()
    return Outcome("git", op, True, sha, (path,), created=(path,) if op != "edit" else ())


def check_round(root: Path, outcomes: list[Outcome], figures: Figures, n: int) -> None:
    status = git(root, "status", "--porcelain=v1", "--untracked-files=all")
    if status.strip():
        figures.dirty_trees += 1
        figures.problems.append(f"round {n}: dirty tree: {status.strip()!r}")
    tracked = set(git(root, "ls-files").splitlines())
    moved_away = {p for o in outcomes if o.ok and o.writer != "git" for p in o.paths if p not in o.created}
    for outcome in outcomes:
        if outcome.writer == "git":
            figures.git_commits += outcome.ok
            figures.git_refused += not outcome.ok
        else:
            figures.app_landed += outcome.ok
            figures.app_refused += not outcome.ok
            if not outcome.ok:
                kind = outcome.error.split(":", 1)[0]
                figures.refusals[kind] = figures.refusals.get(kind, 0) + 1
        if not outcome.ok or outcome.sha is None:
            continue
        if not _in_branch(root, outcome.sha):
            figures.wrong_shas += 1
            figures.problems.append(
                f"round {n}: {outcome.writer} {outcome.op}: {outcome.sha[:12]} is not in the branch"
            )
            continue
        changed = _changed(root, outcome.sha)
        if changed != sorted(set(outcome.paths)):
            extra = sorted(set(changed) - set(outcome.paths))
            if extra:
                figures.swept_paths += len(extra)
                figures.problems.append(f"round {n}: {outcome.writer} {outcome.op} {outcome.sha[:12]} swept {extra}")
            else:
                figures.wrong_shas += 1
                figures.problems.append(f"round {n}: {outcome.writer} {outcome.op} {outcome.sha[:12]} carries "
                                        f"{changed}, not {sorted(outcome.paths)}")  # fmt: skip
        for path in outcome.created:
            if path not in tracked and path not in moved_away:
                figures.lost_files += 1
                figures.problems.append(f"round {n}: {outcome.writer} {outcome.op}: {path} is gone")


APP_OPS = ("correct", "archive", "write", "link")


def run_rounds(root: Path, private: Path, rounds: int, *, seed: int = 21, other: str = "app",
               progress=None) -> Figures:  # fmt: skip
    """`rounds` rounds of two concurrent writers (`app` and `app`, or `app` and `git`)."""
    rng = random.Random(seed)
    a = AppWriter(root, private, "A")
    b = AppWriter(root, private, "B") if other == "app" else None
    figures = Figures()
    start = time.monotonic()
    for n in range(rounds):
        live = _live_memories(root)
        target = rng.choice(live)
        second = target if rng.random() < 0.6 else rng.choice(live)
        link_to = rng.choice([p for p in live if p not in (target, second) and "/tasks/" not in p])
        op_a = rng.choice(APP_OPS)
        if b is not None:
            op_b = rng.choice(APP_OPS)
            jobs = [lambda: a.act(op_a, target, link_to, n), lambda: b.act(op_b, second, link_to, n)]
        else:
            op_b = rng.choice(("note", "edit"))
            jobs = [lambda: a.act(op_a, target, link_to, n), lambda: git_writer(root, op_b, second, n)]
        results: list[Outcome | None] = [None, None]
        gate = threading.Barrier(2)

        def run(i: int) -> None:
            gate.wait()
            try:
                results[i] = jobs[i]()
            except Exception as exc:  # noqa: BLE001 - an unexpected failure is a finding, not a crash
                results[i] = Outcome("?", "?", False, error=f"unexpected {type(exc).__name__}: {exc}")
                figures.problems.append(f"round {n}: unexpected {type(exc).__name__}: {exc}")

        threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        check_round(root, [r for r in results if r is not None], figures, n)
        figures.rounds += 1
        if progress is not None:
            progress(n, figures)
    figures.seconds = round(time.monotonic() - start, 1)
    return figures
