"""Search and facts that changed: how often the newer fact ranks first, and what the step costs.

    python bench/newer_first_bench.py [--slots 2600] [--seeds 5,11] [--embedders hash,minilm]
                                      [--scale 20000] [--rounds 3] [--dir DIR] [--json FILE]

1. **Quality** on conflicting-fact stores (`devtools/fact_store.py`: real facts, a third of the slots
   changed once or twice, a quarter of the changes reworded, a tenth backfilled): for every question
   about a changed slot ("What is the capital of X?"; the answer is the newest value), whether the
   newest fact ranks above every older version of its slot on the page (limit 10; absent counts as
   below), under `memhtml`, `default` without the newer-first step (before) and `default` (after),
   per embedder and seed. Beside it: of the questions the step still loses, how many have a pair the
   contradiction rule does not flag (the rule's recall, `bench/contradictions_bench.py`), and how
   many have the newest outside the fused pool.
2. **Cost**: the step's own work per search (each candidate's statement from its row, the pairs
   judged, the marks, the re-seating), timed over the pools of real searches, on a generated store of
   `--scale` memories (hash; the speed target is search p95 <= 15 ms there) and on the first fact
   store (every pool full of contradictions: the worst case). The search itself is timed beside it.

The machine may be shared: the step's cost is a share of the same searches' time, measured in the
same run; quote it, and leave absolute figures to a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.devtools import fact_store  # noqa: E402
from memhtml_desktop.domain.newer_first import disagreements, newer_first  # noqa: E402
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML  # noqa: E402
from memhtml_desktop.embedders.registry import make_embedder  # noqa: E402
from memhtml_desktop.index import disagreements as index_disagreements  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402

LIMIT = 10
BEFORE = replace(DEFAULT, newer_first=False, name="default-before")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] if ordered else 0.0


def newest_first(store: Store, made, profile) -> tuple[int, int, int]:
    """(questions whose newest ranks above every older version, pairs the rule did not flag among the
    losers, losers whose newest is not in the fused pool)."""
    retriever = store.retriever()
    won = unflagged = outside = 0
    for question, newest, olders in made.questions:
        keep: list = []
        result = retriever.search(question, limit=LIMIT, ranking=profile, keep=keep)
        paths = [h.path for h in result.hits]
        at_newest = paths.index(newest) if newest in paths else LIMIT
        at_older = min((paths.index(o) for o in olders if o in paths), default=LIMIT + 1)
        if at_newest < at_older:
            won += 1
            continue
        fused = [c.path for c in keep[0].fused]
        if newest not in fused:
            outside += 1
            continue
        flagged = {frozenset((fused[p.a], fused[p.b])) for p in keep[0].pairs}
        if any(frozenset((newest, o)) not in flagged for o in olders if o in paths and paths.index(o) < at_newest):
            unflagged += 1
    return won, unflagged, outside


def step_cost(store: Store, queries: list[str], rounds: int) -> dict[str, float]:
    """The step's own milliseconds per search over the pools of `queries` (see the module docstring),
    and the search's, interleaved."""
    retriever = store.retriever()
    pools = []
    for q in queries:
        keep: list = []
        retriever.search(q, limit=LIMIT, keep=keep)
        pools.append((q, keep[0]))
    step: list[float] = []
    step_cpu: list[float] = []
    search: list[float] = []
    search_cpu: list[float] = []
    for _ in range(rounds):
        for q, pool in pools:
            started, cpu = time.perf_counter(), time.thread_time()
            retriever.search(q, limit=LIMIT)
            search.append((time.perf_counter() - started) * 1000)
            search_cpu.append((time.thread_time() - cpu) * 1000)
            started, cpu = time.perf_counter(), time.thread_time()
            with retriever.conn:
                statements = [index_disagreements.statement_of(c.row) for c in pool.fused]
                pairs = index_disagreements.pool_pairs(retriever.conn, statements, [c.vector for c in pool.fused])
                disagreements(statements, pairs, q)
                newer_first(q, range(len(statements)), pairs, [c.path for c in pool.fused])
            step.append((time.perf_counter() - started) * 1000)
            step_cpu.append((time.thread_time() - cpu) * 1000)
    # CPU time (this thread's) leaves out the moments a loaded machine gave the core to others,
    # which on a shared machine are most of a short task's wall-clock p95
    return {
        "searches": len(step),
        "step_p50_ms": statistics.median(step),
        "step_p95_ms": pct(step, 0.95),
        "step_max_ms": max(step),
        "step_cpu_p50_ms": statistics.median(step_cpu),
        "step_cpu_p95_ms": pct(step_cpu, 0.95),
        "search_p50_ms": statistics.median(search),
        "search_p95_ms": pct(search, 0.95),
        "search_cpu_p50_ms": statistics.median(search_cpu),
        "search_cpu_p95_ms": pct(search_cpu, 0.95),
        "pairs_per_search": sum(len(p.pairs or ()) for _, p in pools) / max(1, len(pools)),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slots", type=int, default=2600)
    ap.add_argument("--seeds", default="5,11")
    ap.add_argument("--embedders", default="hash,minilm")
    ap.add_argument("--scale", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument(
        "--cost-only", action="store_true", help="skip the quality figures (the stores must exist in --dir)"
    )
    args = ap.parse_args()
    base = args.dir or Path(tempfile.mkdtemp(prefix="newer-first-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    out: dict = {"quality": [], "cost": {}}
    first_store = None
    for seed in [int(s) for s in args.seeds.split(",") if s]:
        root = base / f"facts-{seed}"
        truth = base / f"facts-{seed}.truth.json"
        if truth.exists():
            made = fact_store.load_truth(root, truth)
        else:
            made = fact_store.build(root, slots=args.slots, seed=seed)
            fact_store.save_truth(made, truth)
        print(
            f"fact store seed {seed}: {len(made.facts)} memories, {len(made.questions)} questions about a changed slot"
        )
        for embedder in [e for e in args.embedders.split(",") if e]:
            store = Store(root, index_path=base / f"facts-{seed}-{embedder}.db", embedder=make_embedder(embedder))
            store.index()
            first_store = first_store or store
            row = {"seed": seed, "embedder": embedder, "questions": len(made.questions)}
            if args.cost_only:
                continue
            for name, profile in (("memhtml", MEMHTML), ("before", BEFORE), ("after", DEFAULT)):
                won, unflagged, outside = newest_first(store, made, profile)
                row[name] = won / len(made.questions)
                if name == "after":
                    row.update(lost_unflagged=unflagged, lost_outside_pool=outside)
            out["quality"].append(row)
            print(
                f"  {embedder}: newest first memhtml {row['memhtml']:.1%}, default before {row['before']:.1%}, "
                f"after {row['after']:.1%} (target >= 90%); of the {len(made.questions) - round(row['after'] * len(made.questions))} "
                f"lost, {row['lost_unflagged']} hold a pair the rule does not flag, {row['lost_outside_pool']} "
                "have the newest outside the pool",
                flush=True,
            )
    if first_store is not None:
        questions = [
            q
            for q, _, _ in fact_store.load_truth(
                first_store.root, base / f"{first_store.root.name}.truth.json"
            ).questions[:200]
        ]
        cost = step_cost(first_store, questions, args.rounds)
        out["cost"]["facts"] = cost
        print(
            f"step cost on the fact store ({cost['pairs_per_search']:.1f} pairs a search): CPU p50 "
            f"{cost['step_cpu_p50_ms']:.3f} ms, p95 {cost['step_cpu_p95_ms']:.3f} ms (wall p50 {cost['step_p50_ms']:.3f}, "
            f"p95 {cost['step_p95_ms']:.3f}), against search CPU p50 {cost['search_cpu_p50_ms']:.1f} ms, "
            f"p95 {cost['search_cpu_p95_ms']:.1f} ms",
            flush=True,
        )
    if args.scale:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from index_bench import ensure_store

        root = ensure_store(base / f"scale-{args.scale}", args.scale, 11)  # its own: a shared index would be migrated
        store = Store(root, index_path=base / f"scale-{args.scale}.db")
        store.index()
        queries = [
            q.strip()
            for q in (Path(__file__).with_name("queries.txt")).read_text(encoding="utf-8").splitlines()
            if q.strip()
        ]
        cost = step_cost(store, queries, args.rounds)
        out["cost"]["scale"] = {"memories": args.scale, **cost}
        print(
            f"step cost at {args.scale:,} memories ({cost['pairs_per_search']:.2f} pairs a search): CPU p50 "
            f"{cost['step_cpu_p50_ms']:.3f} ms, p95 {cost['step_cpu_p95_ms']:.3f} ms (wall p50 {cost['step_p50_ms']:.3f}, "
            f"p95 {cost['step_p95_ms']:.3f}, max {cost['step_max_ms']:.2f}), against search CPU p50 "
            f"{cost['search_cpu_p50_ms']:.1f} ms, p95 {cost['search_cpu_p95_ms']:.1f} ms (target: the step <= 1-2 ms)"
        )
    print(f"stores kept in {base}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
