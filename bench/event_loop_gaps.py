"""The window's longest event-loop gaps while heavy work runs, with both cores loaded by a load of our own.

    python bench/event_loop_gaps.py [--dir /tmp/event-loop-gaps] [--count 20000] [--probes 500]
                                    [--edits 500] [--load 2] [--rounds 1] [--checkout DIR]
                                    [--store-seed 11] [--embedder hash|minilm] [--trace]
    python bench/event_loop_gaps.py --floor SECONDS [--load 2] [--niced 1] [--rounds 1] [--trace]

The store is generated once per directory (gen_store, seed `--store-seed`, memhtml's seeded state plane, a git
repository with its `--probes` probes committed as the workbench set `bench`). Each round starts
`--load` busy Python processes (`while True: pass`, nice 0: one per core on a two-core machine),
then opens the real MainWindow (offscreen, watching on, as a person runs it: shown, then the
start-up objects frozen out of the collector's way before the event loop runs, as
`ui/app.run_app` does) over a FRESH index
and records the gaps between the ticks of a 5 ms timer on the GUI thread during three phases:

- cold index: from the window shown until the watcher's start-up reconciliation of the whole store
  has committed and the window is quiet;
- workbench run: Run clicked in the workbench (config `default` on the `bench` set) until its
  verdicts arrive;
- burst: `--edits` memory files rewritten by another process (as an editor or a checkout would)
  until the watcher has indexed them and the window has searched again.

A second, idle heartbeat process ("machine") shows what the loaded machine itself inflicts on any
process, and every gap over the target is listed beside the control's own stall at the same
moment (a gap the idle control suffered as well is the machine's). `--floor SECONDS` runs the
same beat with no window at all, beside the load and `--niced` busy processes at the window's
child's niceness (the cold index's stand-in): the machine's own floor under the window's figures.
`--checkout DIR` runs another checkout's code (e.g. main, for the figures before). The
target (issue 24) is no gap over 50 ms. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET_MS = 50.0
LOAD = """
import ctypes, os, signal, sys
ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: dies with the bench
if os.getppid() != int(sys.argv[1]):  # the bench was gone before the line above
    raise SystemExit
while True: pass
"""
"""A busy process that ends with the bench, however the bench ends (a kill left them spinning)."""
EDIT = """
import json, sys
from pathlib import Path
plan = json.loads(Path(sys.argv[1]).read_text())
root = Path(plan["root"])
for i, path in enumerate(plan["paths"]):
    target = root / path
    text = target.read_text(encoding="utf-8")
    target.write_text(text.replace("</mark>", f"</mark> Revision {plan['tag']}-{i}.", 1), encoding="utf-8")
"""


def checkout_from(argv: list[str]) -> Path:
    if "--checkout" in argv:
        return Path(argv[argv.index("--checkout") + 1]).resolve()
    return HERE.parent


CHECKOUT = checkout_from(sys.argv)
sys.path.insert(0, str(CHECKOUT))
sys.path.insert(1, str(HERE))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MEMHTML_DESKTOP_NO_USER_CONFIG", "1")


def _kernel_name(tid: int) -> str:
    """A thread's name as the kernel knows it (a thread Python did not start), else its id."""
    try:
        return Path(f"/proc/self/task/{tid}/comm").read_text().strip()
    except OSError:
        return str(tid)


