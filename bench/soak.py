"""The long soak (issue 40): the real window, used for hours, must never crash and never go stale.

    python bench/soak.py [--actions 10000] [--count 20000] [--seed 40] [--dir /tmp/memhtml-soak]
                         [--commit-every 3] [--sample-every 100] [--probe-every 100] [--out soak.json]
    python bench/soak.py --store DIR [--index FILE] ...   (an existing store instead of a generated one)

A generated store of `--count` memories (gen_store, a git repository; indexed once and kept in `--dir`)
is opened in the real MainWindow (offscreen, 1024x700, its engine process and live watcher, as a
person runs it), in a child process of this one (the DRIVER), so an abort of the window — the
`bool_dealloc` of issue 40 — is seen and said here instead of ending the benchmark silently.

The driver makes `--actions` user actions, drawn at random (seeded) with these weights:

* 30 % a search: a query (words of the store's file names) typed into the field and Enter;
* 30 % an open: a click on a row of the listed answer (a read: the engine bumps its salience);
* 8 % a facet toggle: a click on a type or tag row of the filters tree (ticked; a later one unticks);
* 8 % Helpful / Not helpful: a click on the reader's button for the memory shown;
* 8 % the recall tab: a click on Recall, the pack waited for, a click on Search;
* 16 % scrolling: wheel turns over the results list or the reader's article.

Each action waits for its answer (the list, the memory, the pack). Meanwhile a SECOND WRITER (another
process, another git identity: a plain `git add` + `git commit`) writes a new memory or changes one
every `--commit-every` seconds, each with a word of its own. Every `--probe-every` actions the driver
types the word of the second writer's latest commit and waits for that file in the list: the time
from the commit to the list showing it is the staleness ("never stale": every probe within
FRESH_LIMIT_S).

Every `--sample-every` actions the driver samples the window process and the engine process: RSS,
open fds, OS threads, the engine's child processes, `sys.getrefcount` of True, False and None
in the window (on CPython < 3.12 they can run out: issue 40's abort), the event-loop gaps since the
last sample (a 5 ms timer on the GUI thread: the longest, the 99th percentile, the count over 50 ms).

THE RULE (`judge`). The run fails, with a line saying why, when:
* the driver did not finish (it crashed or aborted: its exit, e.g. SIGABRT), the engine was replaced
  (it died and the window started another), or a wait for an answer ran out (WAIT_S, 300 s: a hang;
  an answer slower than SLOW_S, 10 s, is counted and said, not failed: a loaded machine makes them);
* a metric grows without bound: over the LAST HALF of the actions, the Theil-Sen line through its
  samples (the median of pairwise slopes: a few samples caught mid-work do not tilt it) rises faster than its slope limit (LIMITS, per 1,000 actions) AND rises over that half by
  more than its noise floor (a slope alone would fail a flat series with one noisy sample);
* RSS (window or engine) grew 10 % or more from action 1,000 to the end (issue 40's own figure; runs of
  2,000 actions and more), each end the median of the three samples nearest it. Memory (RSS, the collector's objects) is judged only when the last half
  starts after WARM_UP actions: caches fill over the first hundreds (the window's RSS rises 70 MB in
  the first 100 actions at 20,000 memories), so a short run says its memory but does not judge it;
* a singleton's reference count FALLS without bound (it would reach zero: the abort of issue 40); one
  that rises is said as a finding (a reference leaked by a binding holds no memory and cannot abort;
  gc_objects says whether objects pile up);
* a freshness probe found the second writer's file later than FRESH_LIMIT_S, or not at all.

Ends with a table per 1,000 actions and a JSON line (every sample in `--out`); exit 0 when the rule
held, 1 when it did not (with a `SOAK FAILED:` line per reason), 2 on a usage error.
`--inject` (for tests/hardening/test_soak.py: the rule must be able to fail) makes the driver leak on
purpose: `true-leak` drops 200 references to True per action (PySide6 6.12.0 dropped five per open;
magnified so a short run shows it above its own warm-up; the window's guard keeps the count far from zero), `fd-leak` keeps a file open per action, `abort` calls abort()
half-way.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

PAGE = os.sysconf("SC_PAGE_SIZE")
GUARD = 1 << 40
SLOW_S = 10.0  # an answer that takes longer is slow: counted and said
WAIT_S = 300.0  # an answer that takes longer is a hang: the run fails
FRESH_LIMIT_S = 10.0  # a commit of the second writer must be searchable within this
FRESH_WAIT_S = 60.0  # a probe looks this long before it says "not found"
# metric: (slope limit per 1,000 actions over the last half, noise floor of the rise over that half, relative?)
# A relative limit is a fraction of the metric's mean over the last half (RSS: 1 % per 1,000 actions).
LIMITS: dict[str, tuple[float, float, bool]] = {
    "window_rss_mb": (0.01, 8.0, True),
    "engine_rss_mb": (0.01, 8.0, True),
    "window_fds": (0.5, 4, False),
    "engine_fds": (0.5, 8, False),
    "window_threads": (0.5, 3, False),
    "engine_threads": (0.5, 3, False),
    "engine_children": (0.5, 3, False),
    "gc_objects": (0.01, 5_000, True),
    "ref_true": (100.0, 2_000, False),
    "ref_false": (100.0, 2_000, False),
    "ref_none": (100.0, 2_000, False),
    "gap_p99_ms": (5.0, 50.0, False),
}
RSS_GROWTH_AFTER_1000 = 0.10
WARM_UP = 1_000  # memory (RSS, gc objects) and the gaps are judged over a last half that starts after this many actions
MEMORY = ("window_rss_mb", "engine_rss_mb", "gc_objects", "gap_p99_ms")
WEIGHTS = (("search", 30), ("open", 30), ("facet", 8), ("judge", 8), ("recall", 8), ("scroll", 16))


# -- measuring (/proc) ---------------------------------------------------------------------------


def rss_mb(pid: int | str = "self") -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 1_048_576


def refs(singleton: object) -> int:
    """`sys.getrefcount`, less the 2**40 the window's guard added on CPython < 3.12 (ui/kit/pyside_fixes.py;
    below zero: references lost beyond the guard's gift, an abort without it)."""
    from memhtml_desktop.ui.kit.pyside_fixes import guard_singleton_refcounts

    return sys.getrefcount(singleton) - (GUARD if getattr(guard_singleton_refcounts, "done", False) else 0)


