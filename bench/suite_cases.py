"""The suite's cases (run by bench/suite.py). Each measures what a person waits for and, in the
same run, interleaved, its floor (bench/floors.py) or peer (Recoll, where installed).

Adding a case (the review inbox's are `review_listing`, `review_window`; the conflicts scan's `conflicts_scan`):

    def review_inbox(ctx: Context, *, count: int, rounds: int) -> dict:
        store, index = ctx.store(count), ctx.index(count)
        ...  # time ours and the floor in turns, `rounds` times
        return outcome(ours_ms, floor_ms, unit="ms", ours_text=..., other_text=..., met=...)

    CASES.append(Case("review_inbox", "open the review inbox at 20,000 memories", "p95 <= 100 ms",
                      review_inbox, sizes={"tiny": {"count": 300, "rounds": 1},
                                           "standard": {"count": 20000, "rounds": 5}}))

A case returns a dict with at least `headline` (one line), `ours_text` and `other_text` (the table's
two sides), `ratio` (ours / floor, or None) and `met` (the target, or None when it has none); any
other figures it wants kept. `outcome()` builds the usual one. Give it a `tiny` size if it can run in
a few seconds (the test suite runs every tiny case); a case that needs the window or git history
only at full size may have `standard` alone. A case wrapping an older script from bench/ runs it as
a process and reads its last JSON line (`script_json`).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import floors
from _timing import warm_and_time

HERE = Path(__file__).resolve().parent
QUERIES = HERE / "queries.txt"
TINY_QUERIES = (
    "drain the vip before reverting the deploy",
    "canary slice rollback",
    "ledger db vacuum",
    "token auth service signing key",
    "zzzq nothing",
)


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, int(round(q * (len(ordered) - 1)))))]


@dataclass
class Context:
    """What a case gets: the size, rounds asked for (None: the case's own), and the kept work folder."""

    size: str
    rounds: int | None
    work: Path
    commit: str

    def store(self, count: int, *, private: str | None = None) -> Path:
        """A generated store of `count` memories (gen_store seed 11, memhtml's seeded state plane: 60%
        of memories read), made once under the work folder; `private` gives a copy of its own (a case
        that changes files must not change the shared one)."""
        from memhtml_desktop.devtools.gen_store import generate_store

        root = self.work / f"store-{count}"
        marker = root / ".suite-made"
        if not marker.exists():
            if root.exists():
                shutil.rmtree(root)
            generate_store(root, count, 11, state=True)
            marker.write_text("gen_store seed 11 --state\n")
        seeded = root / ".suite-state"
        if not seeded.exists():
            # gen_store writes the plane as memhtml's sidecar (.memhtml/state/access.jsonl); the
            # command does not read that, so without this the suite's state.db was empty (and at
            # 100,000 memories the sidecar is over the 16 MB `import_sidecar` reads): its rows go in
            # through the same import, read here without the cap.
            from memhtml_desktop.index.store import Store

            Store(root, index_path=self.work / "state-import.db").import_state(
                (root / ".memhtml" / "state" / "access.jsonl").read_bytes()
            )
            seeded.write_text("access.jsonl imported into .memhtml/state.db\n")
        if private is None:
            return root
        copy = self.work / f"store-{count}-{private}"
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(root, copy, symlinks=True)
        return copy

    def index(self, count: int, root: Path | None = None, *, name: str = "") -> Path:
        """An index of the store built by the code under test (kept per commit), brought up to date."""
        from memhtml_desktop.index.store import Store

        path = self.work / f"index-{count}{name}-{self.commit}.db"
        store = Store(root or self.store(count), index_path=path)
        store.index()
        store.close_thread_connection()
        return path

    def floor_db(self, count: int) -> Path:
        path = self.work / f"floor-{count}.db"
        if not path.exists():
            floors.build_index(self.store(count), path)
        return path

    def recoll(self, count: int) -> tuple[Path | None, str | None]:
        """(Recoll's configuration folder with the store indexed, None) or (None, why it is not measured)."""
        why = floors.recoll_available()
        if why:
            return None, why
        conf = self.work / f"recoll-{count}"
        if not (conf / "xapiandb").exists():
            floors.recoll_config(self.store(count), conf)
            subprocess.run(["recollindex", "-c", str(conf)], capture_output=True, check=True)
        return conf, None


@dataclass
class Case:
    name: str
    what: str
    target: str
    run: Callable[..., dict]
    sizes: dict[str, dict] = field(default_factory=dict)


def outcome(
    ours: Sequence[float],
    other: Sequence[float] | None,
    *,
    unit: str,
    stat: str = "median",
    ours_text: str = "",
    other_text: str = "",
    met: bool | None = None,
    **extra,
) -> dict:
    """The usual result: both sides' samples summarised, their ratio on `stat` (median or p95)."""
    pick = statistics.median if stat == "median" else (lambda v: pct(v, 0.95))
    a = pick(ours)
    b = pick(other) if other else None
    ratio = round(a / b, 2) if b else None
    ours_text = ours_text or f"{stat} {a:.1f} {unit}"
    other_text = other_text or (f"{stat} {b:.1f} {unit}" if b is not None else "")
    headline = f"{ours_text} against {other_text}" + (f" ({ratio:.2f}×)" if ratio else "")
    return {
        "headline": headline,
        "ours_text": ours_text,
        "other_text": other_text,
        "ratio": ratio,
        "met": met,
        "unit": unit,
        "ours": [round(x, 3) for x in ours],
        "other": [round(x, 3) for x in (other or [])],
        **extra,
    }


def timed_process(cmd: Sequence[str], *, env: dict | None = None, cwd: Path | None = None) -> tuple[float, float, int]:
    """(wall ms, peak RSS MB, exit code) of one child process, from its start to its reaping."""
    wall, rss, code, _ = measured_process(cmd, env=env, cwd=cwd)
    return wall, rss, code


def measured_process(
    cmd: Sequence[str], *, env: dict | None = None, cwd: Path | None = None
) -> tuple[float, float, int, float]:
    """(wall ms, peak RSS MB, exit code, CPU ms: user + system) of one child process. On a shared
    machine the CPU time says what the process cost; the wall time says how long others kept it waiting."""
    started = time.perf_counter()
    proc = subprocess.Popen(list(cmd), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - started) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, proc.returncode, (usage.ru_utime + usage.ru_stime) * 1000


def installed_env(ctx: "Context") -> dict:
    """The environment a command is timed in: as an installed app runs, with its bytecode cached. A
    checkout run with PYTHONDONTWRITEBYTECODE (this machine's shells, CI) compiles every module of
    the app from source in every process, 0.1-0.2 s of a command's start; `pip install` compiles
    them once. The cache goes under the work folder (per commit), not into the tree."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(ctx.work / f"pycache-{ctx.commit}")
    return env


def interleaved(commands: dict[str, Sequence[str]], rounds: int, *, warmup: int = 1,
                env: dict | None = None) -> dict[str, dict[str, list]]:  # fmt: skip
    """Each command run `rounds` times in turn (A B A B ...), after `warmup` untimed runs each; through
    bench/interleave.py, a small process of its own, so a child's peak RSS is its own (see there)."""
    import tempfile

    spec = {
        "commands": {name: list(cmd) for name, cmd in commands.items()},
        "rounds": rounds,
        "warmup": warmup,
        "env": env,
    }
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(spec, handle)
    try:
        out = subprocess.run(
            [sys.executable, "-S", str(HERE / "interleave.py"), handle.name], capture_output=True, text=True, check=True
        )
    finally:
        os.unlink(handle.name)
    return json.loads(out.stdout.strip().splitlines()[-1])


def app() -> list[str]:
    """The command as a person runs it: the installed script beside this interpreter."""
    script = Path(sys.executable).with_name("memhtml-desktop")
    return [str(script)] if script.exists() else [sys.executable, "-m", "memhtml_desktop"]


def queries(ctx: Context) -> list[str]:
    if ctx.size == "tiny":
        return list(TINY_QUERIES)
    return [q.strip() for q in QUERIES.read_text(encoding="utf-8").splitlines() if q.strip()]


# -- search, in process ---------------------------------------------------------------------------


def search_case(ctx: Context, *, count: int, rounds: int, target_p95_ms: float) -> dict:
    """Warm in-process search (all four arms, polarity, twins, MMR, snippets, the explanation, the
    state plane) against the FTS5 floor in the same process, interleaved; Recoll's own Python."""
    import apsw

    from memhtml_desktop.index.store import Store

    rounds = ctx.rounds or rounds
    root = ctx.store(count)
    store = Store(root, index_path=ctx.index(count))
    floor = apsw.Connection(str(ctx.floor_db(count)), flags=apsw.SQLITE_OPEN_READONLY)
    qs = queries(ctx)
    cpu: list[float] = []

    def ours_once(q: str) -> None:
        started = time.process_time()
        store.search(q, limit=10)
        cpu.append((time.process_time() - started) * 1000)

    # warm first (the vector snapshot, the salience list, the page cache), then the rounds interleaved
    times = warm_and_time(qs, {"ours": ours_once, "floor": lambda q: floors.search(floor, q)}, rounds)
    ours, floor_ms, cpu = times["ours"], times["floor"], cpu[len(qs) :]
    conf, why = ctx.recoll(count) if ctx.size == "standard" else (None, "not run at the tiny size")
    peer = None
    if conf is not None:
        qfile = ctx.work / "suite-queries.txt"
        qfile.write_text("\n".join(qs) + "\n", encoding="utf-8")
        peer = floors.recoll_search_times(conf, qfile, rounds)
    p50, p95 = pct(ours, 0.5), pct(ours, 0.95)
    other = f"floor p50 {pct(floor_ms, 0.5):.1f} / p95 {pct(floor_ms, 0.95):.1f} ms"
    other += (
        f"; Recoll p50 {pct(peer, 0.5):.1f} / p95 {pct(peer, 0.95):.1f} ms" if peer else f"; Recoll not measured: {why}"
    )
    return outcome(
        ours,
        floor_ms,
        unit="ms",
        stat="p95",
        ours_text=f"p50 {p50:.1f} / p95 {p95:.1f} ms",
        other_text=other,
        met=p95 <= target_p95_ms,
        cpu_ms_p50=round(pct(cpu, 0.5), 2),
        cpu_ms_p95=round(pct(cpu, 0.95), 2),
        recoll=[round(x, 3) for x in peer or []],
        queries=len(qs),
    )


# -- the command, as a fresh process ---------------------------------------------------------------


def _settled_lease(index: Path) -> bool:
    for path in index.parent.glob(f"{index.name}.lease-*"):
        try:
            if json.loads(path.read_text()).get("state") == "settled":
                return True
        except (OSError, ValueError):
            continue
    return False


class _Watching:
    """A headless `memhtml-desktop watch` on the store for the duration of a block, its lease settled
    (index/lease.py): what a read beside the window or a watch finds."""

    def __init__(self, root: Path, index: Path, env: dict, timeout: float = 900.0) -> None:
        self.cmd = [*app(), "--store", str(root), "--index", str(index), "watch"]
        self.index, self.env, self.timeout = index, env, timeout

    def __enter__(self) -> "_Watching":
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)
        deadline = time.monotonic() + self.timeout
        while not _settled_lease(self.index):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError("the headless watcher never settled its lease")
            time.sleep(0.2)
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)


