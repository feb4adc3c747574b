"""MiniLM embedding throughput, one change at a time, on the chunks of a generated store.

    python bench/minilm_speed.py [--count 2000] [--seed 11] [--rounds 3] [--only LABEL,...] [--dir DIR]

Each configuration below differs from the one before it by one change, so its row says what that
change is worth. They run interleaved (round 1 of every configuration, then round 2, ...) in one
process, so a shared machine's load falls on all of them alike; each round embeds every chunk of the
store in calls of 256 texts, as `Indexer.embed_missing` does. Printed per configuration: texts per
wall second (best and median of the rounds), CPU seconds per 1,000 texts (median), and its vectors
against the fp32 reference: minimum and mean cosine over the store's chunks, paraphrase MRR (the 30
queries among 90 memories of `devtools/paraphrases.py`, cosine only) and overlap@10 (how many of
the reference's 10 nearest chunks it also returns, for 200 queries made of the first words of 200
chunks). The machine's load average is printed with every round. The last line is JSON.

The "before" row is the embedder as it was: fp32, texts sorted by length and run in batches of at
most 32 texts and 2,048 padded tokens, one onnxruntime session with 2 intra-op threads.

`--latency` measures instead what a search pays: the time to embed one short query alone, median
and p95 over 50 queries per round (the queries of bench/embed_compare.py), configurations
interleaved as above.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.devtools.paraphrases import DISTRACTORS, PARAPHRASES  # noqa: E402
from memhtml_desktop.embedders.minilm import MiniLMEmbedder  # noqa: E402


def store_chunks(directory: Path, count: int, seed: int) -> list[str]:
    """The chunk texts the indexer would embed for a generated store (generated once, reused)."""
    from bench.index_bench import ensure_store
    from memhtml_desktop.html.project import project

    root = ensure_store(directory.with_name(f"{directory.name}-{count}"), count, seed)
    texts: list[str] = []
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root).as_posix()
        if rel == "README.html":
            continue
        result = project(rel, path.read_bytes(), "2026-01-01T00:00:00Z")
        texts.extend(row["text"] for row in result.tables.get("chunks", []))
    return texts


def _legacy_batched(
    embedder: MiniLMEmbedder, texts: list[str], max_texts: int = 32, max_tokens: int = 2048
) -> np.ndarray:
    """The embed loop this embedder had before: length-sorted, padded batches."""
    session, tokenizer = embedder._state or embedder._ensure_loaded()
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    encodings = tokenizer.encode_batch(texts)
    order = sorted((i for i, e in enumerate(encodings) if len(e.ids) > 2), key=lambda i: -len(encodings[i].ids))
    batch: list[int] = []

    def flush() -> None:
        width = len(encodings[batch[0]].ids)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, index in enumerate(batch):
            ids[row, : len(encodings[index].ids)] = encodings[index].ids
            mask[row, : len(encodings[index].ids)] = 1
        out[batch] = session.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})[0]

    for index in order:
        width = len(encodings[batch[0]].ids) if batch else len(encodings[index].ids)
        if batch and (len(batch) >= max_texts or (len(batch) + 1) * width > max_tokens):
            flush()
            batch = []
        batch.append(index)
    if batch:
        flush()
    return out


# label -> (constructor kwargs, legacy batching?)
CONFIGS: dict[str, tuple[dict[str, Any], bool]] = {
    "before: fp32, batches, 1 run x 2 threads": ({"precision": "fp32", "threads": 1, "intra_op_threads": 2}, True),
    "fp32, one text per run, 1 x 2 threads": ({"precision": "fp32", "threads": 1, "intra_op_threads": 2}, False),
    "fp32, one text per run, 2 runs x 1 thread": ({"precision": "fp32", "threads": 2, "intra_op_threads": 1}, False),
    "int8, batches, 1 x 2 threads": ({"precision": "int8", "threads": 1, "intra_op_threads": 2}, True),
    "int8, one text per run, 1 x 2 threads": ({"precision": "int8", "threads": 1, "intra_op_threads": 2}, False),
    "after: int8, one text per run, 2 x 1": ({"precision": "int8", "threads": 2, "intra_op_threads": 1}, False),
}


def _runner(label: str, cache_dir: Path | None) -> tuple[MiniLMEmbedder, Callable[[list[str]], np.ndarray]]:
    kwargs, batched = CONFIGS[label]
    embedder = MiniLMEmbedder(cache_dir=cache_dir, **kwargs)
    embedder.load()
    return embedder, (lambda texts: _legacy_batched(embedder, texts)) if batched else embedder.embed


def embed_all(embed: Callable[[list[str]], np.ndarray], texts: list[str]) -> np.ndarray:
    return np.vstack([embed(texts[i : i + 256]) for i in range(0, len(texts), 256)])


def paraphrase_mrr(embed: Callable[[list[str]], np.ndarray]) -> float:
    corpus = [memory for memory, _ in PARAPHRASES] + DISTRACTORS
    docs, queries = embed(corpus), embed([query for _, query in PARAPHRASES])
    sims = queries @ docs.T
    ranks = [1 + int(np.sum(np.delete(sims[i], i) >= sims[i, i])) for i in range(len(queries))]
    return float(np.mean([1.0 / r for r in ranks]))


def overlap_at_10(reference: np.ndarray, vectors: np.ndarray, ref_queries: np.ndarray, queries: np.ndarray) -> float:
    top_ref = np.argsort(-(ref_queries @ reference.T), axis=1, kind="stable")[:, :10]
    top = np.argsort(-(queries @ vectors.T), axis=1, kind="stable")[:, :10]
    return float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(top_ref, top)]))


def query_latency(labels: list[str], rounds: int, cache_dir: Path | None) -> int:
    from bench.embed_compare import query_texts

    queries = query_texts(50 * rounds)
    runners = {label: _runner(label, cache_dir) for label in labels}
    for _, embed in runners.values():
        embed(["warm up"])
    times: dict[str, list[float]] = {label: [] for label in labels}
    for round_no in range(rounds):
        for label in labels:
            embed = runners[label][1]
            for query in queries[round_no * 50 : (round_no + 1) * 50]:
                start = time.perf_counter()
                embed([query])
                times[label].append((time.perf_counter() - start) * 1000)
        print(f"round {round_no + 1}: load average {os.getloadavg()[0]:.2f}", flush=True)
    print(f"\n{'configuration':<44} {'median ms':>10} {'p95 ms':>8}")
    results = {}
    for label in labels:
        ordered = sorted(times[label])
        median, p95 = statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]
        results[label] = {"median_ms": round(median, 2), "p95_ms": round(p95, 2)}
        print(f"{label:<44} {median:>10.2f} {p95:>8.2f}")
    print(
        json.dumps(
            {
                "bench": "minilm_speed",
                "latency": True,
                "rounds": rounds,
                "loadavg_1m_end": round(os.getloadavg()[0], 2),
                "results": results,
            }
        )
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "memhtml-bench-store",
        help="where the generated store lives (suffixed with the count; shared with index_bench)",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated labels (default: all)")
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--latency", action="store_true", help="time one query alone instead of the store's chunks")
    parser.add_argument(
        "--sample",
        type=int,
        default=0,
        metavar="N",
        help="time N of the chunks (every k-th in path order, so the length mix stays), for a busy machine",
    )
    parser.add_argument(
        "--no-quality",
        action="store_true",
        help="skip the comparison with fp32 (deterministic, so one full run is enough): timings only",
    )
    args = parser.parse_args(argv)
    labels = [label for label in CONFIGS if not args.only or label in args.only.split(",")]
    if args.latency:
        return query_latency(labels, args.rounds, args.cache_dir)

    texts = store_chunks(args.dir, args.count, args.seed)
    if args.sample and args.sample < len(texts):
        step = len(texts) / args.sample
        texts = [texts[int(i * step)] for i in range(args.sample)]
    rng = np.random.default_rng(20260802)
    picks = rng.choice(len(texts), size=min(200, len(texts)), replace=False)
    probe_queries = [" ".join(texts[i].split()[:8]) for i in picks]
    print(
        f"{len(texts)} chunks from the generated store ({args.count} memories, seed {args.seed}"
        f"{f'; a sample of {args.sample}' if args.sample else ''}); "
        f"{args.rounds} rounds; cpu count {os.cpu_count()}",
        flush=True,
    )

    runners = {label: _runner(label, args.cache_dir) for label in labels}
    quality: dict[str, dict[str, float]] = {
        label: {
            "space": runners[label][0].space,
            "cos_min": float("nan"),
            "cos_mean": float("nan"),
            "paraphrase_mrr": float("nan"),
            "overlap_at_10": float("nan"),
        }
        for label in labels
    }
    if not args.no_quality:
        reference, _ = _runner("fp32, one text per run, 2 runs x 1 thread", args.cache_dir)
        ref_vectors, ref_queries = embed_all(reference.embed, texts), reference.embed(probe_queries)
    for label, (embedder, embed) in runners.items():
        if args.no_quality:
            embed(texts[:8])  # warm up: the first runs of a session allocate
            continue
        vectors = embed_all(embed, texts)
        cos = np.sum(vectors * ref_vectors, axis=1)
        quality[label] = {
            "space": embedder.space,
            "cos_min": round(float(cos.min()), 4),
            "cos_mean": round(float(cos.mean()), 5),
            "paraphrase_mrr": round(paraphrase_mrr(embed), 4),
            "overlap_at_10": round(overlap_at_10(ref_vectors, vectors, ref_queries, embed(probe_queries)), 4),
        }

    timings: dict[str, list[tuple[float, float]]] = {label: [] for label in labels}
    for round_no in range(args.rounds):
        for label in labels:
            embed = runners[label][1]
            wall, cpu = time.perf_counter(), time.process_time()
            embed_all(embed, texts)
            timings[label].append((time.perf_counter() - wall, time.process_time() - cpu))
        print(f"round {round_no + 1}: load average {os.getloadavg()[0]:.2f}", flush=True)

    results = {}
    print(
        f"\n{'configuration':<44} {'texts/s best':>12} {'median':>8} {'CPU s/1k':>9} {'cos min':>8} "
        f"{'cos mean':>9} {'para MRR':>9} {'ovl@10':>7}"
    )
    for label in labels:
        rates = [len(texts) / wall for wall, _ in timings[label]]
        cpu_per_k = statistics.median(cpu for _, cpu in timings[label]) / len(texts) * 1000
        q = quality[label]
        results[label] = {
            "best": round(max(rates), 1),
            "median": round(statistics.median(rates), 1),
            "cpu_s_per_1000": round(cpu_per_k, 2),
            **q,
        }
        print(
            f"{label:<44} {max(rates):>12.1f} {statistics.median(rates):>8.1f} {cpu_per_k:>9.2f} "
            f"{q['cos_min']:>8.4f} {q['cos_mean']:>9.5f} {q['paraphrase_mrr']:>9.4f} {q['overlap_at_10']:>7.3f}"
        )
    print(
        json.dumps(
            {
                "bench": "minilm_speed",
                "chunks": len(texts),
                "rounds": args.rounds,
                "loadavg_1m_end": round(os.getloadavg()[0], 2),
                "results": results,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
