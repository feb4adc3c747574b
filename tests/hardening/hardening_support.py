"""Shared plumbing of the hardening tests (issue 9) and of `bench/reliability_bench.py`.

Paths, the demo store, running the CLI in a child process, peak RSS, and reading the state plane on
a connection of its own. One module per item sits beside this one: `index_invariants`,
`crash_harness`, `hostile_queries`, `memory_mutations`, `writer_race`. The tests run short versions;
the bench imports the same functions and runs the long ones, so a figure in docs/reliability.md and
a red test always mean the same check. Nothing here mocks the database.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import apsw

ROOT = Path(__file__).resolve().parents[2]
DEMO_STORE = ROOT / "resources" / "demo-store"
PYTHON = sys.executable


# -- stores and processes ------------------------------------------------------------------------


def copy_demo(dest: Path) -> Path:
    """A fresh copy of the bundled demo store (64 real memories), without any index or state db."""
    shutil.copytree(DEMO_STORE, dest, ignore=shutil.ignore_patterns("index.db*", "state.db*", ".git"))
    return dest


def demo_memories() -> list[tuple[str, bytes]]:
    """Every memory file of the demo store as (store path, bytes), in path order."""
    return [
        (path.relative_to(DEMO_STORE).as_posix(), path.read_bytes())
        for path in sorted(DEMO_STORE.rglob("*.html"))
        if path.relative_to(DEMO_STORE).parts[0] in ("projects", "areas", "resources", "archive")
    ]


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a CLI child: this checkout first on the path, no user configuration."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["MEMHTML_DESKTOP_NO_USER_CONFIG"] = "1"
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.update(extra)
    return env


def private_git(monkeypatch, tmp: Path) -> None:
    """A git identity, no user git configuration, and the app's cache and data under `tmp`."""
    for key, value in {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
                       "GIT_COMMITTER_EMAIL": "t@example.invalid"}.items():  # fmt: skip
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("MEMHTML_DESKTOP_CACHE", str(tmp / "cache"))
    monkeypatch.setenv("MEMHTML_DESKTOP_DATA", str(tmp / "data"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp / "no-global"))


def run_cli(
    args: list[str | bytes], *, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """`python -m memhtml_desktop ARGS`, bytes in and out (argv may hold undecodable bytes)."""
    argv = [PYTHON.encode(), b"-m", b"memhtml_desktop"] + [a if isinstance(a, bytes) else a.encode() for a in args]
    return subprocess.run(argv, capture_output=True, timeout=timeout, env=env or child_env())


def wait_until(condition: Callable[[], bool], timeout: float, step: float = 0.01) -> bool:
    """Poll `condition` until it holds or `timeout` seconds pass; True when it held."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


# -- the state plane -----------------------------------------------------------------------------

ACCESS_COLUMNS = (
    "path, access_count, reinforcement_count, outcome_score, last_accessed_at, last_reinforced_at, updated_at"
)


def read_state(state_db: Path) -> tuple[list[str], dict[str, tuple]]:
    """(integrity_check rows, {path: access row}) read with a connection of its own."""
    conn = apsw.Connection(str(state_db), flags=apsw.SQLITE_OPEN_READWRITE)
    conn.set_busy_timeout(10_000)
    try:
        check = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        rows = {r[0]: tuple(r[1:]) for r in conn.execute(f"SELECT {ACCESS_COLUMNS} FROM access")}
    finally:
        conn.close()
    return check, rows


def ledger(state_db: Path) -> list[tuple[str, str]]:
    """The state plane's migration ledger: a rebuilt plane would carry new applied_at stamps."""
    conn = apsw.Connection(str(state_db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return list(conn.execute("SELECT name, applied_at FROM schema_migrations ORDER BY name"))
    finally:
        conn.close()
