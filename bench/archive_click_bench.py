"""The archive click at 20,000 memories against the same click on the demo store, in one run.

    python bench/archive_click_bench.py [--dir bench/out/archive-click] [--count 20000] [--rounds 6]

As the window does it: a warm store (the list searched once, so the vector snapshot is loaded),
the archive previewed (`Curator.plan`, not timed: the dialog shows it before the click), then the
click timed: `Curator.apply(plan)` (the preview's plan carried out, the commit, the reindex of the
two paths) and the list's search run again until the archived row is gone from it. The reference
is the same on a copy of the 58-memory demo store (write-golden base store). The generated store
is a git repository made once per `--dir` (gen_store seed 7, memhtml's seeded state plane);
every round archives another memory, so a reused `--dir` keeps growing its history. Prints each
side's times (best, median, all), the `git` processes the click started, and `uptime`; then, per
stage, the median of each click's time in: the `git` processes, the reindex of the two paths
(`Store.update_paths`), the rest of the apply (journal, fsyncs, trees), the search's caches brought
up to date (the vector snapshot, the coverage count, the salience list: patched through the change
log, index/changes.py) and the rest of the search. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memhtml_desktop.devtools.gen_store import generate_store, git_commit  # noqa: E402
from memhtml_desktop.index.sidecar import import_file  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402
from memhtml_desktop.write.curator import Curator  # noqa: E402
from memhtml_desktop.write.requests import ArchiveRequest  # noqa: E402

DEMO = ROOT / "tests" / "data" / "write-golden" / "base-store"


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def demo_store(target: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(DEMO, target)
    for path in [target, *target.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    git(target, "init", "-q", "-b", "main")
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "seed: demo store")
    return target


class Stages:
    """Time spent inside a few named calls during one click (plain wrappers around the real calls)."""

    NAMES = ("git", "reindex", "apply (rest)", "snapshot", "coverage", "salience", "search (rest)")

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}

    def wrap(self, owner, attribute: str, name: str):
        real = getattr(owner, attribute)

        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                self.spent[name] = self.spent.get(name, 0.0) + time.perf_counter() - started

        setattr(owner, attribute, timed)
        return lambda: setattr(owner, attribute, real)


def clicks(root: Path, index: Path, rounds: int, seed: int) -> tuple[list[float], list[int], list[dict[str, float]]]:
    store = Store(root, index_path=index)
    import_file(store.reader(), root)
    store.index()
    curator = Curator(store)
    paths = [r[0] for r in store.reader().execute(
        "SELECT path FROM files WHERE archived = 0 AND memory_type <> 'task' ORDER BY path")]  # fmt: skip
    random.Random(seed).shuffle(paths)
    times, gits, stages = [], [], []
    real = subprocess.run
    for target in paths[:rounds]:
        (title,) = store.reader().execute("SELECT title FROM files WHERE path = ?", (target,)).fetchone()
        query = " ".join(title.split()[:3])
        store.search(query, limit=50)  # the list as it stands: the snapshot warm
        plan = curator.plan(ArchiveRequest(target, "bench"))
        started_git = []
        stage = Stages()

        def counted(args, *a, **k):
            if isinstance(args, (list, tuple)) and args and str(args[0]).endswith("git"):
                started_git.append(args)
            return real(args, *a, **k)

        subprocess.run = counted
        undo = [stage.wrap(subprocess, "run", "git"), stage.wrap(store, "update_paths", "reindex"),
                stage.wrap(store.caches.vectors, "snapshot", "snapshot"),
                stage.wrap(store.caches.vectors, "coverage", "coverage"),
                stage.wrap(store.caches.salience, "bounds", "salience")]  # fmt: skip
        started = time.perf_counter()
        try:
            curator.apply(plan)
            applied = time.perf_counter()
            hits = store.search(query, limit=50).hits
        finally:
            for restore in reversed(undo):
                restore()
            subprocess.run = real
        ended = time.perf_counter()
        times.append(ended - started)
        gits.append(len(started_git))
        spent = stage.spent
        spent["apply (rest)"] = applied - started - spent.get("git", 0.0) - spent.get("reindex", 0.0)
        spent["search (rest)"] = ended - applied - sum(spent.get(n, 0.0) for n in ("snapshot", "coverage", "salience"))
        stages.append(spent)
        assert target not in {h.path for h in hits}
    return times, gits, stages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=ROOT / "bench" / "out" / "archive-click")
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    for key, value in (
        ("GIT_AUTHOR_NAME", "click bench"),
        ("GIT_COMMITTER_NAME", "click bench"),
        ("GIT_AUTHOR_EMAIL", "bench@example.invalid"),
        ("GIT_COMMITTER_EMAIL", "bench@example.invalid"),
    ):
        os.environ.setdefault(key, value)
    big = args.dir / "store"
    if not (big / ".git").exists():
        generate_store(big, args.count, 7, state=True, force=True)
        git_commit(big)
    print(f"{uptime()}")
    small = clicks(demo_store(args.dir / "demo"), args.dir / "demo-index.db", args.rounds, args.seed)
    big = clicks(big, args.dir / "index.db", args.rounds, args.seed)
    out = {}
    for name, (times, gits, stages) in (("demo (58)", small), (f"{args.count}", big)):
        print(
            f"  {name:>10}: best {min(times) * 1000:6.0f} ms, median {statistics.median(times) * 1000:6.0f} ms "
            f"(all: {', '.join(f'{t * 1000:.0f}' for t in times)}); git processes per click: {max(gits)}"
        )
        medians = {n: round(statistics.median(s.get(n, 0.0) for s in stages) * 1000, 1) for n in Stages.NAMES}
        print(f"  {'':>10}  per stage, median ms: " + ", ".join(f"{n} {v:.0f}" for n, v in medians.items()))
        out[name] = {
            "best_ms": round(min(times) * 1000, 1),
            "median_ms": round(statistics.median(times) * 1000, 1),
            "git_calls_max": max(gits),
            "stages_median_ms": medians,
        }
    print(f"  {uptime()}")
    out["load"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
