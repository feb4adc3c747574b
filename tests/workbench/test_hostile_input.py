"""Issue 26's workbench items: one bad line or one bad configuration is named while the rest runs;
a history that cannot be written loses no results; a very large set runs streamed, with progress.

Real generated stores in real git repositories; the CLI is run in-process (`cli.main`).
"""

from __future__ import annotations

import json

import pytest

from memhtml_desktop.domain.configs import shipped
from memhtml_desktop.domain.probes import ProbeSet
from memhtml_desktop.workbench import Workbench, runs
from memhtml_desktop.workbench.runs import run_configuration
from workbench.support import git

SHIPPED = {c.name: c for c in shipped()}


def cli(argv, capsys):
    from memhtml_desktop.cli import main

    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def wb_store(small, tmp_path):
    """The small generated store, its probes committed as set `gate`, and the CLI's base flags."""
    store, probes = small
    folder = store.root / ".memhtml-desktop" / "probes"
    folder.mkdir(parents=True)
    (folder / "gate.jsonl").write_text("".join(p.to_line() + "\n" for p in probes), encoding="utf-8")
    git(store.root, "add", "-A")
    git(store.root, "commit", "-q", "-m", "probes")
    return store, probes, ["--store", str(store.root), "--index", str(store.index_path)]


# -- 21. one bad line, one bad configuration: named, and the rest runs -------------------------------


def test_a_line_that_is_not_utf8_is_named_and_the_rest_of_the_set_runs(wb_store, capsys):
    store, probes, base = wb_store
    path = store.root / ".memhtml-desktop" / "probes" / "gate.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b'"query": "', b'"query": "caf\xe9 ', 1)  # Latin-1, not UTF-8
    path.write_bytes(b"\n".join(lines))
    git(store.root, "commit", "-qam", "a Latin-1 line")
    code, out, err = cli(["eval", "--set", "gate", *base, "--no-record", "--no-refresh", "--json"], capsys)
    assert code == 0, err
    ran = json.loads(out)
    assert ran["figures"]["probes"] == len(probes) - 1
    assert ".memhtml-desktop/probes/gate.jsonl:3: not UTF-8 text (byte" in err
    assert [p["line"] for p in ran["problems"]] == [3]


@pytest.mark.parametrize("bad, says", [
    ('{"base": "default", "rrf_k": ' + "7" * 5001 + "}", "a number too long to read (5,001 digits)"),
    ('{"base": "default", "note": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply to read"),
])  # fmt: skip
def test_one_hostile_configuration_is_named_and_the_others_work(wb_store, capsys, bad, says):
    store, probes, base = wb_store
    folder = store.root / ".memhtml-desktop" / "configs"
    folder.mkdir()
    (folder / "hostile.json").write_text(bad, encoding="utf-8")
    (folder / "light.json").write_text(json.dumps({"base": "default", "mmr_lambda": 0.8}), encoding="utf-8")
    git(store.root, "add", "-A")
    git(store.root, "commit", "-q", "-m", "configs")
    code, out, err = cli(["probes", "sets", *base, "--json"], capsys)
    assert code == 0, err
    listed = json.loads(out)
    assert listed["configurations"] == ["memhtml", "default", "light"]
    assert len(listed["problems"]) == 1 and ".memhtml-desktop/configs/hostile.json" in listed["problems"][0]
    assert says in listed["problems"][0]
    code, out, err = cli(["eval", "--set", "gate", "--config", "light", *base, "--no-record", "--no-refresh",
                          "--json"], capsys)  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["figures"]["probes"] == len(probes)
    code, out, err = cli(["eval", "--set", "gate", "--config", "hostile", *base, "--no-record", "--no-refresh"], capsys)
    assert code == 1 and "hostile.json" in err and says in err and "Traceback" not in err


# -- 22. a history that cannot be written loses no results ----------------------------------------


def test_eval_with_an_unwritable_data_dir_shows_the_run_and_says_it_was_not_recorded(
    wb_store, capsys, monkeypatch, tmp_path
):
    store, probes, base = wb_store
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the data directory should be")
    monkeypatch.setenv("MEMHTML_DESKTOP_DATA", str(blocker / "data"))
    code, out, err = cli(["eval", "--set", "gate", *base, "--no-refresh", "--json"], capsys)
    assert code == 0, err
    ran = json.loads(out)
    assert ran["figures"]["probes"] == len(probes) and len(ran["probes"]) == len(probes)
    assert ran["not_recorded"].startswith("the run was not recorded: the history in ")
    assert "memhtml-desktop: the run was not recorded" in err and "Traceback" not in err
    code, out, err = cli(["eval", "--set", "gate", *base, "--no-refresh"], capsys)
    assert code == 0 and "· not recorded" in out and "pass" in out


# -- 25. a very large set runs streamed: the same verdicts, progress, nothing cached ----------------------


def test_a_streamed_run_judges_exactly_as_a_cached_run(small, monkeypatch):
    store, probes = small
    probe_set = ProbeSet("big", tuple(probes), ())
    config = SHIPPED["default"]
    cached = run_configuration(store, probe_set, config)
    monkeypatch.setattr(runs, "STREAM_CHUNK", 5)
    monkeypatch.setattr("memhtml_desktop.workbench.STREAM_PROBES", 4)
    seen = []
    workbench = Workbench(store)
    streamed = workbench.run(probe_set, config, record=False, progress=lambda *a: seen.append(a))
    assert [(v.key, v.rank, v.inverted, v.passed, v.top) for v in streamed.verdicts] == [
        (v.key, v.rank, v.inverted, v.passed, v.top) for v in cached.verdicts
    ]
    assert streamed.figures == cached.figures
    total = len(probes)
    assert seen == [("reading", min(n, total), total) for n in range(5, total + 5, 5)]
    assert not workbench._cache  # nothing held for another configuration
    for indent in (None, 2):  # written a verdict at a time, read back whole
        assert json.loads("".join(streamed.json_chunks(indent))) == streamed.to_json()


def test_a_large_set_prints_progress_on_stderr(wb_store, capsys, monkeypatch):
    store, probes, base = wb_store
    monkeypatch.setattr("memhtml_desktop.cli.workbench_commands.PROGRESS_FROM", 3)
    code, out, err = cli(["eval", "--set", "gate", *base, "--no-refresh", "--no-record", "--json"], capsys)
    assert code == 0
    lines = [line for line in err.splitlines() if line.startswith("eval: ")]
    assert lines and f" {len(probes):,} of {len(probes):,} probes (100%)" in lines[-1]
