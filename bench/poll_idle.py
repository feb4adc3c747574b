"""What watching by polling costs at idle, and how soon it sees a change (issue 40, item 7).

    python bench/poll_idle.py [--count 100000] [--seed 11] [--dir DIR] [--idle 60] [--poller stat,watchdog]

A generated store (`--count` memories, `gen_store`) is indexed once (kept in `--dir`), then for each
poller a child process runs the real `Watcher` with kernel events refused (an inotify observer whose
`schedule` fails with ENOSPC, as on a machine whose watch limit is spent) and reports when its
start-up reconciliation is done. The parent reads the child's CPU time (utime + stime, all threads,
from /proc) at that moment and `--idle` seconds later: the idle cost, as a share of one core. Then
it measures, one at a time, how long the child takes to make a change searchable: a new file (its
folder's mtime moves), and an in-place append to an existing memory (no folder changes: the
rolling sweep's job), each written after the poller has backed off.

`stat` is this app's poller (watch/poller.py); `watchdog` is the snapshot poller it replaced
(PollingObserverVFS with the same bucket filter), kept here only for the comparison. Run them in one
invocation so both see the same machine; the figures move with the machine's load, the ratio less.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of every thread of `pid` (children excluded), from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def open_index(index: Path, **options):
    from memhtml_desktop.index.db import open_index as opened

    return opened(index, **options)


def prepare(work: Path, count: int, seed: int) -> tuple[Path, Path]:
    from memhtml_desktop.devtools.gen_store import generate_store

    store, index = work / f"store-{count}-{seed}", work / f"index-{count}-{seed}.db"
    if not store.exists():
        started = time.perf_counter()
        generate_store(store, count, seed)
        print(f"generated {count:,} memories in {time.perf_counter() - started:.1f} s", flush=True)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _timing import index_once

    index_once(store, index)
    return store, index


CHILD = r"""
import errno, json, sys, threading, time
from watchdog.observers.inotify import InotifyObserver
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store
from memhtml_desktop.watch import observers
from memhtml_desktop.watch.watcher import Watcher

store_dir, index, poller = sys.argv[1], sys.argv[2], sys.argv[3]

