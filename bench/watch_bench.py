"""Live watching: write-to-search latency, and a 5,000-change burst. Prints figures and a final JSON line.

    python bench/watch_bench.py [--count 2000] [--edits 100] [--burst 5000] [--max-batch 5000] [--seed 11] [--dir DIR]

1. Latency: on a generated store (`--count` memories) under a live Watcher, `--edits` edits one
   at a time, each putting a fresh nonsense word in a memory's claim. A second thread polls
   `Store.search` for that word until the memory is a full-text hit; the time from the write to
   that moment is one sample. Target: p95 <= 1 s. The figure includes one search's duration
   (the poll's resolution), so it is what a user typing the word would see.
2. Burst: `--burst` changes written by a child process as fast as it can (rewrites, deletes and new files in the
   proportions of a branch switch), while a thread runs searches back to back. Reported: the time
   from the first write until the index is in step with the tree (the watcher idle and a full
   comparison of tree and index clean), the passes, and the longest search (the stall).
"""

from __future__ import annotations

import argparse
import json
import queue
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.devtools.gen_store import generate_store  # noqa: E402
from memhtml_desktop.devtools.store_render import minimal_memory  # noqa: E402
from memhtml_desktop.index.db import open_index  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402
from memhtml_desktop.watch.status import measure_health  # noqa: E402
from memhtml_desktop.watch.watcher import Watcher  # noqa: E402


def nonce(n: int) -> str:
    """A word no generated memory contains: 'zq' + base-26 letters (no digits, one FTS token)."""
    out = ""
    n += 26 * 26
    while n:
        out = chr(97 + n % 26) + out
        n //= 26
    return "zq" + out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def visible(store: Store, word: str, path: str) -> bool:
    return any(h.path == path and h.arm("fts") is not None for h in store.search(word, limit=5).hits)


def searchable(store: Store) -> list[str]:
    """Memories a default-scope search can return: live, not tasks, not expired."""
    conn = open_index(store.index_path, state_path=store.state_path, create_state=False)
    try:
        rows = conn.execute(
            "SELECT path FROM files WHERE archived = 0 AND memory_type <> 'task' AND valid_until IS NULL ORDER BY path"
        ).fetchall()
    finally:
        conn.close()
    return [r[0] for r in rows]


def latency_run(store: Store, root: Path, paths: list[str], edits: int, rng: random.Random) -> list[float]:
    """Write, then poll search from another (long-lived) thread; one sample per edit, one edit at a time."""
    samples: list[float] = []
    requests: queue.Queue = queue.Queue()
    answers: queue.Queue = queue.Queue()

    def poller() -> None:
        try:
            while (job := requests.get()) is not None:
                word, path, written = job
                while not visible(store, word, path):
                    if time.perf_counter() - written > 10:
                        answers.put(float("inf"))
                        break
                else:
                    answers.put(time.perf_counter() - written)
        finally:
            store.close_thread_connection()

    thread = threading.Thread(target=poller, name="bench-search")
    thread.start()
    try:
        for n, path in enumerate(rng.sample(paths, edits)):
            word = nonce(n)
            target = root / path
            text = target.read_text(encoding="utf-8").replace("</mark>", f" {word}</mark>", 1)
            written = time.perf_counter()
            target.write_text(text, encoding="utf-8")
            requests.put((word, path, written))
            samples.append(answers.get())
            time.sleep(0.05)  # let each edit be its own burst
    finally:
        requests.put(None)
        thread.join()
    return samples


def write_burst(root: Path, rewrite: list[str], delete: list[str], create: int) -> None:
    """The burst itself; run in a child process (`--write-burst`), as a git checkout would be."""
    for i, path in enumerate(rewrite):
        target = root / path
        target.write_text(
            target.read_text(encoding="utf-8").replace("</mark>", f"</mark> Burst revision {i}.", 1), encoding="utf-8"
        )
    for path in delete:
        (root / path).unlink()
    for i in range(create):
        target = root / f"projects/branch/{i // 250:03d}/change-{i}.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            minimal_memory(f"Branch change {i}", f"Branch change {i} renames the queue q{i}."), encoding="utf-8"
        )


