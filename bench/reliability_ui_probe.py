"""Is the window responsive while searches over a large store run on its worker? Prints one JSON line.

    python bench/reliability_ui_probe.py STORE INDEX [QUERY ...]

Opens the real MainWindow (offscreen, not watching) over an ALREADY indexed store, waits for its
first answers, then measures the GUI event loop with a 10 ms QTimer while each query is typed into
the window (debounced, run by the window's Runner on its thread pool) and the first hit is opened in
the reader. The longest gap between two ticks is the longest time the window could not repaint or
take input. Plain QApplication code: no pytest-qt.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MEMHTML_DESKTOP_NO_USER_CONFIG", "1")

QUERIES = ("deploy rollback", "drain the vip before reverting", "invoice", "oncall pager sev3", '"runbook" tier')


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from memhtml_desktop.index.store import Store
    from memhtml_desktop.settings import Settings
    from memhtml_desktop.ui.app import guard_none_refcount, settle_gc, tune_for_gui
    from memhtml_desktop.ui.shell.main_window import MainWindow

    store_dir, index = argv[0], argv[1]
    queries = tuple(argv[2:]) or QUERIES
    guard_none_refcount()
    tune_for_gui()
    app = QApplication.instance() or QApplication([])
    scratch = Path(tempfile.mkdtemp(prefix="memhtml-ui-probe-"))
    qsettings = QSettings(str(scratch / "window.ini"), QSettings.Format.IniFormat)
    store = Store(store_dir, index_path=index)

    def pump_until(condition, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            app.processEvents()
            if condition():
                return True
            time.sleep(0.002)
        return condition()

    started = time.perf_counter()
    window = MainWindow(store, Settings(debounce_ms=150), qsettings=qsettings, watch=False)
    window.resize(1300, 800)
    window.show()
    first = pump_until(lambda: window.results.model.result() is not None and not window.runner.is_busy(), 300)
    open_s = time.perf_counter() - started
    settle_gc()

    gaps: list[float] = []
    last = [time.perf_counter()]
    phase = ["idle"]
    worst: dict[str, float] = {}

    def tick() -> None:
        now = time.perf_counter()
        gap = (now - last[0]) * 1000
        gaps.append(gap)
        worst[phase[0]] = max(worst.get(phase[0], 0.0), round(gap, 1))
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    last[0] = time.perf_counter()
    timer.start()
    shown: list = []
    window.memory_shown.connect(shown.append)
    searches = []
    for query in queries:
        t0 = time.perf_counter()
        phase[0] = "typing"
        for i in range(1, len(query) + 1):  # typed, one character per 30 ms: the debounce restarts
            window.set_query(query[:i], immediate=False)
            pump_until(lambda: False, 0.03)
        phase[0] = "search running"
        ok = pump_until(
            lambda: (
                window.results.model.result() is not None
                and window.results.model.result().query == query
                and not window.runner.is_busy("search")
            ),
            120,
        )
        result = window.results.model.result()
        entry = {
            "query": query,
            "ok": ok,
            "typed_to_results_ms": round((time.perf_counter() - t0) * 1000, 1),
            "engine_ms": round(result.elapsed_ms, 1) if result is not None else None,
            "hits": len(result.hits) if result is not None else 0,
        }
        if ok and result.hits:
            before = len(shown)
            phase[0] = "opening a memory"
            t1 = time.perf_counter()
            window.open_memory(result.hits[0].path)
            entry["open_ok"] = pump_until(lambda: len(shown) > before, 60)
            entry["open_ms"] = round((time.perf_counter() - t1) * 1000, 1)
        searches.append(entry)
        phase[0] = "idle"
    timer.stop()
    window.shutdown()
    shutil.rmtree(scratch, ignore_errors=True)
    ordered = sorted(gaps)
    print(
        json.dumps(
            {
                "first_answers": first,
                "window_open_s": round(open_s, 2),
                "ticks": len(gaps),
                "max_gap_ms": round(max(gaps), 1) if gaps else None,
                "p99_gap_ms": round(ordered[int(len(ordered) * 0.99)], 1) if gaps else None,
                "gaps_over_50ms": sum(g > 50 for g in gaps),
                "gaps_over_100ms": sum(g > 100 for g in gaps),
                "max_gap_ms_by_phase": worst,
                "searches": searches,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
