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

from _timing import open_store, pct, store_arguments, timed, warm_and_time

from memhtml_desktop.domain.quotas import SEED, fold_quotas
from memhtml_desktop.index import shape_reads

BUDGET_MS = 20.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    store_arguments(parser)
    parser.add_argument("--budget", type=int, default=16_000)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args(argv)
    store, report, queries = open_store(args, parser)

    ops = {
        "search": lambda q: store.search(q, limit=10),
        "recall": lambda q: store.recall(q, budget=args.budget),
        "quotas": lambda q: store.quotas(q, budget=args.budget),
        "catalog": lambda q: store.catalogue(q, k=args.k, budget=args.budget),
        "expand": lambda q: store.expand(first[q]) if first.get(q) else None,
        "compare": lambda q: store.shapes(q, budget=args.budget, k=args.k),
    }
    first: dict[str, str | None] = {}
    fold_times: list[float] = []
    cold_times: list[float] = []
    held = {"profile": 0, "pending": 0}

    def first_entry(q: str) -> None:
        cat = store.catalogue(q, k=args.k, budget=args.budget)
        first[q] = cat.entries[0].path if cat.entries else None

    def fold_alone(q: str) -> None:
        pack = store.recall(q, budget=args.budget)
        conn = store.reader()
        order = [i.path for i in (*pack.memories.items, *pack.arcs.items)]
        ranks = {p: n for n, p in enumerate(order, start=1)}
        found = shape_reads.candidates(conn, order, ranks)
        ms, (resident, totals) = timed(shape_reads.resident, conn, pack.scope, SEED)  # no cache: after a write
        cold_times.append(ms)
        held.update({name: totals.get(name, 0) for name in held})
        pool = [found[p] for p in order if p in found]
        fold_times.append(timed(fold_quotas, q, pool, resident, totals, args.budget, SEED, max_per_entity=2)[0])

    times = warm_and_time(queries, ops, args.rounds, warm=first_entry, each=fold_alone)

    search_p95 = pct(times["search"], 0.95)
    result: dict[str, float | int | bool] = {
        "n": len(times["search"]),
        "files": report.seen,
        "budget": args.budget,
        "resident_profile": held["profile"],
        "resident_pending": held["pending"],
    }
    print(
        f"{len(queries)} queries x {args.rounds} rounds over {report.seen} files, budget {args.budget:,} "
        f"(resident: {held['profile']} profile, {held['pending']} pending memories in scope)"
    )
    for name, values in times.items():
        p50, p95 = pct(values, 0.50), pct(values, 0.95)
        result[f"{name}_p50_ms"], result[f"{name}_p95_ms"] = round(p50, 2), round(p95, 2)
        over = p95 - search_p95
        verdict = (
            ""
            if name in ("search", "compare")
            else (f"  {'within' if over <= BUDGET_MS else 'OVER'} search p95 + {BUDGET_MS:.0f} ms ({over:+.1f})")
        )
        print(f"  {name:<8} p50 {p50:7.2f} ms  p95 {p95:7.2f} ms{verdict}")
    result["fold_only_p50_ms"] = round(pct(fold_times, 0.50), 3)
    result["fold_only_p95_ms"] = round(pct(fold_times, 0.95), 3)
    print(f"  fold_quotas alone (no SQL): p50 {result['fold_only_p50_ms']} ms, p95 {result['fold_only_p95_ms']} ms")
    result["resident_uncached_p50_ms"] = round(pct(cold_times, 0.50), 2)
    result["resident_uncached_p95_ms"] = round(pct(cold_times, 0.95), 2)
    print(
        f"  resident ledgers uncached (the first fold after a write): p50 {result['resident_uncached_p50_ms']} ms, "
        f"p95 {result['resident_uncached_p95_ms']} ms"
    )
    result["within"] = all(
        pct(times[n], 0.95) <= search_p95 + BUDGET_MS for n in ("recall", "quotas", "catalog", "expand")
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
