"""A GUI-like thread beside a niced pool thread that holds the GIL in bursts, with both cores loaded.

    python bench/gil_inversion.py [--seconds 60] [--rounds 2] [--nice 4 0] [--load 2] [--burst-ms 15]
                                  [--kind python|native]

The window's pool threads (`ui/session/runner.py`; niced +4 until 3 December 2026) run Python in bursts (an answer's
counts, a listing) while the GUI thread lists the answer; `bench/event_loop_gaps.py --trace` found
gaps where the GUI thread waited for the GIL while the pool thread holding it was itself kept off
both cores for 41-64 ms. This isolates that: the main thread wakes every 5 ms and runs 1 ms of
Python (the switch interval the window uses, 0.5 ms); one pool thread at each `--nice` level sleeps
100 ms and runs `--burst-ms` of Python, again and again; `--load` busy processes (nice 0) keep the
cores full (`--kind native`: the bursts are C work that gives the GIL up, as a search's SQL does,
to see what a pool thread at the GUI's own niceness costs the GUI thread when it only takes a
core). The nice levels alternate round by round. Prints each run's longest gap, its 99.9th
percentile and the gaps over 20 / 30 / 50 ms, then one JSON line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import threading
import time

LOAD = "while True: pass"


def spin(ms: float) -> None:
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        pass


def native(ms: float) -> None:
    """Work that does not hold the GIL (hashing a large buffer, as SQLite's reads do in C)."""
    data = bytes(1 << 20)
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        hashlib.sha256(data).digest()


def one_run(seconds: float, nice: int, burst_ms: float, kind: str = "python") -> dict:
    done = threading.Event()
    work = spin if kind == "python" else native

    def pool() -> None:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
        while not done.wait(0.1):
            work(burst_ms)

    worker = threading.Thread(target=pool, name=f"pool-nice-{nice}")
    worker.start()
    gaps, last, end = [], time.perf_counter(), time.perf_counter() + seconds
    while (now := time.perf_counter()) < end:
        gaps.append((now - last) * 1000)
        last = now
        spin(1.0)  # a turn's work, then the event loop's wait: a gap is wake to wake (6 ms when all is well)
        time.sleep(0.005)
    done.set()
    worker.join()
    gaps.sort()
    return {"nice": nice, "longest_ms": round(gaps[-1], 1), "p999_ms": round(gaps[int(len(gaps) * 0.999)], 1),
            "over_20": sum(g > 20 for g in gaps), "over_30": sum(g > 30 for g in gaps),
            "over_50": sum(g > 50 for g in gaps), "ticks": len(gaps)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--nice", type=int, nargs="+", default=[4, 0])
    parser.add_argument("--load", type=int, default=2)
    parser.add_argument("--burst-ms", type=float, default=15.0)
    parser.add_argument("--kind", choices=("python", "native"), default="python",
                        help="the pool thread's bursts: Python holding the GIL, or C work without it")
    args = parser.parse_args(argv)
    sys.setswitchinterval(0.0005)
    load = [subprocess.Popen([sys.executable, "-c", LOAD]) for _ in range(args.load)]
    runs = []
    try:
        time.sleep(1.0)
        for n in range(args.rounds):
            for nice in args.nice:
                run = one_run(args.seconds, nice, args.burst_ms, args.kind)
                runs.append(run)
                print(f"round {n + 1}, pool thread at nice {nice}: longest {run['longest_ms']} ms, "
                      f"p99.9 {run['p999_ms']} ms, over 20/30/50 ms: {run['over_20']}/{run['over_30']}/{run['over_50']}",
                      flush=True)
    finally:
        for process in load:
            process.kill()
    print(json.dumps({"load": args.load, "burst_ms": args.burst_ms, "kind": args.kind, "runs": runs}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
