"""Runs: re-ranking the cached arm lists gives exactly Store.search's list, under both shipped
profiles and what-if ones, with both embedders; missing memories and bad lines are named while the
rest runs; the history keeps every run and says which probe broke between which commits."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from memhtml_desktop.domain.configs import Configuration, shipped
from memhtml_desktop.domain.probes import EvalProbe, ProbeSet
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML
from memhtml_desktop.domain.rrf import Arm
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.workbench import Workbench, read_probe_file
from memhtml_desktop.workbench.runs import judge_prepared, prepare_set
from workbench.support import build, git

SHIPPED = {c.name: c for c in shipped()}
WHAT_IFS = [
    replace(
        DEFAULT,
        name="k20-light-recency",
        rrf_k=20,
        arms=tuple(replace(a, weight={"recency": 0.1}.get(a.name, a.weight)) for a in DEFAULT.arms),
    ),
    replace(DEFAULT, name="no-mmr-window-25", mmr_lambda=1.0, arm_window=25, twins=False),
    replace(
        MEMHTML,
        name="memhtml-heavy-salience",
        mmr_lambda=0.8,
        arms=tuple(replace(a, weight={"salience": 2.0, "fts": 0.5}.get(a.name, a.weight)) for a in MEMHTML.arms),
    ),
]


def _queries(probes):
    """The probes' own queries, plus paraphrase-ish and hostile ones (any words, a scope)."""
    out = [(p.query, None) for p in probes]
    out += [(" ".join(p.query.split()[:2]), None) for p in probes[:6]]
    out += [
        ("the", None),
        ("!!!", None),
        ("zzzz unknownword", None),
        (probes[0].query, Scope.build(workspace="nope")),
        (probes[1].query, Scope.build(memory_types=["decision", "fact"])),
    ]
    return out


def _assert_equal_to_search(store, profiles, queries, limit=40):
    asks = ProbeSet("q", tuple(EvalProbe(q, "x.html", scope=s) for q, s in queries), ())
    for profile in profiles:
        prepared = prepare_set(store, ProbeSet("q", asks.probes, ()), profile)
        from memhtml_desktop.domain.refusion import rerank

        for (query, scope), pq in zip(queries, prepared.queries):
            want = [h.path for h in store.search(query, scope, limit=limit, ranking=profile).hits]
            got = list(rerank(pq, profile, limit, prepared.model_id).paths)
            assert got == want, (profile.name, query, scope)


def test_reranking_equals_search_hash(gen):
    store, probes = gen
    _assert_equal_to_search(store, [DEFAULT, MEMHTML, *WHAT_IFS], _queries(probes))


@pytest.mark.slow
def test_reranking_equals_search_minilm(tmp_path):
    pytest.importorskip("onnxruntime")
    store, probes = build(tmp_path, 300, 31, 12, "shuffled", "minilm")
    _assert_equal_to_search(store, [DEFAULT, MEMHTML, WHAT_IFS[0]], _queries(probes))


def test_one_reading_serves_every_configuration_of_its_lexical_form(small):
    store, probes = small
    prepared = prepare_set(store, ProbeSet("s", tuple(probes), ()), DEFAULT, window=60)
    assert prepared.serves(DEFAULT) and prepared.serves(WHAT_IFS[0]) and not prepared.serves(MEMHTML)
    assert not prepared.serves(replace(DEFAULT, arm_window=80))
    with pytest.raises(ValueError, match="own reading"):
        judge_prepared(prepared, MEMHTML)


def test_a_run_judges_every_probe_and_the_memhtml_profile_can_fail(tmp_path):
    """target_last puts every exact RRF tie on a control: memhtml's profile inverts probes that the
    default resolves (docs/ranking.md), so a run's pass is the ranking's doing."""
    store, probes = build(tmp_path, 600, 7, 48, "target_last")
    workbench = Workbench(store)
    probe_set = ProbeSet("gate", tuple(probes), (), "gate.jsonl")
    default = workbench.run(probe_set, SHIPPED["default"])
    memhtml = workbench.run(probe_set, SHIPPED["memhtml"])
    assert default.figures.probes == 48 and default.figures.inversions == 0 and default.figures.passed == 48
    assert memhtml.figures.inversions > 0 and memhtml.figures.passed < 48
    failed = [v for v in memhtml.verdicts if not v.passed]
    assert all(
        v.lost_by in ("fts", "vector", "recency", "salience", "tie", "mmr", "twins", "polarity", "steps")
        for v in failed
    )
    assert all(v.lost_to in v.controls or v.rank != 1 for v in failed)
    # the figures are the verdicts' (checked by hand in test_judging) and agree with the gate's
    gate = store.evaluate(probes, ranking=MEMHTML)
    assert memhtml.figures.inversions == gate.summary.inversions
    assert [v.rank for v in memhtml.verdicts] == [o.corpus_rank for o in gate.outcomes]