def heap_mb() -> dict:
    """glibc's own view of this process's heap (`memhtml_desktop.memory.glibc_heap`), under the soak's
    names: what is in use, what it holds free, what is mapped apart. Empty without `mallinfo2`."""
    from memhtml_desktop.memory import glibc_heap

    heap = glibc_heap()
    if not heap:
        return {}
    return {
        "heap_used_mb": round(heap["heap_in_use_mb"], 1),
        "heap_free_mb": round(heap["heap_free_mb"], 1),
        "heap_mapped_mb": round(heap["mapped_mb"], 1),
    }


def count_dir(path: str) -> int:
    return len(os.listdir(path))


def children(pid: int) -> int:
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            total += len(Path(f"/proc/{pid}/task/{task}/children").read_text().split())
        except OSError:
            pass
    return total


def process_row(prefix: str, pid: int | str) -> dict:
    try:
        return {
            f"{prefix}_rss_mb": round(rss_mb(pid), 1),
            f"{prefix}_fds": count_dir(f"/proc/{pid}/fd"),
            f"{prefix}_threads": count_dir(f"/proc/{pid}/task"),
        }
    except OSError:
        return {f"{prefix}_rss_mb": None, f"{prefix}_fds": None, f"{prefix}_threads": None}


# -- the rule ------------------------------------------------------------------------------------


def fit(points: list[tuple[float, float]]) -> float:
    """The Theil-Sen slope of y over x: the median of the slopes between every two points (0 for fewer
    than two distinct x). A least-squares line let one sample taken mid-search at the end of a run (the
    engine's RSS swings by 100 MB with its work) tilt the whole half; the median of pairwise slopes
    does not move for a few such samples and still follows a series that keeps rising."""
    slopes = sorted(
        (y2 - y1) / (x2 - x1) for i, (x1, y1) in enumerate(points) for x2, y2 in points[i + 1 :] if x2 != x1
    )
    if not slopes:
        return 0.0
    middle = len(slopes) // 2
    return slopes[middle] if len(slopes) % 2 else (slopes[middle - 1] + slopes[middle]) / 2


def trend(samples: list[dict], name: str, actions: int) -> dict | None:
    """A metric's start, end, peak and its last half's slope per 1,000 actions and rise over that half."""
    rows = [(s["action"], s[name]) for s in samples if s.get(name) is not None]
    if not rows:
        return None
    half = [(a, v) for a, v in rows if a >= actions / 2]
    slope = fit([(a / 1000, v) for a, v in half]) if len(half) >= 3 else 0.0
    span = (half[-1][0] - half[0][0]) / 1000 if len(half) >= 2 else 0.0
    mean = sum(v for _, v in half) / len(half) if half else 0.0
    return {
        "start": rows[0][1],
        "end": rows[-1][1],
        "peak": max(v for _, v in rows),
        "slope_per_1000": round(slope, 3),
        "rise_last_half": round(slope * span, 3),
        "mean_last_half": round(mean, 3),
    }


