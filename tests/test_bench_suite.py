"""The benchmark suite runs (bench/suite.py, tiny sizes): every case that has a tiny size measures
both of its sides and says so in one line, the results are kept per commit, and docs/benchmarks.md's
table is generated from them. Timings are not judged here (speed is measured by the suite, never by
a test); this only keeps the runner from rotting."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture
def suite(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    import suite as module

    return module


def test_every_tiny_case_measures_both_sides(suite, tmp_path):
    results = suite.run(None, "tiny", 1, tmp_path / "work", save=False)
    from suite_cases import CASES

    assert {r["case"] for r in results} == {c.name for c in CASES if "tiny" in c.sizes}
    for r in results:
        assert "error" not in r, r
        assert r["headline"] and r["ours_text"] and r["other_text"], r
        assert r["ratio"] is None or r["ratio"] > 0
        assert r["load_before"] and r["load_after"]


def test_results_are_kept_per_commit_and_make_the_table(suite, tmp_path):
    results = [
        {
            "case": "cli_help",
            "size": "standard",
            "headline": "h",
            "ours_text": "median 120.0 ms",
            "other_text": "median 20.0 ms",
            "ratio": 6.0,
            "met": True,
            "load_before": "0.1",
            "load_after": "0.2",
        }
    ]
    path = suite.record(results, "abc1234567", False, tmp_path)
    again = suite.record([dict(results[0], ours_text="median 110.0 ms")], "abc1234567", False, tmp_path)
    assert path == again and path.name == "abc1234567.json"
    kept = json.loads(path.read_text())["results"]
    assert [r["ours_text"] for r in kept] == ["median 110.0 ms"]  # one entry per case and size, the newest
    doc = tmp_path / "benchmarks.md"
    doc.write_text(f"# B\n\n{suite.BEGIN}\nOLD-TABLE-ROW\n{suite.END}\n\nmethod\n")
    suite.write_table(doc, tmp_path)
    text = doc.read_text()
    assert "| `cli_help` |" in text and "median 110.0 ms" in text and "6.00×" in text and "OLD-TABLE-ROW" not in text
    assert "| `search_20k` |" in text and "not yet measured" in text
    assert text.endswith("method\n")


@pytest.mark.parametrize("script", sorted(p.name for p in BENCH.glob("*.py") if not p.name.startswith("_")))
def test_every_bench_script_answers_help(script):
    out = subprocess.run([sys.executable, str(BENCH / script), "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]


def test_the_gap_bench_load_dies_with_the_bench(tmp_path):
    """event_loop_gaps.py's busy processes (`--load`) end when the bench is killed: before, a kill -9
    of the bench left them spinning on both cores, and every later figure of the machine paid them."""
    import os
    import signal
    import time

    pids = tmp_path / "pids"
    bench = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            f"sys.path.insert(0, {str(BENCH)!r})\n"
            "import event_loop_gaps\n"
            "load = event_loop_gaps.start_load(1, niced=1, nice=5)\n"
            f"open({str(pids)!r}, 'w').write(' '.join(str(p.pid) for p in load))\n"
            "time.sleep(60)\n",
        ]
    )
    try:
        deadline = time.monotonic() + 30
        while not (pids.exists() and pids.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        load = [int(p) for p in pids.read_text().split()]
        assert len(load) == 2
        time.sleep(0.5)  # each has set its death signal
        assert all(Path(f"/proc/{p}").exists() for p in load)
        os.kill(bench.pid, signal.SIGKILL)
        bench.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(p) for p in load):
            time.sleep(0.05)
        assert not any(_alive(p) for p in load)
    finally:
        bench.kill()
        for pid in [int(p) for p in pids.read_text().split()] if pids.exists() else []:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # the old load, when this fails, spins no longer


def _alive(pid: int) -> bool:
    """Running and not a zombie (the dead load's parent, init, reaps it in its own time)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False