def test_missing_memories_and_bad_lines_are_named_and_the_rest_runs(small, tmp_path):
    store, probes = small
    from memhtml_desktop.index.arm_lists import path_states

    archived = sorted(p.relative_to(store.root).as_posix() for p in (store.root / "archive").rglob("*.html"))
    archived = next(p for p in archived if path_states(store, [p]).get(p))
    file = tmp_path / "mixed.jsonl"
    lines = [
        probes[0].to_line(),
        json.dumps({"query": "gone", "target": "areas/nowhere/gone.html"}),
        "not json at all",
        json.dumps(
            {
                "query": probes[1].query,
                "target": probes[1].target,
                "controls": [*probes[1].controls, "areas/nowhere/old-control.html"],
            }
        ),
        json.dumps({"query": "x", "target": "a.html", "controls": ["a.html"]}),
        json.dumps({"query": "an old one", "target": archived}),
    ]
    file.write_text("\n".join(lines) + "\n")
    probe_set = read_probe_file(file)
    run = Workbench(store).run(probe_set, SHIPPED["default"])
    assert run.figures.probes == 3 and run.figures.skipped == 1
    messages = [str(p) for p in run.problems]
    where = str(file)
    assert f"{where}:2: target areas/nowhere/gone.html is not in the store (deleted or moved?)" in messages
    assert any(m.startswith(f"{where}:3: not JSON") for m in messages)
    assert f"{where}:4: control areas/nowhere/old-control.html is not in the store; ignored" in messages
    assert any(m.startswith(f"{where}:5: a.html is both a target and a control") for m in messages)
    assert run.verdicts[1].controls == probes[1].controls
    assert f"{where}:6: target {archived} is archived: outside the default scope" in " ".join(messages)
    assert not run.verdicts[2].passed


def test_history_records_runs_and_names_the_commit_a_probe_broke_at(small):
    store, probes = small
    workbench = Workbench(store)
    workbench.files.save_probe_set("gate", probes[:6])
    probe_set = workbench.files.read_probe_set("gate")
    first = workbench.run(probe_set, SHIPPED["default"])
    assert first.head == git(store.root, "rev-parse", "HEAD").strip()
    # a store change: the first probe's target is archived by hand (git mv + commit)
    target = probes[0].target
    git(store.root, "mv", target, target.replace(".html", "-old.txt"))
    git(store.root, "commit", "-q", "-m", "retire a memory")
    store.refresh()
    workbench.invalidate()
    second = workbench.run(workbench.files.read_probe_set("gate"), SHIPPED["default"])
    assert second.head != first.head and second.figures.skipped == 1
    listed = workbench.history.list(set_name="gate")
    assert [r.id for r in listed] == [first.id, second.id]
    loaded = workbench.history.load(second.id)
    assert loaded.figures == second.figures and loaded.verdicts == second.verdicts
    diff = workbench.history.diff(first.id, second.id)
    assert [(c.status, c.query) for c in diff.changes] == [("removed", probes[0].query)]
    # a probe that breaks under a what-if is "broke", with its ranks and the commits
    broken = Configuration(
        "fts-only",
        replace(DEFAULT, name="fts-only", arms=(Arm("fts", 0.0, needs_query_terms=True), Arm("recency", 1.0))),
    )
    third = workbench.run(workbench.files.read_probe_set("gate"), broken)
    diff = workbench.history.diff(second.id, third.id)
    assert diff.broke and all(c.rank_before == 1 and c.rank_after != 1 for c in diff.broke)
    assert diff.describe()[0].startswith(f"broke between {second.head[:12]} and {third.head[:12]}")
    # a torn summary line is skipped; rebuild restores the summary from the run files
    with open(workbench.history.index, "a") as handle:
        handle.write('{"id": "torn')
    assert len(workbench.history.list()) == 3
    workbench.history.index.unlink()
    assert workbench.history.rebuild() == 3 and len(workbench.history.list()) == 3
    # the history is in the app's data directory, not in the store and not beside the index
    assert not list(store.root.rglob("runs.jsonl")) and str(workbench.history.directory).startswith(
        str(__import__("os").environ["MEMHTML_DESKTOP_DATA"])
    )


def test_cancelling_a_run_records_nothing(small):
    store, probes = small
    workbench = Workbench(store)
    from memhtml_desktop.workbench import Cancelled

    with pytest.raises(Cancelled):
        workbench.run(ProbeSet("s", tuple(probes), ()), SHIPPED["default"], cancelled=lambda: True)
    assert workbench.history.list() == []


def test_the_workbench_reads_a_set_once_per_lexical_form_until_invalidated(small):
    store, probes = small
    workbench = Workbench(store)
    probe_set = ProbeSet("s", tuple(probes), (), "s")
    first = workbench.prepared(probe_set, SHIPPED["default"])
    assert workbench.prepared(probe_set, Configuration("w", WHAT_IFS[0])) is first
    other = workbench.prepared(probe_set, SHIPPED["memhtml"])
    assert other is not first and workbench.prepared(probe_set, SHIPPED["default"]) is first
    workbench.invalidate()
    assert workbench.prepared(probe_set, SHIPPED["default"]) is not first
    edited = ProbeSet("s", tuple(probes[:3]), (), "s")
    assert workbench.prepared(edited, SHIPPED["default"]).probes == tuple(probes[:3])
