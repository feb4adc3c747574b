"""The soak's short version (bench/soak.py, issue 40): the real window over a real git store, its
engine and live watcher, a second writer committing meanwhile, 200 user actions — and the rule that
judges a long soak, shown to fail on a crash, a leak and a stale index."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memhtml_desktop.devtools.gen_store import generate_store, git_commit

BENCH = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


def _soak_module():
    spec = importlib.util.spec_from_file_location("soak_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


soak = _soak_module()


@pytest.fixture
def soak_store(tmp_path):
    root = tmp_path / "store"
    generate_store(root, 160, 11, invalid=0)
    git_commit(root)
    return root


def _run(store: Path, tmp_path: Path, *extra: str, timeout: float = 400) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path / "soak.json"
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "TMPDIR": str(tmp_path),
        "MEMHTML_DESKTOP_CACHE": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--store",
            str(store),
            "--index",
            str(tmp_path / "index.db"),
            "--commit-every",
            "1",
            "--out",
            str(out),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    return proc, (json.loads(out.read_text()) if out.exists() else {})


def test_a_short_soak_of_the_real_window_holds_and_stays_fresh(soak_store, tmp_path):
    proc, run = _run(soak_store, tmp_path, "--actions", "120", "--sample-every", "12", "--probe-every", "30")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "soak held: 120 actions" in proc.stdout
    counts, verdict = run["counts"], run["verdict"]
    assert counts["done"] == 120 and counts["timeouts"] == 0 and not counts["error"]
    assert all(counts[kind] > 0 for kind, _ in soak.WEIGHTS), counts  # every kind of action was made
    assert counts["shown"] >= counts["open"] and counts["commits"] >= 3  # the opens read; the other writer wrote
    fresh = verdict["freshness"]
    assert fresh["probes"] == 4 and fresh["found"] == 4 and fresh["max_s"] <= soak.FRESH_LIMIT_S, run["probes"]
    assert len(run["samples"]) == 11 and {s["engine_pid"] for s in run["samples"]} == {run["samples"][0]["engine_pid"]}
    assert all(s["window_fds"] and s["engine_fds"] and s["ref_true"] for s in run["samples"])


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="True is immortal: its count never moves")
def test_the_soak_fails_when_the_window_loses_references_to_true(soak_store, tmp_path):
    proc, run = _run(
        soak_store,
        tmp_path,
        "--actions",
        "60",
        "--sample-every",
        "10",
        "--probe-every",
        "1000",
        "--inject",
        "true-leak",
    )
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "SOAK FAILED: ref_true falls without bound" in proc.stdout
    assert run["verdict"]["trends"]["ref_true"]["falls"]


def test_the_soak_fails_on_an_abort_of_the_window_and_says_so(soak_store, tmp_path):
    proc, _ = _run(
        soak_store, tmp_path, "--actions", "40", "--sample-every", "10", "--probe-every", "1000", "--inject", "abort"
    )
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "SOAK FAILED: the window's process did not finish: killed by SIGABRT (an abort)" in proc.stdout


# -- the rule alone, over made-up samples --------------------------------------------------------


def _samples(n: int, every: int = 100, **series) -> list[dict]:
    base = {
        "window_rss_mb": lambda a: 300.0,
        "engine_rss_mb": lambda a: 400.0,
        "gc_objects": lambda a: 500_000,
        "window_fds": lambda a: 14,
        "engine_fds": lambda a: 25,
        "window_threads": lambda a: 5,
        "engine_threads": lambda a: 11,
        "engine_children": lambda a: 0,
        "ref_true": lambda a: 9_000,
        "ref_false": lambda a: 7_000,
        "ref_none": lambda a: 40_000,
        "gap_p99_ms": lambda a: 40.0,
    }
    base.update(series)
    return [{"action": a, "engine_pid": 7, **{k: f(a) for k, f in base.items()}} for a in range(0, n + 1, every)]


FINISHED = {"done": 10_000, "timeouts": 0, "error": ""}


def test_the_rule_holds_flat_series_and_a_warm_up_that_levels_off():
    samples = _samples(
        10_000, window_rss_mb=lambda a: 200 + min(a, 1_000) / 10, window_fds=lambda a: 14 + a % 300 // 100
    )
    verdict = soak.judge(samples, [{"path": "p", "latency_s": 1.2}], 10_000, FINISHED, "")
    assert verdict["held"], verdict["reasons"]


@pytest.mark.parametrize(
    ("name", "series", "said"),
    [
        ("window_rss_mb", lambda a: 250 + a / 250, "window_rss_mb grows without bound"),  # 4 MB per 1,000 actions
        ("engine_fds", lambda a: 25 + a // 500, "engine_fds grows without bound"),
        ("window_threads", lambda a: 5 + a // 1000, "window_threads grows without bound"),
        ("ref_true", lambda a: 9_000 - a // 2, "ref_true falls without bound"),  # PySide6 6.12.0: True runs out
        ("gc_objects", lambda a: 500_000 + a * 10, "gc_objects grows without bound"),
    ],
)
def test_the_rule_fails_a_metric_that_keeps_growing(name, series, said):
    verdict = soak.judge(_samples(10_000, **{name: series}), [], 10_000, FINISHED, "")
    assert not verdict["held"] and any(r.startswith(said) for r in verdict["reasons"]), verdict["reasons"]


def test_a_rising_singleton_count_is_said_not_failed_and_a_stale_probe_fails():
    verdict = soak.judge(_samples(10_000, ref_none=lambda a: 40_000 + a * 300), [], 10_000, FINISHED, "")
    assert verdict["held"] and any(f.startswith("ref_none rises") for f in verdict["findings"])
    stale = soak.judge(_samples(10_000), [{"path": "areas/x.html", "latency_s": None}], 10_000, FINISHED, "")
    assert not stale["held"] and "was not found" in stale["reasons"][0]
    replaced = _samples(10_000)
    replaced[-1]["engine_pid"] = 8
    assert any("engine was replaced" in r for r in soak.judge(replaced, [], 10_000, FINISHED, "")["reasons"])


def test_rss_growth_after_1000_is_judged_on_levels_not_on_one_sample():
    """The engine's RSS swings with its work (270-370 MB at 20,000 memories): a low sample at action
    1,000 and a high last one are the swing, not growth; a level that rose 12% is growth."""
    swing = {1_000: 270.0, 10_000: 370.0}
    noisy = _samples(10_000, every=250, engine_rss_mb=lambda a: swing.get(a, 320.0 + (15 if a % 500 else -15)))
    verdict = soak.judge(noisy, [], 10_000, FINISHED, "")
    assert verdict["held"], verdict["reasons"]
    assert verdict["trends"]["engine_rss_mb"]["growth_after_1000_points"] > 0.3  # what one sample each said
    # a level that keeps rising under the slope's floor still fails the 10% bound
    risen = _samples(10_000, every=250, window_rss_mb=lambda a: 280.0 if a <= 1_250 else 280.0 * 1.12)
    said = soak.judge(risen, [], 10_000, FINISHED, "")["reasons"]
    assert any(r.startswith("window_rss_mb grew 12.0% from action 1,000") for r in said), said
