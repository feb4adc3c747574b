"""What the latency benches share: the store they open (generated or given, indexed first), the
queries, a warm-up pass, timed rounds interleaved so a busy moment of the shared machine falls on
every operation alike, and the percentiles they print."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def index_once(store: Path, index: Path) -> None:
    """Index `store` into `index` with the hash embedder unless that index exists (a bench's kept store)."""
    if index.exists():
        return
    from memhtml_desktop.domain.hash_embedder import HashEmbedder
    from memhtml_desktop.index.store import Store

    started = time.perf_counter()
    built = Store(store, index_path=index, embedder=HashEmbedder())
    built.index()
    built.close_thread_connection()
    built.stop_parse_workers()
    print(f"indexed in {time.perf_counter() - started:.1f} s", flush=True)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, int(round(q * (len(ordered) - 1)))))
    return ordered[index]


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    started = time.perf_counter()
    out = fn(*args, **kwargs)
    return (time.perf_counter() - started) * 1000, out


def store_arguments(parser: argparse.ArgumentParser) -> None:
    """--store/--index/--generate/--seed/--queries/--rounds, as every latency bench takes them."""
    parser.add_argument("--store", type=Path)
    parser.add_argument("--index", type=Path)
    parser.add_argument("--generate", type=int, metavar="N", help="generate (or reuse) a store of N memories")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--queries", type=Path, default=Path(__file__).with_name("queries.txt"))
    parser.add_argument("--rounds", type=int, default=3)


def open_store(args: argparse.Namespace, parser: argparse.ArgumentParser) -> tuple[Any, Any, list[str]]:
    """(the Store, its index report, the queries): the store generated or given, indexed if needed."""
    from memhtml_desktop.index.store import Store

    if args.generate:
        from index_bench import ensure_store

        root = ensure_store(
            Path(tempfile.gettempdir()) / f"memhtml-bench-store-{args.generate}", args.generate, args.seed
        )
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
    return store, report, queries


def warm_and_time(
    queries: list[str],
    ops: Mapping[str, Callable[[str], Any]],
    rounds: int,
    *,
    warm: Callable[[str], Any] | None = None,
    each: Callable[[str], Any] | None = None,
) -> dict[str, list[float]]:
    """Each op once per query to warm up (the vector snapshot, the page cache, the statement cache;
    `warm(q)` first when given), then `rounds` rounds of every query through every op in turn
    (`each(q)` after a query's ops, for what a bench times beside them); the milliseconds by op."""
    for q in queries:
        if warm is not None:
            warm(q)
        for op in ops.values():
            op(q)
    times: dict[str, list[float]] = {name: [] for name in ops}
    for _ in range(rounds):
        for q in queries:
            for name, op in ops.items():
                times[name].append(timed(op, q)[0])
            if each is not None:
                each(q)
    return times