def cli_search_case(ctx: Context, *, count: int, rounds: int) -> dict:
    """`memhtml-desktop search` as a fresh process on a warm index, beside a live headless watcher
    (its lease stands in for the walk: index/lease.py), against a 20-line FTS5 script process (the
    floor) and `recollq` (the peer), interleaved; wall time, CPU time and peak RSS. Then the same
    search with no watcher, so the command walks the store first, beside the floor again."""
    rounds = ctx.rounds or rounds
    root, index, db = ctx.store(count), ctx.index(count), ctx.floor_db(count)
    query = "drain the vip before reverting the deploy"
    ours = [*app(), "--store", str(root), "--index", str(index), "search", query]
    floor = [sys.executable, str(HERE / "floors.py"), "search", str(db), query]
    commands = {"ours": ours, "floor": floor}
    conf, why = ctx.recoll(count) if ctx.size == "standard" else (None, "not run at the tiny size")
    if conf is not None:
        commands["recollq"] = ["recollq", "-c", str(conf), "-n", "10", query]
    env = installed_env(ctx)
    with _Watching(root, index, env):
        got = interleaved(commands, rounds, warmup=1, env=env)  # the first call keeps the vector file
    walked = interleaved({"walk": ours, "floor": floor}, rounds, warmup=0, env=env)
    if any(got["ours"]["codes"]) or any(walked["walk"]["codes"]):
        raise RuntimeError(f"memhtml-desktop search exited {got['ours']['codes']} / {walked['walk']['codes']}")
    ms, floor_ms = got["ours"]["ms"], got["floor"]["ms"]
    rss = max(got["ours"]["rss_mb"])
    median = statistics.median
    other = f"floor median {median(floor_ms):.0f} ms ({median(got['floor']['cpu_ms']):.0f} ms CPU), " \
            f"{max(got['floor']['rss_mb']):.0f} MB"  # fmt: skip
    other += (
        f"; recollq median {median(got['recollq']['ms']):.0f} ms"
        if "recollq" in got
        else f"; Recoll not measured: {why}"
    )
    other += f"; walking the store instead: median {median(walked['walk']['ms']):.0f} ms " \
             f"({median(walked['walk']['cpu_ms']):.0f} ms CPU)"  # fmt: skip
    return outcome(ms, floor_ms, unit="ms",
                   ours_text=f"median {median(ms):.0f} ms ({median(got['ours']['cpu_ms']):.0f} ms CPU), {rss:.0f} MB",
                   other_text=other, met=median(ms) <= 300 and rss <= 200, rss_mb=round(rss, 1),
                   cpu_ms=[round(x, 1) for x in got["ours"]["cpu_ms"]],
                   floor_cpu_ms=[round(x, 1) for x in got["floor"]["cpu_ms"]],
                   walk_ms=[round(x, 1) for x in walked["walk"]["ms"]],
                   walk_cpu_ms=[round(x, 1) for x in walked["walk"]["cpu_ms"]],
                   walk_rss_mb=round(max(walked["walk"]["rss_mb"]), 1),
                   recoll=[round(x, 1) for x in got.get("recollq", {}).get("ms", [])])  # fmt: skip


