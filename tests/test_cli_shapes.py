"""`recall --shape quotas|catalog`, `recall --costs`, `expand PATH`: subprocesses over real files."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from test_cli import run

DEMO = Path(__file__).resolve().parents[1] / "resources" / "demo-store"
DRAIN = "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html"


def demo(tmp_path: Path) -> list[str]:
    root = tmp_path / "store"
    shutil.copytree(DEMO, root)
    return ["--store", str(root), "--index", str(tmp_path / "index.db")]


def test_quotas_json_four_ledgers_byte_identical(tmp_path):
    base = demo(tmp_path)
    first = run("recall", "drain the vip", *base, "--shape", "quotas", "--budget", "3000", "--json").stdout
    second = run(
        "recall", "drain the vip", *base, "--shape", "quotas", "--budget", "3000", "--json", "--no-refresh"
    ).stdout
    assert first == second, "same store, query and budget: the same bytes"
    pack = json.loads(first)
    assert [ledger["name"] for ledger in pack["ledgers"]] == ["profile", "task", "experience", "pending"]
    assert [ledger["limit"] for ledger in pack["ledgers"]] == [900, 1050, 600, 450]
    assert all(ledger["used"] <= ledger["limit"] for ledger in pack["ledgers"])
    assert pack["unspent"] == 3000 - pack["used"] == sum(ledger["unspent"] for ledger in pack["ledgers"])
    pending = pack["ledgers"][3]["items"]
    flagged = "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html"  # needs revision
    assert pending and all("/tasks/" in item["path"] or item["path"] == flagged for item in pending)
    text = run("recall", "drain the vip", *base, "--shape", "quotas", "--budget", "3000", "--text").stdout
    assert '<ledger name="pending" limit="450"' in text and text.rstrip().splitlines()[-1].startswith(
        "ledger: budget 3000"
    )


def test_a_tiny_budget_says_it_does_not_fit(tmp_path):
    base = demo(tmp_path)
    out = run("recall", "drain the vip", *base, "--shape", "quotas", "--budget", "5").stdout
    assert "does not fit: the budget (5) is smaller than the smallest capsule" in out
    cat = json.loads(run("recall", "drain the vip", *base, "--shape", "catalog", "--budget", "5", "--json").stdout)
    assert cat["does_not_fit"] and cat["cost"] == 0


def test_catalogue_and_costs(tmp_path):
    base = demo(tmp_path)
    cat = json.loads(run("recall", "drain the vip", *base, "--shape", "catalog", "--k", "4", "--json").stdout)
    assert len(cat["entries"]) == 4 and cat["question"] in ("specific", "vague")
    assert all("[expand: " in e["line"] for e in cat["entries"])
    assert cat["with_first_expanded"] == cat["cost"] + cat["entries"][0]["expand_cost"]
    costs = json.loads(run("recall", "drain the vip", *base, "--costs", "--json", "--budget", "6000").stdout)
    assert [c["key"] for c in costs["costs"]] == ["memhtml", "quotas", "catalog", "catalog+1", "catalog+2"]
    assert costs["cheaper"] in ("direct", "catalog") and "cheaper here" in costs["verdict"]
    plain = run("recall", "drain the vip", *base, "--costs").stdout
    assert "Catalogue + expand #1" in plain and "cheaper here" in plain


def test_expand_json_text_and_errors(tmp_path):
    base = demo(tmp_path)
    e = json.loads(run("expand", DRAIN, *base, "--json").stdout)
    assert e["path"] == DRAIN and e["cost"] == len(e["text"])
    assert [v["step"] for v in e["chain"]] == [-2, -1, 0]
    assert {n["direction"] for n in e["neighbours"]} == {"in", "out"}
    text = run("expand", DRAIN, *base, "--text", "--no-refresh").stdout
    assert text.rstrip("\n") == e["text"]
    missing = run("expand", "areas/oncall/none.html", *base, check=False)
    assert missing.returncode == 1 and "no indexed memory" in missing.stderr and "Traceback" not in missing.stderr
    hostile = run("expand", "../../etc/passwd", *base, check=False)
    assert hostile.returncode == 1 and "not a store path" in hostile.stderr


def test_none_of_the_shapes_count_as_a_read(tmp_path):
    base = demo(tmp_path)
    state = tmp_path / "store" / ".memhtml" / "state.db"
    run("recall", "drain the vip", *base, "--shape", "quotas")  # indexes and creates the state plane
    before = hashlib.sha256(state.read_bytes()).hexdigest()
    for args in (
        ("recall", "drain the vip", "--shape", "quotas"),
        ("recall", "drain the vip", "--shape", "catalog"),
        ("recall", "vip", "--costs"),
        ("expand", DRAIN),
    ):
        run(*args, *base, "--no-refresh")
    assert hashlib.sha256(state.read_bytes()).hexdigest() == before
    run("read", DRAIN, *base, "--no-refresh")
    assert hashlib.sha256(state.read_bytes()).hexdigest() != before, "the contrast: a read is counted"


def test_a_curators_ledger_map(tmp_path):
    base = demo(tmp_path)
    mine = tmp_path / "mine.json"
    mine.write_text(
        json.dumps({"name": "mine", "shares": {"profile": 10, "task": 60, "experience": 20, "pending": 10}})
    )
    pack = json.loads(
        run("recall", "vip", *base, "--shape", "quotas", "--ledgers", str(mine), "--json", "--budget", "1000").stdout
    )
    assert pack["map"] == {"name": "mine", "source": str(mine)}
    assert [ledger["limit"] for ledger in pack["ledgers"]] == [100, 600, 200, 100]
    committed = tmp_path / "store" / ".memhtml-desktop" / "ledgers.json"
    committed.parent.mkdir(parents=True, exist_ok=True)
    committed.write_text(
        '{\n  "name": "team",\n  "shares": {"profile": 90, "task": 35, "experience": 20, "pending": 15}\n}\n'
    )
    bad = run("recall", "vip", *base, "--shape", "quotas", check=False)
    assert (
        bad.returncode == 1 and ".memhtml-desktop/ledgers.json:3:" in bad.stderr and "more than the whole" in bad.stderr
    )
    committed.write_text('{"name": "team", "shares": {"profile": 25, "task": 40, "experience": 20, "pending": 15}}')
    team = json.loads(run("recall", "vip", *base, "--shape", "quotas", "--json", "--budget", "1000").stdout)
    assert team["map"]["name"] == "team" and team["ledgers"][0]["limit"] == 250


def test_eval_compares_the_shapes_over_a_probe_set(tmp_path):
    import subprocess
    import sys

    store, probes = tmp_path / "gen", tmp_path / "probes.jsonl"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "memhtml_desktop.devtools.gen_store",
            "--count",
            "200",
            "--seed",
            "3",
            "--probes",
            str(probes),
            "--probe-count",
            "6",
            str(store),
        ],
        check=True,
        capture_output=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    base = ["--store", str(store), "--index", str(tmp_path / "index.db")]
    report = json.loads(run("eval", str(probes), "--shapes", "--budget", "3000", "--k", "5", "--json", *base).stdout)
    assert report["budget"] == 3000 and report["k"] == 5 and len(report["probes"]) == 6
    assert [f["shape"] for f in report["figures"]] == ["memhtml", "quotas", "catalog+1", "catalog+2", "catalog+pick"]
    assert all(f["content"] + f["pointer"] + f["missing"] == 6 for f in report["figures"])
    table = run("eval", str(probes), "--shapes", *base, "--no-refresh").stdout
    assert "catalogue + expand the target" in table and "mean chars" in table
    bad = run("eval", "--shapes", *base, check=False)
    assert bad.returncode == 1 and "give a probe file" in bad.stderr


def test_the_question_kind_reads_what_the_question_matched_under_both_profiles(tmp_path):
    """Issue 41, item 1: under `default` the lexical arm binds any of the words, and the verdict
    called every multi-word question "vague: no memory holds every word" from that form alone."""
    base = demo(tmp_path)
    for ranking in ("default", "memhtml"):
        cat = json.loads(
            run(
                "recall",
                "idempotency keys expire after 24 hours",
                *base,
                "--shape",
                "catalog",
                "--ranking",
                ranking,
                "--json",
            ).stdout
        )
        assert (cat["question"], cat["question_why"]) == ("specific", "every word is in 1 memory"), ranking
        costs = run("recall", "idempotency keys expire after 24 hours", *base, "--costs", "--ranking", ranking).stdout
        assert "specific" in costs and "no memory holds every word" not in costs
        vague = json.loads(
            run(
                "recall", "what do we know about billing", *base, "--shape", "catalog", "--ranking", ranking, "--json"
            ).stdout
        )
        assert vague["question"] == "vague" and vague["question_why"].startswith("no memory holds every word")


def test_expand_and_doctor_on_a_memory_of_megabytes(tmp_path):
    """Issue 41, item 8: `expand` caps the body with a marker; `doctor` warns about the size."""
    from memfiles import write_memory
    from tests.index.test_large_memory import BIG, paragraphs

    root = tmp_path / "store"
    write_memory(
        root,
        BIG,
        title="A pasted transcript",
        claim="The incident transcript was pasted whole.",
        article_extra=paragraphs(1_600_000, 11),
    )
    base = ["--store", str(root), "--index", str(tmp_path / "index.db")]
    out = run("expand", BIG, *base).stdout
    assert len(out) < 25_000 and "[cut: " in out and "expand hands over 20,000 at most" in out
    data = json.loads(run("expand", BIG, *base, "--json").stdout)
    assert data["body_cut"] > 1_000_000 and len(data["text"]) < 25_000
    doctor = run("doctor", *base, check=False)
    assert "over the 1 MB a memory is expected to stay under" in doctor.stdout
