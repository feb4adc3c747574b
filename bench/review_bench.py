"""The review inbox against git itself: 3,000 commits after the mark, listed as memory-level events,
beside `git log --name-status` over the same range, interleaved in one run.

The target (issue 38): the listing in at most 5x the time of `git log --name-status` over the
same range on the same machine. The two sides, per round, in turn (A B A B …), so a busy moment
of a shared machine falls on both alike; the ratio is taken round by round and its median printed.

    python bench/review_bench.py                   # a generated store of 3,000 agent commits
    python bench/review_bench.py --commits 10000   # a longer history
    python bench/review_bench.py --store DIR       # an existing repository (its review mark, or 7 days)

A: `history.review_range` + `history.list_changes` in this process (what `memhtml-desktop review`
   does after start-up: rev-list, `git log --raw -M` in pages, `git cat-file --batch` for the
   blobs, the classification); B: `git log --name-status <mark>..HEAD` as a process, its output
   read whole. `--cli` adds the whole command as a process (`memhtml-desktop review --json`,
   Python's start-up and imports included) beside the same B.

The suite's case `review_listing` (bench/suite.py, bench/suite_cases.py) measures the same and keeps the
result per commit: `python bench/suite.py run --only review_listing`; this script says more.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="an existing repository (default: generate one)")
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cli", action="store_true", help="also time `memhtml-desktop review --json` as a process")
    args = parser.parse_args(argv)

    from memhtml_desktop.history import Git, list_changes, review_range

    if args.store:
        root = args.store
    else:
        from memhtml_desktop.devtools.gen_history import build_history

        root = Path(tempfile.gettempdir()) / f"memhtml-review-bench-{args.commits}"
        if not (root / ".git").exists():
            started = time.perf_counter()
            made = build_history(root, commits=args.commits)
            print(f"generated {args.commits} commits in {time.perf_counter() - started:.1f}s: {made['kinds']}")
    git = Git(root)
    rng = review_range(git)
    base = rng.base or "HEAD~0"
    git_log = ["git", "-C", str(root), "log", "--name-status", f"{base}..HEAD" if rng.base else f"--since={rng.since}"]
    print(f"store {root}: {len(rng.shas)} commits {rng.since}")

    def listing() -> int:
        return len(list_changes(git, review_range(git)))

    def plain_log() -> int:
        return len(subprocess.run(git_log, capture_output=True, check=True).stdout)

    def cli() -> int:
        out = subprocess.run([sys.executable, "-m", "memhtml_desktop", "--repo", str(root), "review", "--json"],
                             capture_output=True, check=True).stdout  # fmt: skip
        return len(out)

    events = listing()
    plain_log()  # warm both: the page cache, git's packs
    sides = {"A listing (in-process)": listing, "B git log --name-status": plain_log}
    if args.cli:
        sides["C memhtml-desktop review --json"] = cli
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(args.rounds):
        for name, fn in sides.items():
            started = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - started) * 1000)
    print(f"{events} events from {len(rng.shas)} commits; {args.rounds} rounds, interleaved")
    for name, values in times.items():
        print(
            f"  {name:<34} median {statistics.median(values):8.1f} ms  min {min(values):8.1f}  max {max(values):8.1f}"
        )
    b = times["B git log --name-status"]
    for name in [n for n in times if not n.startswith("B")]:
        ratios = [a / max(x, 1e-9) for a, x in zip(times[name], b)]
        print(f"  {name.split()[0]}/B per round: median {statistics.median(ratios):.2f}x  "
              f"(min {min(ratios):.2f}, max {max(ratios):.2f}); target <= 5x")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
