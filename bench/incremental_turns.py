"""1,000 changed files reflected by `index`, two trees (or settings) in turns, beside the floor (issue 43).

    python bench/incremental_turns.py SIDES.json PATHS.txt [--rounds 4]

SIDES.json names each side: {"name": {"cmd": [...], "touch": STORE}, ...}. Each round, in the order
given, a side with `touch` first appends a byte to every store-relative path of PATHS.txt under its
STORE (the suite's `incremental` change), then its command runs as a process (wall from start to
reaping, CPU of the process and the children it reaped: a parse pool's included). The first round
warms (a migration, the page cache) and is not counted. Prints each side's medians and every side's
ratio to the first, pair by pair. A side without `touch` (the floor's `floors.py update` on a store
another side touched) only runs. Give each tree its own copy of the store and index: a newer tree
migrates the index it opens.

Example (the tree before as B, through PYTHONPATH; docs/benchmarks.md has the run):

    {"new":   {"touch": "/tmp/a/store", "cmd": ["env", "PYTHONPATH=/work/wt/me", ".venv/bin/python", "-m",
               "memhtml_desktop", "--store", "/tmp/a/store", "--index", "/tmp/a/index.db", "index"]},
     "base":  {"touch": "/tmp/b/store", "cmd": ["env", "PYTHONPATH=/tmp/base", ...same, /tmp/b...]},
     "floor": {"cmd": [".venv/bin/python", "bench/floors.py", "update", "/tmp/b/store", "/tmp/b/floor.db",
               "--from-file", "PATHS.txt"]}}
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(cmd: list[str], env: dict) -> tuple[float, float]:
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if status:
        raise SystemExit(f"{cmd} failed: {proc.stderr.read()[-500:]!r}")
    return wall, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sides", type=Path)
    parser.add_argument("paths", type=Path)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args(argv)
    sides = json.loads(args.sides.read_text())
    paths = [line.strip() for line in args.paths.read_text().splitlines() if line.strip()]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    wall: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    for round_no in range(args.rounds + 1):
        for name, side in sides.items():
            if side.get("touch"):
                for path in paths:
                    with open(os.path.join(side["touch"], path), "ab") as handle:
                        handle.write(b"\n")
            w, c = timed(side["cmd"], env)
            if round_no:
                wall[name].append(w)
                cpu[name].append(c)
    print(f"{len(paths)} files a round, {args.rounds} rounds in turns, load {os.getloadavg()[0]:.2f} after")
    first = next(iter(sides))
    for name in sides:
        print(
            f"{name:10s} wall median {statistics.median(wall[name]):.2f} s (min {min(wall[name]):.2f}), "
            f"CPU median {statistics.median(cpu[name]):.2f} s; / {first}: wall "
            f"{statistics.median(b / a for a, b in zip(wall[first], wall[name])):.2f}, CPU "
            f"{statistics.median(b / a for a, b in zip(cpu[first], cpu[name])):.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
