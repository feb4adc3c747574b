"""A very large memory in the reader, in `expand` and in the Problems list (issue 41, item 8).

    QT_QPA_PLATFORM=offscreen python bench/large_memory_bench.py [--mb 5] [--rounds 3] [--json FILE]

Writes a store of 20 ordinary memories and one of `--mb` megabytes (paragraphs of prose, one
fact per paragraph: the shape an agent pasting a log or a transcript produces), indexes it (hash
embedder), then:

- `expand`: the characters it returns for the large memory, and whether the Problems list
  (`Store.problems`, what `doctor` prints) warns about its size;
- the reader, in a real offscreen window: the time from asking for the memory to the article laid
  out (`reader.state() == "detail"` after a processed event loop), and the longest the GUI thread
  went without running a 5 ms heartbeat meanwhile (a stall a person feels as a frozen window).
  Each round opens an ordinary memory first, then the large one.

Run it on the code before and after a change in one interleaved session (`farm-bench` does A B A
B) on a shared machine: the ratio is what to read, not the absolute times.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

LARGE = "areas/logs/a-pasted-incident-transcript.html"
SMALL = "areas/oncall/memory-3.html"
WORDS = (
    "deploy rollback drain vip canary replica lag pool connection invoice compactor interval "
    "retry webhook timeout token clock drift migration lock terraform state provider"
).split()


def page(title: str, claim: str, paragraphs: list[str]) -> str:
    from tests.memfiles import memory_html

    return memory_html(
        title=title, claim=claim, memory_type="episodic", article_extra="\n".join(f"<p>{p}</p>" for p in paragraphs)
    )


def write_store(root: Path, mb: float) -> None:
    for i in range(20):
        target = root / f"areas/oncall/memory-{i}.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            page(
                f"Memory {i} about {WORDS[i]}",
                f"The {WORDS[i]} rule number {i} holds.",
                [f"Paragraph about {WORDS[i]} and {WORDS[(i + 1) % len(WORDS)]}."],
            ),
            encoding="utf-8",
        )
    paragraphs, size, n = [], 0, 0
    while size < mb * 1_000_000:
        text = " ".join(WORDS[(n * 7 + j) % len(WORDS)] for j in range(60)) + f" (line {n})."
        paragraphs.append(text)
        size += len(text) + 8
        n += 1
    target = root / LARGE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        page("A pasted incident transcript", "The incident transcript was pasted whole.", paragraphs), encoding="utf-8"
    )


def open_in_window(window, app, path: str) -> tuple[float, float]:
    from PySide6.QtCore import QElapsedTimer, QTimer

    gaps = [0.0]
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]

    def beat() -> None:
        now = clock.elapsed()
        gaps[0] = max(gaps[0], now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(beat)
    timer.start()
    started = time.perf_counter()
    window.open_memory(path, bump=False)
    while not (window.reader.state() == "detail" and window.reader.current_path() == path):
        app.processEvents()
        time.sleep(0.001)
        if time.perf_counter() - started > 120:
            raise TimeoutError(path)
    app.processEvents()
    opened = time.perf_counter() - started
    timer.stop()
    return opened, gaps[0] / 1000.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    from PySide6.QtWidgets import QApplication

    from memhtml_desktop.domain.hash_embedder import HashEmbedder
    from memhtml_desktop.index.store import Store
    from memhtml_desktop.settings import Settings
    from memhtml_desktop.ui.app import ensure_app
    from memhtml_desktop.ui.shell.main_window import MainWindow

    work = Path(tempfile.mkdtemp(prefix="memhtml-large-"))
    root = work / "store"
    write_store(root, args.mb)
    size = (root / LARGE).stat().st_size
    store = Store(root, index_path=work / "index.db", embedder=HashEmbedder())
    store.index()
    expanded = store.expand(LARGE)
    warned = [w for p in store.problems() if p.path == LARGE for w in (*p.violations, *p.warnings)]
    print(
        f"a {size / 1_000_000:.2f} MB memory: expand returns {len(expanded.text):,} characters; "
        f"Problems: {warned or 'no warning'}",
        flush=True,
    )
    app = ensure_app()
    window = MainWindow(store, Settings(debounce_ms=0), watch=False)
    window.resize(1400, 900)
    window.show()
    while window.runner.is_busy() or window.results.model.result() is None:
        app.processEvents()
        time.sleep(0.005)
    rounds = []
    for n in range(args.rounds):
        small = open_in_window(window, app, SMALL)
        large = open_in_window(window, app, LARGE)
        rounds.append(
            {
                "small_s": round(small[0], 3),
                "small_stall_s": round(small[1], 3),
                "large_s": round(large[0], 3),
                "large_stall_s": round(large[1], 3),
            }
        )
        print(
            f"round {n + 1}: ordinary memory {small[0]:.3f} s (longest GUI stall {small[1]:.3f} s); "
            f"the large one {large[0]:.3f} s (longest GUI stall {large[1]:.3f} s)",
            flush=True,
        )
    shown = window.reader.article.document().characterCount()
    window.shutdown()
    store.close_thread_connection()
    QApplication.processEvents()
    out = {
        "file_bytes": size,
        "expand_chars": len(expanded.text),
        "problems": warned,
        "reader_chars": shown,
        "rounds": rounds,
        "large_s_best": min(r["large_s"] for r in rounds),
        "large_stall_s_best": min(r["large_stall_s"] for r in rounds),
    }
    print(json.dumps(out))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