class Clocks:
    """Where a gap's time went, from the kernel's own counters (Linux; empty elsewhere).

    Each thread's `schedstat` says how long it ran and how long it waited on a run queue: for the
    GUI thread, the rest of the gap it slept (on the GIL, a lock, or nothing to do); the threads
    that ran or queued meanwhile are named (Python's name for the thread, else the kernel's), the
    GIL's holder among them. The machine's `steal` (`/proc/stat`) says whether the virtual machine
    itself was off its cores."""

    def __init__(self) -> None:
        self.gui = threading.get_native_id()
        self.ok = os.path.exists(f"/proc/self/task/{self.gui}/schedstat")

    def read(self) -> tuple[dict[int, tuple[int, int]], int]:
        """({thread id: (run ns, run-queue wait ns)}, machine steal ticks)."""
        if not self.ok:
            return {}, 0
        threads = {}
        for task in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{task}/schedstat") as f:
                    run, wait = f.read().split()[:2]
                threads[int(task)] = (int(run), int(wait))
            except (OSError, ValueError):
                pass  # a thread that ended between the listing and the read
        with open("/proc/stat") as f:
            steal = int(f.readline().split()[8])
        return threads, steal

    def say(self, before: tuple[dict, int], after: tuple[dict, int]) -> str:
        names = {t.native_id: t.name for t in threading.enumerate()}
        (run0, wait0), (run1, wait1) = before[0].get(self.gui, (0, 0)), after[0].get(self.gui, (0, 0))
        run, wait = (run1 - run0) / 1e6, (wait1 - wait0) / 1e6
        others = []
        for tid, (r, w) in after[0].items():
            r0, w0 = before[0].get(tid, (0, 0))
            if tid != self.gui and (r - r0 > 2e6 or w - w0 > 2e6):
                others.append(
                    f"{names.get(tid) or _kernel_name(tid)} ran {(r - r0) / 1e6:.0f} queued {(w - w0) / 1e6:.0f}"
                )
        steal = (after[1] - before[1]) * 1000 / os.sysconf("SC_CLK_TCK")
        return (
            f"[GUI ran {run:.0f} ms, queued {wait:.0f} ms; "
            + ("; ".join(others) or "no other thread ran")
            + f"; steal {steal:.0f} ms]"
        )


def _where(frame, depth: int = 4) -> str:
    """A frame and its callers, innermost first, as `file:line function` joined by ` < `."""
    parts = []
    while frame is not None and len(parts) < depth:
        parts.append(f"{Path(frame.f_code.co_filename).stem}:{frame.f_lineno} {frame.f_code.co_name}")
        frame = frame.f_back
    return " < ".join(parts) or "(no Python frame)"


class StackSampler(threading.Thread):
    """Where the GUI thread's Python is while its tick is late (`--trace`): every `every_s`, once
    the last tick is older than `late_s`, the GUI thread's innermost frames. A stack whose innermost
    frame is the bench's own event loop means the GUI thread was in Qt's C++ (painting, layout,
    the event dispatcher) or not running at all; the clocks of the gap say which."""

    def __init__(self, beat: "Beat", every_s: float = 0.008, late_s: float = 0.02) -> None:
        super().__init__(name="gap-sampler", daemon=True)
        self.beat, self.every_s, self.late_s = beat, every_s, late_s
        self.gui = threading.get_ident()
        self.samples: list[tuple[float, str]] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.every_s):
            now = time.perf_counter()
            if self.beat.phase and now - self.beat.last > self.late_s:
                self.samples.append((now, _where(sys._current_frames().get(self.gui))))

    def within(self, start: float, end: float) -> list[str]:
        """The samples of one gap, each run of the same stack once with its count."""
        said: list[list] = []
        for t, where in self.samples:
            if start <= t <= end:
                if said and said[-1][1] == where:
                    said[-1][2] += 1
                else:
                    said.append([t, where, 1])
        return [f"{(t - start) * 1000:+.0f}:{where}" + (f" (x{n})" if n > 1 else "") for t, where, n in said]


