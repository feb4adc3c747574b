"""Cold index of a generated store, then a no-op rescan. Prints figures and a final JSON line.

    python bench/index_bench.py [--count 20000] [--seed 11] [--dir /tmp/bench-store] [--embedder hash|minilm]
                                [--minilm int8|fp32|before]

Targets on the 2-core reference machine: cold >= 1,000 files/s; no-op rescan <= 2 s.
The store is generated once per (count, seed) and reused; the index is always built from scratch.
`--minilm` picks the MiniLM configuration: `int8` (what the app runs), `fp32`, or `before` (fp32
with the embed loop it had before int8: length-sorted padded batches on one 2-thread session), so
the old and new cold index can be timed in the same window.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.devtools.gen_store import generate_store  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402


def ensure_store(directory: Path, count: int, seed: int) -> Path:
    marker = directory / ".bench-params"
    wanted = f"{count}:{seed}"
    if marker.exists() and marker.read_text() == wanted:
        return directory
    if directory.exists():
        shutil.rmtree(directory)
    started = time.perf_counter()
    generate_store(directory, count, seed)
    marker.write_text(wanted)
    print(f"generated {count} memories in {time.perf_counter() - started:.1f}s at {directory}")
    return directory


def _minilm(config: str):
    """MiniLM at fp32, or as it ran before int8 (see bench/minilm_speed.py's "before" row)."""
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    if config == "fp32":
        return MiniLMEmbedder(precision="fp32")
    from bench.minilm_speed import _legacy_batched

    class Before:
        def __init__(self) -> None:
            self.inner = MiniLMEmbedder(precision="fp32", threads=1, intra_op_threads=2)
            self.model_id, self.dim, self.space = self.inner.model_id, self.inner.dim, self.inner.space

        def embed(self, texts):
            return _legacy_batched(self.inner, [str(t) for t in texts])

    return Before()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "memhtml-bench-store")
    parser.add_argument("--embedder", default="hash", choices=("hash", "minilm"))
    parser.add_argument("--minilm", default="int8", choices=("int8", "fp32", "before"))
    args = parser.parse_args(argv)
    root = ensure_store(args.dir.with_name(f"{args.dir.name}-{args.count}"), args.count, args.seed)
    index = Path(tempfile.mkdtemp()) / "index.db"
    from memhtml_desktop.embedders.registry import make_embedder

    embedder = make_embedder(args.embedder)
    if args.embedder == "minilm" and args.minilm != "int8":
        embedder = _minilm(args.minilm)
    store = Store(root, index_path=index, create_state=False, embedder=embedder)

    cpu0, wall0 = time.process_time(), time.perf_counter()
    cold = store.index()
    cold_wall = time.perf_counter() - wall0
    cold_cpu = time.process_time() - cpu0
    rate = cold.seen / cold_wall if cold_wall else 0.0
    print(
        f"cold index: {cold.seen} files ({cold.added} indexed, {cold.failed} invalid) in {cold_wall:.2f}s "
        f"= {rate:,.0f} files/s (main-process CPU {cold_cpu:.2f}s)"
    )

    wall1 = time.perf_counter()
    noop = store.index()
    noop_wall = time.perf_counter() - wall1
    print(f"no-op rescan: {noop.seen} files, {noop.unchanged} unchanged, {noop.changed} changed in {noop_wall:.2f}s")

    size = sum(os.path.getsize(p) for p in index.parent.iterdir())
    print(f"index size: {size / 1_048_576:.1f} MB")
    print(
        json.dumps(
            {
                "files": cold.seen,
                "embedder": store.embedder.space,
                "minilm": args.minilm if args.embedder == "minilm" else None,
                "cold_seconds": round(cold_wall, 3),
                "cold_files_per_s": round(rate, 1),
                "noop_rescan_seconds": round(noop_wall, 3),
                "index_mb": round(size / 1_048_576, 1),
                "cpus": os.cpu_count(),
            }
        )
    )
    shutil.rmtree(index.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
