"""Comparing pack shapes over a probe set: where each target landed, and what each shape cost."""

from __future__ import annotations

import json

import pytest

from memfiles import write_memory
from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.domain.probes import EvalProbe
from memhtml_desktop.index.store import Store
from memhtml_desktop.workbench.shapes import Cancelled, compare_shapes


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    base = tmp_path_factory.mktemp("shape-compare")
    made = generate_store(base / "store", 400, 5, probes=12, state=True)
    store = Store(made.root, index_path=base / "index.db")
    store.index()
    probes = [EvalProbe(p.query, p.target, p.controls) for p in made.probes]
    return store, probes


def test_each_landing_is_what_the_shape_holds(generated):
    store, probes = generated
    report = compare_shapes(store, probes, budget=3000, k=8)
    assert len(report.rows) == len(probes)
    for probe, row in zip(probes, report.rows):
        pack = store.recall(probe.query, budget=3000)
        tiers = {i.path: i.tier for i in (*pack.memories.items, *pack.arcs.items)}
        memhtml = row.landing("memhtml")
        expected = (
            "missing" if probe.target not in tiers else ("pointer" if tiers[probe.target] == "index" else "content")
        )
        assert memhtml.outcome == expected
        cat = store.catalogue(probe.query, k=8, budget=3000)
        first = row.landing("catalog+1")
        assert first.cost == cat.with_expansions(1)
        assert (first.outcome == "content") == (bool(cat.listed) and cat.listed[0].path == probe.target)
        assert row.landing("catalog+2").cost == cat.with_expansions(2)
    for figures in report.figures:
        assert figures.probes == len(probes) and figures.content + figures.pointer <= figures.probes
    assert report.figures[0].content > 0, "the generated probes are findable"
    assert json.loads(json.dumps(report.to_json()))["figures"][0]["shape"] == "memhtml"


def test_a_tight_budget_turns_content_into_pointers(generated):
    store, probes = generated
    roomy = {f.shape: f for f in compare_shapes(store, probes, budget=16_000).figures}
    tight = {f.shape: f for f in compare_shapes(store, probes, budget=40).figures}
    assert tight["memhtml"].content < roomy["memhtml"].content
    assert tight["memhtml"].pointer > 0, "in the pack as an index line: a budget problem, not a ranking one"


def test_picking_an_entry_the_catalogue_cannot_tell_apart_costs_every_lookalike(tmp_path):
    store_root = tmp_path / "store"
    for ws in ("checkout-api", "billing-service", "mobile-app"):
        write_memory(
            store_root,
            f"projects/{ws}/pool-size.html",
            title="Pool size",
            claim="The connection pool holds 40 connections.",
            body=f"Measured on {ws} in March.",
        )
    store = Store(store_root, index_path=tmp_path / "index.db")
    store.index()
    target = "projects/mobile-app/pool-size.html"
    row = compare_shapes(store, [EvalProbe("connection pool holds 40", target)], k=5).rows[0]
    cat = store.catalogue("connection pool holds 40", k=5)
    pick = row.landing("catalog+pick")
    assert pick.outcome == "content" and "2 it cannot be told from" in pick.where
    assert pick.cost == cat.cost + sum(e.expand_cost for e in cat.entries)


def test_cancelling_stops_between_probes(generated):
    store, probes = generated
    seen = []
    with pytest.raises(Cancelled):
        compare_shapes(
            store, probes, progress=lambda stage, done, total: seen.append(done), cancelled=lambda: len(seen) >= 2
        )
    assert seen == [1, 2]
