"""`memhtml-desktop watch`: one line (or one JSON object) per batch on stdout, clean exit on SIGTERM."""

from __future__ import annotations

import io
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memhtml_desktop.watch.headless import run_headless

from .conftest import live_threads, wait_until, write

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(
    r"^\S+Z (batch|reconcile): added (\d+), changed (\d+), moved (\d+), removed (\d+), failed (\d+) "
    r"in (\d+) ms$"
)


class Lines:
    """A pipe read line by line on a thread, so the test can wait with a deadline."""

    def __init__(self, stream) -> None:
        self.queue: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self.thread.start()

    def _pump(self, stream) -> None:
        for line in stream:
            self.queue.put(line.rstrip("\n"))

    def next_matching(self, predicate, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no matching line within {timeout:g} s; saw {self.seen}")
            try:
                line = self.queue.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(line)
            if predicate(line):
                return line


def _spawn(store_root: Path, index: Path, *flags: str) -> subprocess.Popen:
    env = dict(os.environ, MEMHTML_DESKTOP_NO_USER_CONFIG="1", PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "memhtml_desktop", "watch", "--store", str(store_root), "--index", str(index), *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(ROOT),
    )


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_headless_command_prints_batches_and_stops_on_sigterm(store_root, tmp_path, as_json):
    write(store_root, "areas/a.html", "Alpha", "The albatross nests on the cliff.")
    proc = _spawn(store_root, tmp_path / "index.db", *(["--json"] if as_json else []))
    try:
        out, err = Lines(proc.stdout), Lines(proc.stderr)
        err.next_matching(lambda line: line.endswith(": live"))
        write(store_root, "areas/b.html", "Beta", "The barnacle clings to the hull.")
        if as_json:
            first = json.loads(out.next_matching(lambda line: '"kind":"reconcile"' in line))
            assert first["added"] == 1
            batch = json.loads(out.next_matching(lambda line: '"kind":"batch"' in line))
            assert {k: batch[k] for k in ("added", "changed", "moved", "removed", "failed")} == {
                "added": 1,
                "changed": 0,
                "moved": 0,
                "removed": 0,
                "failed": 0,
            }
            assert batch["ms"] >= 0 and batch["finished_at"].endswith("Z")
        else:
            line = out.next_matching(lambda line: " batch: " in line)
            match = LINE.match(line)
            assert match, line
            assert match.groups()[1:6] == ("1", "0", "0", "0", "0")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert all(LINE.match(line) or line.startswith("{") for line in out.seen)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_run_headless_in_process_stops_on_request(store_root, make_store, threads_before):
    write(store_root, "areas/a.html", "Alpha", "The albatross nests on the cliff.")
    store = make_store(store_root)
    out, err = io.StringIO(), io.StringIO()
    stop = threading.Event()
    code: list[int] = []
    runner = threading.Thread(
        target=lambda: code.append(run_headless(store, as_json=False, out=out, err=err, stop=stop))
    )
    runner.start()
    wait_until(lambda: "reconcile: added 1" in out.getvalue(), 20, what="the start-up batch line")
    stop.set()
    runner.join(20)
    assert code == [0]
    wait_until(lambda: live_threads() <= threads_before, 10, what="every watcher thread to end")
    assert LINE.match(out.getvalue().splitlines()[0])
    assert ": live" in err.getvalue() and ": stopped (watching was stopped)" in err.getvalue()
