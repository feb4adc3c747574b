"""The near-twin threshold's evidence: planted twins' cosines against each memory's nearest non-twin.

    python bench/twin_scan.py [--count 1500] [--seed 20260802] [--embedders hash,minilm,minilm-fp32] [--dir DIR]

Reproduces the table under "The threshold, measured" in docs/ranking.md for any embedder, so a
new vector space (MiniLM's int8 graph, `all-MiniLM-L6-v2-int8-v1`) gets its threshold from the
same measurement as the others. A generated store (the gate's 1,500-file store by default, its
probes planted: each target with three near-twin controls that share its article) is indexed
from scratch per embedder; the vectors compared are the ones twin resolution compares (each
file's first embedded chunk, `evaluate.twinned_paths`). Printed per embedder: the cosine of
every pair within a probe's four files (min / 5th percentile / median), each live memory's
nearest non-twin (max / 99th percentile / median), and how many memories have a non-twin at or
above 0.90 / 0.94 / 0.95 / 0.96. Deterministic: the figures do not depend on load. The last line
is JSON.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.devtools.gen_store import generate_store  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402

THRESHOLDS = (0.90, 0.94, 0.95, 0.96)


def _embedder(name: str):
    if name == "minilm-fp32":
        from memhtml_desktop.embedders.minilm import MiniLMEmbedder

        return MiniLMEmbedder(precision="fp32")
    from memhtml_desktop.embedders.registry import make_embedder

    return make_embedder(name)


def scan(root: Path, probes, name: str, index: Path) -> dict:
    from memhtml_desktop.index.sidecar import import_file

    store = Store(root, index_path=index, embedder=_embedder(name))
    import_file(store.reader(), store.root)
    store.index()
    conn = store.reader()
    with conn:
        snapshot = store.vector_snapshot(conn)
        rows = conn.execute("SELECT path, rowid FROM files WHERE archived = 0 AND memory_type <> 'task'").fetchall()
    vectors = {p: snapshot.file_vector(r) for p, r in rows}
    live = [p for p, v in vectors.items() if v is not None]
    matrix = np.stack([vectors[p] for p in live]).astype(np.float64)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    at = {p: i for i, p in enumerate(live)}
    group = {}
    for g, probe in enumerate(probes):
        for path in (probe.target, *probe.controls):
            group[path] = g
    twin_pairs = []
    for probe in probes:
        members = [at[p] for p in (probe.target, *probe.controls) if p in at]
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                twin_pairs.append(float(matrix[a] @ matrix[b]))
    sims = matrix @ matrix.T
    np.fill_diagonal(sims, -1.0)
    for p, i in at.items():  # a memory's own probe group is not its non-twin
        if p in group:
            mates = [at[q] for q, g in group.items() if g == group[p] and q in at]
            sims[i, mates] = -1.0
    nearest = sims.max(axis=1)
    twins = np.array(twin_pairs)
    return {
        "embedder": store.embedder.model_id,
        "memories": len(live),
        "twin_pairs": len(twin_pairs),
        "twin_min": round(float(twins.min()), 4),
        "twin_p5": round(float(np.percentile(twins, 5)), 4),
        "twin_median": round(float(np.median(twins)), 4),
        "nontwin_max": round(float(nearest.max()), 4),
        "nontwin_p99": round(float(np.percentile(nearest, 99)), 4),
        "nontwin_median": round(float(np.median(nearest)), 4),
        "nontwin_at_or_above": {f"{t:.2f}": int(np.sum(nearest >= t)) for t in THRESHOLDS},
        "twin_pairs_below": {f"{t:.2f}": int(np.sum(twins < t)) for t in THRESHOLDS},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=20260802)
    parser.add_argument("--probes", type=int, default=36)
    parser.add_argument("--embedders", default="hash,minilm,minilm-fp32")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "memhtml-twin-scan")
    args = parser.parse_args(argv)
    if args.dir.exists():
        shutil.rmtree(args.dir)
    made = generate_store(
        args.dir / "store", args.count, args.seed, probes=args.probes, state=True, control_names="target_last"
    )
    results = {}
    for name in [e.strip() for e in args.embedders.split(",") if e.strip()]:
        r = scan(made.root, made.probes, name, args.dir / f"index-{name}.db")
        results[name] = r
        print(
            f"{name} ({r['embedder']}): twin pairs min / p5 / median {r['twin_min']} / {r['twin_p5']} / "
            f"{r['twin_median']}; nearest non-twin max / p99 / median {r['nontwin_max']} / {r['nontwin_p99']} / "
            f"{r['nontwin_median']}; memories with a non-twin at >= 0.90/0.94/0.95/0.96: "
            f"{' / '.join(str(v) for v in r['nontwin_at_or_above'].values())}; twin pairs below them: "
            f"{' / '.join(str(v) for v in r['twin_pairs_below'].values())}",
            flush=True,
        )
    print(json.dumps({"bench": "twin_scan", "count": args.count, "seed": args.seed, "results": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
