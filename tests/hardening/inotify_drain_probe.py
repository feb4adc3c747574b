"""Run inside a fresh user namespace: a `watch` process, then a second process that drains the watches.

    unshare -U --map-user=0 --map-group=0 python inotify_drain_probe.py STORE INDEX SCRATCH LIMIT

Sets this namespace's inotify watch limit to LIMIT (`/proc/sys/user/max_inotify_watches`: the
namespace's own, so nothing else on the machine is touched), starts `memhtml-desktop watch --json`,
waits until it is live, starts `inotify_drainer.py`, which takes every watch left, then changes the
store: a new folder with a memory written after the folder (no watch can be added for it), an
edit in an old folder, and a second memory in the new folder a few seconds later (after the
health check that follows a burst, well before the 60 s audit). Prints one JSON line:
what the drainer took, the watcher's stderr (its mode lines), how long until each change reached
the index, and the watcher's exit code.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import apsw

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]
from memfiles import write_memory  # noqa: E402


def indexed(index: Path, path: str, needle: str | None = None) -> bool:
    conn = apsw.Connection(f"file:{index}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        conn.set_busy_timeout(2000)
        row = conn.execute("SELECT body_text FROM files WHERE path = ?", (path,)).fetchone()
    except apsw.Error:
        return False
    finally:
        conn.close()
    return row is not None and (needle is None or needle in row[0])


def wait_for(check, timeout: float) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if check():
            return round(time.monotonic() - started, 2)
        time.sleep(0.1)
    return None


def main(store: str, index: str, scratch: str, limit: int) -> None:
    Path("/proc/sys/user/max_inotify_watches").write_text(f"{limit}\n")
    root, index_path = Path(store), Path(index)
    watcher = subprocess.Popen(
        [sys.executable, "-m", "memhtml_desktop", "watch", "--json", "--store", store, "--index", index],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    err_lines: list[str] = []
    live = threading.Event()

    def read_err() -> None:
        for line in watcher.stderr:
            err_lines.append(line.rstrip("\n"))
            if ": live" in line:
                live.set()

    threading.Thread(target=read_err, daemon=True).start()
    threading.Thread(target=lambda: [None for _ in watcher.stdout], daemon=True).start()
    out: dict = {"limit": limit}
    drainer = None
    try:
        out["live"] = live.wait(60)
        time.sleep(1.0)  # the start-up reconciliation's batch
        drainer = subprocess.Popen(
            [sys.executable, str(HERE / "inotify_drainer.py"), scratch],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        out["drainer"] = drainer.stdout.readline().strip()
        (root / "areas" / "after-drain").mkdir()
        time.sleep(0.5)  # the folder exists, unwatched, before anything is written in it
        write_memory(
            root,
            "areas/after-drain/first.html",
            title="First after drain",
            claim="Written into a folder that got no watch.",
        )
        old = next(p for p in sorted((root / "areas").rglob("*.html")) if "after-drain" not in str(p))
        old_path = old.relative_to(root).as_posix()
        old.write_bytes(old.read_bytes().replace(b"</article>", b"<p>edited after the drain</p></article>", 1))
        out["first_s"] = wait_for(lambda: indexed(index_path, "areas/after-drain/first.html"), 60)
        out["edit_s"] = wait_for(lambda: indexed(index_path, old_path, "edited after the drain"), 60)
        time.sleep(3.0)  # past the after-burst health check: only the watcher's own mode can see this one
        write_memory(
            root,
            "areas/after-drain/second.html",
            title="Second after drain",
            claim="Written later into the unwatched folder.",
        )
        out["second_s"] = wait_for(lambda: indexed(index_path, "areas/after-drain/second.html"), 30)
    finally:
        if drainer is not None:
            drainer.stdin.close()
            drainer.wait(timeout=30)
        watcher.send_signal(signal.SIGINT)
        try:
            out["watcher_exit"] = watcher.wait(timeout=60)
        except subprocess.TimeoutExpired:
            watcher.kill()
            out["watcher_exit"] = "killed"
        time.sleep(0.2)
        out["watcher_stderr"] = err_lines
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
