"""The store walk of `memhtml-desktop index` with nothing to do, against ways it could be walked (issue 43).

    python bench/walk_bench.py STORE [--rounds 15]

In one process, in turns (A B C ... A B C ...), each walk of every memory file with its size and
mtime: the app's (`scanner.stat_walk`, one thread), the same folders read by two threads (the
`stat`s release the interpreter lock), a bare `os.walk` + `os.stat` (bench/floors.py `walk`) and,
as a process, GNU find's `-printf '%s %T@'`. Prints wall and CPU per walk (min and median) and each
one's median ratio to the app's walk, pair by pair. The threaded walk is kept here, not in the app:
measured on the shared two-core machine it was slower (see docs/benchmarks.md, "The index with
nothing to do"); run this on a quiet machine to weigh it again.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import stat as _stat
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.domain.paths import BUCKETS, NOT_MEMORIES  # noqa: E402
from memhtml_desktop.index.scanner import stat_walk  # noqa: E402

_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _folder(directory: str, rel_dir: str) -> tuple[list, list]:
    """One folder's memory files (regular files only: what a generated store holds) and subfolders."""
    fd = os.open(directory, _FLAGS)
    try:
        names = sorted(os.listdir(fd))
        prefix, found, folders = rel_dir + "/", [], []
        for name in names:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            if _stat.S_ISDIR(st.st_mode):
                folders.append((os.path.join(directory, name), prefix + name))
            elif name.endswith(".html") and name not in NOT_MEMORIES and _stat.S_ISREG(st.st_mode):
                found.append((prefix + name, st.st_size, st.st_mtime_ns))
        return found, folders
    finally:
        os.close(fd)


def threaded_walk(root: Path, threads: int = 2) -> list:
    """The app's walk order (depth first, subfolders from the stack), folders read by `threads`."""
    out: list = []
    with ThreadPoolExecutor(threads) as pool:
        for bucket in BUCKETS:
            top = os.path.join(root, bucket)
            if not os.path.isdir(top):
                continue
            stack = [pool.submit(_folder, top, bucket)]
            while stack:
                found, folders = stack.pop().result()
                out += found
                stack.extend(pool.submit(_folder, *f) for f in folders)
    return out


def bare_walk(root: Path) -> int:
    count = 0
    for bucket in BUCKETS:
        for directory, _, names in os.walk(root / bucket):
            for name in names:
                if name.endswith(".html"):
                    os.stat(os.path.join(directory, name))
                    count += 1
    return count


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _find(root: Path) -> tuple[float, float]:
    started = time.perf_counter()
    proc = subprocess.Popen(
        ["find", *(str(root / b) for b in BUCKETS if (root / b).is_dir()), "-name", "*.html", "-printf", "%s %T@\\n"],
        stdout=subprocess.DEVNULL,
    )
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    app = list(stat_walk(args.store))
    assert threaded_walk(args.store) == app, "the threaded walk must give the app's items in its order"
    ways = {
        "app (one thread)": lambda: list(stat_walk(args.store)),
        "two threads": lambda: threaded_walk(args.store),
        "os.walk + stat": lambda: bare_walk(args.store),
    }
    wall: dict[str, list[float]] = {name: [] for name in [*ways, "GNU find (process)"]}
    cpu: dict[str, list[float]] = {name: [] for name in wall}
    for _ in range(args.rounds):
        for name, way in ways.items():
            c, w = _cpu(), time.perf_counter()
            way()
            wall[name].append(time.perf_counter() - w)
            cpu[name].append(_cpu() - c)
        if shutil.which("find"):
            w, c = _find(args.store)
            wall["GNU find (process)"].append(w)
            cpu["GNU find (process)"].append(c)
    print(f"{len(app)} memory files, {args.rounds} rounds in turns, load {os.getloadavg()[0]:.2f} after")
    base = wall["app (one thread)"]
    for name in wall:
        if not wall[name]:
            continue
        ratio = statistics.median(b / a for a, b in zip(base, wall[name]))
        print(
            f"{name:20s} wall min {1000 * min(wall[name]):5.0f} ms, median {1000 * statistics.median(wall[name]):5.0f};"
            f" CPU median {1000 * statistics.median(cpu[name]):5.0f} ms; wall / app's {ratio:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
