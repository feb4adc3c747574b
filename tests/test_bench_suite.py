"""The benchmark suite runs (bench/suite.py, tiny sizes): every case that has a tiny size measures
both of its sides and says so in one line, the results are kept per commit, and docs/benchmarks.md's
table is generated from them. Timings are not judged here (speed is measured by the suite, never by
a test); this only keeps the runner from rotting."""

from __future__ import annotations

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
