"""The conflicts scan on stores with a known answer: a conflicting-fact store of real facts (recall,
precision, which side is newer; both embedders) and a documentation store (no false alarm).

`devtools/fact_store.py` says what the fact store holds; `devtools/doc_store.py` the documentation
store (the Python reference and the standard library's docstrings). The figures at several thousand
memories are `bench/contradictions_bench.py`'s; these are smaller stores with the same rules.
"""

from __future__ import annotations

import pytest

from memhtml_desktop.devtools import doc_store, fact_store
from memhtml_desktop.embedders.registry import make_embedder
from memhtml_desktop.index.store import Store
from memhtml_desktop.write.conflicts import scan_conflicts

LISTS = ("neighbour", "spoken")


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    base = tmp_path_factory.mktemp("facts")
    return fact_store.build(base / "store", slots=700, seed=11)


def _scan(made, embedder: str, tmp_path):
    store = Store(made.root, index_path=tmp_path / f"{embedder}.db", embedder=make_embedder(embedder))
    store.index()
    return scan_conflicts(store)


def _measure(made, report):
    relation = {f.path: f.relation for f in made.facts}
    truth = {frozenset(p): p[0] for p in made.pairs}
    flagged = {frozenset((p.a.path, p.b.path)): p for p in report.pairs}
    found = [k for k in flagged if k in truth]
    false = [k for k in flagged if k not in truth]
    slots = [k for k in false if relation[min(k)] not in LISTS]
    return len(found) / len(truth), found, false, slots, truth, flagged


@pytest.mark.parametrize("embedder", ["hash", pytest.param("minilm", marks=pytest.mark.slow)])
def test_the_scan_finds_the_changed_facts_and_which_is_newer(facts, embedder, tmp_path) -> None:
    if embedder == "minilm":
        pytest.importorskip("onnxruntime")
    report = _scan(facts, embedder, tmp_path)
    recall, found, false, slots, truth, flagged = _measure(facts, report)
    assert recall >= 0.8, f"found {len(found)} of {len(truth)} (newer, older) pairs"
    assert all(flagged[k].newer == truth[k] for k in found)
    assert len(slots) <= 2, [(flagged[k].a.claim, flagged[k].b.claim) for k in slots]  # besides list relations
    restated = {frozenset(p) for p in facts.restatements}
    assert not restated & set(flagged)  # one value in other words is no contradiction


def test_a_backfilled_fact_is_newer_by_its_event_time(facts, tmp_path) -> None:
    report = _scan(facts, "hash", tmp_path)
    by_path = {f.path: f for f in facts.facts}
    truth = {frozenset(p) for p in facts.pairs}
    backfilled = [
        p
        for p in report.pairs
        if p.newer and frozenset((p.a.path, p.b.path)) in truth and by_path[p.newer].batch < by_path[p.older].batch
    ]
    assert backfilled and all(by_path[p.newer].event for p in backfilled)


def test_the_json_keeps_its_shape_and_says_why_and_which_is_newer(facts, tmp_path) -> None:
    pair = _scan(facts, "hash", tmp_path).pairs[0].to_json()
    assert {"a", "b", "cosine", "diff", "links", "reason", "newer"} <= set(pair)
    assert (
        pair["reason"]["kind"] and pair["reason"]["detail"] and pair["newer"] in (pair["a"]["path"], pair["b"]["path"])
    )


def test_a_documentation_store_raises_no_false_alarm(tmp_path) -> None:
    root = tmp_path / "docs"
    written = doc_store.build(root, limit=1500)
    assert written > 1000
    report = _scan(type("Made", (), {"root": root})(), "hash", tmp_path)
    assert report.memories > 1000 and report.pairs == [], [(p.a.claim, p.b.claim) for p in report.pairs]
