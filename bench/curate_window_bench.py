"""Curation in the real window on a large store: "Archive" to the list updating, and the conflicts
scan in the background with the event loop's longest gap.

    python bench/curate_window_bench.py --generate 20000 [--dir DIR] [--rounds 5] [--seed 7] [--no-watch]

The real MainWindow, offscreen, over a generated git store (watching on, as a person runs it). Per
round: search for a memory by its title until it is listed, open it, open Archive…, type a
reason, wait for the preview (the plan) and for the window to be quiet, then CLICK "Archive" and
time until the list no longer shows the memory (the search the write's StoreChange triggered has
answered); the write alone (the written signal: commit, reindex, vector snapshot) is timed too.
The store's one background integrity check is postponed out of the rounds. Then the conflicts view: open it, scan the whole store in the
background, and time it from the click to the pairs listed, while a 5 ms timer on the GUI thread
records the event loop's longest gap (the window's responsiveness during the scan; 5 ms is the
floor). Load averages before and after are printed: the machine may be shared.

Ends with one JSON line of figures in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from memhtml_desktop.devtools.gen_store import generate_store, git_commit  # noqa: E402


class Loop:
    """Runs the real event loop until a condition holds, recording the longest gap between ticks."""

    def __init__(self, app) -> None:
        from PySide6.QtCore import QTimer

        self.app = app
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.last = time.perf_counter()
        self.gaps: list[float] = []
        self.until = None
        self.loop = None

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append((now - self.last) * 1000)
        self.at.append((now - self.started) * 1000)
        self.last = now
        if self.until is not None and self.until():
            self.loop.quit()

    def worst(self, n: int = 3) -> str:
        """The longest gaps and when they ended (ms after the run began)."""
        top = sorted(zip(self.gaps, self.at), reverse=True)[:n]
        return ", ".join(f"{gap:.0f} ms at {at:.0f}" for gap, at in top)

    def run(self, until, timeout: float = 120.0) -> bool:
        from PySide6.QtCore import QEventLoop, QTimer

        self.loop = QEventLoop()
        self.until = until
        self.gaps, self.at = [], []
        self.last = self.started = time.perf_counter()
        QTimer.singleShot(int(timeout * 1000), self.loop.quit)
        self.timer.start()
        self.loop.exec()
        self.timer.stop()
        return bool(until())


def summary(values: list[float]) -> dict:
    if not values:  # a part left out (--scans 0)
        return {"n": 0}
    return {"best": round(min(values), 1), "median": round(statistics.median(values), 1),
            "worst": round(max(values), 1), "n": len(values)}  # fmt: skip


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generate", type=int, default=20000, metavar="N")
    parser.add_argument("--dir", type=Path, help="where to generate (reused when it exists; gets commits)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scans", type=int, default=3)
    parser.add_argument("--no-watch", action="store_true", help="run the window without its watcher")
    parser.add_argument("--trace", action="store_true", help="print when each job kind starts and ends in a round")
    args = parser.parse_args(argv)
    for key, value in (("GIT_AUTHOR_NAME", "curate bench"), ("GIT_AUTHOR_EMAIL", "bench@example.invalid"),
                       ("GIT_COMMITTER_NAME", "curate bench"), ("GIT_COMMITTER_EMAIL", "bench@example.invalid")):
        os.environ.setdefault(key, value)
    root = args.dir or Path(tempfile.gettempdir()) / f"memhtml-curate-bench-{args.generate}-{args.seed}"
    if not (root / ".git").exists():
        generate_store(root, args.generate, args.seed, state=True, force=True)
        git_commit(root)
    print(f"load before: {load()}")

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from memhtml_desktop.index.store import Store
    from memhtml_desktop.settings import Settings
    from memhtml_desktop.ui.app import settle_gc, tune_for_gui
    from memhtml_desktop.ui.shell.main_window import MainWindow

    import memhtml_desktop.ui.shell.main_window as main_window

    # The one integrity check an opened store gets (20 s after opening, a full read of the index)
    # is kept out of the timed rounds; it no longer delays a write (curation has its own pool).
    main_window.VERIFY_AFTER_MS = 3_600_000
    tune_for_gui()
    app = QApplication.instance() or QApplication([])
    store = Store(root)
    started = time.perf_counter()
    report = store.index()
    print(f"store {root}: {report.seen} files, index pass {time.perf_counter() - started:.1f} s")
    scratch = Path(tempfile.mkdtemp(prefix="memhtml-curate-bench-"))
    window = MainWindow(store, Settings(debounce_ms=30), qsettings=QSettings(str(scratch / "s.ini"), QSettings.Format.IniFormat),
                        watch=not args.no_watch)  # fmt: skip
    window.resize(1400, 900)
    window.show()
    loop = Loop(app)
    loop.run(lambda: window.results.model.result() is not None and not window.runner.is_busy(), 60)
    settle_gc()  # as the app does once it is up (ui/app.py)
    curate = window.controllers["curate"]
    rng = random.Random(args.seed)
    rows = store.reader().execute(
        "SELECT path, title FROM files WHERE archived = 0 AND memory_type <> 'task' ORDER BY path").fetchall()
    rng.shuffle(rows)

    def hits() -> list[str]:
        result = window.results.model.result()
        return [h.path for h in result.hits] if result is not None else []

    events: list[tuple[float, str]] = []
    if args.trace:
        window.runner.busy_changed.connect(lambda kind, busy: events.append((time.perf_counter(), f"{kind}{'+' if busy else '-'}")))
        window.store_changed.connect(lambda change: events.append((time.perf_counter(), f"change{sorted(change.paths)[:1]}")))
    to_list, to_commit, preview = [], [], []
    archive_gaps: list[float] = []
    for path, title in rows:
        if len(to_list) >= args.rounds:
            break
        window.set_query(title)
        if not loop.run(lambda: path in hits() and not window.runner.is_busy("search"), 20):
            continue  # not on the first page for its own title: pick another
        window.open_memory(path, bump=False)
        loop.run(lambda: window.reader.current_path() == path and window.reader.state() == "detail", 20)
        opened: list = []
        curate.dialog_opened.connect(opened.append)
        curate.archive(path, title)
        loop.run(lambda: bool(opened), 20)
        curate.dialog_opened.disconnect(opened.append)
        dialog = opened[0]
        typed = time.perf_counter()
        dialog.reason.setText("bench: retired")
        if not loop.run(lambda: dialog.confirm_button.isEnabled() or dialog.message_kind() == "error", 30):
            print(f"no preview for {path}: {dialog.message.text()}")
            continue
        if not dialog.confirm_button.isEnabled():
            print(f"refused {path}: {dialog.message.text()}")
            dialog.reject()
            continue
        preview.append((time.perf_counter() - typed) * 1000 - 250)  # less the typing debounce
        written: list = []
        curate.written.connect(written.append)
        loop.run(lambda: not window.runner.is_busy(), 60)  # a person's pace: the window is quiet
        events.clear()
        clicked = time.perf_counter()
        dialog.confirm_button.click()
        loop.run(lambda: bool(written), 30)
        committed = time.perf_counter()
        loop.run(lambda: path not in hits() and not window.runner.is_busy("search"), 30)
        listed = time.perf_counter()
        curate.written.disconnect(written.append)
        archive_gaps.append(max(loop.gaps, default=0.0))
        to_commit.append((committed - clicked) * 1000)
        to_list.append((listed - clicked) * 1000)
        print(f"archive {path}: commit {to_commit[-1]:.0f} ms, list updated {to_list[-1]:.0f} ms after the click")
        if args.trace:
            print("   " + " ".join(f"{(t - clicked) * 1000:.0f}:{what}" for t, what in events))

    conflicts = window.controllers["conflicts"]
    scans, gaps, p99s, pairs = [], [], [], 0
    for i in range(args.scans):
        loop.run(lambda: not window.runner.is_busy() and not window.driver.pending(), 30)  # a quiet window first
        reports: list = []
        conflicts.scanned.connect(reports.append)
        clicked = time.perf_counter()
        if i == 0:
            conflicts.show()  # the first scan starts when the view opens
        else:
            conflicts.window.scan_button.click()
        loop.run(lambda: bool(reports), 120)
        scans.append((time.perf_counter() - clicked) * 1000)
        conflicts.scanned.disconnect(reports.append)
        ordered = sorted(loop.gaps)
        gaps.append(ordered[-1] if ordered else 0.0)
        p99s.append(ordered[int(len(ordered) * 0.99)] if ordered else 0.0)
        pairs = len(reports[0].pairs)
        print(f"conflicts scan {scans[-1]:.0f} ms ({pairs} pairs over {reports[0].compared} memories); "
              f"event loop: longest gap {gaps[-1]:.0f} ms, p99 {p99s[-1]:.0f} ms; worst: {loop.worst()}")
    window.shutdown()
    window.close()
    store.close_thread_connection()
    print(f"load after: {load()}")
    figures = {
        "memories": report.seen, "watch": not args.no_watch,
        "archive_click_to_list": summary(to_list), "archive_click_to_commit": summary(to_commit),
        "archive_preview": summary(preview), "archive_longest_gap": summary(archive_gaps),
        "conflicts_scan": summary(scans), "conflicts_longest_gap": summary(gaps), "conflicts_gap_p99": summary(p99s),
        "pairs": pairs if args.scans else None,
    }  # fmt: skip
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