def cli_help_case(ctx: Context, *, rounds: int) -> dict:
    """`memhtml-desktop --help` against the interpreter starting and doing nothing."""
    got = interleaved(
        {"ours": [*app(), "--help"], "floor": [sys.executable, "-c", "pass"]},
        ctx.rounds or rounds,
        warmup=1,
        env=installed_env(ctx),
    )
    ours, cpu = got["ours"]["ms"], got["ours"]["cpu_ms"]
    return outcome(
        ours,
        got["floor"]["ms"],
        unit="ms",
        met=statistics.median(ours) <= 150,
        ours_text=f"median {statistics.median(ours):.0f} ms ({statistics.median(cpu):.0f} ms CPU)",
        other_text=f"median {statistics.median(got['floor']['ms']):.0f} ms "
        f"({statistics.median(got['floor']['cpu_ms']):.0f} ms CPU)",
        cpu_ms=[round(x, 1) for x in cpu],
        floor_cpu_ms=[round(x, 1) for x in got["floor"]["cpu_ms"]],
    )


def index_noop_case(ctx: Context, *, count: int, rounds: int) -> dict:
    """`memhtml-desktop index` with nothing to do (it walks: bringing the index in step is what it is
    asked for), against a Python stat of every memory file and GNU find's, interleaved."""
    root, index = ctx.store(count), ctx.index(count)
    commands = {
        "ours": [*app(), "--store", str(root), "--index", str(index), "index"],
        "floor": [sys.executable, str(HERE / "floors.py"), "walk", str(root)],
    }
    if shutil.which("find"):
        commands["find"] = ["find", *(str(root / b) for b in floors.BUCKETS), "-name", "*.html", "-printf", "%s %T@\\n"]
    got = interleaved(commands, ctx.rounds or rounds, warmup=1, env=installed_env(ctx))
    median = statistics.median
    ours, cpu = got["ours"]["ms"], got["ours"]["cpu_ms"]
    other = f"Python walk median {median(got['floor']['ms']):.0f} ms ({median(got['floor']['cpu_ms']):.0f} ms CPU)"
    if "find" in got:
        other += f"; find median {median(got['find']['ms']):.0f} ms ({median(got['find']['cpu_ms']):.0f} ms CPU)"
    return outcome(
        ours,
        got["floor"]["ms"],
        unit="ms",
        met=median(ours) <= 300,
        other_text=other,
        ours_text=f"median {median(ours):.0f} ms ({median(cpu):.0f} ms CPU)",
        cpu_ms=[round(x, 1) for x in cpu],
        floor_cpu_ms=[round(x, 1) for x in got["floor"]["cpu_ms"]],
        find_cpu_ms=[round(x, 1) for x in got.get("find", {}).get("cpu_ms", [])],
    )


