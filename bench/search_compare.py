"""Search latency of two source trees side by side, for a before/after on a machine that is not quiet.

    python bench/search_compare.py --old DIR --new DIR --store STORE --index INDEX [--rounds 6] [--pairs 2]
    python bench/search_compare.py --old DIR --store STORE --index INDEX --old-index INDEX2 --probes SET.probes.jsonl

Runs `bench/queries.txt` (limit 10) in two processes at the same time, one importing the package
from each tree, on the same store and index, so both see the same load; repeats that `--pairs`
times and prints, per tree, the mean over the pairs of the p50/p95 of wall time and of CPU time
per search (`time.process_time`, which load inflates far less than wall time). `--old` is
typically an export of the previous commit (`git archive main | tar -x -C DIR`). The index must
already be built (run bench/search_bench.py once). `--old-index` gives the old tree its own index
(an older schema: `--build` indexes both first, each with its own code); `--probes` takes the queries
from a probe set (the real-text sets' questions, bench/realtext_build.py) instead of queries.txt;
`--embedder minilm` searches with MiniLM. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, sys, time
src, store_dir, index, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, src)
from memhtml_desktop.index.store import Store
def pct(v, q):
    v = sorted(v); return v[min(len(v) - 1, max(0, int(round(q * (len(v) - 1)))))]
embedder = None
if sys.argv[6] == "minilm":
    from memhtml_desktop.embedders.registry import make_embedder
    embedder = make_embedder("minilm")
store = Store(store_dir, index_path=index, embedder=embedder)
if sys.argv[7] == "build":
    store.index()
    print(json.dumps({"built": True}))
    raise SystemExit(0)
lines = [q.strip() for q in open(sys.argv[5], encoding="utf-8") if q.strip()]
queries = [json.loads(q)["query"] if q.startswith("{") else q for q in lines]
for q in queries:
    store.search(q, limit=10)
wall, cpu = [], []
for _ in range(rounds):
    for q in queries:
        t0, c0 = time.perf_counter(), time.process_time()
        store.search(q, limit=10)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
print(json.dumps({"wall_p50": pct(wall, .5), "wall_p95": pct(wall, .95), "cpu_p50": pct(cpu, .5),
                  "cpu_p95": pct(cpu, .95), "n": len(wall)}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True)
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--queries", type=Path, default=Path(__file__).with_name("queries.txt"))
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--old-index", type=Path, help="the old tree's own index (default: --index)")
    parser.add_argument("--probes", type=Path, help="a probe set (JSONL): its queries instead of --queries")
    parser.add_argument("--embedder", choices=("hash", "minilm"), default="hash")
    parser.add_argument("--build", action="store_true", help="index the store with each tree first")
    args = parser.parse_args(argv)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    queries = args.probes or args.queries
    indexes = {"old": args.old_index or args.index, "new": args.index}
    trees = (("old", args.old), ("new", args.new))

    def child(name: str, tree: Path, mode: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", CHILD, str(tree), str(args.store), str(indexes[name]),
                                 str(args.rounds), str(queries), args.embedder, mode],
                                stdout=subprocess.PIPE, text=True, env=env)  # fmt: skip

    if args.build:
        for name, tree in trees:
            child(name, tree, "build").communicate()
    results: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for _ in range(args.pairs):
        procs = {name: child(name, tree, "search") for name, tree in trees}
        for name, proc in procs.items():
            out, _ = proc.communicate()
            results[name].append(json.loads(out.strip().splitlines()[-1]))
    summary = {}
    for name, runs in results.items():
        summary[name] = {k: round(sum(r[k] for r in runs) / len(runs), 2) for k in ("wall_p50", "wall_p95", "cpu_p50", "cpu_p95")}
        print(f"{name}: " + ", ".join(f"{k} {v} ms" for k, v in summary[name].items()))
    ratio = summary["new"]["cpu_p95"] / summary["old"]["cpu_p95"] if summary["old"]["cpu_p95"] else 0.0
    print(f"CPU p95 new/old: {ratio:.3f}")
    print(json.dumps({"old": summary["old"], "new": summary["new"], "cpu_p95_ratio": round(ratio, 3)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
