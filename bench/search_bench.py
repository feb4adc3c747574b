"""Warm, in-process search latency: all arms, polarity, MMR, snippets and the explanation.

    python bench/search_bench.py --store DIR [--index FILE] --queries FILE [--limit 10]
    python bench/search_bench.py --generate 20000 --queries bench/queries.txt

It indexes first if needed, runs every query once to warm up, then times each query `--rounds`
times. It also times the vector arm alone (the numpy snapshot's ranked_files, what the fused
statement binds) and a bare numpy floor over the same vectors: one matrix-vector product plus a
top-40 selection, in the same run. With --backends it also times the sqlite-vec path (SQL
vec_distance_cosine over the stored BLOBs) and a vec0 virtual table, for the record.
Ends with one JSON line: {"n", "p50_ms", "p95_ms", "vector_arm_p50_ms", "numpy_floor_p50_ms", ...}.
"""

from __future__ import annotations

import argparse
import json
import statistics

import numpy as np
from _timing import open_store, pct, store_arguments, timed, warm_and_time

from memhtml_desktop.domain.embedder import space_of
from memhtml_desktop.index.store import Store


def bench_backends(store: Store, queries: list[str], vectors: list[np.ndarray]) -> dict[str, float]:
    """The alternatives the default was chosen against, measured on the same store."""
    conn = store.reader()
    out: dict[str, float] = {}
    space = space_of(store.embedder)
    sql = (
        "SELECT f.path, min(vec_distance_cosine(e.vec, ?1)) AS d FROM files f "
        "JOIN chunks c ON c.content_hash = f.content_hash JOIN embeddings e ON e.chunk_id = c.chunk_id "
        "WHERE e.model = ?2 GROUP BY f.path ORDER BY d LIMIT 40"
    )
    times = [timed(lambda v: conn.execute(sql, (v.astype("<f4").tobytes(), space)).fetchall(), v)[0] for v in vectors]
    out["sqlite_vec_scalar_p50_ms"] = statistics.median(times)
    try:
        dim = store.embedder.dim
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.bench_vec USING vec0(embedding float[{dim}] distance_metric=cosine)"
        )
        if conn.execute("SELECT count(*) FROM temp.bench_vec").fetchone()[0] == 0:
            with conn:
                conn.execute(
                    "INSERT INTO temp.bench_vec(rowid, embedding) SELECT rowid, vec FROM embeddings WHERE model = ?",
                    (space,),
                )
        knn = "SELECT rowid, distance FROM temp.bench_vec WHERE embedding MATCH ?1 AND k = 40"
        times = [timed(lambda v: conn.execute(knn, (v.astype("<f4").tobytes(),)).fetchall(), v)[0] for v in vectors]
        out["sqlite_vec_vec0_p50_ms"] = statistics.median(times)
    except Exception as exc:  # noqa: BLE001 - report, do not fail the bench
        print(f"vec0 not measured: {exc}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    store_arguments(parser)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--backends", action="store_true", help="also time the sqlite-vec alternatives")
    args = parser.parse_args(argv)
    store, report, queries = open_store(args, parser)
    latencies = warm_and_time(queries, {"search": lambda q: store.search(q, limit=args.limit)}, args.rounds)["search"]

    conn = store.reader()
    snapshot = store.vector_snapshot(conn)
    vectors = [np.asarray(store.embedder.embed([q]), dtype=np.float32)[0] for q in queries]
    arm_times = [timed(snapshot.ranked_files, v, 160)[0] for v in vectors for _ in range(args.rounds)]
    matrix = snapshot.matrix.copy()

    def floor(v: np.ndarray) -> np.ndarray:
        sims = matrix @ v
        top = np.argpartition(-sims, 40)[:40]
        return top[np.argsort(-sims[top])]

    floor_times = [timed(floor, v)[0] for v in vectors for _ in range(args.rounds)]
    extra = bench_backends(store, queries, vectors) if args.backends else {}

    result = {
        "n": len(latencies),
        "files": report.seen,
        "chunks_with_vectors": snapshot.size,
        "p50_ms": round(pct(latencies, 0.50), 2),
        "p95_ms": round(pct(latencies, 0.95), 2),
        "max_ms": round(max(latencies), 2),
        "vector_arm_p50_ms": round(statistics.median(arm_times), 2),
        "numpy_floor_p50_ms": round(statistics.median(floor_times), 2),
        **{k: round(v, 2) for k, v in extra.items()},
    }
    print(
        f"{len(queries)} queries x {args.rounds} rounds over {report.seen} files: "
        f"p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, max {result['max_ms']} ms"
    )
    print(
        f"vector arm (numpy snapshot) p50 {result['vector_arm_p50_ms']} ms; "
        f"numpy floor p50 {result['numpy_floor_p50_ms']} ms"
    )
    for key, value in extra.items():
        print(f"{key}: {value:.2f}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
