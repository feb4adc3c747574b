"""`--ranking`, `eval` and the honest header, run as a user runs them: a subprocess, real files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from memfiles import write_changed_fact, write_memory
from test_cli import ROOT, cli_store, run  # noqa: F401 - the fixture is used by name


def test_search_and_recall_name_their_profile(cli_store):  # noqa: F811
    store, index = cli_store
    base = ["--store", str(store), "--index", str(index)]
    default = json.loads(run("search", "drain the vip", *base, "--json").stdout)
    assert default["ranking"] == "default" and default["steps"] == ["twins", "mmr", "newer"]
    # any of the content words: "drain" or "vip" (memhtml: both)
    assert default["matches"]["form"] == "any" and default["matches"]["count"] >= 1 and default["matches"]["any"]
    assert default["index"]["complete"] is True
    assert {"low_relevance", "relevance", "moves", "contradictions"} <= set(default["hits"][0])
    assert default["relevance"]["floor_cosine"] == 0.45
    memhtml = json.loads(run("search", "drain the vip", *base, "--json", "--ranking", "memhtml").stdout)
    assert memhtml["ranking"] == "memhtml" and memhtml["steps"] == ["mmr"]
    assert memhtml["matches"] == {"form": "all", "count": 1, "capped": False, "any": True}
    pack = json.loads(run("recall", "drain the vip", *base, "--json", "--ranking", "memhtml").stdout)
    assert pack["ranking"] == "memhtml"
    human = run("search", "drain the vip", *base, "--ranking", "memhtml").stdout
    assert "ranking: memhtml" in human and "1 memory in scope hold" in human
    bad = run("search", "x", *base, "--ranking", "seeds", check=False)
    assert bad.returncode == 1 and "choose one of: default, memhtml" in bad.stderr


def test_ranking_from_a_json_file_of_knobs(cli_store, tmp_path):  # noqa: F811
    store, index = cli_store
    knobs = tmp_path / "what-if.json"
    knobs.write_text(json.dumps({"base": "memhtml", "name": "what-if", "arms": {"recency": 0.0}}))
    result = json.loads(
        run("search", "drain", "--store", str(store), "--index", str(index), "--json", "--ranking", str(knobs)).stdout
    )
    assert result["ranking"] == "what-if" and "recency" not in result["arms"]
    knobs.write_text(json.dumps({"rrf_kk": 3}))
    bad = run("search", "drain", "--store", str(store), "--index", str(index), "--ranking", str(knobs), check=False)
    assert bad.returncode == 1 and "unknown ranking knob(s): rrf_kk" in bad.stderr


def test_read_on_a_fresh_index_leaves_search_degraded(cli_store, tmp_path):  # noqa: F811
    store, _ = cli_store
    fresh = tmp_path / "fresh.db"
    base = ["--store", str(store), "--index", str(fresh)]
    run("read", "areas/oncall/drain.html", *base, "--no-bump")
    result = json.loads(run("search", "drain", *base, "--json", "--no-refresh").stdout)
    assert result["degraded"] and result["index"] == {"complete": False, "files": 1, "seen": None}
    assert any(r.startswith("index: incomplete") for r in result["degraded_reasons"])
    text = run("search", "drain", *base, "--no-refresh").stdout
    assert "degraded: index: incomplete" in text
    after = json.loads(run("search", "drain", *base, "--json").stdout)  # refreshes: a full scan
    assert after["index"]["complete"] and not any(r.startswith("index:") for r in after["degraded_reasons"])


def _generated(tmp_path: Path, names: str = "target_last") -> tuple[Path, Path]:
    import subprocess

    probes = tmp_path / "probes.jsonl"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "memhtml_desktop.devtools.gen_store",
            str(tmp_path / "gen"),
            "--count",
            "300",
            "--seed",
            "5",
            "--probes",
            str(probes),
            "--probe-count",
            "12",
            "--control-names",
            names,
            "--state",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return tmp_path / "gen", probes


def test_eval_reads_gen_store_probes(tmp_path):
    store, probes = _generated(tmp_path)
    lines = probes.read_text().splitlines()
    assert len(lines) == 12 and all(set(json.loads(line)) >= {"query", "target", "controls"} for line in lines)
    base = ["--store", str(store), "--index", str(tmp_path / "i.db")]
    report = json.loads(run("eval", str(probes), *base, "--json", "--known-items", "20").stdout)
    gate = report["gate"]
    assert report["ranking"] == "default" and gate["limit"] == 40 and len(gate["probes"]) == 12
    assert gate["summary"]["inversions"] == 0 and gate["summary"]["mrr"] == 1.0 and gate["summary"]["passed"]
    assert {"rank", "corpus_rank", "inversions", "inverted", "degraded"} <= set(gate["probes"][0])
    for source in ("claim", "title"):
        assert report["known_items"][source]["n"] > 0 and 0 <= report["known_items"][source]["mrr_at_k"] <= 1
    memhtml = json.loads(run("eval", str(probes), *base, "--json", "--ranking", "memhtml", "--no-refresh").stdout)
    assert memhtml["ranking"] == "memhtml" and memhtml["profile"]["fts_forms"] == "all"
    text = run("eval", str(probes), *base, "--no-refresh", "--limit", "5").stdout
    assert "12 probes at --limit 5" in text and "MRR" in text and "corpus MRR" in text


def test_eval_check_fails_on_an_inversion_and_bad_files_say_where(tmp_path, cli_store):  # noqa: F811
    store, index = cli_store
    base = ["--store", str(store), "--index", str(index)]
    probes = tmp_path / "p.jsonl"
    probes.write_text(
        json.dumps(
            {
                "query": "pager etiquette acknowledge",
                "target": "areas/oncall/drain.html",
                "controls": ["areas/oncall/other.html"],
            }
        )
        + "\n"
    )
    proc = run("eval", str(probes), *base, "--json", "--check", check=False)
    assert proc.returncode == 1 and json.loads(proc.stdout)["gate"]["summary"]["inversions"] == 1
    assert run("eval", str(probes), *base, "--json", check=False).returncode == 0
    probes.write_text('{"query": "x", "target": "a.html", "controls": []}\n{"query": 3}\n')
    bad = run("eval", str(probes), *base, check=False)
    assert bad.returncode == 1 and "p.jsonl:2: 'query' must be a non-empty string" in bad.stderr
    assert "p.jsonl:1: target a.html is not in the store" in bad.stderr
    missing = run("eval", str(tmp_path / "nope.jsonl"), *base, check=False)
    assert missing.returncode == 1 and "cannot read" in missing.stderr
    neither = run("eval", *base, check=False)
    assert neither.returncode == 1 and "give a probe file" in neither.stderr


def test_eval_scope_is_applied(tmp_path):
    store = tmp_path / "s"
    write_memory(store, "areas/a/one.html", title="One", claim="The compactor merges intervals.", tags=["x"])
    write_memory(store, "areas/a/two.html", title="Two", claim="The compactor merges intervals nightly.", tags=["y"])
    probes = tmp_path / "p.jsonl"
    probes.write_text(
        json.dumps(
            {
                "query": "compactor merges intervals nightly",
                "target": "areas/a/one.html",
                "controls": ["areas/a/two.html"],
                "scope": {"tags": ["x"]},
            }
        )
        + "\n"
    )
    report = json.loads(
        run("eval", str(probes), "--store", str(store), "--index", str(tmp_path / "i.db"), "--json").stdout
    )
    assert report["gate"]["probes"][0]["rank"] == 1, "the control is out of scope"


def test_search_and_recall_say_which_memory_a_newer_one_contradicts(tmp_path):
    """Two memories fill one slot, the later one with another value: `search --json` marks both and
    puts the newer first (default), `search` says so in words, `recall --text` carries the newer with
    a note that an older one disagrees; under memhtml the marks stay and the order and text do not move."""
    store = tmp_path / "store"
    old, new = write_changed_fact(store)
    base = ["--store", str(store), "--index", str(tmp_path / "index.db")]
    found = json.loads(run("search", "what is the capital of australia", *base, "--json").stdout)
    hits = {h["path"]: h for h in found["hits"]}
    assert [h["path"] for h in found["hits"]].index(new) < [h["path"] for h in found["hits"]].index(old)
    assert found["steps"] == ["twins", "mmr", "newer"]
    (stale,), (fresh,) = hits[old]["contradictions"], hits[new]["contradictions"]
    assert stale["other"] == new and stale["side"] == "older" and stale["mark"] == "contradicted by a newer memory"
    assert (stale["value"], stale["other_value"], stale["kind"]) == ("Sydney", "Canberra", "slot")
    assert fresh["other"] == old and fresh["side"] == "newer" and fresh["when"].startswith("2024-06-02")
    assert hits["resources/geo/currency.html"]["contradictions"] == []
    human = run("search", "what is the capital of australia", *base).stdout
    assert "\u26a0 contradicted by a newer memory: Capital of Australia\n" in human and f" {new}\n" in human
    assert "\u26a0 contradicts an older memory: Capital of Australia\n" in human and f" {old}\n" in human
    assert "it says \u201cSydney\u201d" in human and "it says \u201cCanberra\u201d" in human
    text = run("recall", "what is the capital of australia", *base, "--text").stdout
    assert f'<contradiction path="{new}" other="{old}" this="newer" kind="slot">' in text
    assert text.index(f'path="{new}"') < text.index(f'path="{old}"')
    memhtml = json.loads(run("search", "capital australia", *base, "--json", "--ranking", "memhtml").stdout)
    assert all(m["step"] != "newer" for h in memhtml["hits"] for m in h["moves"])
    assert {h["path"] for h in memhtml["hits"] if h["contradictions"]} == {old, new}
    assert "<contradiction" not in run("recall", "capital australia", *base, "--text", "--ranking", "memhtml").stdout
    assert (
        f"contradicts an older memory: Capital of Australia ({old})" in run("recall", "capital australia", *base).stdout
    )
    pack = json.loads(run("recall", "capital australia", *base, "--json", "--ranking", "memhtml").stdout)
    assert any(i["contradictions"] for i in pack["memories"]["items"])
