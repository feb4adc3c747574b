"""Warm, in-process latency of every pack shape against search on the same store and queries.

    python bench/shapes_bench.py --generate 20000 --queries bench/queries.txt [--budget 16000] [--rounds 3]
    python bench/shapes_bench.py --store DIR [--index FILE]

For each query and round, in turn (so a busy moment of the shared machine falls on every operation
alike): `search` (10 hits, the baseline), `recall` (memhtml's pack), `quotas` (the four ledgers:
a recall, the pool's facts, the resident ledgers, the fold), `catalog` (a search of k plus every
entry's expand cost) and `expand` (the catalogue's first entry). The target (issue 25): folding
any shape at 20,000 memories stays within the search budget, p95 <= search p95 + 20 ms. Also
times the fold alone (`fold_quotas` over the prepared candidates, no SQL), the resident ledgers'
read without its cache (what the first quota pack after a write to the index pays; later ones
reuse it until the index changes) and the compare call the window makes (all shapes at once).
Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from memhtml_desktop.domain.quotas import SEED, fold_quotas  # noqa: E402
from memhtml_desktop.index import shape_reads  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402
from search_bench import pct, timed  # noqa: E402

BUDGET_MS = 20.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path)
    parser.add_argument("--index", type=Path)
    parser.add_argument("--generate", type=int, metavar="N", help="generate (or reuse) a store of N memories")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--queries", type=Path, default=Path(__file__).with_name("queries.txt"))
    parser.add_argument("--budget", type=int, default=16_000)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)

    if args.generate:
        from index_bench import ensure_store

        root = ensure_store(Path(tempfile.gettempdir()) / f"memhtml-bench-store-{args.generate}", args.generate, args.seed)
    elif args.store:
        root = args.store
    else:
        parser.error("give --store DIR or --generate N")
    index = args.index or Path(tempfile.gettempdir()) / f"memhtml-bench-index-{root.name}.db"
    store = Store(root, index_path=index)
    started = time.perf_counter()
    report = store.index()
    print(f"index ready: {report.seen} files ({report.indexed} (re)indexed) in {time.perf_counter() - started:.1f}s")

    queries = [q.strip() for q in args.queries.read_text(encoding="utf-8").splitlines() if q.strip()]
    ops = {
        "search": lambda q: store.search(q, limit=10),
        "recall": lambda q: store.recall(q, budget=args.budget),
        "quotas": lambda q: store.quotas(q, budget=args.budget),
        "catalog": lambda q: store.catalogue(q, k=args.k, budget=args.budget),
        "expand": lambda q: store.expand(first[q]) if first.get(q) else None,
        "compare": lambda q: store.shapes(q, budget=args.budget, k=args.k),
    }
    first: dict[str, str | None] = {}
    for q in queries:  # warm: the vector snapshot, the page cache, the statement cache
        cat = store.catalogue(q, k=args.k, budget=args.budget)
        first[q] = cat.entries[0].path if cat.entries else None
        for op in ops.values():
            op(q)
    times: dict[str, list[float]] = {name: [] for name in ops}
    fold_times: list[float] = []
    cold_times: list[float] = []
    held = {"profile": 0, "pending": 0}
    for _ in range(args.rounds):
        for q in queries:
            for name, op in ops.items():
                times[name].append(timed(op, q)[0])
            pack = store.recall(q, budget=args.budget)
            conn = store.reader()
            order = [i.path for i in (*pack.memories.items, *pack.arcs.items)]
            ranks = {p: n for n, p in enumerate(order, start=1)}
            found = shape_reads.candidates(conn, order, ranks)
            ms, (resident, totals) = timed(shape_reads.resident, conn, pack.scope, SEED)  # no cache: after a write
            cold_times.append(ms)
            held = {name: totals.get(name, 0) for name in held}
            pool = [found[p] for p in order if p in found]
            fold_times.append(timed(fold_quotas, q, pool, resident, totals, args.budget, SEED, max_per_entity=2)[0])

    search_p95 = pct(times["search"], 0.95)
    result: dict[str, float | int | bool] = {"n": len(times["search"]), "files": report.seen, "budget": args.budget,
                                             "resident_profile": held["profile"], "resident_pending": held["pending"]}
    print(f"{len(queries)} queries x {args.rounds} rounds over {report.seen} files, budget {args.budget:,} "
          f"(resident: {held['profile']} profile, {held['pending']} pending memories in scope)")
    for name, values in times.items():
        p50, p95 = pct(values, 0.50), pct(values, 0.95)
        result[f"{name}_p50_ms"], result[f"{name}_p95_ms"] = round(p50, 2), round(p95, 2)
        over = p95 - search_p95
        verdict = "" if name in ("search", "compare") else (
            f"  {'within' if over <= BUDGET_MS else 'OVER'} search p95 + {BUDGET_MS:.0f} ms ({over:+.1f})")
        print(f"  {name:<8} p50 {p50:7.2f} ms  p95 {p95:7.2f} ms{verdict}")
    result["fold_only_p50_ms"] = round(pct(fold_times, 0.50), 3)
    result["fold_only_p95_ms"] = round(pct(fold_times, 0.95), 3)
    print(f"  fold_quotas alone (no SQL): p50 {result['fold_only_p50_ms']} ms, p95 {result['fold_only_p95_ms']} ms")
    result["resident_uncached_p50_ms"] = round(pct(cold_times, 0.50), 2)
    result["resident_uncached_p95_ms"] = round(pct(cold_times, 0.95), 2)
    print(f"  resident ledgers uncached (the first fold after a write): p50 {result['resident_uncached_p50_ms']} ms, "
          f"p95 {result['resident_uncached_p95_ms']} ms")
    result["within"] = all(pct(times[n], 0.95) <= search_p95 + BUDGET_MS for n in ("recall", "quotas", "catalog", "expand"))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
