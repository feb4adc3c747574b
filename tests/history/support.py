"""Real git stores for the review inbox's tests: a person and an agent, two git identities.

The person seeds the store and reviews; the agent writes through this app's own CLI verbs, which
reproduce memhtml's writes byte for byte (`--repo`, memhtml's grammar), and through plain `git`.
Each identity is set in the environment of the call that acts (git reads GIT_AUTHOR_* and
GIT_COMMITTER_* before any config), so every commit carries the identity of whoever made it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from write.support import GIT, copy_base

PERSON = {
    "GIT_AUTHOR_NAME": "Robin Curator",
    "GIT_AUTHOR_EMAIL": "robin@example.invalid",
    "GIT_COMMITTER_NAME": "Robin Curator",
    "GIT_COMMITTER_EMAIL": "robin@example.invalid",
}
AGENT = {
    "GIT_AUTHOR_NAME": "memory-agent",
    "GIT_AUTHOR_EMAIL": "agent@bots.example.invalid",
    "GIT_COMMITTER_NAME": "memory-agent",
    "GIT_COMMITTER_EMAIL": "agent@bots.example.invalid",
}
AGENT_AUTHOR = "memory-agent <agent@bots.example.invalid>"
PERSON_AUTHOR = "Robin Curator <robin@example.invalid>"

MEMORY = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"
ARC = "areas/arcs/reversibility-first.html"
LINK_SRC = "resources/infra/terraform-state-lives-in-s3-with-dynamodb-locking.html"
LINK_DST = "resources/infra/large-terraform-plans-usually-mean-a-provider-upgrade.html"
EDITED = "resources/postgres/run-migrations-with-a-5-second-lock-timeout.html"


def git(root: Path, *args: str, who: dict | None = None, check: bool = True, env: dict | None = None) -> str:
    proc = subprocess.run([GIT, "-C", str(root), *args], capture_output=True, text=True,
                          env={**os.environ, **(who or {}), **(env or {})}, check=False)  # fmt: skip
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def seed(tmp_path: Path, name: str = "store") -> Path:
    """The demo store in a fresh repository, committed by the person."""
    root = copy_base(tmp_path / name)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "gc.auto", "0")  # no gc in the background while a test compares the repository
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "seed: demo store", who=PERSON)
    return root


def isolate(monkeypatch, tmp_path: Path) -> None:
    """No user or system git config, no identity in the environment, a private app cache."""
    for key in (*PERSON, "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "MEMHTML_ROOT", "MEMHTML_DESKTOP_NOW"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("MEMHTML_DESKTOP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MEMHTML_DESKTOP_DATA", str(tmp_path / "data"))


def cli(argv: list[str], capsys, monkeypatch, who: dict | None = None) -> tuple[int, str, str]:
    """`memhtml-desktop ARGV` in this process, as `who` (the identity its commits carry)."""
    from memhtml_desktop.cli import main

    with monkeypatch.context() as m:
        for key, value in (who or {}).items():
            m.setenv(key, value)
        capsys.readouterr()
        code = main(argv)
        out, err = capsys.readouterr()
    return code, out, err


def review(root: Path, capsys, monkeypatch, *extra: str) -> tuple[int, dict, str]:
    code, out, err = cli(["--repo", str(root), "review", "--json", *extra], capsys, monkeypatch, PERSON)
    return code, (json.loads(out) if out.strip() else {}), err


def agent_session(root: Path, capsys, monkeypatch, *, session: str = "sess-0042") -> None:
    """The agent's day: two writes (one with a session), a correct, an archive, a link (all through
    memhtml's verbs), then a plain `git commit` editing a memory in place."""
    steps = [
        [
            "write",
            "--title",
            "Checkout API p99 budget is 800 ms",
            "--type",
            "semantic",
            "--claim",
            "The checkout-api p99 latency budget is 800 ms.",
            "--tag",
            "slo",
            "--session-id",
            session,
        ],
        [
            "write",
            "--title",
            "Billing retries webhooks twice",
            "--type",
            "semantic",
            "--claim",
            "Billing retries a failed webhook twice before it pages.",
        ],
        [
            "correct",
            MEMORY,
            "--title",
            "The prod ALB deregistration delay is 300 seconds",
            "--claim",
            "The prod ALB target groups use a 300-second deregistration delay.",
            "--reason",
            "delay raised",
        ],
        ["archive", ARC, "--reason", "arc retired"],
        ["link", LINK_SRC, "relates_to", LINK_DST],
    ]
    for step in steps:
        code, _, err = cli(["--repo", str(root), *step], capsys, monkeypatch, AGENT)
        assert code == 0, err
    path = root / EDITED
    path.write_bytes(
        path.read_bytes().replace(b"5-second lock timeout and retry", b"4-second lock timeout and retry", 1)
    )
    git(root, "commit", "-q", "-am", "tune the lock timeout", who=AGENT)