# -- indexing ----------------------------------------------------------------------------------------


def cold_index_case(ctx: Context, *, count: int, rounds: int) -> dict:
    """A cold index (words and the default hash vectors) by the command, against the floor's one
    FTS5 table in one transaction and a cold `recollindex`, in turns."""
    root = ctx.store(count)
    ours, floor_s, peer = [], [], []
    conf, why = ctx.recoll(count) if ctx.size == "standard" else (None, "not run at the tiny size")
    for n in range(ctx.rounds or rounds):
        index = ctx.work / f"cold-{count}-{n}.db"
        for suffix in ("", "-wal", "-shm", ".lock"):
            Path(f"{index}{suffix}").unlink(missing_ok=True)
        wall, _, code = timed_process([*app(), "--store", str(root), "--index", str(index), "index"])
        if code:
            raise RuntimeError(f"memhtml-desktop index exited {code}")
        ours.append(wall / 1000)
        floor_s.append(
            timed_process(
                [sys.executable, str(HERE / "floors.py"), "index", str(root), str(ctx.work / f"cold-floor-{count}.db")]
            )[0]
            / 1000
        )
        if conf is not None:
            fresh = ctx.work / f"recoll-cold-{count}"
            shutil.rmtree(fresh, ignore_errors=True)
            floors.recoll_config(root, fresh)
            peer.append(timed_process(["recollindex", "-c", str(fresh)])[0] / 1000)
        for suffix in ("", "-wal", "-shm", ".lock"):
            Path(f"{index}{suffix}").unlink(missing_ok=True)
    ratio = statistics.median(ours) / statistics.median(floor_s)
    other = f"floor median {statistics.median(floor_s):.1f} s"
    other += f"; recollindex {statistics.median(peer):.1f} s" if peer else f"; Recoll not measured: {why}"
    return outcome(ours, floor_s, unit="s", other_text=other, met=ratio <= 4.0, recoll=[round(x, 2) for x in peer])


