"""`--store` on a folder that is not a memhtml store (issue 41, item 2): one clear line, exit 1, and
nothing created there (no `.memhtml/state.db`, no index in the cache), for reads and writes alike.
Run as a user runs them: a subprocess, real folders, a real git repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memfiles import write_memory

ROOT = Path(__file__).resolve().parents[1]


def run(store: Path, *args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "MEMHTML_ROOT"}
    env.update(PYTHONPATH=str(ROOT), MEMHTML_DESKTOP_CACHE=str(cache), XDG_CACHE_HOME=str(cache))
    return subprocess.run(
        [sys.executable, "-m", "memhtml_desktop", "--store", str(store), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=ROOT,
    )


def tree(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else ["<missing>"]


def make(kind: str, root: Path) -> Path:
    folder = root / kind
    if kind == "missing":
        return folder
    folder.mkdir()
    if kind == "other-things":
        (folder / "notes.txt").write_text("not a memory\n")
    if kind == "code-repository":
        subprocess.run(["git", "init", "-q", str(folder)], check=True)
        (folder / "pyproject.toml").write_text("[project]\n")
    return folder


KINDS = ["missing", "empty", "other-things", "code-repository"]
VERBS = [("search", "drain the vip"), ("recall", "x"), ("list",), ("doctor",), ("index",)]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("verb", VERBS, ids=lambda v: v[0])
def test_reads_refuse_a_folder_that_is_no_store_and_create_nothing(tmp_path, kind, verb):
    folder = make(kind, tmp_path)
    before, cache = tree(folder), tmp_path / "cache"
    proc = run(folder, *verb, cache=cache)
    assert proc.returncode == 1, proc.stdout
    line = proc.stderr.strip()
    assert "\n" not in line and "Traceback" not in line and "unexpected" not in line
    if kind == "missing":
        assert "store not found" in line and "does not exist" in line
    else:
        assert line.startswith("memhtml-desktop: not a memhtml store") and "init" in line
    assert tree(folder) == before
    assert not list(cache.rglob("*.db"))  # no index made for it either


@pytest.mark.parametrize("kind", ["empty", "other-things", "code-repository"])
def test_a_refused_write_creates_nothing(tmp_path, kind):
    folder = make(kind, tmp_path)
    before = tree(folder)
    proc = run(folder, "write", "--type", "semantic", "--title", "A title", "--claim", "A claim.", cache=tmp_path / "c")
    assert proc.returncode == 1
    assert (
        ("not a git repository" in proc.stderr) if kind != "code-repository" else ("not a memhtml store" in proc.stderr)
    )
    assert tree(folder) == before


def test_a_store_without_git_still_reads(tmp_path):
    store = tmp_path / "plain"
    write_memory(
        store,
        "areas/oncall/drain.html",
        title="Prod rollbacks drain the VIP",
        claim="If a prod rollback is issued, drain the VIP before reverting the deploy.",
    )
    proc = run(store, "search", "drain the vip", cache=tmp_path / "cache")
    assert proc.returncode == 0 and "Prod rollbacks drain the VIP" in proc.stdout


def test_an_empty_git_repository_is_a_store_being_started(tmp_path):
    folder = tmp_path / "new"
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    proc = run(folder, "search", "anything", cache=tmp_path / "cache")
    assert proc.returncode == 0 and "0 hits" in proc.stdout
