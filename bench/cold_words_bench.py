"""A cold store opened as the window opens it: how long until a words search answers for the whole store.

    python bench/cold_words_bench.py [--dir bench/out/cold-words] [--count 20000] [--seed 11]
                                     [--embedder minilm|hash] [--after 20] [--query "retry the ramp"]

The store is generated once per `--dir` (gen_store, `--seed`); the index is deleted before every
run. Then, as the window does: the store's engine starts in a process of its own with its watcher
(`engine.EngineClient`, niced, the start-up reconciliation: every file's words, then the vectors
newest first), while this process searches the same index from a worker thread every
`--every` seconds (`Store.search`, what the list asks; the window refreshes an empty list once a
second while a first index runs, ui/session/driver.INDEXING_REFRESH_S, and otherwise waits for the
pass) and, between searches, reads `index_state.scanned_at` every 50 ms to search at once when the
words are all in. Prints when the first search answered, when a search
first answered for the whole store by words (the index says complete; the header then says how
many memories have vectors), and the header's coverage sentences seen over the next `--after`
seconds (the vectors' progress). Target (issue 23): words ≤ 15 s after opening at 20,000
memories. Ends with one JSON line; `uptime` before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import apsw  # noqa: E402

from memhtml_desktop.devtools.gen_store import generate_store  # noqa: E402
from memhtml_desktop.embedders.registry import make_embedder  # noqa: E402
from memhtml_desktop.engine import EngineClient  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=ROOT / "bench" / "out" / "cold-words")
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--after", type=float, default=20.0, help="seconds to watch the vectors' progress")
    parser.add_argument("--query", default="retry the ramp step")
    parser.add_argument("--limit", type=float, default=300.0, help="give up after this many seconds")
    parser.add_argument(
        "--every",
        type=float,
        default=1.0,
        help="seconds between searches (the window's INDEXING_REFRESH_S while its list is empty)",
    )
    args = parser.parse_args(argv)
    root = args.dir / "store"
    marker = args.dir / ".params"
    if not marker.exists() or marker.read_text() != f"{args.count}:{args.seed}":
        generate_store(root, args.count, args.seed, state=True, force=True)
        marker.write_text(f"{args.count}:{args.seed}")
    index = args.dir / "index.db"
    for suffix in ("", "-wal", "-shm", ".lock"):
        Path(str(index) + suffix).unlink(missing_ok=True)
    print(uptime())

    store = Store(root, index_path=index, embedder=make_embedder(args.embedder))
    started = time.perf_counter()
    watcher = EngineClient(store, lambda message: None).start()
    watcher.watch()
    seen: list[tuple[float, int, str]] = []  # (seconds, hits, the index / coverage reasons)
    first = words = None
    stop = threading.Event()

    def searching() -> None:
        nonlocal first, words
        while not stop.is_set():
            asked = time.perf_counter()
            result = store.search(args.query, limit=20)
            at = time.perf_counter() - started
            reasons = [r for r in result.degraded_reasons if "vector" in r or "index" in r]
            seen.append((at, len(result.hits), "; ".join(reasons)))
            if first is None:
                first = at
            incomplete = any("incomplete" in r for r in reasons)
            if words is None and result.hits and not incomplete:
                words = (at, time.perf_counter() - asked, "; ".join(reasons))
            if (words is not None and at >= words[0] + args.after) or at > args.limit:
                stop.set()
            # The next search: after `--every`, or at once when the index says its words are all in.
            due = time.perf_counter() + args.every
            while not stop.is_set() and time.perf_counter() < due:
                if words is None and scanned():
                    break
                stop.wait(0.05)

    def scanned() -> bool:
        try:
            conn = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
            try:
                row = conn.execute("SELECT scanned_at FROM index_state WHERE id = 1").fetchone()
            finally:
                conn.close()
        except apsw.Error:  # not created or not migrated yet
            return False
        return row is not None and row[0] is not None

    thread = threading.Thread(target=searching, name="list-search")
    thread.start()
    thread.join()
    watcher.close()
    print(f"  first search answered after {first:.1f} s")
    if words is None:
        print(f"  the whole store was not searchable by words within {args.limit:.0f} s")
    else:
        print(
            f"  searchable by words (the index complete) after {words[0]:.1f} s (that search took {words[1] * 1000:.0f} ms); "
            f"header: {words[2] or '(no reason shown)'}"
        )
    shown = [(at, text) for at, _, text in seen if words is not None and at >= words[0]]
    for at, text in shown[:: max(1, len(shown) // 8)]:
        print(f"    {at:6.1f} s  {text}")
    print(f"  {uptime()}")
    print(
        json.dumps(
            {
                "count": args.count,
                "embedder": args.embedder,
                "first_search_s": round(first or -1, 2),
                "words_s": round(words[0], 2) if words else None,
                "coverage": [text for _, text in shown[-1:]],
                "load": [round(x, 2) for x in os.getloadavg()],
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
