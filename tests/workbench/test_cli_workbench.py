"""The workbench on the command line: probes verbs, eval --config/--compare/--optimize/--history with
--json, and bad input named by file and line while the rest runs (real processes, real git)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memhtml_desktop.devtools.gen_store import generate_store, write_probes
from workbench.support import git, init_repo

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "MEMHTML_ROOT"}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-m", "memhtml_desktop", *args], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture
def cli(tmp_path):
    made = generate_store(tmp_path / "store", 300, 23, probes=10, state=True, control_names="target_last")
    write_probes(made, tmp_path / "probes.jsonl")
    init_repo(made.root)
    base = ["--store", str(made.root), "--index", str(tmp_path / "index.db")]
    run("state", "import", str(made.root / ".memhtml" / "state" / "access.jsonl"), *base, check=False)
    return made, tmp_path / "probes.jsonl", base


def test_pin_list_run_compare_and_history(cli, tmp_path):
    made, probes_file, base = cli
    probe = made.probes[0]
    added = json.loads(
        run(
            "probes",
            "add",
            "gate",
            "--query",
            probe.query,
            "--target",
            probe.target,
            *sum((["--control", c] for c in probe.controls), []),
            "--note",
            "pinned",
            *base,
            "--json",
        ).stdout
    )
    assert added["paths"][0] == ".memhtml-desktop/probes/gate.jsonl" and git(made.root, "status", "--porcelain") == ""
    assert git(made.root, "log", "-1", "--format=%H").strip() == added["commit_sha"]
    second = made.probes[1]
    run("probes", "add", "gate", "--query", second.query, "--target", second.target, *base)
    listed = json.loads(run("probes", "list", "gate", *base, "--json").stdout)
    assert [p["query"] for p in listed["probes"]] == [probe.query, second.query] and listed["probes"][0][
        "note"
    ] == "pinned"
    sets = json.loads(run("probes", "sets", *base, "--json").stdout)
    assert sets["sets"] == {"gate": 2} and sets["configurations"] == ["memhtml", "default"]

    ran = json.loads(run("eval", "--set", "gate", "--config", "memhtml", *base, "--json").stdout)
    assert ran["config"] == "memhtml" and ran["figures"]["probes"] == 2
    assert ran["head"] == git(made.root, "rev-parse", "HEAD").strip()
    assert {"rank", "inverted", "passed", "lost_by", "ndcg", "recall"} <= set(ran["probes"][0])
    whatif = tmp_path / "light.json"
    whatif.write_text(json.dumps({"base": "default", "name": "light", "mmr_lambda": 0.8}))
    compared = json.loads(
        run("eval", str(probes_file), "--config", "memhtml", "--compare", str(whatif), *base, "--json").stdout
    )
    assert compared["a"]["config"] == "memhtml" and compared["b"]["config"] == "light"
    assert compared["a"]["figures"]["probes"] == 10
    history = json.loads(run("eval", "--history", *base, "--json").stdout)
    assert [r["config"] for r in history["runs"]] == ["memhtml", "memhtml", "light"]
    of_set = json.loads(run("eval", "--set", "gate", "--history", *base, "--json").stdout)
    assert [r["set"] for r in of_set["runs"]] == ["gate"]
    a, b = history["runs"][1]["id"], history["runs"][2]["id"]
    diff = json.loads(run("eval", "--history", "--diff", a, b, *base, "--json").stdout)
    assert diff["before"]["id"] == a and diff["after"]["id"] == b
    text = run("eval", "--history", *base).stdout
    assert "memhtml" in text and "light" in text
    removed = run("probes", "remove", "gate", listed["probes"][0]["key"], *base).stdout
    assert removed.startswith("committed ")
    assert len(json.loads(run("probes", "list", "gate", *base, "--json").stdout)["probes"]) == 1


def test_optimize_reports_the_held_out_gain_and_saves_the_best(cli):
    made, probes_file, base = cli
    out = json.loads(
        run("eval", str(probes_file), "--optimize", "--trials", "12", "--save", "tuned", *base, "--json").stdout
    )
    assert out["trials"] == 12 and out["train_probes"] + out["held_out_probes"] == 10
    assert {"interval_95", "wins", "losses", "sign_test_p"} <= set(out["certainty"])
    assert out["saved"]["paths"][0] == ".memhtml-desktop/configs/tuned.json"
    tuned = json.loads((made.root / ".memhtml-desktop" / "configs" / "tuned.json").read_text())
    assert tuned["base"] == "default" and "held-out MRR" in tuned["summary"]
    again = json.loads(run("eval", str(probes_file), "--config", "tuned", *base, "--json", "--no-record").stdout)
    assert again["config"] == "tuned"


def test_bad_input_is_named_by_file_and_line_and_the_rest_runs(cli, tmp_path):
    made, probes_file, base = cli
    lines = probes_file.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        "\n".join([lines[0], "{oops", json.dumps({"query": "q", "target": "areas/gone.html"}), lines[1]]) + "\n"
    )
    proc = run("eval", str(bad), "--config", "default", *base, "--json")
    assert json.loads(proc.stdout)["figures"]["probes"] == 2
    assert f"{bad}:2: not JSON" in proc.stderr and f"{bad}:3: target areas/gone.html is not in the store" in proc.stderr
    plain = run("eval", str(bad), *base, "--json")  # the gate's own path runs the rest too
    assert len(json.loads(plain.stdout)["gate"]["probes"]) == 2 and f"{bad}:2: not JSON" in plain.stderr
    config = tmp_path / "typo.json"
    config.write_text('{\n  "base": "default",\n  "mmr_lamda": 0.4\n}\n')
    refused = run("eval", str(probes_file), "--config", str(config), *base, check=False)
    assert refused.returncode == 1 and f"{config}:3: unknown configuration key 'mmr_lamda'" in refused.stderr
    heavy = tmp_path / "heavy.json"
    heavy.write_text('{"arms": {"vector": -1}}')
    out_of_range = run("eval", str(probes_file), "--config", str(heavy), *base, check=False)
    assert out_of_range.returncode == 1 and "out of range" in out_of_range.stderr and str(heavy) in out_of_range.stderr
    missing_set = run("eval", "--set", "nope", *base, check=False)
    assert missing_set.returncode == 1 and "no probe set nope" in missing_set.stderr
    reserved = run("probes", "add", "index", "--query", "q", "--target", "a.html", *base, check=False)
    assert reserved.returncode == 1 and "reserved" in reserved.stderr
    assert git(made.root, "status", "--porcelain") == ""


def test_floor_scan_and_coverage_on_the_command_line(cli):
    made, probes_file, base = cli
    scan = json.loads(
        run(
            "eval", str(probes_file), "--floor-scan", "--save-floor", "0.4", "--save", "floor-40", *base, "--json"
        ).stdout
    )
    assert scan["targets"] == 10 and len(scan["rows"]) == 20 and scan["current"] == 0.45
    assert scan["saved"]["paths"][0] == ".memhtml-desktop/configs/floor-40.json"
    stored = json.loads((made.root / ".memhtml-desktop" / "configs" / "floor-40.json").read_text())
    assert stored["floor_cosine"]["memhtml-desktop-hash-v1"] == 0.4
    coverage = json.loads(run("eval", str(probes_file), "--coverage", *base, "--json").stdout)
    assert coverage["reachability"]["checked"] == 200 and isinstance(coverage["crowders"], list)
    assert git(made.root, "status", "--porcelain") == ""


def test_probes_import_from_question_answer_pairs(cli, tmp_path):
    """Pairs name their answer by path or by its text; the text is found by its words, a line that
    cannot be resolved is named by file and line, and the rest is committed in one commit."""
    from memhtml_desktop.index.store import Store

    made, _, base = cli
    store = Store(made.root, index_path=tmp_path / "index.db")
    store.index()
    conn = store.reader()
    with conn:
        rows = conn.execute(
            "SELECT path, body_text FROM files WHERE archived = 0 AND memory_type = 'semantic' "
            "AND length(body_text) > 120 ORDER BY path LIMIT 4"
        ).fetchall()
    (p1, b1), (p2, b2), (p3, _), (p4, b4) = rows
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        "\n".join(
            [
                json.dumps({"question": "what does the first one say?", "answer": b1}),
                json.dumps({"q": "the second, by path", "a": p2}),
                f"the third, tab-separated\t{p3}",
                json.dumps(
                    {"question": "nobody wrote this", "answer": "zeppelin quorum marmalade ostrich harpsichord"}
                ),
                "not a pair at all",
                json.dumps({"question": "the fourth, a sentence of it", "answer": b4[: len(b4) // 2]}),
            ]
        )
        + "\n"
    )
    before = git(made.root, "rev-list", "--count", "HEAD").strip()
    proc = run("probes", "import", "real", str(pairs), *base, "--json")
    out = json.loads(proc.stdout)
    assert out["probes"] == 4 and out["by_path"] == 2 and out["by_text"] == 2
    assert sorted(p["line"] for p in out["left_out"]) == [4, 5]
    assert f"{pairs}:4:" in proc.stderr and "no memory holds this answer" in proc.stderr
    assert int(git(made.root, "rev-list", "--count", "HEAD")) == int(before) + 1
    assert git(made.root, "status", "--porcelain") == ""
    listed = json.loads(run("probes", "list", "real", *base, "--json").stdout)["probes"]
    assert [(p["query"], p["target"]) for p in listed] == [
        ("what does the first one say?", p1),
        ("the second, by path", p2),
        ("the third, tab-separated", p3),
        ("the fourth, a sentence of it", p4),
    ]
    again = json.loads(run("probes", "import", "real", str(pairs), *base, "--json").stdout)
    assert again["already_in_set"] == 4 and again["commit"] is None
    assert int(git(made.root, "rev-list", "--count", "HEAD")) == int(before) + 1
    ran = json.loads(run("eval", "--set", "real", "--config", "default", *base, "--json", "--no-record").stdout)
    assert ran["figures"]["probes"] == 4
