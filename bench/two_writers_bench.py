"""Two writers on one store without a shared lock, N rounds (issue 21, "What must hold").

    python bench/two_writers_bench.py [--rounds 200] [--seed 21] [--other app|git|both] [--json]

Each round starts two writers at one instant on the bundled demo store (as a git repository):
two instances of this app with separate indexes and write locks (`--other app`), or the app beside
an agent's plain `git add X && git commit` (`--other git`); 60% of rounds aim both at the same
memory. After every round it checks the tree (tests/hardening/two_writers.py) and prints

    rounds 200: 0 dirty trees, 0 swept paths, 0 wrong shas, 0 lost files
    app writes landed 291, refused 109 (Conflict 71, Stale 20, ...); git commits 0

Refusals are expected (two writers on one memory: one loses, and says why); the four counts on
the first line must be 0. Figures go to docs/benchmarks-log.md with `uptime` at the time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HARDENING = ROOT / "tests" / "hardening"
sys.path[:0] = [str(ROOT), str(HARDENING)]

from hardening_support import DEMO_STORE  # noqa: E402
from two_writers import IDENTITY, make_store, run_rounds  # noqa: E402


def one(other: str, rounds: int, seed: int, quiet: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="two-writers-") as tmp:
        base = Path(tmp)
        os.environ.update(IDENTITY, MEMHTML_DESKTOP_CACHE=str(base / "cache"),
                          GIT_CONFIG_GLOBAL=str(base / "no-global-gitconfig"), GIT_CONFIG_NOSYSTEM="1")  # fmt: skip
        root = make_store(base, DEMO_STORE)

        def progress(n, figures):
            if not quiet and (n + 1) % 20 == 0:
                print(f"  {other}: {n + 1} rounds, {figures.dirty_trees} dirty, {figures.swept_paths} swept, "
                      f"{figures.wrong_shas} wrong shas", file=sys.stderr, flush=True)  # fmt: skip

        figures = run_rounds(root, base / "private", rounds, seed=seed, other=other, progress=progress)
    return {"other": other, **figures.to_json()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--other", choices=("app", "git", "both"), default="both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    runs = [
        one(o, args.rounds, args.seed, args.json) for o in (("app", "git") if args.other == "both" else (args.other,))
    ]
    if args.json:
        print(json.dumps({"load": load, "runs": runs}, indent=2))
    else:
        print(f"load: {load}")
        for run in runs:
            print(
                f"{run['other']}: rounds {run['rounds']}: {run['dirty_trees']} dirty trees, {run['swept_paths']} swept "
                f"paths, {run['wrong_shas']} wrong shas, {run['lost_files']} lost files ({run['seconds']} s)"
            )
            refusals = ", ".join(f"{k} {v}" for k, v in sorted(run["refusals"].items(), key=lambda kv: -kv[1]))
            print(
                f"  app writes landed {run['app_landed']}, refused {run['app_refused']} ({refusals}); "
                f"git commits {run['git_commits']}, git refused {run['git_refused']}"
            )
            for problem in run["problems"]:
                print(f"  problem: {problem}")
    bad = any(r["dirty_trees"] or r["swept_paths"] or r["wrong_shas"] or r["lost_files"] for r in runs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