def incremental_case(ctx: Context, *, count: int, changed: int, rounds: int) -> dict:
    """`changed` files rewritten (a byte appended), then `memhtml-desktop index` against the floor
    replacing those rows, and `recollindex` (incremental), in turns."""
    root = ctx.store(count, private="incremental")
    index = ctx.index(count, root, name="-incremental")
    db = ctx.work / f"floor-{count}-incremental.db"
    floors.build_index(root, db)
    files = floors.memory_files(root)
    step = max(1, len(files) // changed)
    chosen = files[::step][:changed]
    listing = ctx.work / "incremental-paths.txt"
    listing.write_text("\n".join(os.path.relpath(p, root) for p in chosen) + "\n")
    conf = None
    why = "not run at the tiny size"
    if ctx.size == "standard":
        why = floors.recoll_available()
        if why is None:
            conf = floors.recoll_config(root, ctx.work / f"recoll-{count}-incremental")
            subprocess.run(["recollindex", "-c", str(conf)], capture_output=True, check=True)
    ours, floor_s, peer = [], [], []
    for _ in range(ctx.rounds or rounds):
        for path in chosen:
            with open(path, "ab") as handle:
                handle.write(b"\n")
        ours.append(timed_process([*app(), "--store", str(root), "--index", str(index), "index"])[0] / 1000)
        floor_s.append(
            timed_process(
                [sys.executable, str(HERE / "floors.py"), "update", str(root), str(db), "--from-file", str(listing)]
            )[0]
            / 1000
        )
        if conf is not None:
            peer.append(timed_process(["recollindex", "-c", str(conf)])[0] / 1000)
    ratio = statistics.median(ours) / statistics.median(floor_s)
    other = f"floor median {statistics.median(floor_s):.2f} s"
    other += f"; recollindex {statistics.median(peer):.2f} s" if peer else f"; Recoll not measured: {why}"
    return outcome(ours, floor_s, unit="s", other_text=other, met=ratio <= 2.0, recoll=[round(x, 2) for x in peer])


# -- older scripts, wrapped ----------------------------------------------------------------------------


def script_json(script: str, args: Sequence[str]) -> dict:
    """Run bench/<script> and read its last JSON line."""
    out = subprocess.run([sys.executable, str(HERE / script), *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{script} exited {out.returncode}: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def apply_case(ctx: Context, *, count: int, rounds: int, ops: str) -> dict:
    if not Path(ops).exists():
        raise RuntimeError(f"{ops} is missing: build it with python bench/realtext_build.py (see bench/apply_bench.py)")
    got = script_json(
        "apply_bench.py",
        ["--ops", ops, "--count", str(count), "--rounds", str(ctx.rounds or rounds), "--dir", str(ctx.work / "apply")],
    )
    return outcome(
        got["apply_s"],
        got["floor_s"],
        unit="s",
        stat="median",
        met=statistics.median(got["apply_s"]) / statistics.median(got["floor_s"]) <= 11,
    )


def archive_click_case(ctx: Context, *, count: int, rounds: int) -> dict:
    got = script_json(
        "archive_click_bench.py",
        ["--count", str(count), "--rounds", str(ctx.rounds or rounds), "--dir", str(ctx.work / "archive-click")],
    )
    big, demo = got[str(count)], got["demo (58)"]
    return {
        "headline": f"median {big['median_ms']:.0f} ms against the demo store's {demo['median_ms']:.0f} ms",
        "ours_text": f"median {big['median_ms']:.0f} ms",
        "other_text": f"demo store median {demo['median_ms']:.0f} ms",
        "ratio": round(big["median_ms"] / demo["median_ms"], 2),
        "met": None,
        "raw": got,
    }


def event_loop_case(ctx: Context, *, count: int, rounds: int) -> dict:
    got = script_json(
        "event_loop_gaps.py",
        ["--count", str(count), "--rounds", str(ctx.rounds or rounds), "--dir", str(ctx.work / "event-loop-gaps")],
    )
    worst = max(got["worst_longest_ms"].values())
    return {
        "headline": f"longest gap {worst:.0f} ms (target {got['target_ms']} ms)",
        "ours_text": f"longest gap {worst:.0f} ms",
        "other_text": "two busy processes beside it",
        "ratio": None,
        "met": got["met"],
        # each round's phases (longest gap, p99, the idle control's own worst stall: `machine_ms`)
        "raw": got,
    }


def review_listing_case(ctx: Context, *, commits: int, rounds: int) -> dict:
    """The review inbox's listing (`history.review_range` + `list_changes`, in this process) of
    `commits` agent commits after the mark, beside `git log --name-status` over the same range as a
    process, in turns (bench/review_bench.py is the same measure with more to say)."""
    from memhtml_desktop.devtools.gen_history import build_history
    from memhtml_desktop.history import Git, list_changes, review_range

    root = ctx.work / f"review-history-{commits}"
    marker = root / ".git" / "suite-made"
    if not marker.exists():
        if root.exists():
            shutil.rmtree(root)
        build_history(root, commits=commits)
        marker.write_text("gen_history seed 7\n")
    git = Git(root)
    base = review_range(git).base
    log = ["git", "-C", str(root), "log", "--name-status", f"{base}..HEAD"]
    listed = len(list_changes(git, review_range(git)))  # warm both: the page cache, git's packs
    subprocess.run(log, capture_output=True, check=True)
    ours, floor = [], []
    for _ in range(ctx.rounds or rounds):
        started = time.perf_counter()
        list_changes(git, review_range(git))
        ours.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        subprocess.run(log, capture_output=True, check=True)
        floor.append((time.perf_counter() - started) * 1000)
    ratio = statistics.median(ours) / statistics.median(floor)
    return outcome(
        ours,
        floor,
        unit="ms",
        other_text=f"git log --name-status median {statistics.median(floor):.1f} ms",
        met=ratio <= 5,
        events=listed,
    )


def review_window_case(ctx: Context, *, commits: int, rounds: int, load: int) -> dict:
    got = script_json(
        "review_window_bench.py",
        [
            "--commits",
            str(commits),
            "--rounds",
            str(ctx.rounds or rounds),
            "--load",
            str(load),
            "--dir",
            str(ctx.work / "review-window"),
        ],
    )
    worst = got["worst_ms"]
    control = max(r[p].get("control_ms", 0.0) for r in got["rounds"] for p in r)
    return {
        "headline": f"longest gap {worst:.0f} ms opening the inbox and its activity tab (target 50 ms)",
        "ours_text": f"longest gap {worst:.0f} ms",
        "other_text": f"an idle control process: {control:.0f} ms",
        "ratio": None,
        "met": worst <= 50,
        "raw": got,
    }


# -- the conflicts scan, in process ---------------------------------------------------------------


def _rule_caches_emptied() -> None:
    """Empty the contradiction rule's per-claim caches, so each round reads every claim as the first
    scan in a fresh engine does (the vector snapshot stays warm, as the window's searches leave it)."""
    from memhtml_desktop.domain import contradiction

    for name in ("_words", "_content_of", "word_keys", "_stem"):
        getattr(contradiction, name).cache_clear()


def conflicts_scan_case(ctx: Context, *, count: int, rounds: int) -> dict:
    """The conflicts scan (write/conflicts.py, what the conflicts view's job runs in the engine) over
    a generated store, the rule's caches emptied before each round, against its floor: one numpy
    product making as many vector products as the scan's all-pairs near-twin search (n(n-1)/2, on
    one BLAS thread as the app runs it), interleaved. A second scan of each round, caches warm, is
    what the view's refresh costs."""
    import numpy as np

    from memhtml_desktop.index.store import Store
    from memhtml_desktop.write.conflicts import scan_conflicts

    rounds = ctx.rounds or rounds
    store = Store(ctx.store(count), index_path=ctx.index(count))
    first = scan_conflicts(store)  # the vector snapshot and the page cache warm; a figure of its own
    n = first.compared
    dim = store.embedder.dim
    rows = max(1, (n * (n - 1) // 2) // max(1, n))
    matrix = np.random.default_rng(7).standard_normal((n, dim)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    out = np.ones((rows, n), dtype=np.float32)  # made and touched before the clock starts

    def floor_once() -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        np.matmul(matrix[:rows], matrix.T, out=out)
        return time.perf_counter() - wall, time.process_time() - cpu

    def ours_once() -> tuple[float, float, float]:
        _rule_caches_emptied()
        wall, cpu = time.perf_counter(), time.process_time()
        report = scan_conflicts(store)
        cold, cold_cpu = time.perf_counter() - wall, time.process_time() - cpu
        wall = time.perf_counter()
        again = scan_conflicts(store)
        assert [(p.a.path, p.b.path) for p in again.pairs] == [(p.a.path, p.b.path) for p in report.pairs]
        return cold, cold_cpu, time.perf_counter() - wall

    floor_once()
    ours, ours_cpu, warm, floor_s, floor_cpu = [], [], [], [], []
    for _ in range(rounds):
        cold, cold_cpu, again = ours_once()
        ours.append(cold), ours_cpu.append(cold_cpu), warm.append(again)
        wall, cpu = floor_once()
        floor_s.append(wall), floor_cpu.append(cpu)
    median = statistics.median
    return outcome(
        ours,
        floor_s,
        unit="s",
        ours_text=f"median {median(ours):.2f} s (CPU {median(ours_cpu):.2f} s; again, warm: {median(warm):.2f} s), "
        f"{first.memories:,} memories, {len(first.pairs)} pairs, {first.twins} near-twins",
        other_text=f"one numpy product of {rows * n:,} vector pairs: median {median(floor_s):.2f} s (CPU {median(floor_cpu):.2f} s)",
        met=median(ours) <= 5,
        cpu_s=[round(x, 3) for x in ours_cpu],
        warm_s=[round(x, 3) for x in warm],
        floor_cpu_s=[round(x, 3) for x in floor_cpu],
        memories=first.memories,
        compared=n,
        pairs=len(first.pairs),
        twins=first.twins,
        first_s=round(first.seconds, 3),
    )


CASES: list[Case] = [
    Case(
        "search_20k",
        "warm in-process search, 20,000 memories, all arms + explanation, state plane",
        "p95 ≤ 15 ms",
        search_case,
        {
            "tiny": {"count": 60, "rounds": 1, "target_p95_ms": 15.0},
            "standard": {"count": 20000, "rounds": 3, "target_p95_ms": 15.0},
        },
    ),
    Case(
        "search_100k",
        "the same at 100,000 memories",
        "p95 ≤ 40 ms",
        search_case,
        {"standard": {"count": 100000, "rounds": 2, "target_p95_ms": 40.0}},
    ),
    Case(
        "cli_search",
        "`memhtml-desktop search` as a fresh process, warm 100,000-memory index",
        "≤ 300 ms, ≤ 200 MB",
        cli_search_case,
        {"tiny": {"count": 60, "rounds": 1}, "standard": {"count": 100000, "rounds": 5}},
    ),
    Case(
        "cli_help",
        "`memhtml-desktop --help`",
        "≤ 150 ms",
        cli_help_case,
        {"tiny": {"rounds": 1}, "standard": {"rounds": 10}},
    ),
    Case(
        "index_noop",
        "`memhtml-desktop index` with nothing to do, 100,000 memories",
        "≤ 300 ms",
        index_noop_case,
        {"tiny": {"count": 60, "rounds": 1}, "standard": {"count": 100000, "rounds": 5}},
    ),
    Case(
        "cold_index",
        "cold index of 20,000 memories (words + hash vectors)",
        "≤ 4× floor",
        cold_index_case,
        {"tiny": {"count": 60, "rounds": 1}, "standard": {"count": 20000, "rounds": 2}},
    ),
    Case(
        "incremental",
        "1,000 changed files reflected by `index`, 20,000 memories",
        "≤ 2× floor",
        incremental_case,
        {"tiny": {"count": 60, "changed": 5, "rounds": 1}, "standard": {"count": 20000, "changed": 1000, "rounds": 3}},
    ),
    Case(
        "apply",
        "`apply` of 2,000 real memories into a fresh store",
        "≤ 11× floor",
        apply_case,
        {"standard": {"count": 2000, "rounds": 2, "ops": "bench/out/realtext/heldout.ops.jsonl"}},
    ),
    Case(
        "archive_click",
        "the archive click at 20,000 memories (commit, reindex, the list again)",
        "within 0.3 s of the demo store's",
        archive_click_case,
        {"standard": {"count": 20000, "rounds": 4}},
    ),
    Case(
        "event_loop_gaps",
        "the window's longest event-loop gap under load, 20,000 memories",
        "≤ 50 ms",
        event_loop_case,
        {"standard": {"count": 20000, "rounds": 1}},
    ),
    Case(
        "review_listing",
        "the review inbox's listing of 3,000 agent commits after the mark",
        "≤ 5× git log",
        review_listing_case,
        {"tiny": {"commits": 60, "rounds": 1}, "standard": {"commits": 3000, "rounds": 7}},
    ),
    Case(
        "review_window",
        "the review inbox opening on 3,000 commits in the window (and its activity tab)",
        "≤ 50 ms gap",
        review_window_case,
        {"standard": {"commits": 3000, "rounds": 3, "load": 0}},
    ),
    Case(
        "conflicts_scan",
        "the conflicts scan of 20,000 memories (every contradicting pair; the rule's caches cold)",
        "≤ 5 s",
        conflicts_scan_case,
        {"tiny": {"count": 300, "rounds": 1}, "standard": {"count": 20000, "rounds": 3}},
    ),
]