def level(samples: list[dict], name: str, at: int | None, around: int = 3) -> float | None:
    """The median of `name` over the `around` samples nearest action `at` (None: the last `around`)."""
    rows = [s for s in samples if s.get(name) is not None]
    if at is None:
        near = rows[-around:]
    else:
        near = sorted(rows, key=lambda s: (abs(s["action"] - at), s["action"]))[:around]
    values = sorted(s[name] for s in near)
    return values[len(values) // 2] if values else None


def judge(samples: list[dict], probes: list[dict], actions: int, finished: dict | None, exit_text: str) -> dict:
    """The verdict of a run: the trends of every metric and the reasons it failed (empty: it held)."""
    reasons: list[str] = []
    findings: list[str] = []
    if finished is None:
        reasons.append(f"the window's process did not finish: {exit_text}")
    else:
        if finished.get("stopped_by_time"):  # a time box: the rule over the actions made
            actions = finished.get("done", 0)
        elif finished.get("done", 0) < actions:
            reasons.append(f"only {finished.get('done', 0):,} of {actions:,} actions were made")
        if finished.get("timeouts"):
            reasons.append(f"{finished['timeouts']} waits for an answer ran out ({WAIT_S:g} s each): a hang")
        if finished.get("slow"):
            findings.append(
                f"{finished['slow']} answers took over {SLOW_S:g} s (the slowest {finished['slowest_s']} s)"
            )
        if finished.get("error"):
            reasons.append(f"the driver failed: {finished['error']}")
        if finished.get("read_errors"):
            reasons.append(f"{finished['read_errors']} opens ended on the reader's error page instead of the memory")
    engines = sorted({s["engine_pid"] for s in samples if s.get("engine_pid")})
    if len(engines) > 1:
        reasons.append(f"the engine was replaced during the run (pids {engines}): it died")
    trends = {}
    for name, (limit, floor, relative) in LIMITS.items():
        t = trend(samples, name, actions)
        if t is None:
            continue
        allowed = limit * t["mean_last_half"] if relative else limit
        t["limit_per_1000"] = round(allowed, 3)
        t["grows"] = t["slope_per_1000"] > allowed and t["rise_last_half"] > floor
        if name in MEMORY and actions / 2 < WARM_UP:  # caches still filling, the machine's noise: said, not judged
            t["judged"] = t["grows"] = False
        t["falls"] = t["slope_per_1000"] < -allowed and t["rise_last_half"] < -floor
        trends[name] = t
        if name.startswith("ref_"):
            # A singleton's count that FALLS runs out: the interpreter aborts (issue 40). One that
            # rises is a reference leaked by a binding: it holds no memory (gc_objects says whether
            # objects pile up) and cannot abort, so it is said, not failed.
            if t["falls"]:
                reasons.append(
                    f"{name} falls without bound: {t['slope_per_1000']:+g} per 1,000 actions over the "
                    f"last half (limit -{allowed:g}), {t['rise_last_half']:+g} over it (floor {floor:g}); "
                    f"{t['start']} at the start, {t['end']} at the end: it would reach zero and abort"
                )
            elif t["grows"]:
                findings.append(
                    f"{name} rises {t['slope_per_1000']:+g} per 1,000 actions (references leaked, "
                    f"no objects kept: see gc_objects)"
                )
        elif t["grows"]:
            reasons.append(
                f"{name} grows without bound: {t['slope_per_1000']:+g} per 1,000 actions over the last "
                f"half (limit {allowed:g}), {t['rise_last_half']:+g} over it (floor {floor:g}); "
                f"{t['start']} at the start, {t['end']} at the end"
            )
    if actions >= 2_000:
        for name in ("window_rss_mb", "engine_rss_mb"):
            # The level at action 1,000 and at the end, each the median of the samples around it: one
            # sample of the engine catches it in a search or a reindex or between them (its RSS swings
            # 270-370 MB at 20,000 memories with the second writer committing), so point against point
            # measures the swing. Both are kept; the median's growth is the rule.
            base, end = level(samples, name, 1_000), level(samples, name, None)
            first = next((s[name] for s in samples if s["action"] >= 1_000 and s.get(name)), None)
            last = samples[-1].get(name) if samples else None
            if base and end:
                growth = end / base - 1
                trends[name]["growth_after_1000"] = round(growth, 4)
                if first and last:
                    trends[name]["growth_after_1000_points"] = round(last / first - 1, 4)
                if growth >= RSS_GROWTH_AFTER_1000:
                    reasons.append(
                        f"{name} grew {growth:.1%} from action 1,000 to the end (medians of the samples "
                        f"around each: {base} -> {end} MB; the limit is {RSS_GROWTH_AFTER_1000:.0%})"
                    )
    late = [p for p in probes if p.get("latency_s") is None or p["latency_s"] > FRESH_LIMIT_S]
    if late:
        worst = late[0]
        reasons.append(
            f"{len(late)} of {len(probes)} freshness probes were stale: {worst['path']} "
            + (
                f"was searchable {worst['latency_s']} s after its commit"
                if worst.get("latency_s") is not None
                else f"was not found {FRESH_WAIT_S:g} s after its commit"
            )
            + f" (limit {FRESH_LIMIT_S:g} s)"
        )
    found = sorted(p["latency_s"] for p in probes if p.get("latency_s") is not None)
    fresh = {
        "probes": len(probes),
        "found": len(found),
        "median_s": found[len(found) // 2] if found else None,
        "max_s": found[-1] if found else None,
    }
    return {"held": not reasons, "reasons": reasons, "findings": findings, "trends": trends, "freshness": fresh}


def table(samples: list[dict], every: int = 1_000) -> str:
    names = [
        "window_rss_mb",
        "engine_rss_mb",
        "gc_objects",
        "window_fds",
        "engine_fds",
        "window_threads",
        "engine_threads",
        "widgets",
        "qobjects",
        "heap_used_mb",
        "heap_free_mb",
        "ref_true",
        "ref_false",
        "ref_none",
        "gap_max_ms",
        "gap_p99_ms",
    ]
    heads = [
        "action",
        "win MB",
        "eng MB",
        "gc objs",
        "win fd",
        "eng fd",
        "win thr",
        "eng thr",
        "widgets",
        "qobjects",
        "heap use",
        "heap free",
        "True",
        "False",
        "None",
        "gap max",
        "gap p99",
    ]
    rows = [s for s in samples if s["action"] % every == 0 or s is samples[-1]]
    lines = ["  ".join(f"{h:>9}" for h in heads)]
    for s in rows:
        lines.append(
            "  ".join(f"{s['action']:>9}" if n == "action" else f"{s.get(n)!s:>9}" for n in ["action", *names])
        )
    return "\n".join(lines)


# -- the second writer ---------------------------------------------------------------------------


def letters(n: int) -> str:
    out = ""
    while True:
        n, r = divmod(n, 26)
        out = "abcdefghijklmnopqrstuvwxyz"[r] + out
        if not n:
            return out


def committer(store: Path, every: float, seed: int) -> int:
    """`--committer STORE`: another writer (its own git identity) commits a new or changed memory
    every `every` seconds until stdin closes; says `round path word time status` per commit."""
    import select

    from memhtml_desktop.devtools.store_render import minimal_memory

    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="Soak Agent",
        GIT_AUTHOR_EMAIL="agent@soak.invalid",
        GIT_COMMITTER_NAME="Soak Agent",
        GIT_COMMITTER_EMAIL="agent@soak.invalid",
    )
    rng = random.Random(seed)
    run = time.strftime("%Y%m%dT%H%M%S")  # a rerun over the same store writes other files
    tag = letters(int(time.time()) % 26**4)
    made: list[str] = []
    n = 0
    while True:
        ready, _, _ = select.select([sys.stdin], [], [], every)
        if ready and not sys.stdin.readline():
            return 0
        n += 1
        word = f"soakword{tag}q{letters(n)}"  # one token: letters only
        if made and n % 2 == 0:  # a changed claim
            path = rng.choice(made)
            text = minimal_memory(f"Soak note {Path(path).stem}", f"The soak agent revised it in round {n}: {word}.")
        else:  # a new memory
            path = f"areas/soak/{run}/{n // 200:03d}/note-{n:06d}.html"
            made.append(path)
            text = minimal_memory(f"Soak note {n:06d}", f"The soak agent wrote note {n:06d} about {word}.")
        target = store / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        added = subprocess.run(["git", "-C", str(store), "add", "--", path], env=env, capture_output=True, text=True)
        done = subprocess.run(
            [
                "git",
                "-C",
                str(store),
                "-c",
                "commit.gpgsign=false",
                "commit",
                "-q",
                "-m",
                f"soak: round {n}",
                "--",
                path,
            ],
            env=env,
            capture_output=True,
            text=True,
        )
        ok = not (added.returncode or done.returncode)
        print(
            json.dumps(
                {
                    "round": n,
                    "path": path,
                    "word": word,
                    "at": time.time(),
                    "committed": ok,
                    "error": "" if ok else (done.stderr or added.stderr).strip()[:200],
                }
            ),
            flush=True,
        )


# -- the store -----------------------------------------------------------------------------------


def prepare(work: Path, count: int, seed: int) -> tuple[Path, Path]:
    """A generated store of `count` memories (a git repository) and its index, made once in `work`."""
    from memhtml_desktop.devtools.gen_store import generate_store, git_commit

    store, index = work / f"store-{count}-{seed}", work / f"index-{count}-{seed}.db"
    if not (store / ".git").exists():
        started = time.perf_counter()
        generate_store(store, count, seed, force=True)
        git_commit(store)
        print(f"generated {count:,} memories (a git repository) in {time.perf_counter() - started:.1f} s", flush=True)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _timing import index_once

    index_once(store, index)
    return store, index


def queries_of(store: Path, rng: random.Random, n: int = 400) -> list[str]:
    """Two or three words of the store's file names: questions the store can answer."""
    names = []
    for _, _, files in os.walk(store / "areas"):
        names.extend(f[:-5] for f in files if f.endswith(".html"))
        if len(names) > 5_000:
            break
    out = []
    for _ in range(n):
        words = [w for w in re.split(r"[-_]", rng.choice(names or ["deploy-rollback"])) if len(w) > 3]
        if words:
            at = rng.randrange(len(words))
            out.append(" ".join(words[at : at + rng.choice((2, 3))]))
    return out or ["deploy rollback"]


# -- the driver (the window's process) -----------------------------------------------------------


def drive(cfg: dict) -> int:  # noqa: C901, PLR0915 - one user's session, step by step
    import gc
    from collections import Counter

    from PySide6.QtCore import QObject, QPoint, QPointF, QSettings, Qt, QTimer
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QToolButton

    from memhtml_desktop.ops.jobs import MemoryJob
    from memhtml_desktop.settings import load_settings
    from memhtml_desktop.ui.app import ensure_app, settle_gc, store_spec
    from memhtml_desktop.ui.results.cached_delegate import CachedDelegate
    from memhtml_desktop.ui.results.row_pictures import RowPictures
    from memhtml_desktop.ui.shell.idle import pump_until as pump
    from memhtml_desktop.ui.shell.main_window import MainWindow

    def say(kind: str, **row) -> None:
        print(json.dumps({"type": kind, **row}), flush=True)

    store_dir, actions, rng = Path(cfg["store"]), cfg["actions"], random.Random(cfg["seed"])
    queries = queries_of(store_dir, rng)
    scratch = Path(cfg["scratch"])
    app = ensure_app()
    if cfg.get("pixmap_cache_kb") is not None:  # an experiment: Qt's own pixmap cache (styles, icons) smaller
        from PySide6.QtGui import QPixmapCache

        QPixmapCache.setCacheLimit(int(cfg["pixmap_cache_kb"]))
    settings = load_settings({"debounce_ms": 150, "index": cfg["index"], "embedder": "hash", "watch": True})
    qsettings = QSettings(str(scratch / "window.ini"), QSettings.Format.IniFormat)
    window = MainWindow(store_spec(store_dir, settings), settings, qsettings=qsettings, watch=True)
    window.resize(1024, 700)
    window.show()

    def pump_until(condition, timeout: float = WAIT_S) -> bool:
        return pump(condition, timeout)

    if not pump_until(lambda: window.results.model.result() is not None and not window.runner.is_busy(), 600):
        say("error", error="the window gave no first answer in 10 minutes")
        return 3
    if not pump_until(
        lambda: window.bridge.status().mode in ("live", "polling") and not window.bridge.status().busy, 600
    ):
        say("error", error=f"the watcher did not settle in 10 minutes ({window.bridge.status().mode})")
        return 3
    settle_gc()  # as ui/app.run_app does once the window is shown

    counts = {
        "done": 0,
        "timeouts": 0,
        "slow": 0,
        "slowest_s": 0.0,
        "facet_missed": 0,
        "answers": 0,
        "shown": 0,
        "read_errors": 0,
        "recall_shown": 0,
        "commits": 0,
        **{k: 0 for k, _ in WEIGHTS},
    }

    def bump(key: str) -> None:
        counts[key] += 1

    window.search_shown.connect(lambda *_: bump("answers"))
    window.memory_shown.connect(lambda *_: bump("shown"))
    window.recall_shown.connect(lambda *_: bump("recall_shown"))

    # the event loop's gaps: a 5 ms timer on the GUI thread
    gaps: list[float] = []
    last_tick = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append((now - last_tick[0]) * 1000)
        last_tick[0] = now

    beat = QTimer()
    beat.setInterval(5)
    beat.timeout.connect(tick)
    beat.start()

    writer = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--committer",
            str(store_dir),
            "--commit-every",
            str(cfg["commit_every"]),
            "--seed",
            str(cfg["seed"]),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    os.set_blocking(writer.stdout.fileno(), False)
    commits: list[dict] = []
    partial = [""]

    def read_commits() -> None:
        try:
            chunk = writer.stdout.read()
        except (BlockingIOError, TypeError):
            chunk = None
        if not chunk:
            return
        *lines, partial[0] = (partial[0] + chunk).split("\n")
        for line in lines:
            row = json.loads(line)
            if row["committed"]:
                commits.append(row)
                counts["commits"] += 1
            else:
                say("note", text=f"the second writer's commit failed: {row['error']}")

    table_view, tree, field = window.results.table, window.filters.tree, window.search_bar.field
    ticked: list[tuple[str, str]] = []
    leaked: list = []
    doing = ["start"]

    def wait(condition) -> bool:
        began = time.monotonic()
        answered = pump_until(condition)
        took = time.monotonic() - began
        counts["slowest_s"] = max(counts["slowest_s"], round(took, 2))
        if answered and took <= SLOW_S:
            return True
        counts["slow" if answered else "timeouts"] += 1
        say(
            "note",
            text=f"action {counts['done'] + 1} ({doing[0]}) "
            + (f"answered after {took:.1f} s" if answered else f"had no answer in {WAIT_S:g} s")
            + f"; the watcher {window.bridge.status().mode}, "
            f"the load average {os.getloadavg()[0]:.1f}" + engine_locks(),
        )
        return answered

    def engine_locks() -> str:
        """The file locks the engine holds now (`/proc/locks`), said beside a slow answer: a lock kept
        on state.db while nothing writes is what the run at aa3408c could not name."""
        pid = window.runner.client.pid if window.runner.client is not None else None
        if not pid:
            return ""
        names: dict[str, str] = {}
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    names[str(os.stat(f"/proc/{pid}/fd/{fd}").st_ino)] = os.readlink(f"/proc/{pid}/fd/{fd}")
            with open("/proc/locks", encoding="ascii", errors="replace") as handle:
                rows = [line.split() for line in handle if f" {pid} " in line]
        except OSError:
            return ""
        held = [f"{r[3]} {names.get(r[5].rsplit(':', 1)[-1], r[5])} {r[6]}-{r[7]}" for r in rows if len(r) >= 8]
        return f"; the engine's locks: {held}" if held else ""

    def settled_search(before: int):
        return lambda: counts["answers"] > before and not window.runner.is_busy("search")

    def type_query(text: str) -> None:
        field.setFocus()
        field.selectAll()
        QTest.keyClick(field, Qt.Key.Key_Backspace)
        QTest.keyClicks(field, text)
        before = counts["answers"]
        QTest.keyClick(field, Qt.Key.Key_Return)
        wait(settled_search(before))

    def search() -> None:
        current = field.text()
        text = (
            rng.choice([q for q in queries[:50] if q != current] or ["deploy rollback"])
            if rng.random() < 0.2
            else rng.choice([q for q in rng.sample(queries, 5) if q != current] or ["rollback"])
        )
        type_query(text)

    def open_row() -> None:
        rows = window.results.model.rowCount()
        if not rows:
            search()
            rows = window.results.model.rowCount()
            if not rows:
                return
        index = window.results.model.index(rng.randrange(min(rows, 25)), 0)
        table_view.scrollTo(index)
        before = counts["shown"]
        QTest.mouseClick(
            table_view.viewport(),
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
            table_view.visualRect(index).center(),
        )
        # The read's answer is the memory or, when the engine could not give it (an engine that
        # stopped, a file gone), the reader's error page: either is an answer, the error counted.
        wait(lambda: counts["shown"] > before or window.reader.state() == "error")
        if counts["shown"] == before and window.reader.state() == "error":
            counts["read_errors"] += 1

    def facet() -> None:
        model = window.filters.model
        if ticked:
            key = ticked.pop()
        else:
            keys = [k for k in list(getattr(model, "_rows", {})) if k[0] in ("type", "tag") and model.tickable(*k)]
            if not keys:
                return
            key = rng.choice(keys)
            ticked.append(key)
        item = model.item_for(*key)
        if item is None:
            if not ticked or ticked[-1] != key:
                return
            ticked.pop()
            return
        index = item.index()
        if index.parent().isValid():
            tree.expand(index.parent())
        tree.scrollTo(index)
        app.processEvents()  # the expanded group laid out before its row is aimed at
        rect = tree.visualRect(index)
        if not rect.isValid() or not tree.viewport().rect().contains(rect.center()):
            counts["facet_missed"] += 1
            return
        scope, before = window.session.ask().scope, counts["answers"]
        QTest.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
        app.processEvents()
        if window.session.ask().scope == scope:  # the click ticked nothing (a row that moved): no search
            counts["facet_missed"] += 1
            if ticked and ticked[-1] == key:
                ticked.pop()
            return
        wait(settled_search(before))

    def judge_memory() -> None:
        if window.reader.detail() is None:
            open_row()
            if window.reader.detail() is None:
                return
        window.show_view("reader")
        action = window.reader.helpful_action if rng.random() < 0.6 else window.reader.not_helpful_action
        button = next((b for b in window.reader.findChildren(QToolButton) if b.defaultAction() is action), None)
        before = counts["shown"]
        if button is not None and button.isVisible() and button.isEnabled():
            QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        else:
            action.trigger()
        wait(lambda: counts["shown"] > before)

    def recall() -> None:
        before = counts["recall_shown"]
        QTest.mouseClick(window.search_bar.recall_button, Qt.MouseButton.LeftButton)
        wait(lambda: counts["recall_shown"] > before and not window.runner.is_busy("recall"))
        answers = counts["answers"]
        QTest.mouseClick(window.search_bar.search_button, Qt.MouseButton.LeftButton)
        pump_until(lambda: counts["answers"] > answers and not window.runner.is_busy("search"), 5)

    def scroll() -> None:
        target = (
            window.reader.article.viewport()
            if rng.random() < 0.4 and window.reader.detail() is not None
            else table_view.viewport()
        )
        step = rng.choice((-360, -120, 120, 240, 360))
        centre = QPointF(target.rect().center())
        for _ in range(rng.randint(1, 4)):
            event = QWheelEvent(
                centre,
                QPointF(target.mapToGlobal(QPoint(int(centre.x()), int(centre.y())))),
                QPoint(0, 0),
                QPoint(0, step),
                Qt.MouseButton.NoButton,
                Qt.KeyboardModifier.NoModifier,
                Qt.ScrollPhase.NoScrollPhase,
                False,
            )
            QApplication.sendEvent(target, event)
            app.processEvents()

    def probe() -> None:
        """Type the second writer's latest word; wait for its file in the list."""
        read_commits()
        if not commits:
            return
        doing[0] = "probe"
        while ticked:  # a ticked facet would hide the file: the person clears it first
            facet()
        row = commits[-1]
        started = time.monotonic()
        found = None
        while time.monotonic() - started < FRESH_WAIT_S:
            if field.text() != row["word"]:
                type_query(row["word"])
            else:  # asked again (the window also searches again by itself after a batch)
                before = counts["answers"]
                window.driver.refresh()
                pump_until(settled_search(before), 10)
            result = window.results.model.result()
            if result is not None and any(h.path == row["path"] for h in result.hits):
                found = round(time.time() - row["at"], 2)
                break
            pump_until(lambda: False, 0.5)
        status = window.bridge.status()
        say(
            "probe",
            action=counts["done"],
            path=row["path"],
            round=row["round"],
            latency_s=found,
            watcher=f"{status.mode} busy={status.busy} queue={status.queue_depth} {status.reason}".strip(),
        )

    def sample() -> None:
        engine = window.runner.client.pid if window.runner.client is not None else None
        ordered = sorted(gaps)
        row = {
            "action": counts["done"],
            "s": round(time.perf_counter() - started, 1),
            **process_row("window", "self"),
            **heap_mb(),
            "ref_true": refs(True),
            "ref_false": refs(False),
            "ref_none": refs(None),
            "engine_pid": engine,
            **(process_row("engine", engine) if engine else {}),
            "engine_children": children(engine) if engine else None,
            "gap_max_ms": round(ordered[-1], 1) if ordered else None,
            "gap_p99_ms": round(ordered[int(len(ordered) * 0.99)], 1) if ordered else None,
            "gaps_over_50ms": sum(g > 50 for g in ordered),
            "counts": dict(counts),
        }
        objects = gc.get_objects()
        row["gc_objects"] = len(objects)
        # The window's bounded picture caches (rows and cells): growth they explain is a cache filling.
        row["pictures_mb"] = round(
            (
                sum(o.held_bytes() for o in objects if isinstance(o, RowPictures))
                + sum(d.held_bytes() for d in window.findChildren(CachedDelegate))
            )
            / 2**20,
            1,
        )
        widgets = QApplication.allWidgets()
        row["widgets"] = len(widgets)  # a widget made per action and never deleted shows here
        if cfg.get("census"):
            kinds = Counter(
                type(w).__name__ + ":" + (w.parent().objectName() or type(w.parent()).__name__ if w.parent() else "-")
                for w in widgets
            )
            if last_widgets:
                row["widgets_grown"] = sorted(
                    ((n - last_widgets.get(k, 0), k) for k, n in kinds.items() if n > last_widgets.get(k, 0)),
                    reverse=True,
                )[:8]
            last_widgets.clear()
            last_widgets.update(kinds)
        row["qobjects"] = len(window.findChildren(QObject))
        if cfg.get("census"):
            census = Counter(type(o).__qualname__ for o in gc.get_objects())
            if last_census:
                grown = sorted(((n - last_census.get(t, 0), t) for t, n in census.items()), reverse=True)[:10]
                row["census"] = [(t, d) for d, t in grown if d > 0]
            last_census.clear()
            last_census.update(census)
        if engine:
            # Where the engine's memory is (SQLite's heap, glibc's heap in use and free, objects):
            # asked of the engine itself, so an RSS that grows says which of them does.
            answer: list[dict] = []
            window.runner.run(MemoryJob().success(answer.append))
            if pump_until(lambda: bool(answer), 10.0):
                row.update({f"engine_{k}": v for k, v in answer[0].items()})
        gaps.clear()
        say("sample", **row)

    last_census: dict = {}
    last_widgets: dict = {}
    steps = {
        "search": search,
        "open": open_row,
        "facet": facet,
        "judge": judge_memory,
        "recall": recall,
        "scroll": scroll,
    }
    kinds, weights = zip(*WEIGHTS)
    started = time.perf_counter()
    gaps.clear()
    sample()
    error = ""
    try:
        for action in range(1, actions + 1):
            if cfg["deadline"] and time.time() > cfg["deadline"]:
                counts["stopped_by_time"] = True
                say("note", text=f"the time box ran out after {action - 1:,} actions")
                break
            kind = doing[0] = cfg["only"] or rng.choices(kinds, weights)[0]
            steps[kind]()
            counts[kind] += 1
            counts["done"] = action
            read_commits()
            if cfg["inject"] == "true-leak" and sys.version_info < (3, 12):
                import ctypes  # what PySide6 6.12.0 did (five references to True lost per open), magnified

                ctypes.c_ssize_t.from_address(id(True)).value -= 200
            if cfg["inject"] == "fd-leak":
                leaked.append(open(os.devnull, "rb"))  # noqa: SIM115 - the leak is the point
            if cfg["inject"] == "abort" and action == actions // 2:
                os.abort()
            if action % cfg["probe_every"] == 0:
                probe()
            if action % cfg["sample_every"] == 0 or action == actions:
                sample()
        if counts.get("stopped_by_time") and counts["done"] % cfg["sample_every"]:
            sample()  # the last actions of a time box
    except Exception as exc:  # noqa: BLE001 - the driver's own failure is a finding, said with the figures
        import traceback

        error = f"{type(exc).__name__}: {exc}"
        traceback.print_exc()
    finally:
        beat.stop()
        writer.stdin.close()
        try:
            writer.wait(30)
        except subprocess.TimeoutExpired:
            writer.kill()
        read_commits()
        window.shutdown()
    say("finished", **counts, error=error, seconds=round(time.perf_counter() - started, 1))
    return 0


# -- the parent ----------------------------------------------------------------------------------


def exit_text(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}" + (" (an abort)" if -code == signal.SIGABRT else "")
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--actions", type=int, default=10_000)
    ap.add_argument("--count", type=int, default=20_000, help="memories of the generated store")
    ap.add_argument("--seed", type=int, default=40)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/memhtml-soak"), help="where the generated store is kept")
    ap.add_argument("--store", type=Path, default=None, help="an existing store (a git repository) instead")
    ap.add_argument("--index", type=Path, default=None, help="its index file (default: beside the scratch files)")
    ap.add_argument("--commit-every", type=float, default=3.0, help="seconds between the second writer's commits")
    ap.add_argument("--sample-every", type=int, default=100)
    ap.add_argument("--probe-every", type=int, default=100, help="actions between two freshness probes")
    ap.add_argument("--out", type=Path, default=None, help="write every sample, probe and the verdict here (JSON)")
    ap.add_argument(
        "--inject",
        choices=("none", "true-leak", "fd-leak", "abort"),
        default="none",
        help="leak or abort on purpose (the rule's own test)",
    )
    ap.add_argument(
        "--only",
        choices=[k for k, _ in WEIGHTS],
        default=None,
        help="one kind of action only (to find which one a growth comes from)",
    )
    ap.add_argument(
        "--minutes",
        type=float,
        default=0,
        help="a time box: stop after this many minutes and judge the actions made (0: none)",
    )
    ap.add_argument("--pixmap-cache-kb", type=int, default=None, help="set Qt's QPixmapCache limit (an experiment)")
    ap.add_argument("--census", action="store_true", help="say which object types grew at each sample (slow)")
    ap.add_argument("--committer", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--drive", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--judge", type=Path, default=None, help="judge a run saved with --out again (the rule here)")
    args = ap.parse_args()
    if args.judge is not None:
        saved = json.loads(args.judge.read_text(encoding="utf-8"))
        counts = saved.get("counts")
        verdict = judge(saved["samples"], saved["probes"], saved["actions"], counts, "not saved")
        print(table(saved["samples"]))
        print(json.dumps(verdict))
        for reason in verdict["reasons"]:
            print(f"SOAK FAILED: {reason}")
        return 0 if verdict["held"] else 1
    if args.committer is not None:
        return committer(args.committer, args.commit_every, args.seed)
    if args.drive is not None:
        return drive(json.loads(args.drive))
    if args.actions < 10 or args.sample_every < 1 or args.probe_every < 1:
        print("soak: --actions must be at least 10, --sample-every and --probe-every at least 1", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="memhtml-soak-"))
    if args.store is not None:
        if not (args.store / ".git").exists():
            print(f"soak: {args.store} is not a git repository (the second writer commits to it)", file=sys.stderr)
            return 2
        store, index = args.store, args.index or scratch / "index.db"
    else:
        args.dir.mkdir(parents=True, exist_ok=True)
        store, index = prepare(args.dir, args.count, args.seed)
    cfg = {
        "store": str(store),
        "index": str(index),
        "actions": args.actions,
        "seed": args.seed,
        "commit_every": args.commit_every,
        "sample_every": args.sample_every,
        "probe_every": args.probe_every,
        "inject": args.inject,
        "scratch": str(scratch),
        "only": args.only,
        "census": args.census,
        "pixmap_cache_kb": args.pixmap_cache_kb,
        "deadline": time.time() + args.minutes * 60 if args.minutes else 0,
    }
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", MEMHTML_DESKTOP_SETTINGS=str(scratch / "settings.ini"))
    load = [round(x, 2) for x in os.getloadavg()]
    started = time.perf_counter()
    driver = subprocess.Popen(
        [sys.executable, __file__, "--drive", json.dumps(cfg)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env=env,
    )
    samples: list[dict] = []
    probes: list[dict] = []
    notes: list[str] = []
    finished = None
    for line in driver.stdout:
        try:
            row = json.loads(line)
        except ValueError:
            if "propagateSizeHints" not in line:  # the offscreen platform's warning at each popup
                print(line, end="", flush=True)
            continue
        kind = row.pop("type", "")
        if kind == "sample":
            samples.append(row)
            if row.get("census"):
                print("  grew:", row["census"], flush=True)
            if row.get("widgets_grown"):
                print("  widgets grew:", row["widgets_grown"], flush=True)
            print(
                f"[{row['action']:>6} actions, {row['s']:>7} s] window {row['window_rss_mb']} MB "
                f"(heap {row.get('heap_used_mb')}, pictures {row.get('pictures_mb')}) "
                f"{row['window_fds']} fds {row['window_threads']} threads | engine {row.get('engine_rss_mb')} MB "
                f"(sqlite {row.get('engine_sqlite_mb')}, heap {row.get('engine_heap_in_use_mb')} + free "
                f"{row.get('engine_heap_free_mb')}, {row.get('engine_objects')} objects) "
                f"{row.get('engine_fds')} fds {row.get('engine_threads')} threads | refs True {row['ref_true']} "
                f"False {row['ref_false']} None {row['ref_none']} | gaps max {row['gap_max_ms']} "
                f"p99 {row['gap_p99_ms']} ms",
                flush=True,
            )
        elif kind == "probe":
            probes.append(row)
        elif kind == "finished":
            finished = row
        elif kind in ("note", "error"):
            notes.append(row.get("text") or row.get("error"))
            print(f"note: {notes[-1]}", flush=True)
            if kind == "error":
                finished = {"done": 0, "error": row["error"]}
    code = driver.wait()
    verdict = judge(samples, probes, args.actions, finished, exit_text(code))
    if finished and finished.get("stopped_by_time"):
        verdict["findings"].insert(
            0,
            f"time box of {args.minutes:g} minutes: {finished['done']:,} of "
            f"{args.actions:,} actions made; the rule judged those",
        )
    if code and finished is not None and not verdict["reasons"]:
        verdict["reasons"].append(f"the window's process ended with {exit_text(code)}")
        verdict["held"] = False
    result = {
        "actions": args.actions,
        "store": str(store),
        "seconds": round(time.perf_counter() - started, 1),
        "rate_per_s": round(finished["done"] / finished["seconds"], 2)
        if finished and finished.get("seconds")
        else None,
        "load_before": load,
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "counts": finished,
        "verdict": verdict,
        "notes": notes,
    }
    if args.out is not None:
        args.out.write_text(json.dumps({**result, "samples": samples, "probes": probes}, indent=1), encoding="utf-8")
    if samples:
        print(table(samples))
    print(json.dumps(result))
    for finding in verdict["findings"]:
        print(f"soak noted: {finding}", flush=True)
    for reason in verdict["reasons"]:
        print(f"SOAK FAILED: {reason}", flush=True)
    if verdict["held"]:
        print(f"soak held: {args.actions:,} actions, nothing grew without bound, every probe fresh", flush=True)
    return 0 if verdict["held"] else 1


if __name__ == "__main__":
    sys.exit(main())
