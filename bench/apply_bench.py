"""`apply` of a batch of real memories into a fresh store, against the write-add-commit floor, in one run.

    python bench/apply_bench.py [--ops /work/realtext-built/heldout.ops.jsonl] [--count 2000] [--rounds 2]
                                [--dir bench/out/apply] [--profile]

Each round, alternating the two sides: a fresh git repository gets `--count` ops of the file
(`memhtml-desktop apply --file OPS --json`, the CLI end to end: interpreter start, planning, the
journal, the files, the commit, the reindex of the new paths); and the floor, another fresh
repository into which the very files apply wrote are copied (plain writes, no fsync), then one
`git add -A` and one `git commit`. Both sides' files are compared byte for byte. Prints both times,
the ratio (must be <= 11x), `uptime`, and ends with one JSON line. `--profile` runs apply once in
this process under cProfile instead and prints the top of the profile.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def fresh(repo: Path) -> None:
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "bench@example.invalid")
    git(repo, "config", "user.name", "apply bench")


def files_of(repo: Path) -> dict[str, bytes]:
    return {p.relative_to(repo).as_posix(): p.read_bytes() for p in repo.rglob("*.html")
            if ".git" not in p.parts and ".memhtml" not in p.parts}  # fmt: skip


def drop_index(index: Path) -> None:
    for suffix in ("", "-wal", "-shm", ".lock"):
        index.with_name(index.name + suffix).unlink(missing_ok=True)


def run_apply(repo: Path, ops: Path, index: Path) -> float:
    fresh(repo)
    drop_index(index)  # a fresh store's index: a stale one (or its WAL) would dedupe the batch away
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memhtml_desktop",
            "--store",
            str(repo),
            "--index",
            str(index),
            "apply",
            "--file",
            str(ops),
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    took = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"apply failed ({done.returncode}): {done.stderr[-2000:]}")
    return took


def run_floor(repo: Path, files: dict[str, bytes]) -> float:
    fresh(repo)
    started = time.perf_counter()
    for rel, data in files.items():
        full = repo / rel
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_bytes(data)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "floor")
    return time.perf_counter() - started


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=Path, default=Path("/work/realtext-built/heldout.ops.jsonl"))
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--dir", type=Path, default=ROOT / "bench" / "out" / "apply")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    ops = args.dir / "ops.jsonl"
    lines = args.ops.read_text(encoding="utf-8").splitlines()[: args.count]
    ops.write_text("\n".join(lines) + "\n", encoding="utf-8")
    repo, floor_repo, index = args.dir / "store", args.dir / "floor", args.dir / "index.db"
    if args.profile:
        import cProfile
        import pstats

        from memhtml_desktop.cli import main as cli_main

        fresh(repo)
        drop_index(index)
        profiler = cProfile.Profile()
        profiler.enable()
        try:
            cli_main(["--store", str(repo), "--index", str(index), "apply", "--file", str(ops), "--json"])
        except SystemExit:
            pass
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(45)
        return 0
    print(f"{len(lines)} ops from {args.ops}; {uptime()}")
    applies, floors = [], []
    for i in range(args.rounds):
        applies.append(run_apply(repo, ops, index))
        written = files_of(repo)
        if len(written) < len(lines) // 2:
            raise SystemExit(f"apply wrote {len(written)} files of {len(lines)} ops: not a fair round")
        floors.append(run_floor(floor_repo, written))
        same = files_of(floor_repo) == written
        print(
            f"  round {i + 1}: apply {applies[-1]:.2f}s ({len(written)} files), floor {floors[-1]:.2f}s "
            f"(same bytes: {same}); ratio {applies[-1] / floors[-1]:.1f}x; {uptime()}"
        )
    ratio = min(applies) / min(floors)
    print(f"  best apply {min(applies):.2f}s, best floor {min(floors):.2f}s: {ratio:.1f}x (must be <= 11x)")
    print(
        json.dumps(
            {
                "ops": len(lines),
                "apply_s": [round(x, 3) for x in applies],
                "floor_s": [round(x, 3) for x in floors],
                "ratio_best": round(ratio, 2),
                "load": [round(x, 2) for x in os.getloadavg()],
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
