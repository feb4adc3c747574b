"""Implicit judgments (opt-in, local), floor calibration on a probe set, coverage diagnostics, and
side-by-side comparisons."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from memhtml_desktop.domain.configs import Configuration, shipped
from memhtml_desktop.domain.probes import ProbeSet
from memhtml_desktop.domain.ranking import DEFAULT
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.workbench import JudgmentLog, Workbench
from memhtml_desktop.workbench.floor import FloorRow, scan_prepared
from memhtml_desktop.workbench.runs import prepare_set

SHIPPED = {c.name: c for c in shipped()}


def test_judgments_are_off_by_default_and_never_in_the_store(tmp_path):
    log = JudgmentLog(tmp_path / "data")
    assert log.record("drain the vip", "areas/a.html", 2) is None and not log.file.exists()
    on = JudgmentLog(tmp_path / "data", enabled=True)
    first = on.record("drain  the VIP", "areas/a.html", 3)
    assert on.record("drain the vip", "areas/a.html", 1) == first, "same question, case and spaces aside"
    on.record("rotate keys", "areas/k.html", 5, Scope.build(workspace="sec"))
    on.record("", "areas/x.html", 1)
    candidates = on.candidates()
    assert [(j.query, j.count, j.best_position) for j in candidates] == [("drain the VIP", 2, 1), ("rotate keys", 1, 5)]
    probe = on.accept(first)
    assert probe.target == "areas/a.html" and probe.query == "drain the VIP" and "2x" in probe.note
    assert [j.query for j in on.candidates()] == ["rotate keys"]
    keys = on.candidates()[0]
    assert keys.to_probe().scope == Scope.build(workspace="sec")
    on.discard(keys.id)
    assert on.candidates() == []
    on.record("rotate keys", "areas/k.html", 4, Scope.build(workspace="sec"))
    assert [j.count for j in on.candidates()] == [1], "opened again after a decision: offered afresh"
    with open(on.file, "a") as handle:
        handle.write('{"event": "opened", "id": ')
    assert len(on.candidates()) == 1
    with pytest.raises(KeyError):
        on.discard("nope")


def test_the_workbench_keeps_judgments_in_the_data_dir_not_the_store(small):
    store, _ = small
    workbench = Workbench(store, implicit_judgments=True)
    workbench.judgments.record("query", "areas/a.html", 1)
    assert workbench.judgments.file.is_relative_to(Path(os.environ["MEMHTML_DESKTOP_DATA"]))
    assert not any(store.root.rglob("judgments.jsonl"))


def test_floor_scan_counts_by_hand(small):
    store, probes = small
    prepared = prepare_set(store, ProbeSet("s", tuple(probes[:6]), ()), DEFAULT, with_cosines=True)
    scan = scan_prepared(prepared, SHIPPED["default"], grid=(0.0, 0.5, 0.99))
    targets = [q.cosines[p.target] for p, q in zip(prepared.probes, prepared.queries)]
    assert scan.targets == 6 and scan.rows[0].targets_dropped == 0
    assert scan.rows[2].targets_dropped == sum(1 for c in targets if c < 0.99)
    assert scan.rows[1].targets_dropped == sum(1 for c in targets if c < 0.5)
    # admitted falls and dropped rises as the floor rises
    assert scan.rows[0].non_targets_admitted >= scan.rows[1].non_targets_admitted >= scan.rows[2].non_targets_admitted
    assert scan.current == DEFAULT.floor_cosine.get("memhtml-desktop-hash-v1") == 0.45
    assert scan.suggested in (0.0, 0.5, 0.99)
    chosen = scan.row(scan.suggested)
    assert all(
        (r.targets_dropped + r.non_targets_admitted) >= (chosen.targets_dropped + chosen.non_targets_admitted)
        or (r.targets_dropped == 0 and r.non_targets_admitted == 0)
        for r in scan.rows
    )


def test_the_seed_rule_prefers_the_lowest_clean_floor():
    from memhtml_desktop.workbench.floor import FloorScan

    rows = (FloorRow(0.3, 0, 4, 1), FloorRow(0.4, 0, 0, 0), FloorRow(0.5, 0, 0, 0), FloorRow(0.6, 2, 0, 0))
    clean = [r for r in rows if r.targets_dropped == 0 and r.non_targets_admitted == 0]
    assert clean[0].floor == 0.4
    assert FloorScan(None, rows, 0.4, 0.45, 4, 4).row(0.42).floor == 0.4


def test_a_chosen_floor_is_saved_as_a_configuration(small):
    store, _ = small
    workbench = Workbench(store)
    saved = workbench.save_floor(SHIPPED["default"], 0.35)
    assert saved.paths == (".memhtml-desktop/configs/default-floor.json", ".memhtml-desktop/.gitignore")
    read = workbench.files.read_configuration("default-floor")
    assert read.profile.floor_cosine.get("memhtml-desktop-hash-v1") == 0.35
    assert read.profile.floor_cosine.get("all-MiniLM-L6-v2") == 0.55 and read.base == "default"


def test_crowders_name_the_memory_on_every_page_and_the_arms_behind_it(small):
    """Weigh recency and salience up: the newest and most-read memories crowd every page, and the
    report says recency/salience alone put them there."""
    store, probes = small
    heavy = Configuration(
        "heavy",
        replace(
            DEFAULT,
            name="heavy",
            gate_priors=False,
            arms=tuple(replace(a, weight={"recency": 5.0, "salience": 5.0}.get(a.name, 0.2)) for a in DEFAULT.arms),
        ),
    )
    workbench = Workbench(store)
    probe_set = ProbeSet("s", tuple(probes), (), "s")
    crowd = workbench.crowders(probe_set, heavy, min_share=0.9)
    assert crowd and all(c.pages >= 0.9 * len(probes) and c.share >= 0.9 for c in crowd)
    assert all(c.without_query_arms > 0 and set(c.arms) & {"recency", "salience"} for c in crowd)
    assert len(workbench.crowders(probe_set, SHIPPED["default"], min_share=0.9)) < len(crowd)
    # The same heavy priors, counted only for memories the query matches: nobody crowds every page.
    gated = Configuration("heavy-gated", replace(heavy.profile, name="heavy-gated", gate_priors=True))
    assert len(workbench.crowders(probe_set, gated, min_share=0.9)) < len(crowd)


def test_unreachable_memories_are_found_and_a_reachable_store_has_few(small):
    store, _ = small
    workbench = Workbench(store)
    report = workbench.unreachable(SHIPPED["default"], sample=60, seed=3)
    assert report.checked == 60
    assert len(report.unreachable) < 60 // 2
    crippled = Configuration(
        "blind",
        replace(
            DEFAULT,
            name="blind",
            arms=tuple(replace(a, weight=0.0 if a.name in ("fts", "vector") else a.weight) for a in DEFAULT.arms),
        ),
    )
    blind = workbench.unreachable(crippled, sample=60, seed=3)
    assert len(blind.unreachable) > len(report.unreachable)
    assert all(u.rank is None or u.rank > 10 for u in blind.unreachable)


def test_two_configurations_side_by_side(small):
    store, probes = small
    workbench = Workbench(store)
    probe_set = ProbeSet("s", tuple(probes), (), "s")
    blind = Configuration(
        "blind",
        replace(
            DEFAULT,
            name="blind",
            arms=tuple(replace(a, weight=0.0 if a.name == "fts" else a.weight) for a in DEFAULT.arms),
        ),
    )
    comparison = workbench.compare(probe_set, SHIPPED["default"], blind)
    assert comparison.a.config_name == "default" and comparison.b.config_name == "blind"
    by_key = {v.key: v for v in comparison.b.verdicts}
    for change in comparison.changes:
        assert change.rank_after == by_key[change.key].rank
        assert change.delta is None or change.delta == change.rank_before - change.rank_after
    moved = {c.key for c in comparison.changes}
    for a in comparison.a.verdicts:
        b = by_key[a.key]
        assert (a.key in moved) == (a.rank != b.rank or a.passed != b.passed)
    one = workbench.compare_query(probes[0].query, SHIPPED["memhtml"], SHIPPED["default"])
    a_paths = [h.path for h in one.a.hits]
    b_paths = [h.path for h in one.b.hits]
    for i, at in enumerate(one.links):
        assert (at is None) == (a_paths[i] not in b_paths) and (at is None or b_paths[at] == a_paths[i])
    assert set(one.only_b) == set(b_paths) - set(a_paths)
    assert one.a.ranking == "memhtml" and one.b.ranking == "default"


def test_pinning_offers_the_targets_planted_twins_as_controls(small):
    """gen_store plants three near-twin controls per probe target: they are what pinning offers."""
    store, probes = small
    workbench = Workbench(store)
    for probe in probes[:4]:
        offered = workbench.suggest_controls(probe.query, probe.target, SHIPPED["default"])
        assert set(probe.controls) <= {s.path for s in offered}, probe.query
        assert all(s.similarity >= 0.94 for s in offered) and probe.target not in {s.path for s in offered}
    saved = workbench.pin("pinned", probes[0].query, probes[0].target, controls=probes[0].controls, note="from a row")
    read = workbench.files.read_probe_set("pinned").probes[0]
    assert read.controls == probes[0].controls and read.note == "from a row" and saved.commit_sha
