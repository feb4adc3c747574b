"""Hash embedder vs MiniLM: throughput, peak memory, and paraphrase retrieval (MRR).

Run: .venv/bin/python bench/embed_compare.py [--n 400] [--queries 1000] [--repeat 3]
                                             [--embedders hash,minilm,minilm-fp32] [--cache-dir DIR]

Each embedder is measured in its own child process, so peak RSS (ru_maxrss) is that embedder's
alone (it includes the ~25 MB of Python + numpy every process has; `baseline_rss_mb` says how much).
Per embedder it reports:

- load_s: construct + load (MiniLM: hash the weights, build the ONNX graph on a cold cache or read
  the cached one, open the session);
- memories/s: N deterministic memory-like texts of 200-1,500 characters (MiniLM truncates each at
  256 tokens), embedded in one call; best of --repeat runs (the machine may be shared);
- queries/s: short query-like texts, embedded in one call; best of --repeat; plus the median
  latency of embedding one query alone (what a search pays);
- paraphrase MRR: 30 stored memories, each with a query that says the same thing in other words,
  among 60 distractor memories (90 in all). Rank is by cosine, ties counted against the target
  (an all-zero query ranks its target last). Also recall@1 and recall@5;
- cosines for the probe pairs of the design note (laptop / ThinkPad / sourdough bread).

The last line printed is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# ---- memory-like texts --------------------------------------------------------------------------

_PEOPLE = ["Alice", "Bob", "Carol", "Dave", "Priya", "Mateo", "Yuki", "Sam", "the user", "the lead"]
_SYSTEMS = [
    "billing service",
    "search index",
    "staging cluster",
    "CI pipeline",
    "mobile app",
    "auth gateway",
    "nightly export job",
    "thumbnailer",
    "payments webhook",
    "reporting dashboard",
    "sync daemon",
]
_TECH = [
    "PostgreSQL",
    "SQLite",
    "Redis",
    "Kafka",
    "Kubernetes",
    "Terraform",
    "pytest",
    "onnxruntime",
    "nginx",
    "GitHub Actions",
    "Sentry",
    "Grafana",
    "Celery",
    "FastAPI",
    "Qt",
]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "the weekend", "the first of the month"]
_SENTENCES = [
    "{p} said the {s} started timing out after the upgrade to {t}.",
    "We decided to keep {t} for the {s} because migrating would cost two sprints.",
    "{p} prefers short status updates in the channel rather than long emails.",
    "The root cause was an unbounded retry loop in the {s}, which saturated {t} connections.",
    "Remember that deploys of the {s} are frozen on {d} while finance closes the books.",
    "{p} asked for a checklist before touching the {s} again; the last change paged the on-call twice.",
    "The fix was to add an index on the created_at column and cap the batch at 500 rows.",
    "Latency for the {s} dropped from 420 ms at p99 to about 90 ms once the cache was warmed.",
    "{p} is on holiday until {d}, so route questions about the {s} to the lead instead.",
    "Tests for the {s} are flaky when they share a single {t} instance; give each worker its own.",
    "Agreed in the retro: no more Friday releases of the {s}, and every rollback gets a short write-up.",
    "{p} mentioned that the old laptop battery barely lasts two hours, so meetings should stay short.",
    "Configuration for the {s} lives in the ops repository; secrets are in the vault, never in git.",
    "The customer reported duplicate invoices; the {s} had processed the same webhook twice.",
    "Use {t} for local development, but the shared environments must match production versions.",
    "{p} wants the weekly summary to lead with decisions, then risks, then everything else.",
]


def memory_texts(n: int, seed: int = 20260802) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        target = rng.randint(200, 1500)
        parts: list[str] = []
        size = 0
        while size < target:
            sentence = rng.choice(_SENTENCES).format(
                p=rng.choice(_PEOPLE), s=rng.choice(_SYSTEMS), t=rng.choice(_TECH), d=rng.choice(_DAYS)
            )
            sentence = sentence[0].upper() + sentence[1:]
            parts.append(sentence)
            size += len(sentence) + 1
        texts.append(" ".join(parts))
    return texts


def query_texts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    shapes = [
        "what did {p} say about the {s}",
        "why is the {s} slow",
        "when are {s} deploys frozen",
        "who owns the {s}",
        "which database does the {s} use",
        "{t} problems in the {s}",
    ]
    return [
        rng.choice(shapes).format(p=rng.choice(_PEOPLE), s=rng.choice(_SYSTEMS), t=rng.choice(_TECH)) for _ in range(n)
    ]


# ---- paraphrase probe ---------------------------------------------------------------------------

from memhtml_desktop.devtools.paraphrases import DISTRACTORS, PARAPHRASES  # noqa: E402

PROBE_PAIRS = [
    ("laptop", "ThinkPad"),
    ("laptop", "sourdough bread"),
    ("I have a ThinkPad", "what is my notebook"),
    ("I have a ThinkPad", "what bread do I bake"),
]


# ---- the worker (one per embedder, in its own process) ------------------------------------------


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def _best_rate(embed, texts: list[str], repeat: int) -> tuple[float, float]:
    """(texts per wall second, texts per CPU second of this process), each the best of `repeat`.

    The CPU-second figure moves less when other processes compete for the cores; on an idle
    machine, wall throughput is about the CPU figure times the threads the embedder keeps busy.
    """
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        embed(texts)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return len(texts) / best_wall, len(texts) / max(best_cpu, 1e-9)


def _paraphrase_scores(embedder) -> dict[str, float]:
    import numpy as np

    corpus = [memory for memory, _ in PARAPHRASES] + DISTRACTORS
    queries = [query for _, query in PARAPHRASES]
    docs = embedder.embed(corpus)
    qs = embedder.embed(queries)
    sims = qs @ docs.T
    ranks = []
    for i in range(len(queries)):
        target = sims[i, i]
        others = np.delete(sims[i], i)
        ranks.append(1 + int(np.sum(others >= target)))  # ties count against the target
    ranks_arr = np.array(ranks)
    return {
        "mrr": round(float(np.mean(1.0 / ranks_arr)), 4),
        "recall_at_1": round(float(np.mean(ranks_arr == 1)), 4),
        "recall_at_5": round(float(np.mean(ranks_arr <= 5)), 4),
        "median_rank": float(np.median(ranks_arr)),
        "corpus_size": len(corpus),
        "ranks": ranks,
    }


def worker(name: str, n: int, n_queries: int, repeat: int, cache_dir: str | None) -> dict:
    import numpy as np  # noqa: F401 - part of the baseline

    baseline = _rss_mb()
    result: dict = {"embedder": name, "baseline_rss_mb": round(baseline, 1)}
    memories, queries = memory_texts(n), query_texts(n_queries)
    result["memory_chars_mean"] = round(sum(map(len, memories)) / len(memories), 1)
    start = time.perf_counter()
    try:
        if name in ("minilm", "minilm-fp32"):  # the app's int8 graph, or the fp32 reference
            from memhtml_desktop.embedders.minilm import MiniLMEmbedder

            embedder = MiniLMEmbedder(
                cache_dir=Path(cache_dir) if cache_dir else None, precision="fp32" if name == "minilm-fp32" else "int8"
            )
        else:
            from memhtml_desktop.embedders.registry import make_embedder

            embedder = make_embedder(name)
        if hasattr(embedder, "load"):
            embedder.load()
        embedder.embed(["warm up"])
    except Exception as exc:  # noqa: BLE001 - report, don't crash the comparison
        result["error"] = f"{type(exc).__name__}: {exc}"
        return result
    result["space"] = embedder.space
    result["load_s"] = round(time.perf_counter() - start, 3)
    if hasattr(embedder, "built_graph"):
        result["built_graph"] = bool(embedder.built_graph)
    for key, texts in (("memories", memories), ("queries", queries)):
        wall, cpu = _best_rate(embedder.embed, texts, repeat)
        result[f"{key}_per_s"], result[f"{key}_per_cpu_s"] = round(wall, 1), round(cpu, 1)
    latencies = []
    for query in queries[:50]:
        start = time.perf_counter()
        embedder.embed([query])
        latencies.append(time.perf_counter() - start)
    result["one_query_ms_median"] = round(1000 * sorted(latencies)[len(latencies) // 2], 2)
    result["paraphrase"] = _paraphrase_scores(embedder)
    cos = {}
    for a, b in PROBE_PAIRS:
        va, vb = embedder.embed([a, b])
        cos[f"{a} | {b}"] = round(float(va @ vb), 4)
    result["cosines"] = cos
    result["peak_rss_mb"] = round(_rss_mb(), 1)
    return result


def _run_worker(name: str, args: argparse.Namespace) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        name,
        "--n",
        str(args.n),
        "--queries",
        str(args.queries),
        "--repeat",
        str(args.repeat),
    ]
    if args.cache_dir:
        cmd += ["--cache-dir", args.cache_dir]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        return {
            "embedder": name,
            "error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}",
        }
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=400, help="memory texts for throughput (default 400)")
    parser.add_argument("--queries", type=int, default=1000, help="short query texts for throughput (default 1000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per figure; the best counts (default 3)")
    parser.add_argument("--embedders", default="hash,minilm,minilm-fp32")
    parser.add_argument("--cache-dir", default=None, help="MiniLM graph cache (default: the user cache dir)")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker:
        print(json.dumps(worker(args.worker, args.n, args.queries, args.repeat, args.cache_dir)))
        return

    results = [_run_worker(name.strip(), args) for name in args.embedders.split(",") if name.strip()]
    load = os.getloadavg()[0]
    print(
        f"{len(PARAPHRASES)} paraphrase pairs, {len(DISTRACTORS)} distractors; "
        f"{args.n} memories of 200-1,500 chars; {args.queries} queries; best of {args.repeat}; "
        f"cpu count {os.cpu_count()}; load average {load:.2f} at the end (above ~0.5, other work shares the cores)"
    )
    for r in results:
        if "error" in r:
            print(f"\n[{r['embedder']}] unavailable: {r['error']}")
            continue
        p = r["paraphrase"]
        print(f"\n[{r['embedder']}] {r['space']}")
        print(f"  load {r['load_s']:.2f} s" + (f" (built graph: {r['built_graph']})" if "built_graph" in r else ""))
        print(
            f"  memories/s {r['memories_per_s']:.1f}   queries/s {r['queries_per_s']:.1f}   "
            f"(mean memory {r['memory_chars_mean']:.0f} chars)"
        )
        print(
            f"  per CPU-second: memories {r['memories_per_cpu_s']:.1f}   queries {r['queries_per_cpu_s']:.1f}   "
            f"one query alone: {r['one_query_ms_median']:.2f} ms (median)"
        )
        print(f"  peak RSS {r['peak_rss_mb']:.0f} MB (process baseline {r['baseline_rss_mb']:.0f} MB)")
        print(
            f"  paraphrase MRR {p['mrr']:.3f}   R@1 {p['recall_at_1']:.2f}   R@5 {p['recall_at_5']:.2f}   "
            f"median rank {p['median_rank']:g} of {p['corpus_size']}"
        )
        for pair, value in r["cosines"].items():
            print(f"  cos({pair}) = {value:.3f}")
    summary = {r["embedder"]: {k: v for k, v in r.items() if k != "embedder"} for r in results}
    for r in summary.values():
        r.get("paraphrase", {}).pop("ranks", None)
    print(
        json.dumps(
            {
                "bench": "embed_compare",
                "n": args.n,
                "queries": args.queries,
                "loadavg_1m": round(load, 2),
                "results": summary,
            }
        )
    )


if __name__ == "__main__":
    main()
