"""Search on a store the agent reads: p95 with a state plane of reads of 60% of the memories against
the same store and queries without a state plane, in one run.

    python bench/salience_bench.py [--dir bench/out/salience] [--count 20000] [--share 0.6] [--rounds 3]

A generated store (gen_store, seed 11) is indexed once (hash embedder) and its index copied, so
each side has its own index file and its own salience bound list. The "state" side's `state.db`
gets an access row for `--share` of the memories (reads from minutes to four months ago, counts 1-40,
a third with a judgement); the "bare" side opens the same files with no state plane (its salience arm
is inactive, as before memhtml's sidecar was imported). A third column times the state side with the
salience arm scanning every accessed memory (`salience_bound=False`: the code before the bound list)
for scale. The sides alternate query by query (`bench/queries.txt`, limit 10), so a load spike hits
both. Prints p50/p95/max per side, the ratio, and `uptime`; ends with one JSON line.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import apsw  # noqa: E402

from memhtml_desktop.devtools.gen_store import generate_store  # noqa: E402
from memhtml_desktop.index.retrieval import Retriever  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402


def pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(round(q * (len(v) - 1)))))]


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def fill_state(state_path: Path, paths: list[str], share: float, seed: int = 5) -> int:
    rng = random.Random(seed)
    chosen = rng.sample(paths, int(len(paths) * share))
    now = time.time()
    conn = apsw.Connection(str(state_path))
    with conn:
        conn.execute("DELETE FROM access")
        for path in chosen:
            when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - rng.uniform(60, 120 * 86400)))
            judged = rng.random() < 0.33
            conn.execute(
                "INSERT INTO access (path, access_count, reinforcement_count, outcome_score, last_accessed_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                (path, rng.randint(1, 40), 1 if judged else 0, rng.uniform(-1, 1) if judged else 0.0, when, when),
            )
    conn.close()
    return len(chosen)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path(__file__).with_name("out") / "salience")
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--share", type=float, default=0.6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=Path, default=Path(__file__).with_name("queries.txt"))
    args = parser.parse_args(argv)
    root, index, bare_index = args.dir / "store", args.dir / "index.db", args.dir / "index-bare.db"
    if not index.exists():
        generate_store(root, args.count, 11, probes=0, force=True)
        store = Store(root, index_path=index)
        started = time.perf_counter()
        store.index()
        print(f"generated and indexed {args.count} memories in {time.perf_counter() - started:.1f}s")
        del store
        shutil.copyfile(index, bare_index)
    store = Store(root, index_path=index)
    paths = [r[0] for r in store.reader().execute("SELECT path FROM files")]
    rows = fill_state(store.state_path, paths, args.share)
    del store
    state = Store(root, index_path=index)
    bare = Store(root, index_path=bare_index, create_state=False)
    bare.state_path = args.dir / "no-state.db"  # absent: no state plane is attached
    queries = [q.strip() for q in args.queries.read_text(encoding="utf-8").splitlines() if q.strip()]
    sides = {
        "bare": bare.search,
        "state": state.search,
        "state, full scan": lambda q, limit: Retriever(state.reader(), state.embedder, cache_key=str(index),
                                                       salience_bound=False).search(q, limit=limit),
    }
    for q in queries:  # warm: caches, the vector snapshot, the bound list
        for search in sides.values():
            search(q, limit=10)
    print(f"{len(paths)} memories, {rows} with access rows ({rows / len(paths):.0%}); {len(queries)} queries x "
          f"{args.rounds} rounds; {uptime()}")
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(args.rounds):
        for q in queries:
            for name, search in sides.items():
                started = time.perf_counter()
                search(q, limit=10)
                times[name].append((time.perf_counter() - started) * 1000)
    summary: dict[str, object] = {"memories": len(paths), "access_rows": rows}
    for name, values in times.items():
        p50, p95, top = statistics.median(values), pct(values, 0.95), max(values)
        print(f"  {name:17} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  max {top:6.1f} ms")
        summary[name] = {"p50_ms": round(p50, 2), "p95_ms": round(p95, 2), "max_ms": round(top, 2)}
    ratio = pct(times["state"], 0.95) / pct(times["bare"], 0.95)
    print(f"  p95 with the state plane / without: {ratio:.2f}x (must be <= 1.5x); {uptime()}")
    summary["p95_ratio"] = round(ratio, 3)
    summary["load"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
