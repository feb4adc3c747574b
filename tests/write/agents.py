"""Other writers on the same store, for the "safe beside the agent" tests (issue 21).

* `slow_git(tmp)`: a directory holding a `git` wrapper to put first on PATH. It runs the real git,
  but first, for a subcommand named in `$GIT_BARRIER/<sub>.wait`, says it arrived
  (`<sub>.arrived`) and waits for `<sub>.go` (once), and sleeps `$GIT_SLOW_<sub>` seconds when set.
  With it a test stops one tool at an exact git call while the other runs: deterministic races.
* `Barrier`: the files of one such barrier (arm, wait until arrived, release).
* `hook(root, name, body)`: an executable hook (pre-commit, commit-msg, post-commit, …).
* `memhtml_write(root, path, text)`: what memhtml's CLI does for a write (write-paths §1.3): the
  file written, `git add`, `git commit -m` taking the whole index. `agent_commit`: an agent's
  plain `git add X && git commit -m …`, retried while git's index is locked (as git users do).
* `invariants(...)`: what must hold after any race (the other writer's work untouched, the app's
  commit carrying exactly its paths under its own sha, no dirty tree).
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from write.support import GIT, git

WRAPPER = """#!/bin/sh
# A git that can be stopped at a chosen subcommand (tests/write/agents.py), then runs the real one.
sub=""
skip=""
for a in "$@"; do
  if [ -n "$skip" ]; then skip=""; continue; fi
  case "$a" in
    -C|-c) skip=1 ;;
    -*) ;;
    *) sub="$a"; break ;;
  esac
done
if [ -n "$GIT_BARRIER" ] && [ -n "$sub" ] && [ -f "$GIT_BARRIER/$sub.wait" ]; then
  rm -f "$GIT_BARRIER/$sub.wait"
  touch "$GIT_BARRIER/$sub.arrived"
  while [ ! -f "$GIT_BARRIER/$sub.go" ]; do sleep 0.02; done
fi
slow=$(printenv "GIT_SLOW_$sub" 2>/dev/null)
if [ -n "$slow" ]; then sleep "$slow"; fi
exec {real} "$@"
"""


def slow_git(tmp: Path) -> Path:
    """A folder with the wrapper named `git` (put it first on PATH)."""
    folder = tmp / "slow-git-bin"
    folder.mkdir(exist_ok=True)
    wrapper = folder / "git"
    wrapper.write_text(WRAPPER.replace("{real}", GIT))
    wrapper.chmod(0o755)
    return folder


@dataclass
class Barrier:
    """`$GIT_BARRIER` for one process: `arm("commit")` makes its next `git commit` wait."""

    folder: Path

    @classmethod
    def make(cls, tmp: Path, name: str) -> "Barrier":
        folder = tmp / f"barrier-{name}"
        folder.mkdir()
        return cls(folder)

    def arm(self, sub: str) -> None:
        (self.folder / f"{sub}.wait").touch()

    def wait_arrived(self, sub: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not (self.folder / f"{sub}.arrived").exists():
            if time.monotonic() > deadline:
                raise AssertionError(f"git {sub} was never reached")
            time.sleep(0.02)

    def release(self, sub: str) -> None:
        (self.folder / f"{sub}.go").touch()

    def env(self) -> dict[str, str]:
        return {"GIT_BARRIER": str(self.folder)}


def hook(root: Path, name: str, body: str) -> Path:
    path = root / ".git" / "hooks" / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def wait_for(path: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never appeared")
        time.sleep(0.02)


MEMORY_TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<meta name="memhtml-type" content="semantic">
</head>
<body>
<article>
<p><mark>{claim}</mark></p>
</article>
</body>
</html>
"""


def memory_text(title: str, claim: str) -> str:
    return MEMORY_TEMPLATE.format(title=title, claim=claim)


def _git_retrying(root: Path, *args: str, env: dict | None = None, attempts: int = 400) -> subprocess.CompletedProcess:
    for _ in range(attempts):
        proc = subprocess.run([GIT, "-C", str(root), *args], capture_output=True, text=True,
                              env={**os.environ, **(env or {})})  # fmt: skip
        if proc.returncode == 0 or ".lock" not in proc.stderr:
            return proc
        time.sleep(0.02)
    return proc


def memhtml_write(root: Path, path: str, text: str, subject: str, *, env: dict | None = None,
                  git_cmd: str = GIT) -> subprocess.CompletedProcess:  # fmt: skip
    """memhtml's write: the file, `git add`, `git commit -m` (which takes the whole index)."""
    full = root / path
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_text(text)
    run_env = {**os.environ, **(env or {})}
    subprocess.run([git_cmd, "-C", str(root), "add", "--", path], check=True, env=run_env, capture_output=True)
    return subprocess.run([git_cmd, "-C", str(root), "commit", "-q", "-m", subject], env=run_env,
                          capture_output=True, text=True)  # fmt: skip


def agent_commit(root: Path, path: str, text: str, subject: str) -> str | None:
    """An agent's `git add X && git commit -m S` (only its own path named), retried while git's
    lock is held; returns the commit's sha, or None when git refused for another reason."""
    full = root / path
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_text(text)
    if _git_retrying(root, "add", "--", path).returncode != 0:
        return None
    proc = _git_retrying(root, "commit", "-q", "-m", subject)
    if proc.returncode != 0:
        return None
    return git(root, "log", "-1", "--format=%H", "--", path).strip() or None


def changed_paths(root: Path, sha: str) -> list[str]:
    return sorted(p for p in git(root, "diff-tree", "-r", "--no-commit-id", "--name-only", "--no-renames", "-m",
                                 "--root", sha).split("\n") if p)  # fmt: skip


def in_history(root: Path, sha: str) -> bool:
    return subprocess.run([GIT, "-C", str(root), "merge-base", "--is-ancestor", sha, "HEAD"],
                          capture_output=True).returncode == 0  # fmt: skip


def app_commit_is_its_own(root: Path, sha: str, plan_paths) -> None:
    """The sha the app reported is in the branch and carries exactly the plan's paths."""
    assert in_history(root, sha), f"the app's reported commit {sha[:12]} is not in the branch"
    assert changed_paths(root, sha) == sorted(set(plan_paths)), (sha, changed_paths(root, sha), plan_paths)


def no_dirty_tree(root: Path, allowed: str = "") -> None:
    status = git(root, "status", "--porcelain=v1", "--untracked-files=all")
    status = "\n".join(line for line in status.splitlines() if ".memhtml/state.db" not in line)
    assert status == allowed.rstrip("\n"), status