def burst_run(store: Store, root: Path, watcher: Watcher, paths: list[str], total: int, work: Path) -> dict:
    rewrite = min(len(paths) * 3 // 4, total * 3 // 10)
    delete = min(len(paths) - rewrite, total // 10)
    create = total - rewrite - delete
    plan = work / "burst-plan.json"
    plan.write_text(
        json.dumps(
            {
                "root": str(root),
                "rewrite": paths[:rewrite],
                "delete": paths[rewrite : rewrite + delete],
                "create": create,
            }
        ),
        encoding="utf-8",
    )
    stop = threading.Event()
    latencies: list[float] = []

    def searcher() -> None:
        try:
            while not stop.is_set():
                started = time.perf_counter()
                store.search("queue renames branch change")
                latencies.append(time.perf_counter() - started)
        finally:
            store.close_thread_connection()

    baseline = []
    for _ in range(10):
        started = time.perf_counter()
        store.search("queue renames branch change")
        baseline.append(time.perf_counter() - started)
    first_batch = watcher.status().batches
    thread = threading.Thread(target=searcher, name="bench-search")
    thread.start()
    started = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--write-burst", str(plan)], check=True)
    written = time.perf_counter() - started

    while True:
        if watcher.wait_idle(0.5):
            conn = open_index(store.index_path, state_path=store.state_path, create_state=False)
            try:
                if measure_health(conn, root).in_step:
                    break
            finally:
                conn.close()
        if time.perf_counter() - started > 600:
            raise SystemExit("the index did not catch up within 10 minutes")
    caught_up = time.perf_counter() - started
    stop.set()
    thread.join()
    return {
        "changes": rewrite + delete + create,
        "rewrite": rewrite,
        "delete": delete,
        "create": create,
        "write_s": round(written, 2),
        "catch_up_s": round(caught_up, 2),
        "passes": watcher.status().batches - first_batch,
        "searches": len(latencies),
        "search_baseline_p50_ms": round(statistics.median(baseline) * 1000, 1),
        "search_p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
        "search_max_ms": round(max(latencies) * 1000, 1) if latencies else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--burst", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--max-batch", type=int, default=5000, help="the Watcher's max_batch (paths per pass)")
    parser.add_argument("--dir", type=Path, default=None, help="work here (default: a temp dir, removed after)")
    parser.add_argument("--write-burst", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.write_burst is not None:
        plan = json.loads(args.write_burst.read_text(encoding="utf-8"))
        write_burst(Path(plan["root"]), plan["rewrite"], plan["delete"], plan["create"])
        return 0
    work = args.dir or Path(tempfile.mkdtemp(prefix="watch-bench-"))
    root = work / "store"
    if root.exists():
        shutil.rmtree(root)
    started = time.perf_counter()
    generated = generate_store(root, args.count, args.seed)
    print(f"generated {len(generated.paths)} memories in {time.perf_counter() - started:.1f}s")
    store = Store(root, index_path=work / "index.db")
    try:
        with Watcher(store, max_batch=args.max_batch) as watcher:
            if not watcher.wait_idle(600):
                raise SystemExit("start-up reconciliation did not finish")
            status = watcher.status()
            print(
                f"start-up reconciliation: {status.last_batch.added} indexed in {status.last_batch.ms / 1000:.1f}s "
                f"(mode {status.mode})"
            )
            targets = searchable(store)
            samples = latency_run(store, root, targets, min(args.edits, len(targets)), random.Random(args.seed))
            finite = [s for s in samples if s != float("inf")]
            p50, p95 = percentile(samples, 0.5), percentile(samples, 0.95)
            print(
                f"write -> visible in search over {len(samples)} edits: p50 {p50 * 1000:.0f} ms, "
                f"p95 {p95 * 1000:.0f} ms, max {max(samples) * 1000:.0f} ms "
                f"({len(samples) - len(finite)} never seen) -- target p95 <= 1000 ms"
            )
            valid = sorted(set(generated.paths) - set(generated.invalid_paths))
            burst = burst_run(store, root, watcher, valid, args.burst, work)
            print(
                f"burst of {burst['changes']} changes ({burst['rewrite']} rewritten, {burst['delete']} deleted, "
                f"{burst['create']} created; written in {burst['write_s']}s): index in step after "
                f"{burst['catch_up_s']}s in {burst['passes']} passes"
            )
            print(
                f"search during the burst: {burst['searches']} searches, p50 {burst['search_p50_ms']} ms "
                f"(idle {burst['search_baseline_p50_ms']} ms), longest {burst['search_max_ms']} ms"
            )
    finally:
        store.close_thread_connection()
        if args.dir is None:
            shutil.rmtree(work, ignore_errors=True)
    print(
        json.dumps(
            {
                "bench": "watch",
                "count": args.count,
                "edits": len(samples),
                "latency_p50_ms": round(p50 * 1000, 1),
                "latency_p95_ms": round(p95 * 1000, 1),
                "latency_max_ms": round(max(samples) * 1000, 1),
                "target_p95_ms": 1000,
                "max_batch": args.max_batch,
                "burst": burst,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
