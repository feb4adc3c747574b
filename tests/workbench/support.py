"""Helpers for the workbench tests: generated stores in real git repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.domain.probes import EvalProbe


def git(root: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {proc.stderr}")
    return proc.stdout


def init_repo(root: Path) -> Path:
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "seed")
    return root


def build(base: Path, count: int, seed: int, probes: int, names: str, embedder: str = "hash", *, repo: bool = True):
    """A generated store (git repository, state imported, indexed) and its probes as EvalProbes."""
    from memhtml_desktop.embedders.registry import make_embedder
    from memhtml_desktop.index.sidecar import import_file
    from memhtml_desktop.index.store import Store

    made = generate_store(base / "store", count, seed, probes=probes, state=True, control_names=names)
    if repo:
        init_repo(made.root)
    store = Store(made.root, index_path=base / "index.db", embedder=make_embedder(embedder))
    import_file(store.reader(), store.root)
    store.index()
    return store, [EvalProbe(p.query, p.target, p.controls, kind=p.kind, families=p.families) for p in made.probes]
