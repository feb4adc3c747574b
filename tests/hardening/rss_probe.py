"""Peak-memory probe, run in a fresh process so its VmHWM belongs to one experiment only.

    python rss_probe.py big-file STORE INDEX BIG_FILE STORE_PATH
        Index STORE (warm-up), take VmHWM as the baseline, move BIG_FILE into the store at
        STORE_PATH, index again, then read it as the reader would (Store.read, Store.file_bytes).
    python rss_probe.py store STORE INDEX QUERY...
        Index STORE from scratch, then run each QUERY through search and recall.

Prints one JSON object: VmHWM/VmRSS in kB at each step, seconds per step, and what happened.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def status() -> dict[str, int]:
    out = {}
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(("VmHWM:", "VmRSS:")):
                out[line.split(":")[0]] = int(line.split()[1])
    return out


def big_file(store_dir: str, index: str, big: str, store_path: str) -> dict:
    from memhtml_desktop.index.reader import MemoryNotFound
    from memhtml_desktop.index.store import Store

    store = Store(store_dir, index_path=index)
    store.index()
    store.search("deploy rollback")
    out: dict = {"baseline": status()}
    target = Path(store_dir) / store_path
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(big, target)
    started = time.perf_counter()
    report = store.index()
    out["index_s"] = round(time.perf_counter() - started, 3)
    out["after_index"] = status()
    out["report"] = {"failed": report.failed, "failures": report.failures[:3], "added": report.added}
    started = time.perf_counter()
    try:
        store.read(store_path)
        out["read"] = "returned"
    except MemoryNotFound as exc:
        out["read"] = f"MemoryNotFound: {exc}"
    out["read_s"] = round(time.perf_counter() - started, 3)
    out["file_bytes_is_none"] = store.file_bytes(store_path) is None
    out["after_read"] = status()
    out["problems"] = [(p.path, p.kind, list(p.violations)) for p in store.problems() if p.path == store_path]
    return out


def whole_store(store_dir: str, index: str, queries: list[str]) -> dict:
    from memhtml_desktop.index.store import Store

    out: dict = {"start": status()}
    store = Store(store_dir, index_path=index)
    started = time.perf_counter()
    report = store.index()
    out["index_s"] = round(time.perf_counter() - started, 2)
    out["report"] = {k: v for k, v in report.to_json().items() if k not in ("failures", "skipped")}
    out["after_index"] = status()
    timings = []
    for query in queries:
        started = time.perf_counter()
        hits = len(store.search(query).hits)
        first = time.perf_counter() - started
        started = time.perf_counter()
        store.recall(query)
        timings.append(
            {
                "query": query,
                "search_ms": round(first * 1000, 1),
                "hits": hits,
                "recall_ms": round((time.perf_counter() - started) * 1000, 1),
            }
        )
    out["queries"] = timings
    out["after_search"] = status()
    out["stats"] = store.stats()
    import resource

    from memhtml_desktop.index.indexer import shutdown_pool

    shutdown_pool()  # the parse workers have exited: RUSAGE_CHILDREN now holds the largest one's peak
    out["largest_parse_worker_peak_kb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return out


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    result = big_file(*args) if mode == "big-file" else whole_store(args[0], args[1], args[2:])
    print(json.dumps(result))
