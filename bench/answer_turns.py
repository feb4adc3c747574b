"""What one answer costs the window's GUI thread, on an idle machine: turns, paints, CPU.

    python bench/answer_turns.py [--dir bench/out/answer-turns] [--count 20000] [--seed 11]
                                 [--reps 2] [--size 1400x900] [--checkout DIR]

The store is generated once per `--dir` (gen_store, `--seed`) and indexed once (hash embedder);
each run copies that index to a scratch file. The real MainWindow (offscreen, not watching) then
searches ten questions `--reps` times, as a person types one and presses Enter, waiting for each
answer and 150 ms after it. A 2 ms timer on the GUI thread records the gaps between its ticks (a
turn of the event loop that ran long shows as a long gap), and the application's `notify` records
every event that took over 6 ms and every paint of the results table. Prints the longest gaps,
how many were over 10 and 20 ms, the results table's paints per answer and their cost, the GUI
thread's CPU per search, and what the long events were. `--checkout DIR` runs another checkout's
code (the figures before a change, in the same minutes). The loaded-machine figures of the same
work are `bench/event_loop_gaps.py`'s; this one says where the turns go. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from event_loop_gaps import CHECKOUT, HERE  # importing it puts CHECKOUT's code first on the path, offscreen Qt

QUERIES = ("deploy rollback", "database migration", "release checklist", "team meeting notes", "api rate limit",
           "backup restore", "incident postmortem", "config flag", "search ranking", "memory leak")


def prepare(base: Path, count: int, seed: int) -> tuple[Path, Path]:
    from memhtml_desktop.devtools.gen_store import generate_store
    from memhtml_desktop.index.store import Store

    root, index, marker = base / "store", base / "index.db", base / ".params"
    if not marker.exists() or marker.read_text() != f"{count}:{seed}" or not index.exists():
        generate_store(root, count, seed, state=True, force=True)
        index.unlink(missing_ok=True)
        store = Store(root, index_path=index)
        store.index()
        store.close_thread_connection()
        marker.write_text(f"{count}:{seed}")
    return root, index


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=HERE / "out" / "answer-turns")
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--size", default="1400x900")
    parser.add_argument("--checkout", type=Path, help="run this checkout's code (default: this one)")
    args = parser.parse_args(argv)
    root, index = prepare(args.dir, args.count, args.seed)

    from heartbeat_bench import run_loop
    from PySide6.QtCore import QSettings, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from memhtml_desktop.index.store import Store
    from memhtml_desktop.settings import Settings
    from memhtml_desktop.ui.app import settle_gc, tune_for_gui
    from memhtml_desktop.ui.shell.main_window import MainWindow

    recording = [False]
    slow: list[tuple[float, str]] = []  # (ms, what) of every event over 6 ms
    paints: list[float] = []  # ms of each paint of the results table's viewport

    class App(QApplication):
        def notify(self, receiver, event):  # noqa: N802
            if not recording[0]:
                return super().notify(receiver, event)
            started = time.perf_counter()
            try:
                return super().notify(receiver, event)
            finally:
                took = (time.perf_counter() - started) * 1000
                kind = int(event.type())
                try:  # the event may have deleted its receiver (an animation that ended)
                    parent = receiver.parent() if kind == 12 else None
                    name = receiver.objectName() if took > 6 else ""
                except RuntimeError:
                    parent, name = None, "deleted"
                if kind == 12 and type(parent).__name__ == "ResultsTable":
                    paints.append(took)
                if took > 6:
                    slow.append((took, f"{type(receiver).__name__}({name}) event {kind}"))

    tune_for_gui()
    _app = App.instance() or App([])  # held: the application lives as long as the run
    scratch = Path(tempfile.mkdtemp(prefix="answer-turns-"))
    shutil.copy(index, scratch / "index.db")
    store = Store(root, index_path=scratch / "index.db")
    window = MainWindow(store, Settings(debounce_ms=30), watch=False,
                        qsettings=QSettings(str(scratch / "s.ini"), QSettings.Format.IniFormat))
    width, height = (int(x) for x in args.size.split("x"))
    window.resize(width, height)
    window.show()
    settle_gc()

    def idle() -> bool:
        return not window.runner.is_busy() and not window.driver.pending()

    run_loop(0, until=lambda: window.results.model.result() is not None and idle(), timeout_s=120)
    run_loop(500)
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append((now - last[0]) * 1000)
        last[0] = now

    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(2)
    timer.timeout.connect(tick)
    queries = list(QUERIES) * args.reps
    recording[0] = True
    timer.start()
    last[0] = time.perf_counter()
    cpu = time.thread_time()
    for query in queries:
        window.set_query(query)
        run_loop(0, until=lambda q=query: window.driver.answer is not None and window.driver.answer.query == q
                 and idle(), timeout_s=60)
        run_loop(150)
    cpu = time.thread_time() - cpu
    timer.stop()
    recording[0] = False
    window.shutdown()
    window.close()
    store.close_thread_connection()
    shutil.rmtree(scratch, ignore_errors=True)

    ordered = sorted(gaps, reverse=True)
    figures = {
        "checkout": str(CHECKOUT), "searches": len(queries), "size": args.size,
        "longest_gaps_ms": [round(g, 1) for g in ordered[:5]],
        "gaps_over_10": sum(g > 10 for g in gaps), "gaps_over_20": sum(g > 20 for g in gaps),
        "paints_per_answer": round(len(paints) / len(queries), 1),
        "paint_ms_per_answer": round(sum(paints) / len(queries), 1), "longest_paint_ms": round(max(paints, default=0), 1),
        "gui_cpu_ms_per_search": round(cpu * 1000 / len(queries), 1),
    }  # fmt: skip
    print(f"{len(queries)} searches at {args.size}: longest gaps {figures['longest_gaps_ms']} ms; "
          f"{figures['gaps_over_20']} gaps over 20 ms, {figures['gaps_over_10']} over 10; "
          f"results table: {figures['paints_per_answer']} paints an answer, {figures['paint_ms_per_answer']} ms "
          f"(longest {figures['longest_paint_ms']}); GUI thread {figures['gui_cpu_ms_per_search']} ms of CPU a search")
    by_kind: dict[str, list[float]] = defaultdict(list)
    for took, what in slow:
        by_kind[what].append(took)
    for what, took in sorted(by_kind.items(), key=lambda kv: -sum(kv[1]))[:6]:
        print(f"  events over 6 ms: {what}: {len(took)}, longest {max(took):.1f} ms, {sum(took):.0f} ms in all")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
