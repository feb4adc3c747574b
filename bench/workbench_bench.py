"""The relevance workbench's speed: one run of a 500-probe set on the 20k generated store, and the
optimizer's trials per second.

    python bench/workbench_bench.py [--dir /tmp/wb-bench] [--count 20000] [--probes 500] [--rounds 3]
                                    [--embedder hash|minilm] [--trials 40]

The store is generated once per directory (gen_store, seed 11, `shuffled` control names, memhtml's
seeded state plane imported) with its probe file, and indexed once. Then, `--rounds` times each, in
one process (a warm store, as in the window, where the store is open):

- a run: read the set (every probe's arm candidates, `prepare_set`) and judge it under `default`
  (`run_configuration`), end to end; the best and the median are printed, with the load average;
- a second configuration on the same reading (the cost of a comparison's or a what-if's run);
- the optimizer's trials per second on the same reading (each trial ranks the training probes),
  measuring MRR on 40 hits (a run's list) and on 10 (a default search's first page: a pool of 30).

For scale, the same set searched through `Store.search` probe by probe is timed once. Figures are
measured while other work shares the machine's two cores: best of several, with the load average,
and the process's CPU time (what the run costs with a core to itself). Run it with and without
`OPENBLAS_NUM_THREADS=1`: under load, OpenBLAS's threads cost a 160 x 384 float64 product 15 ms
instead of 1 ms here (docs/benchmarks-log.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.devtools.gen_store import generate_store, write_probes  # noqa: E402
from memhtml_desktop.domain.configs import Configuration, shipped  # noqa: E402
from memhtml_desktop.embedders.registry import make_embedder  # noqa: E402
from memhtml_desktop.index.sidecar import import_file  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402
from memhtml_desktop.workbench import read_probe_file  # noqa: E402
from memhtml_desktop.workbench.optimizer import optimize_prepared  # noqa: E402
from memhtml_desktop.workbench.runs import judge_prepared, prepare_set, run_configuration  # noqa: E402


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/wb-bench"))
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--probes", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--embedder", default="hash", choices=("hash", "minilm"))
    parser.add_argument("--trials", type=int, default=40)
    args = parser.parse_args(argv)

    root, probes_file = args.dir / "store", args.dir / "probes.jsonl"
    index = args.dir / ("index.db" if args.embedder == "hash" else f"index-{args.embedder}.db")
    if not probes_file.exists():
        made = generate_store(
            root, args.count, 11, probes=args.probes, state=True, control_names="shuffled", force=True
        )
        write_probes(made, probes_file)
        print(f"generated {args.count} memories with {args.probes} probes at {root}")
    store = Store(root, index_path=index, embedder=make_embedder(args.embedder))
    import_file(store.reader(), root)
    started = time.perf_counter()
    store.index()
    print(f"index current in {time.perf_counter() - started:.1f}s ({args.embedder})")
    probe_set = read_probe_file(probes_file)
    configs = {c.name: c for c in shipped()}
    default = configs["default"]
    whatif = Configuration(
        "recency-light",
        replace(
            default.profile,
            name="recency-light",
            mmr_lambda=0.7,
            arms=tuple(replace(a, weight=0.2 if a.name == "recency" else a.weight) for a in default.profile.arms),
        ),
    )
    print(f"{len(probe_set.probes)} probes, load average {load()}")

    runs, reads, rerank_times, cpus = [], [], [], []
    prepared = None
    for i in range(args.rounds):
        started, cpu = time.perf_counter(), time.process_time()
        prepared = prepare_set(store, probe_set, default.profile)
        read = time.perf_counter() - started
        run = run_configuration(store, probe_set, default, prepared=prepared)
        total = time.perf_counter() - started
        cpus.append(time.process_time() - cpu)
        started = time.perf_counter()
        judge_prepared(prepared, whatif.profile)
        rerank_times.append(time.perf_counter() - started)
        runs.append(total)
        reads.append(read)
        f = run.figures
        print(
            f"  run {i + 1}: {total:.2f}s wall, {cpus[-1]:.2f}s CPU (reading {read:.2f}s, ranking {total - read:.2f}s); "
            f"what-if on the same reading {rerank_times[-1]:.2f}s; MRR {f.mrr:.3f}, {f.passed}/{f.probes} passed, "
            f"{f.inversions} inversions; load {load()}"
        )

    rates = {}
    for limit in (40, 10):
        cpu = time.process_time()
        trials = optimize_prepared(prepared, default, trials=args.trials, seed=1, limit=limit)
        cpu = time.process_time() - cpu
        rates[limit] = (trials.trials_per_s, trials.trials / cpu if cpu > 0 else 0.0)
        print(
            f"  optimizer at --limit {limit}: {trials.trials} trials in {trials.elapsed_s:.1f}s = "
            f"{trials.trials_per_s:.2f} trials/s wall, {rates[limit][1]:.2f} per CPU second "
            f"({len(trials.train)} training probes); held-out MRR {trials.base_held_out_mrr:.3f} -> "
            f"{trials.best_held_out_mrr:.3f}; load {load()}"
        )

    started = time.perf_counter()
    for probe in probe_set.probes:
        store.search(probe.query, probe.scope, limit=40, ranking=default.profile)
    per_search = time.perf_counter() - started
    print(f"  for scale: the same set through Store.search, probe by probe: {per_search:.2f}s; load {load()}")

    summary = {
        "probes": len(probe_set.probes),
        "embedder": args.embedder,
        "run_best_s": round(min(runs), 3),
        "run_median_s": round(statistics.median(runs), 3),
        "run_cpu_best_s": round(min(cpus), 3),
        "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "default"),
        "read_best_s": round(min(reads), 3),
        "whatif_rerank_best_s": round(min(rerank_times), 3),
        "optimizer_trials_per_s_at_40": round(rates[40][0], 3),
        "optimizer_trials_per_cpu_s_at_40": round(rates[40][1], 3),
        "optimizer_trials_per_s_at_10": round(rates[10][0], 3),
        "optimizer_trials_per_cpu_s_at_10": round(rates[10][1], 3),
        "search_loop_s": round(per_search, 3),
        "load": load(),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
