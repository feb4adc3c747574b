"""Parse + project throughput: the html layer's share of cold indexing.

    python bench/parse_bench.py [--dir STORE_OR_FOLDER] [--seconds 3] [--profile]

Projects every golden case (and every `*.html` under `--dir`, recursively) over and over for about
`--seconds`, and prints files/s and ms/file for the whole set and for the 1-3 KB files that
are a typical memory. The budget: the full index pipeline must reach 1,000 files/s on 2 cores, so
this layer should stay well under 0.5 ms for a typical memory. Single process, single core,
CPU time, best round.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memhtml_desktop.html.project import project  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "golden" / "cases"


def load(extra: Path | None) -> list[tuple[str, bytes]]:
    files = [(p.name.replace("__", "/"), p.read_bytes()) for p in sorted(GOLDEN.glob("*.html"))]
    if extra is not None:
        files += [
            (p.relative_to(extra).as_posix(), p.read_bytes())
            for p in sorted(extra.rglob("*.html"))
            if ".memhtml" not in p.parts and ".git" not in p.parts
        ]
    return files


def measure(files: list[tuple[str, bytes]], seconds: float) -> tuple[int, float]:
    """(files projected, CPU seconds) of the fastest of several rounds lasting `seconds` in all.

    CPU time, and the best round rather than the mean, because on a shared machine other
    processes only ever add time: the minimum is the best estimate of this code's own cost
    (the reasoning `timeit` documents).
    """
    best: tuple[int, float] | None = None
    deadline = time.process_time() + seconds
    while best is None or time.process_time() < deadline:
        count = 0
        started = time.process_time()
        while count < 400 or time.process_time() - started < 0.05:
            for path, data in files:
                project(path, data, "2026-01-01T00:00:00Z")
            count += len(files)
        elapsed = time.process_time() - started
        if best is None or elapsed / count < best[1] / best[0]:
            best = (count, elapsed)
    return best


def report(label: str, files: list[tuple[str, bytes]], seconds: float) -> None:
    if not files:
        return
    mean = sum(len(data) for _, data in files) / len(files)
    count, elapsed = measure(files, seconds)
    print(f"{label:<28} {len(files):>6} files  mean {mean:>7.0f} B  "
          f"{count / elapsed:>8.0f} files/s  {elapsed / count * 1e3:.3f} ms/file")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, help="also project every *.html under this folder")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--profile", action="store_true", help="print the top functions")
    args = parser.parse_args(argv)
    files = load(args.dir)
    for path, data in files:  # warm up imports, regex caches and the allocator
        project(path, data, "2026-01-01T00:00:00Z")
    report("all", files, args.seconds)
    report("typical (1-3 KB)", [f for f in files if 1000 <= len(f[1]) <= 3000], args.seconds)
    ok = sum(project(p, d, "T").ok for p, d in files)
    print(f"{ok} of {len(files)} files valid")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(measure, files, args.seconds)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
