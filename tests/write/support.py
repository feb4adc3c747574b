"""Real git repositories for the write tests: the golden seed store, pinned git identity and dates.

`seed(tmp)` builds exactly the pre-state the write goldens were recorded on (write-golden
README, step 1 and 2): `base-store/` copied, `git init -b main`, one commit "seed: demo store"
with the pinned identity and date (always `b284ddf…`), then this app's index and state plane built
from it. With the same pinned environment, a commit this app makes for a golden case has the same
sha as memhtml's when its tree and message are the same.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import subprocess
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "write-golden"
BASE = GOLDEN / "base-store"
SEED_SHA = "b284ddfa80aa66f113ad001812e01f2f9f8a1e31"

PINNED = {
    "GIT_AUTHOR_NAME": "memhtml golden",
    "GIT_COMMITTER_NAME": "memhtml golden",
    "GIT_AUTHOR_EMAIL": "golden@example.invalid",
    "GIT_COMMITTER_EMAIL": "golden@example.invalid",
    "GIT_AUTHOR_DATE": "2026-12-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-12-01T00:00:00Z",
}


def pin_git(monkeypatch, tmp_path: Path) -> None:
    """The golden identity and dates; no user or system git config; a private app cache."""
    for key, value in PINNED.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("MEMHTML_DESKTOP_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("MEMHTML_ROOT", raising=False)
    monkeypatch.delenv("MEMHTML_DESKTOP_NOW", raising=False)


GIT = shutil.which("git") or "git"  # resolved once: a test may empty PATH to hide git from the app


def git(root: Path, *args: str, check: bool = True, env: dict | None = None) -> str:
    proc = subprocess.run([GIT, "-C", str(root), *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, check=False)  # fmt: skip
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def copy_base(target: Path) -> Path:
    shutil.copytree(BASE, target)
    for path in [target, *target.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)  # the shared tree is read-only
    return target


def seed(tmp_path: Path, name: str = "store") -> Path:
    root = copy_base(tmp_path / name)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "seed: demo store")
    return root


def clock_at(text: str):
    moment = _dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return lambda: moment


def open_store(
    root: Path,
    tmp_path: Path | None = None,
    now: str = "2026-12-01T12:00:00Z",
    *,
    index: bool = True,
    state: bool = True,
):
    """This app's Store over `root` (its index under tmp), indexed and with the sidecar imported."""
    from memhtml_desktop.index.sidecar import import_file
    from memhtml_desktop.index.store import Store

    store = Store(root, clock=clock_at(now))  # the default index path: the one the CLI opens too
    if state:
        import_file(store.reader(), root)
    if index:
        store.index()
    return store


def status(root: Path) -> str:
    return git(root, "status", "--porcelain=v1", "--untracked-files=all")


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every working-tree file except .git and the databases, by path."""
    out = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(".git/") or rel == ".git" or rel.startswith(".memhtml/state.db") or path.is_dir():
            continue
        out[rel] = path.read_bytes()
    return out


def access_rows(store) -> dict[str, tuple]:
    return {r[0]: tuple(r) for r in store.reader().execute("SELECT * FROM state.access ORDER BY path")}


def argv_of(case: Path, root: Path) -> list[str]:
    return [str(root) if a == "$STORE" else a for a in json.loads((case / "argv.json").read_text(encoding="utf-8"))]


def snapshot(root: Path, store=None) -> dict:
    """Everything a refused write must leave exactly as it was: files, git's index, HEAD, state rows."""
    shot = {
        "files": tree_bytes(root),
        "status": status(root),
        "cached": git(root, "diff", "--cached"),
        "index": git(root, "ls-files", "-s"),
        "head": git(root, "rev-parse", "HEAD", check=False).strip(),
    }
    if store is not None and (root / ".memhtml" / "state.db").exists():
        shot["state"] = access_rows(store)
    return shot
