"""Concurrent writers (item 5): memhtml's stand-in bumps state.access while the app reads, searches and indexes.

Used by tests/hardening/test_concurrent_writers.py (6 s) and bench/reliability_bench.py (20 s, twice).
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import logging
import os
import random
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from hardening_support import PYTHON, child_env, read_state


class SteppingClock:
    """2027-01-01 plus 1,000 s per call (thread-safe): every app bump is past the 900 s cooldown."""

    def __init__(self) -> None:
        self._count = itertools.count()
        self._lock = threading.Lock()

    def __call__(self) -> dt.datetime:
        with self._lock:
            step = next(self._count)
        return dt.datetime(2027, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=1000 * step)


BUMPER = Path(__file__).with_name("state_bumper.py")


def concurrent_scenario(
    workdir: Path, *, pause_s: float, seconds: float = 6.0, files: int = 1000, min_rounds: int = 40, seed: int = 3
) -> dict[str, Any]:
    """memhtml's stand-in bumps in another process while this one reads, searches, reinforces and indexes.

    Returns figures and every discrepancy found (`errors`, `uncounted`, `mismatches`, ...); the test
    asserts they are empty and the bench reports them.
    """
    from memhtml_desktop.devtools.gen_store import generate_store
    from memhtml_desktop.index.store import Store

    records: list[str] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    capture = Capture(logging.INFO)
    logger = logging.getLogger("memhtml_desktop")
    old_level = logger.level
    logger.addHandler(capture)
    logger.setLevel(logging.INFO)
    root = workdir / "store"
    generate_store(root, files, 17)
    store = Store(root, index_path=workdir / "index.db", clock=SteppingClock())
    store.index()
    conn = store.reader()
    live = sorted(p for (p,) in conn.execute("SELECT path FROM files WHERE archived = 0 AND memory_type <> 'task'"))
    rng = random.Random(seed)
    rng.shuffle(live)
    shared, ours_only, theirs_only, movers = live[:8], live[8:11], live[11:14], live[14:64]
    store.reinforce(movers, "neutral")  # rows the index run will have to move while both sides write
    _, seeded = read_state(store.state_path)
    mover_rows = {p: seeded[p] for p in movers}

    child = subprocess.Popen(
        [PYTHON, str(BUMPER), str(store.state_path), str(seconds), str(pause_s), *shared, *theirs_only],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    assert child.stdout.readline().strip() == "ready"
    index_errors: list[str] = []
    moved: dict[str, str] = {}
    index_reports: list[dict] = []

    def index_runs() -> None:
        try:
            index_reports.append(store.index(rebuild=True).to_json())
            for src in movers:
                dst = src.replace("/", "/moved-during-bumps/", 1)
                (root / dst).parent.mkdir(parents=True, exist_ok=True)
                os.replace(root / src, root / dst)
                moved[src] = dst
            report = store.index()
            index_reports.append(report.to_json())
            if report.moved != len(movers):
                index_errors.append(f"moved {report.moved} of {len(movers)}")
        except BaseException as exc:  # noqa: BLE001 - reported by the caller
            index_errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            store.close_thread_connection()

    child.stdin.write("go\n")
    child.stdin.flush()
    indexer = threading.Thread(target=index_runs)
    indexer.start()
    reads = {p: 0 for p in shared + ours_only}
    signals = {p: 0 for p in shared + ours_only}
    uncounted: list[str] = []
    errors: list[str] = []
    read_ms: list[float] = []
    overlap = {"bumper": 0, "indexer": 0}
    rounds = unindexed_reads = 0
    while child.poll() is None or indexer.is_alive() or rounds < min_rounds:
        path = rng.choice(shared + ours_only)
        overlap["bumper"] += child.poll() is None
        overlap["indexer"] += indexer.is_alive()
        try:
            started = time.perf_counter()
            detail = store.read(path)
            read_ms.append((time.perf_counter() - started) * 1000)
            if not detail.indexed:
                # Mid-rebuild the file is not in the index yet; its read is still counted (a valid
                # memory counts when read, indexed or not: index/reader.py), tallied apart here.
                unindexed_reads += 1
            elif detail.bump is None or path not in detail.bump.bumped:
                uncounted.append(path)
            else:
                reads[path] += 1
            store.search(rng.choice(["deploy rollback", "drain the vip", "oncall", '"runbook" tier']))
            if rounds % 5 == 0:
                result = store.reinforce([path], "positive")
                reads[path] += path in result.bumped
                signals[path] += path in result.signal_applied
        except Exception as exc:  # noqa: BLE001 - every one is a failure
            errors.append(f"{type(exc).__name__}: {exc}")
        rounds += 1
        if rounds > 50_000:
            break
    indexer.join(timeout=300)
    out, _ = child.communicate(timeout=120)
    theirs = json.loads(out.strip().splitlines()[-1])
    logger.removeHandler(capture)
    logger.setLevel(old_level)

    check, rows = read_state(store.state_path)
    mismatches = []
    for path in shared + ours_only + theirs_only:
        want = (
            reads.get(path, 0) + theirs["bumped"].get(path, 0),
            signals.get(path, 0) + theirs["positives"].get(path, 0),
        )
        got = rows[path][:2] if path in rows else None
        if got != want:
            mismatches.append(f"{path}: rows {got}, both sides say {want}")
    for src, dst in moved.items():
        if src in rows or rows.get(dst) != mover_rows[src]:
            mismatches.append(f"moved row {src} -> {dst}: {rows.get(src)} / {rows.get(dst)}")
    store.close_thread_connection()
    logged = "\n".join(records).lower()
    return {
        "pause_s": pause_s,
        "app_rounds": rounds,
        "app_bumps": sum(reads.values()),
        "app_signals": sum(signals.values()),
        "reads_missing_mid_rebuild": unindexed_reads,
        "read_ms_max": round(max(read_ms), 1) if read_ms else None,
        "read_ms_median": round(sorted(read_ms)[len(read_ms) // 2], 2) if read_ms else None,
        "standin_rounds": theirs["rounds"],
        "standin_bumps": sum(theirs["bumped"].values()),
        "standin_busy": theirs["busy"],
        "overlap": overlap,
        "state_integrity": check,
        "errors": errors[:10],
        "index_errors": index_errors,
        "uncounted_reads": len(uncounted),
        "mismatches": mismatches,
        "logged_locked": "database is locked" in logged,
        "logged_not_counted": "not counted" in logged,
    }
