"""The window's memory after N searches typed into it: the real MainWindow, offscreen, over a
generated store, its engine process beside it.

    python bench/window_memory.py --store ROOT --index INDEX [--searches 100] [--json]

Each search is put in the field as a person's Enter puts it (`set_query(immediate=True)`) and waited
for until its answer is listed; the queries are bench/queries.txt in turn. Prints the window
process's and its engine's resident memory (VmRSS, and the peak VmHWM) before the first search and
after the last, from /proc (Linux). Issue 43 asks the window for ≤ 500 MB after 100 searches.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def status_mb(pid: int | None) -> dict[str, float]:
    """VmRSS and VmHWM of `pid` in MB (empty when it is gone or this is not Linux)."""
    out: dict[str, float] = {}
    if pid is None:
        return out
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return out
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            out[key] = round(int(value.split()[0]) / 1024, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--store", type=Path, required=True)
    p.add_argument("--index", type=Path, required=True)
    p.add_argument("--searches", type=int, default=100)
    p.add_argument("--json", action="store_true", help="one JSON line of figures at the end")
    args = p.parse_args(argv)

    from PySide6.QtCore import QCoreApplication, QSettings
    from PySide6.QtWidgets import QApplication

    from memhtml_desktop.index.store import Store
    from memhtml_desktop.settings import Settings
    from memhtml_desktop.threads import one_blas_thread
    from memhtml_desktop.ui.app import tune_for_gui
    from memhtml_desktop.ui.shell.main_window import MainWindow

    one_blas_thread()
    tune_for_gui()
    app = QApplication.instance() or QApplication([])
    queries = [q.strip() for q in (HERE / "queries.txt").read_text(encoding="utf-8").splitlines() if q.strip()]
    scratch = Path(tempfile.mkdtemp(prefix="window-memory-"))
    store = Store(args.store, index_path=args.index)
    window = MainWindow(
        store,
        Settings(debounce_ms=30),
        qsettings=QSettings(str(scratch / "s.ini"), QSettings.Format.IniFormat),
        watch=False,
    )
    window.resize(1024, 700)
    window.show()

    def wait(until, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise TimeoutError("the window did not answer in time")
            app.processEvents()
            time.sleep(0.002)

    wait(lambda: window.results.model.result() is not None and not window.runner.is_busy())
    engine = window.runner.client.pid if window.runner.client is not None else None
    before = {"window": status_mb(os.getpid()), "engine": status_mb(engine)}
    started = time.perf_counter()
    for i in range(args.searches):
        q = queries[i % len(queries)] + ("" if i < len(queries) else f" {i}")
        window.set_query(q, immediate=True)
        wait(
            lambda q=q: (
                (r := window.results.model.result()) is not None and r.query == q and not window.runner.is_busy()
            )
        )
    seconds = time.perf_counter() - started
    for _ in range(20):
        app.processEvents()
    after = {"window": status_mb(os.getpid()), "engine": status_mb(engine)}
    print(f"{args.searches} searches in {seconds:.1f} s (load {os.getloadavg()[0]:.1f}); engine pid {engine}")
    for who in ("window", "engine"):
        print(f"  {who:6s} before {before[who]}  after {after[who]}")
    window.close()
    window.shutdown()
    QCoreApplication.processEvents()
    if args.json:
        print(json.dumps({"searches": args.searches, "seconds": round(seconds, 2), "before": before, "after": after}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
