"""The write core on a large store: write, archive, correct, link, task status, undo; the conflicts scan.

    python bench/write_bench.py --generate 20000 [--dir DIR] [--rounds 5] [--seed 7]
    python bench/write_bench.py --store DIR          # an existing git store (it gets commits!)

Times what the window calls (`Curator`), each operation end to end: preflight, plan, files, git,
the state row, the commit and the reindex of the touched paths, so "archive" is the time from the
user's click to the index (and so the list) showing the moved memory. `plan` alone is timed too
(what a dialog's preview costs). One CLI `archive` is also timed as a subprocess, which adds the
interpreter start and the CLI's full index refresh. Then the conflicts scan over the whole store
(target: 5 s at 20,000 memories), best of three.

The generated store is a git repository with one commit; the bench adds commits to it, so a reused
`--dir` keeps growing. Ends with one JSON line of figures in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.devtools.gen_store import generate_store, git_commit  # noqa: E402
from memhtml_desktop.index.sidecar import import_file  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402
from memhtml_desktop.write.curator import Curator  # noqa: E402
from memhtml_desktop.write.requests import (  # noqa: E402
    ArchiveRequest,
    CorrectRequest,
    LinkRequest,
    TaskStatusRequest,
    WriteRequest,
)


def timed(fn):
    started = time.perf_counter()
    out = fn()
    return (time.perf_counter() - started) * 1000, out


def summary(values: list[float]) -> dict[str, float]:
    return {"best": round(min(values), 1), "median": round(statistics.median(values), 1), "n": len(values)}


def ensure_git_identity() -> None:
    os.environ.setdefault("GIT_AUTHOR_NAME", "write bench")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@example.invalid")
    os.environ.setdefault("GIT_COMMITTER_NAME", "write bench")
    os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@example.invalid")


def prepare(args) -> tuple[Path, dict[str, float]]:
    setup: dict[str, float] = {}
    if args.store:
        return args.store, setup
    root = args.dir or Path(tempfile.gettempdir()) / f"memhtml-write-bench-{args.generate}-{args.seed}"
    if not (root / ".git").exists():
        ms, _ = timed(lambda: generate_store(root, args.generate, args.seed, state=True, force=True))
        setup["generate_ms"] = ms
        ms, _ = timed(lambda: git_commit(root))
        setup["git_commit_ms"] = ms
    return root, setup


def active_paths(store: Store, kind: str | None = None, limit: int = 4000) -> list[str]:
    sql = "SELECT path FROM files WHERE archived = 0 AND memory_type {} 'task' ORDER BY path LIMIT ?"
    rows = store.reader().execute(sql.format("=" if kind == "task" else "<>"), (limit,))
    return [r[0] for r in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="an existing git store (commits are added to it)")
    parser.add_argument("--generate", type=int, default=20000, metavar="N")
    parser.add_argument("--dir", type=Path, help="where to generate (reused when it exists)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--index", type=Path, help="the index file (default: the user cache's)")
    args = parser.parse_args(argv)
    ensure_git_identity()
    root, figures = prepare(args)
    store = Store(root, index_path=args.index)
    import_file(store.reader(), root)
    ms, report = timed(store.index)
    figures["index_ms"] = ms
    print(f"store {root}: {report.seen} files, index pass {ms / 1000:.1f} s")
    curator = Curator(store)
    rng = random.Random(args.seed)
    memories = active_paths(store)
    tasks = [p for p in active_paths(store, "task") if "/tasks/" in p]
    rng.shuffle(memories)
    rng.shuffle(tasks)
    stamp = int(time.time())
    times: dict[str, list[float]] = {k: [] for k in (
        "plan_archive", "archive", "correct", "write", "link", "task_status", "undo")}  # fmt: skip
    for i in range(args.rounds):
        target = memories.pop()
        times["plan_archive"].append(timed(lambda: curator.plan(ArchiveRequest(target, "bench")))[0])
        times["archive"].append(timed(lambda: curator.run(ArchiveRequest(target, "bench")))[0])
        old = memories.pop()
        times["correct"].append(timed(lambda: curator.run(CorrectRequest(
            old, f"Bench correction {stamp}-{i}", claim=f"Bench correction {stamp} number {i} holds.")))[0])  # fmt: skip
        times["write"].append(timed(lambda: curator.run(WriteRequest(
            f"Bench write {stamp}-{i}", "semantic", claim=f"Bench write {stamp} number {i} is stored.",
            tags=("bench",))))[0])  # fmt: skip
        src, dst = memories.pop(), memories.pop()
        times["link"].append(timed(lambda: curator.run(LinkRequest(src, "relates_to", dst)))[0])
        if tasks:
            task = tasks.pop()
            current = store.reader().execute("SELECT task_status FROM files WHERE path = ?", (task,)).fetchone()[0]
            status = "doing" if current == "blocked" else "blocked"  # a real change, never the no-op
            times["task_status"].append(timed(lambda: curator.run(TaskStatusRequest(task, status)))[0])
        times["undo"].append(timed(curator.undo)[0])
    for name, values in times.items():
        if values:
            figures[name] = summary(values)
            print(f"{name:<13} best {min(values):7.1f} ms   median {statistics.median(values):7.1f} ms")
    target = memories.pop()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    cli = [sys.executable, "-m", "memhtml_desktop", "--repo", str(root), "archive", target, "--reason", "bench"]
    if args.index:
        cli += ["--index", str(args.index)]
    ms, proc = timed(lambda: subprocess.run(cli, env=env, capture_output=True, text=True))
    if proc.returncode == 0:
        figures["cli_archive_ms"] = round(ms, 1)
        print(f"cli archive   {ms:7.1f} ms (interpreter start, full index refresh, the archive)")
    else:
        print(f"cli archive failed: {proc.stderr.strip()}")
    curator.conflicts()  # loads the vector snapshot (the window has it warm already)
    scans, cpu = [], []
    for _ in range(3):
        started_cpu = time.process_time()
        ms, scan = timed(curator.conflicts)
        scans.append(ms)
        cpu.append((time.process_time() - started_cpu) * 1000)
    some = [p.a.path for p in scan.pairs[:1]] or memories[:1]
    partial = [timed(lambda: curator.conflicts(paths=some))[0] for _ in range(3)]
    figures["conflicts_one_path"] = summary(partial)
    print(f"conflicts of one memory (a view's refresh after a write) best {min(partial):.1f} ms")
    figures["conflicts_scan"] = summary(scans) | {"cpu_best": round(min(cpu), 1), "pairs": len(scan.pairs),
                                                  "compared": scan.compared, "twins": scan.twins}  # fmt: skip
    print(f"conflicts     best {min(scans):7.1f} ms (CPU {min(cpu):.0f} ms, all threads) over {scan.compared} "
          f"memories: {len(scan.pairs)} conflicting pairs of {scan.twins} near-twins")  # fmt: skip
    print(json.dumps({"memories": report.seen, **figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