class Beat:
    """A 5 ms timer on the GUI thread; each gap is filed under the phase running when it ended."""

    def __init__(self, clocks: bool = False, explain_ms: float = TARGET_MS) -> None:
        """`explain_ms`: gaps over this are kept with their clocks and explained (`--explain-over`:
        below the target, to see what the near misses are)."""
        from PySide6.QtCore import Qt, QTimer

        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.phase = ""
        self.gaps: dict[str, list[float]] = {}
        self.last = time.perf_counter()
        self.clocks = Clocks() if clocks else None
        self.explain_ms = explain_ms
        self.sampler = StackSampler(self) if clocks else None
        self.counted = self.clocks.read() if self.clocks else None
        self.long = []  # (phase, start, end, clocks, wall-clock end) of every gap over explain_ms
        self.events = []  # (perf_counter, what): jobs starting and ending, collections, watcher messages
        self.full_passes = []  # (ms, who asked) of every full collection, for --trace
        self._full: tuple[float, str] | None = None  # (start, who asked) of the full pass under way

    def start(self) -> None:
        self.restart()
        self.timer.start()
        if self.sampler is not None:
            self.sampler.start()

    def stop(self) -> None:
        self.timer.stop()
        if self.sampler is not None:
            self.sampler.done.set()

    def restart(self) -> None:
        """Gaps count from now (the bench's own work before this is none of the window's)."""
        self.last = time.perf_counter()
        self.counted = self.clocks.read() if self.clocks else None

    def _tick(self) -> None:
        now = time.perf_counter()
        counted = self.clocks.read() if self.clocks else None
        if self.phase:
            gap = (now - self.last) * 1000
            self.gaps.setdefault(self.phase, []).append(gap)
            if gap > self.explain_ms:
                self.long.append(
                    (
                        self.phase,
                        self.last,
                        now,
                        self.clocks.say(self.counted, counted) if self.clocks else "",
                        time.time(),
                    )
                )
        self.last = now
        self.counted = counted

    def collected(self, stage: str, info: dict) -> None:
        """A `gc.callbacks` entry: every collection in the events, and who asked for each full one."""
        now = time.perf_counter()
        what = f"gc{info['generation']}{'(' if stage == 'start' else ')'}"
        if info["generation"] == 2 and stage == "start":
            self._full = (
                now,
                f"{threading.current_thread().name}: "
                + " < ".join(
                    f"{Path(f.filename).stem}:{f.lineno}" for f in traceback.extract_stack(limit=6)[:-1][::-1]
                ),
            )
            what += f"<{self._full[1]}>"
        elif info["generation"] == 2 and self._full is not None:
            self.full_passes.append(((now - self._full[0]) * 1000, self._full[1]))
        self.events.append((now, what))

    def beside(self, stalls: list[tuple[float, float]]) -> list[tuple[str, float, float]]:
        """(phase, gap ms, the idle control process's longest stall meanwhile, ms) for each gap over
        the target. `stalls` are the control's (wall-clock end, ms); it reports only stalls over
        20 ms, so 0 means it kept its beat. A window gap with the control stalled as long is the
        machine's (steal, a full run queue), one with the control on time is the window's own."""
        said = []
        for phase, start, end, _, wall in self.long:
            gap = (end - start) * 1000
            meanwhile = [ms for t, ms in stalls if t - ms / 1000 < wall and t > wall - gap / 1000]
            said.append((phase, round(gap, 1), round(max(meanwhile, default=0.0), 1)))
        return said

    def explain(self, stalls: list[tuple[float, float]] = ()) -> list[str]:
        """Each long gap with what happened in it and in the 100 ms before it, where its time went,
        and what the idle control process suffered meanwhile."""
        lines = []
        for (phase, start, end, clocks, _), (_, _, machine) in zip(self.long, self.beside(list(stalls))):
            seen = [f"{(t - start) * 1000:+.0f}:{what}" for t, what in self.events if start - 0.1 <= t <= end]
            lines.append(
                f"    {phase}: {(end - start) * 1000:.0f} ms gap: "
                + (" ".join(seen[-12:]) or "(nothing recorded)")
                + (f" {clocks}" if clocks else "")
                + f" (control process {'stalled ' + format(machine, '.0f') + ' ms' if machine else 'on time'})"
            )
            if self.sampler is not None:
                lines.extend(f"      GUI at {where}" for where in self.sampler.within(start, end))
        return lines

    def row(self, phase: str) -> dict:
        gaps = sorted(self.gaps.get(phase, [0.0]))
        return {
            "longest_ms": round(gaps[-1], 1),
            "p99_ms": round(gaps[int(len(gaps) * 0.99)], 1),
            "over_50": sum(g > TARGET_MS for g in gaps),
            "ticks": len(gaps),
        }


def trace_collectors(beat: Beat) -> None:
    """Name the window's own collections (settles and deep ones) in `beat`'s trace. The methods
    are wrapped once per process and record into the round's beat: a closed window's collector
    (before `IdleCollector.stop`) showed up in the next round's trace under its own name."""
    from memhtml_desktop.ui.shell import idle_gc

    trace_collectors.beat = beat
    if getattr(idle_gc.IdleCollector, "_traced", False):
        return
    for name in ("settle", "maybe_collect"):

        def traced(self, original=getattr(idle_gc.IdleCollector, name), name=name):
            trace_collectors.beat.events.append((time.perf_counter(), f"{name}("))
            try:
                return original(self)
            finally:
                trace_collectors.beat.events.append((time.perf_counter(), f"{name})"))

        setattr(idle_gc.IdleCollector, name, traced)
    idle_gc.IdleCollector._traced = True


def start_load(loaders: int, niced: int = 0, nice: int = 0) -> list[subprocess.Popen]:
    """`loaders` busy Python processes at nice 0 and `niced` more at `nice`."""
    me = str(os.getpid())
    return [subprocess.Popen([sys.executable, "-c", LOAD, me]) for _ in range(loaders)] + [
        subprocess.Popen([sys.executable, "-c", f"import os\nos.nice({nice})\n{LOAD}", me]) for _ in range(niced)
    ]