class NoWatchesLeft(InotifyObserver):
    def schedule(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

if poller == "watchdog":  # the poller this app used before: every folder listed, every file stat'ed, every poll
    import os
    from watchdog.observers.polling import PollingObserverVFS
    from memhtml_desktop.domain.paths import BUCKETS

    def start_polling(root, handler, interval):
        def listdir(path):
            with os.scandir(path) as entries:
                return [e for e in entries if e.name in BUCKETS] if path == root else list(entries)
        observer = PollingObserverVFS(os.lstat, listdir, polling_interval=interval)
        observer.schedule(handler, root, recursive=True)
        observer.start()
        return observer
    observers.start_polling = start_polling

store = Store(store_dir, index_path=index, embedder=HashEmbedder())
watcher = Watcher(store, observer_factory=NoWatchesLeft)
watcher.start()
while watcher.status().mode not in ("polling", "stopped", "behind"):
    time.sleep(0.1)
watcher.wait_idle(600)
print(json.dumps({"mode": watcher.status().mode, "reason": watcher.status().reason}), flush=True)
for line in sys.stdin:  # "stop"
    break
watcher.stop()
store.stop_parse_workers()
"""


def indexed_within(index: Path, path: str, previous: str | None, limit_s: float) -> float | None:
    """Seconds until the index holds `path` with a blob other than `previous` (None: not in time).

    Read from the index's `sources` table through one plain connection (a WAL reader sees each
    commit), so the figure is the watcher's, not a search's: a first search over 100,000 memories
    loads the vector matrix, seconds on a loaded machine."""
    conn = open_index(index, create_state=False)
    started = time.perf_counter()
    try:
        while time.perf_counter() - started < limit_s:
            row = conn.execute("SELECT blob_sha FROM sources WHERE path = ? AND status = 'indexed'", (path,)).fetchone()
            if row is not None and row[0] != previous:
                return time.perf_counter() - started
            time.sleep(0.02)
        return None
    finally:
        conn.close()


def blob_of(index: Path, path: str) -> str | None:
    conn = open_index(index, create_state=False)
    try:
        row = conn.execute("SELECT blob_sha FROM sources WHERE path = ?", (path,)).fetchone()
        return row[0] if row else None
    finally:
        conn.close()


def run_one(poller: str, store_dir: Path, index: Path, idle_s: float, n: int) -> dict:
    from memhtml_desktop.devtools.store_render import minimal_memory

    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(store_dir), str(index), poller],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        started = time.perf_counter()
        ready = json.loads(child.stdout.readline())
        assert ready["mode"] == "polling", ready
        start_up_s = time.perf_counter() - started
        time.sleep(3)  # the start-up's own tail (its health audit) settles
        before, wall = cpu_seconds(child.pid), time.perf_counter()
        time.sleep(idle_s)
        idle_cpu = cpu_seconds(child.pid) - before
        share = idle_cpu / (time.perf_counter() - wall)
        # A new file: its folder's mtime moves. Then an in-place append: only the sweep sees it.
        word = f"zqpoll{poller}{n}{int(time.time())}"
        new = f"areas/bench-poll/{word}.html"
        (store_dir / new).parent.mkdir(parents=True, exist_ok=True)
        (store_dir / new).write_text(minimal_memory(f"Poll {word}", f"The {word} appears."), encoding="utf-8")
        created_s = indexed_within(index, new, None, 120)
        time.sleep(5)  # back off again
        target = store_dir / new
        before_edit = blob_of(index, new)
        with open(target, "r+", encoding="utf-8") as handle:  # same inode, same folder mtime
            text = handle.read().replace("</mark>", f" {word}x</mark>", 1)
            handle.seek(0)
            handle.write(text)
            handle.truncate()
        edited_s = indexed_within(index, new, before_edit, 120)
    finally:
        try:
            child.stdin.write("stop\n")
            child.stdin.flush()
            child.wait(60)
        except Exception:  # noqa: BLE001
            child.kill()
    return {
        "poller": poller,
        "start_up_s": round(start_up_s, 1),
        "idle_s": idle_s,
        "idle_cpu_s": round(idle_cpu, 2),
        "idle_core_share": round(share, 4),
        "new_file_visible_s": None if created_s is None else round(created_s, 2),
        "in_place_edit_visible_s": None if edited_s is None else round(edited_s, 2),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/memhtml-poll-bench"))
    ap.add_argument("--idle", type=float, default=60.0, help="seconds of idle measured per poller")
    ap.add_argument("--poller", default="stat,watchdog", help="which pollers, in order (stat, watchdog)")
    ap.add_argument("--store", type=Path, help="an existing store (with --index) instead of a generated one")
    ap.add_argument("--index", type=Path, help="its index file (the start-up reconciliation builds it when missing)")
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    if args.store is not None:
        store_dir, index = args.store, args.index or args.dir / "index.db"
    else:
        store_dir, index = prepare(args.dir, args.count, args.seed)
    load = os.getloadavg()
    rows = []
    for n, poller in enumerate(args.poller.split(",")):
        row = run_one(poller.strip(), store_dir, index, args.idle, n)
        rows.append(row)
        print(
            f"{row['poller']:9s} idle {row['idle_core_share'] * 100:5.1f}% of a core "
            f"({row['idle_cpu_s']:.2f} s CPU in {row['idle_s']:.0f} s); new file searchable in "
            f"{row['new_file_visible_s']} s, in-place edit in {row['in_place_edit_visible_s']} s",
            flush=True,
        )
    print(
        json.dumps(
            {
                "count": args.count,
                "load_before": [round(x, 2) for x in load],
                "load_after": [round(x, 2) for x in os.getloadavg()],
                "runs": rows,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
