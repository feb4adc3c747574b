"""Calibrate the relevance floor's raw-cosine threshold per embedder, the way seed 003 does.

    python bench/floor_scan.py [--embedders hash,minilm] [--step 0.01] [--json]

The corpus is the paraphrase set (`memhtml_desktop/devtools/paraphrases.py`): 30 stored memories,
each with a query that says the same thing in other words, among 60 same-topic distractors. For
each query its own memory is relevant and the 89 others are not. For each threshold t the scan
counts the irrelevant (query, memory) pairs at cosine >= t ("admitted") and the queries whose own
memory is at cosine >= t ("kept"). The floor is the lowest t that admits no irrelevant pair; the
seed's rule also wants every relevant one kept, and the scan says how far each embedder is from that.
Cosines are the raw ones search reports (`1 - distance`), from the embedder itself, no index.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.devtools.paraphrases import DISTRACTORS, PARAPHRASES  # noqa: E402
from memhtml_desktop.embedders.registry import make_embedder  # noqa: E402


def scan(name: str, step: float) -> dict:
    embedder = make_embedder(name)
    stored = [memory for memory, _ in PARAPHRASES] + list(DISTRACTORS)
    queries = [query for _, query in PARAPHRASES]
    m = np.asarray(embedder.embed(stored), dtype=np.float64)
    q = np.asarray(embedder.embed(queries), dtype=np.float64)
    m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    q /= np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
    sims = q @ m.T
    relevant = np.array([sims[i, i] for i in range(len(queries))])
    mask = np.ones_like(sims, dtype=bool)
    mask[np.arange(len(queries)), np.arange(len(queries))] = False
    irrelevant = sims[mask]
    rows = []
    for t in np.round(np.arange(step, 1.0, step), 4):
        rows.append({"t": float(t), "admitted": int((irrelevant >= t).sum()), "kept": int((relevant >= t).sum())})
    floor = next((r["t"] for r in rows if r["admitted"] == 0), 1.0)
    kept_at_floor = next(r["kept"] for r in rows if r["t"] == floor) if floor < 1.0 else 0
    return {
        "embedder": name,
        "model": embedder.model_id,
        "queries": len(queries),
        "irrelevant_pairs": int(irrelevant.size),
        "relevant_cosine": {"min": round(float(relevant.min()), 4), "median": round(float(np.median(relevant)), 4)},
        "irrelevant_cosine": {
            "max": round(float(irrelevant.max()), 4),
            "p99": round(float(np.percentile(irrelevant, 99)), 4),
        },
        "floor": floor,
        "kept_at_floor": kept_at_floor,
        "scan": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", default="hash,minilm")
    parser.add_argument("--step", type=float, default=0.05)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = [scan(name.strip(), args.step) for name in args.embedders.split(",") if name.strip()]
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    for r in results:
        print(
            f"{r['embedder']} ({r['model']}): relevant cosine min {r['relevant_cosine']['min']}, median "
            f"{r['relevant_cosine']['median']}; irrelevant max {r['irrelevant_cosine']['max']}, "
            f"p99 {r['irrelevant_cosine']['p99']}"
        )
        print("   t   admitted  kept")
        for row in r["scan"]:
            print(f"  {row['t']:.2f}  {row['admitted']:>7}  {row['kept']:>3}/{r['queries']}")
        print(f"  floor: {r['floor']:.2f} (admits no irrelevant pair; keeps {r['kept_at_floor']} of {r['queries']})\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