def say_phase(name: str, row: dict) -> None:
    """One phase's line: its longest gap, p99, gaps over the target, time taken and the load now."""
    print(
        f"  {name:14} longest gap {row['longest_ms']:6.1f} ms, p99 {row['p99_ms']:5.1f} ms, "
        f"{row['over_50']} over 50 ms, took {row['took_s']} s{'' if row['finished'] else ' (not finished)'}; "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def prepare(base: Path, count: int, probes: int, store_seed: int = 11) -> Path:
    from memhtml_desktop.devtools.gen_store import generate_store, git_commit, write_probes
    from memhtml_desktop.workbench import WorkbenchFiles, read_probe_file

    root = base / "store"
    if not (root / ".git").exists():
        made = generate_store(root, count, store_seed, probes=probes, state=True, control_names="shuffled", force=True)
        write_probes(made, base / "probes.jsonl")
        git_commit(root)
        WorkbenchFiles(root).save_probe_set("bench", read_probe_file(base / "probes.jsonl").probes)
        print(f"generated {count:,} memories (seed {store_seed}) with {probes} probes at {root}", flush=True)
    return root


def one_round(
    root: Path,
    edits: int,
    seed: int,
    loaders: int,
    phase_timeout: float = 1800.0,
    trace: bool = False,
    embedder: str = "hash",
    explain_ms: float = TARGET_MS,
) -> dict:
    import random

    from heartbeat_bench import Control, run_loop
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    import memhtml_desktop.ui.shell.main_window as main_window
    from memhtml_desktop.embedders.registry import make_embedder
    from memhtml_desktop.index.store import Store
    from memhtml_desktop.settings import Settings
    from memhtml_desktop.ui.app import settle_gc, tune_for_gui
    from memhtml_desktop.ui.shell.main_window import MainWindow

    main_window.VERIFY_AFTER_MS = 3_600_000  # the one integrity check is kept out of the timings
    tune_for_gui()
    _app = QApplication.instance() or QApplication([])  # held: the application lives as long as the run
    scratch = Path(tempfile.mkdtemp(prefix="event-loop-gaps-"))
    load = start_load(loaders)
    control = Control()
    beat = Beat(clocks=trace, explain_ms=explain_ms)
    figures: dict = {"load_at_start": round(os.getloadavg()[0], 1)}
    try:
        time.sleep(1.0)  # the load is running before the window opens
        if trace:
            trace_collectors(beat)
        store = Store(root, index_path=scratch / "index.db", embedder=make_embedder(embedder))  # cold: a fresh index
        window = MainWindow(
            store,
            Settings(debounce_ms=30),
            watch=True,
            watcher_options={"quiet_s": 0.2},
            qsettings=QSettings(str(scratch / "s.ini"), QSettings.Format.IniFormat),
        )
        window.resize(1400, 900)

        def quiet() -> bool:
            status = window.bridge.status() if window.bridge is not None else None
            return (
                status is not None
                and status.mode in ("live", "polling")
                and not status.busy
                and not status.queue_depth
                and not window.runner.is_busy()
                and not window.driver.pending()
            )

        def phase(name: str, act, until, timeout_s: float = phase_timeout) -> None:
            wall0, t0 = time.time(), time.perf_counter()
            beat.restart()  # the bench's own work between phases (listing the store's files) is no gap
            beat.phase = name
            act()
            ok = run_loop(0, until=until, timeout_s=timeout_s)
            beat.phase = ""
            control.spans.append((name, wall0, time.time()))
            figures[name] = {**beat.row(name), "took_s": round(time.perf_counter() - t0, 1), "finished": ok}
            say_phase(name, figures[name])
            run_loop(300)

        if trace:
            window.runner.busy_changed.connect(
                lambda kind, busy: beat.events.append((time.perf_counter(), f"{kind}{'+' if busy else '-'}"))
            )
            if window.bridge is not None:
                for name in ("status_changed", "batch_indexed"):
                    signal = getattr(window.bridge, name, None)
                    if signal is not None:
                        signal.connect(lambda *a, name=name: beat.events.append((time.perf_counter(), name)))
            gc.callbacks.append(beat.collected)
        # As ui/app.run_app does: show, then freeze the start-up objects, and only then run the
        # event loop (a whole-heap collection of 80-190 ms, before the loop's first turn, not
        # inside it: measured inside the phase, it was the cold index's longest "gap").
        window.show()
        settle_gc()
        beat.start()
        phase(
            "cold index",
            lambda: None,
            until=lambda: window.results.model.result() is not None and window.bridge.status().batches > 0 and quiet(),
        )
        figures["memories"] = store.stats()["memories"]
        wb = window.controllers["workbench"]
        listed: list = []
        wb.listed.connect(listed.append)
        w = wb.show()
        w.resize(1024, 700)
        run_loop(
            0,
            until=lambda: bool(listed) and w.sets.currentText() == "bench" and not window.runner.is_busy(),
            timeout_s=120,
        )
        w.config_a.setCurrentText("default")
        ran: list = []
        wb.ran.connect(ran.append)
        phase("workbench run", w.run_button.click, until=lambda: bool(ran))
        figures["workbench run"]["probes"] = ran[0].figures.probes if ran else 0
        w.close()
        paths = [p.relative_to(root).as_posix() for p in sorted(root.rglob("*.html")) if ".git" not in p.parts]
        chosen = random.Random(seed).sample(paths, min(edits, len(paths)))
        plan = scratch / "plan.json"
        plan.write_text(json.dumps({"root": str(root), "paths": chosen, "tag": f"r{seed}-{time.time():.0f}"}))
        before = window.bridge.status().batches
        writer: list = []

        def start_burst() -> None:
            writer.append(subprocess.Popen([sys.executable, "-c", EDIT, str(plan)]))

        phase(
            f"burst of {len(chosen)}",
            start_burst,
            until=lambda: writer[0].poll() is not None and window.bridge.status().batches > before and quiet(),
        )
        window.shutdown()
        window.close()
        store.close_thread_connection()
    finally:
        beat.stop()
        if beat.collected in gc.callbacks:
            gc.callbacks.remove(beat.collected)  # the next round's beat records its own
        for process in load:
            process.kill()
        stalls = control.stop()
        machine = control.by_phase(stalls)
        shutil.rmtree(scratch, ignore_errors=True)
    return report(figures, beat, machine, stalls, trace)


def report(figures: dict, beat: Beat, machine: dict, stalls: list, trace: bool) -> dict:
    """`figures` with each phase's "machine" (the control's longest stall) and its gaps over the
    target beside the control's stall at the same moment; with `trace`, each long gap explained."""
    for name, worst in machine.items():
        if name in figures:
            figures[name]["machine_ms"] = worst
    for name, gap, meanwhile in beat.beside(stalls):
        if name in figures and gap > TARGET_MS:
            figures[name].setdefault("long_gaps", []).append([gap, meanwhile])  # [window ms, control ms]
    if trace:
        print("\n".join(beat.explain(stalls)) or f"    no gap over {beat.explain_ms:.0f} ms", flush=True)
        slow = [f"    full collection {ms:.0f} ms by {who}" for ms, who in beat.full_passes if ms > 10]
        print(
            f"    {len(beat.full_passes)} full collections" + ("; over 10 ms:\n" + "\n".join(slow) if slow else ""),
            flush=True,
        )
    return figures


def floor_round(seconds: float, loaders: int, niced: int, trace: bool = False, explain_ms: float = TARGET_MS) -> dict:
    """The same 5 ms beat with NO window: what the loaded machine alone does to a Qt event loop.

    `loaders` busy processes at nice 0 (the bench's load) and `niced` more at the window's child's
    niceness (a stand-in for the index's child, which keeps about one core busy in a cold index),
    for `seconds`. A gap over the target here is none of the window's doing: it is the floor under
    the window's own figures on this machine at this load."""
    from heartbeat_bench import Control, run_loop
    from PySide6.QtWidgets import QApplication

    from memhtml_desktop.engine.process import ENGINE_NICE as CHILD_NICE

    _app = QApplication.instance() or QApplication([])  # held: the application lives as long as the run
    load = start_load(loaders, niced, CHILD_NICE)
    control = Control()
    beat = Beat(clocks=trace, explain_ms=explain_ms)
    name = "no window"
    figures: dict = {"load_at_start": round(os.getloadavg()[0], 1)}
    try:
        time.sleep(1.0)
        beat.start()
        wall0, t0 = time.time(), time.perf_counter()
        beat.phase = name
        run_loop(seconds * 1000)
        beat.phase = ""
        control.spans.append((name, wall0, time.time()))
        figures[name] = {**beat.row(name), "took_s": round(time.perf_counter() - t0, 1), "finished": True}
        say_phase(name, figures[name])
    finally:
        beat.stop()
        for process in load:
            process.kill()
        stalls = control.stop()
    return report(figures, beat, control.by_phase(stalls), stalls, trace)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "event-loop-gaps")
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--probes", type=int, default=500)
    parser.add_argument("--edits", type=int, default=500)
    parser.add_argument("--load", type=int, default=2, help="busy Python processes beside the window")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=11, help="the burst's choice of files (one more each round)")
    parser.add_argument(
        "--store-seed", type=int, default=11, help="the generated store's seed (a store is generated once per --dir)"
    )
    parser.add_argument(
        "--embedder",
        choices=("hash", "minilm"),
        default="hash",
        help="the window's embedder (minilm: the cold index makes MiniLM vectors in the index's child)",
    )
    parser.add_argument("--checkout", type=Path, help="run this checkout's code (default: this one)")
    parser.add_argument(
        "--trace",
        action="store_true",
        help="name what happened in each gap over the target (jobs, collections, watcher messages) "
        "and where its time went (the GUI thread's run and run-queue time, the other "
        "threads' run time, the machine's steal, the GUI thread's Python stack while late)",
    )
    parser.add_argument(
        "--floor",
        type=float,
        metavar="SECONDS",
        help="no window: the same beat in an empty event loop for SECONDS beside the load and "
        "--niced busy processes at the child's niceness (the machine's own floor)",
    )
    parser.add_argument(
        "--niced",
        type=int,
        default=1,
        help="with --floor: busy processes at the child's niceness (the index's stand-in)",
    )
    parser.add_argument(
        "--explain-over",
        type=float,
        default=TARGET_MS,
        metavar="MS",
        help="with --trace: explain every gap over MS (default: the target), to see the near misses",
    )
    parser.add_argument(
        "--phase-timeout",
        type=float,
        default=1800.0,
        help="seconds a phase may take before the next starts (its figures say finished: false)",
    )
    args = parser.parse_args(argv)
    for key, value in (
        ("GIT_AUTHOR_NAME", "gaps bench"),
        ("GIT_AUTHOR_EMAIL", "bench@example.invalid"),
        ("GIT_COMMITTER_NAME", "gaps bench"),
        ("GIT_COMMITTER_EMAIL", "bench@example.invalid"),
    ):
        os.environ.setdefault(key, value)
    os.environ["MEMHTML_DESKTOP_DATA"] = str(args.dir / "app-data")  # the run history: never the user's
    if args.floor:
        print(f"no window: {args.load} busy processes and {args.niced} niced; uptime: {os.getloadavg()}", flush=True)
        rounds = []
        for n in range(args.rounds):
            print(f"round {n + 1}", flush=True)
            rounds.append(floor_round(args.floor, args.load, args.niced, args.trace, args.explain_over))
        worst = max(r["no window"]["longest_ms"] for r in rounds)
        print(
            json.dumps(
                {
                    "floor_s": args.floor,
                    "load_processes": args.load,
                    "niced": args.niced,
                    "worst_longest_ms": worst,
                    "target_ms": TARGET_MS,
                    "rounds": rounds,
                }
            )
        )
        return 0
    root = prepare(args.dir, args.count, args.probes, args.store_seed)
    head = subprocess.run(
        ["git", "-C", str(CHECKOUT), "log", "-1", "--format=%h %s"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"checkout {CHECKOUT} ({head[:70]}); {args.load} busy processes; embedder {args.embedder}; "
        f"uptime: {os.getloadavg()}",
        flush=True,
    )
    rounds = []
    for n in range(args.rounds):
        print(f"round {n + 1}", flush=True)
        rounds.append(
            one_round(
                root,
                args.edits,
                args.seed + n,
                args.load,
                args.phase_timeout,
                args.trace,
                args.embedder,
                args.explain_over,
            )
        )
    phases = [k for k, v in rounds[0].items() if isinstance(v, dict)]
    worst = {p: max(r[p]["longest_ms"] for r in rounds) for p in phases}
    print(
        json.dumps(
            {
                "checkout": str(CHECKOUT),
                "head": head,
                "load_processes": args.load,
                "embedder": args.embedder,
                "worst_longest_ms": worst,
                "target_ms": TARGET_MS,
                "met": all(v <= TARGET_MS for v in worst.values()),
                "rounds": rounds,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
