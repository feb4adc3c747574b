"""The window's own process holds Qt and answers, nothing else (issue 42): over a real demo store it
searches, opens a memory (a read, bumped) and shows the recall pack, while opening no SQLite
connection and running no parse, projection or embedding — all of that is the engine's, in
another process. Run in a child so the count starts at zero (this test process has stores open)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_the_windows_process_opens_no_connection_and_parses_or_embeds_nothing(tmp_path):
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "MEMHTML_DESKTOP_SETTINGS": str(tmp_path / "s.ini"),
        "MEMHTML_DESKTOP_CACHE": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "TMPDIR": str(tmp_path),
    }
    proc = subprocess.run(
        [sys.executable, str(HERE / "window_process_probe.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=str(HERE.parents[1]),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    said = json.loads(proc.stdout.strip().splitlines()[-1])
    assert said["first"] and said["searched"] and said["opened"] and said["recalled"] and said["idle"], said
    assert said["engine_pid"] not in (None, os.getpid())
    assert said["connections"] == [], said["connections"]
    assert said["calls"] == [], said["calls"]


def test_the_probe_sees_a_connection_and_a_parse_made_in_its_process(tmp_path):
    """The probe can fail: the same hooks, with a Store opened and indexed in the probe's own process."""
    code = (
        f"import sys; sys.argv = ['probe']; sys.path.insert(0, {str(HERE)!r})\n"
        "import window_process_probe as p\n"
        "sys.setprofile(p.profile)\n"
        "from memhtml_desktop.index.store import Store\n"
        "from memhtml_desktop.ui.app import copy_demo_store\n"
        f"root = copy_demo_store(__import__('pathlib').Path({str(tmp_path / 'demo')!r}))\n"
        f"s = Store(root, index_path={str(tmp_path / 'i.db')!r}); s.index(); s.close_thread_connection()\n"
        "sys.setprofile(None)\n"
        "print(len(p.Recorded.opened), sorted(set(p.called)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    count, calls = proc.stdout.strip().split(" ", 1)
    assert int(count) >= 1 and "project" in calls and "embed" in calls
