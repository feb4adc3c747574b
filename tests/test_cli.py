"""The headless commands, run as a user runs them: a subprocess, real files, exit codes, JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memfiles import write_memory

ROOT = Path(__file__).resolve().parents[1]


def run(
    *args: str, env_extra: dict | None = None, check: bool = True, timeout: float = 120
) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("MEMHTML_ROOT", None)
    env["PYTHONPATH"] = str(ROOT)
    env.update(env_extra or {})
    proc = subprocess.run(
        [sys.executable, "-m", "memhtml_desktop", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture
def cli_store(tmp_path: Path) -> tuple[Path, Path]:
    store = tmp_path / "store"
    write_memory(
        store,
        "areas/oncall/drain.html",
        title="Prod rollbacks drain the VIP",
        claim="If a prod rollback is issued, drain the VIP before reverting the deploy.",
        memory_type="procedural",
        entities=["service:checkout-api"],
        tags=["deploy"],
        facets=[("doc-type", "runbook")],
    )
    write_memory(
        store, "areas/oncall/other.html", title="Pager etiquette", claim="Acknowledge a page within five minutes."
    )
    write_memory(
        store,
        "archive/2025/areas/oncall/old.html",
        title="Old order",
        claim="Revert first, then drain.",
        status="archived",
        facets=[("doc-type", "runbook")],
        memory_type="procedural",
        tags=["legacy"],
    )
    (store / "areas/oncall/broken.html").write_text("<!doctype html><title>x</title><article><p>no mark</p></article>")
    return store, tmp_path / "index.db"


def test_help_is_fast_and_qt_free():
    started = time.perf_counter()
    proc = run("--help")
    elapsed = time.perf_counter() - started
    assert "search" in proc.stdout and "recall" in proc.stdout
    assert elapsed < 3.0  # includes interpreter start-up; the import itself is well under a second
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, memhtml_desktop.cli as c; c.build_parser(); "
            "print(any(m.startswith('PySide6') for m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    assert probe.stdout.strip() == "False"


def test_version():
    from memhtml_desktop import __version__

    assert run("--version").stdout.strip() == f"memhtml-desktop {__version__}"


def test_usage_error_exits_2():
    assert run("search", check=False).returncode == 2
    assert run("frobnicate", check=False).returncode == 2


def test_missing_store_exits_1_with_a_message(tmp_path):
    proc = run("index", "--store", str(tmp_path / "nope"), check=False)
    assert proc.returncode == 1
    assert "store not found" in proc.stderr and "Traceback" not in proc.stderr


def test_index_json_summary_lists_failures(cli_store):
    store, index = cli_store
    proc = run("index", "--store", str(store), "--index", str(index), "--json")
    report = json.loads(proc.stdout)
    assert (report["seen"], report["indexed"], report["failed"]) == (4, 3, 1)
    assert report["failures"][0]["path"] == "areas/oncall/broken.html"
    assert set(report) >= {"seen", "indexed", "unchanged", "moved", "removed", "failed", "seconds"}
    again = json.loads(run("index", "--store", str(store), "--index", str(index), "--json").stdout)
    assert again["unchanged"] == 4 and again["indexed"] == 0


def test_search_json_explains_every_hit(cli_store):
    store, index = cli_store
    proc = run("search", "drain the vip", "--store", str(store), "--index", str(index), "--json")
    result = json.loads(proc.stdout)
    # the default binds any of the content words and fuses the lexical and vector scores (docs/ranking.md)
    assert result["fts_form"] == "any" and result["arms"] == ["fts", "vector", "recency", "salience"]
    hit = result["hits"][0]
    assert hit["path"] == "areas/oncall/drain.html"
    assert abs(sum(a["contribution"] for a in hit["arms"].values()) - hit["score"]) < 1e-12
    assert {"rank", "weight", "contribution", "raw", "normalised"} <= set(hit["arms"]["fts"])
    fts = hit["arms"]["fts"]
    assert abs(fts["weight"] * fts["normalised"] - fts["contribution"]) < 1e-12
    for key in ("position", "fused_position", "moved_by", "snippet", "entities", "superseded_by"):
        assert key in hit


def test_search_table_and_archived_banner(cli_store):
    store, index = cli_store
    text = run("search", "drain", "--store", str(store), "--index", str(index)).stdout
    assert "areas/oncall/drain.html" in text and "fts" in text
    proc = run(
        "search",
        "order",
        "--store",
        str(store),
        "--index",
        str(index),
        "--facet",
        "doc-type=runbook",
        "--workspace",
        "none",
        "--json",
    )
    assert json.loads(proc.stdout)["scope_empty"] is True
    proc = run(
        "search",
        "order",
        "--store",
        str(store),
        "--index",
        str(index),
        "--facet",
        "doc-type=runbook",
        "--tag",
        "legacy",
        "--json",
    )
    result = json.loads(proc.stdout)
    assert result["scope_empty"] and result["archived_matches"] == 1
    assert result["archived"][0]["path"] == "archive/2025/areas/oncall/old.html"


def test_search_why(cli_store):
    store, index = cli_store
    proc = run(
        "search",
        "drain",
        "--store",
        str(store),
        "--index",
        str(index),
        "--why",
        "archive/2025/areas/oncall/old.html",
        "--json",
    )
    report = json.loads(proc.stdout)
    assert report["excluded_by"] == ["archived"]
    bad = run("search", "drain", "--store", str(store), "--index", str(index), "--why", "../etc/passwd", check=False)
    assert bad.returncode == 1 and "not a store path" in bad.stderr


def test_recall_json_and_text(cli_store):
    store, index = cli_store
    pack = json.loads(
        run("recall", "drain the vip", "--store", str(store), "--index", str(index), "--json", "--budget", "60").stdout
    )
    assert pack["memories"]["budget"] == 60
    assert pack["memories"]["spent"] <= 60
    tiers = {item["tier"] for item in pack["memories"]["items"]}
    assert tiers <= {"quote", "disclosure", "index"}
    assert set(pack["memories"]["counts"]) == {"quote", "disclosure", "index"}
    text = run("recall", "drain the vip", "--store", str(store), "--index", str(index), "--text").stdout
    assert "areas/oncall/drain.html" in text


def test_read_bumps_once_and_search_never(cli_store):
    store, index = cli_store
    base = ["--store", str(store), "--index", str(index)]
    for _ in range(3):
        run("search", "drain", *base, "--json")
    run("recall", "drain", *base, "--json")
    first = json.loads(run("read", "areas/oncall/drain.html", *base, "--json").stdout)
    assert first["access"]["access_count"] == 1
    assert first["bump"]["bumped"] == ["areas/oncall/drain.html"]
    second = json.loads(run("read", "areas/oncall/drain.html", *base, "--json").stdout)
    assert second["access"]["access_count"] == 1
    assert second["bump"]["cooled_down"] == ["areas/oncall/drain.html"]
    other = json.loads(run("read", "areas/oncall/other.html", *base, "--json", "--no-bump").stdout)
    assert other["access"] is None


def test_read_missing_and_broken(cli_store):
    store, index = cli_store
    base = ["--store", str(store), "--index", str(index)]
    missing = run("read", "areas/none.html", *base, check=False)
    assert missing.returncode == 1 and "no memory file" in missing.stderr
    broken = json.loads(run("read", "areas/oncall/broken.html", *base, "--json").stdout)
    assert broken["violations"] and broken["indexed"] is False


def test_reinforce_reports_what_happened(cli_store):
    store, index = cli_store
    base = ["--store", str(store), "--index", str(index)]
    result = json.loads(run("reinforce", "areas/oncall/drain.html", "--signal", "positive", *base, "--json").stdout)
    assert result["signal_applied"] == ["areas/oncall/drain.html"]
    assert result["bumped"] == ["areas/oncall/drain.html"]


def test_list_and_doctor(cli_store):
    store, index = cli_store
    base = ["--store", str(store), "--index", str(index)]
    listed = json.loads(run("list", *base, "--json").stdout)
    assert [f["path"] for f in listed["files"]] == ["areas/oncall/drain.html", "areas/oncall/other.html"]
    page = json.loads(run("list", *base, "--json", "--limit", "1").stdout)
    assert page["next_cursor"] == "areas/oncall/drain.html"
    faceted = json.loads(run("list", *base, "--json", "--facet", "doc-type=runbook", "--include-archived").stdout)
    assert len(faceted["files"]) == 2
    doctor = json.loads(run("doctor", *base, "--json").stdout)
    kinds = {p["path"]: p["kind"] for p in doctor["problems"]}
    assert kinds == {"areas/oncall/broken.html": "invalid"}


def test_state_export_import_roundtrip(cli_store, tmp_path):
    store, index = cli_store
    base = ["--store", str(store), "--index", str(index)]
    run("read", "areas/oncall/drain.html", *base)
    out = tmp_path / "access.jsonl"
    run("state", "export", "--out", str(out), *base)
    line = json.loads(out.read_text().splitlines()[0])
    assert list(line) == [
        "path",
        "accessCount",
        "reinforcementCount",
        "outcomeScore",
        "lastAccessedAt",
        "lastReinforcedAt",
        "updatedAt",
    ]
    # Without --out the export is committed, as memhtml's is: the store must be a git repository.
    refused = run("state", "export", *base, check=False)
    assert refused.returncode == 1 and "not a git repository" in refused.stderr
    assert not (store / ".memhtml/state/access.jsonl").exists()
    identity = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "seed"]):
        subprocess.run(["git", "-C", str(store), *args], check=True, env={**os.environ, **identity})
    proc = run("state", "export", *base, env_extra=identity)
    assert "exported" in proc.stdout and "(commit " in proc.stdout
    assert (store / ".memhtml/state/access.jsonl").read_bytes() == out.read_bytes()
    log = subprocess.run(["git", "-C", str(store), "log", "-1", "--format=%s"], capture_output=True, text=True).stdout
    assert log.startswith("memhtml(state): export 1 access rows to the committed sidecar")
    proc = run("state", "import", str(out), *base)
    assert "imported" in proc.stdout


@pytest.mark.parametrize("query", ["don't", "AND", '"unbalanced', "-x", "x" * 10000, "🦀", "NEAR(", "*^()"])
def test_hostile_queries_print_json(cli_store, query):
    store, index = cli_store
    proc = run("search", "--store", str(store), "--index", str(index), "--json", "--no-refresh", "--", query)
    assert isinstance(json.loads(proc.stdout)["hits"], list)


def test_state_export_out_keeps_the_mode_and_leaves_no_temp_file(cli_store, tmp_path):
    """Defect (issue 12): `--out` went through mkstemp: mode 0600, no fsync, a temp file left on error."""
    store, index = cli_store
    base = ["--store", str(store), "--index", str(index)]
    run("read", "areas/oncall/drain.html", *base)
    fresh = tmp_path / "exports" / "fresh.jsonl"
    fresh.parent.mkdir()
    run("state", "export", "--out", str(fresh), *base)
    umask = os.umask(0)
    os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask  # what `open()` gives a new file, not 0600
    shared = tmp_path / "exports" / "shared.jsonl"
    shared.write_text("")
    shared.chmod(0o664)
    run("state", "export", "--out", str(shared), *base)
    assert shared.stat().st_mode & 0o777 == 0o664 and shared.read_bytes() == fresh.read_bytes()
    # a target that cannot be replaced (a directory): a clear failure, and nothing left beside it
    blocked = tmp_path / "exports" / "blocked.jsonl"
    blocked.mkdir()
    proc = run("state", "export", "--out", str(blocked), *base, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert sorted(p.name for p in blocked.parent.iterdir()) == ["blocked.jsonl", "fresh.jsonl", "shared.jsonl"]


def test_state_export_out_is_fsynced(cli_store, tmp_path, monkeypatch):
    """The export's bytes reach the disk before the rename (file and directory fsynced)."""
    from memhtml_desktop.cli import main

    store, index = cli_store
    synced: list[str] = []
    real_fsync = os.fsync

    def spy(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    out = tmp_path / "out" / "access.jsonl"
    out.parent.mkdir()
    assert main(["state", "export", "--out", str(out), "--store", str(store), "--index", str(index)]) == 0
    assert any(Path(p).parent == out.parent and Path(p).name.startswith(".access.jsonl") for p in synced)
    assert str(out.parent) in synced
