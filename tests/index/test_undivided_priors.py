"""A prior whose window is one tie weighs 0 under the convex fusion (`domain.fusion.undivided`): a
store written in one `apply` lists every memory equally recent and equally salient, so recency and
salience would rank by path, and their ranks must not tip the arms' near-ties. The search, its
explanation and the workbench's re-ranking agree."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from memfiles import write_memory
from memhtml_desktop.domain.priors import PRIOR_ARMS
from memhtml_desktop.domain.ranking import DEFAULT
from memhtml_desktop.domain.refusion import rerank
from memhtml_desktop.index.arm_lists import prepare_queries

WHEN = "2026-06-01T09:30:00Z"
SUBJECTS = ["backup", "invoice", "thumbnail", "export", "digest", "rotation", "audit", "sync", "replica", "queue"]
WORDS = ["nightly", "window", "batch", "lag", "shard", "retry"]
QUERIES = ["nightly backup window", "replica lag during the batch", "why does the export retry", "audit shard sync"]
NO_PRIORS = dataclasses.replace(
    DEFAULT,
    name="no-priors",
    arms=tuple(dataclasses.replace(a, weight=0.0) if a.name in PRIOR_ARMS else a for a in DEFAULT.arms),
)


def _write(root, seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    paths = []
    for i in range(count):
        subject, word, other = rng.choice(SUBJECTS), rng.choice(WORDS), rng.choice(WORDS)
        # names sort every which way, so the path order (what a tie falls back on) is no signal
        path = f"areas/ops/{rng.choice('0abcxyz')}{i:02d}-{subject}.html"
        write_memory(
            root,
            path,
            title=f"The {subject} job {i}",
            claim=f"The {subject} job {i} runs in the {word} slot and its {other} is watched on shard {i % 7}.",
            created=WHEN,
        )
        paths.append(path)
    return paths


@pytest.fixture(params=[(3, 30), (11, 55)], ids=["seed3-30", "seed11-55"])
def one_apply(request, store_root, make_store):
    """Every memory written at one instant, nothing ever read: each prior's window is one tie."""
    seed, count = request.param
    paths = _write(store_root, seed, count)
    store = make_store(store_root)
    store.index()
    yield store, paths
    store.close_thread_connection()


def test_an_undivided_prior_weighs_nothing_and_the_list_is_the_arms_alone(one_apply):
    store, _ = one_apply
    for query in QUERIES:
        result = store.search(query, limit=10, ranking=DEFAULT)
        assert result.hits, query
        priors = [a for h in result.hits for a in h.arms if a.arm in PRIOR_ARMS]
        assert priors, "the priors still name each hit's rank"
        assert all(a.contribution == 0.0 and a.weight == 0.0 for a in priors)
        for h in result.hits:
            assert h.score == pytest.approx(math.fsum(a.contribution for a in h.arms), abs=1e-12)
        alone = store.search(query, limit=10, ranking=NO_PRIORS)
        assert [h.path for h in result.hits] == [h.path for h in alone.hits], query


def test_a_divided_prior_still_counts(one_apply, store_root):
    store, paths = one_apply
    newer = sorted(paths)[-1]  # the last by path: never first on a tie
    text = (store_root / newer).read_text(encoding="utf-8").replace(WHEN, "2026-07-01T09:30:00Z")
    (store_root / newer).write_text(text, encoding="utf-8")
    store.index()
    number, subject = newer.rsplit("/", 1)[1][1:-5].split("-")
    hits = store.search(f"{subject} job {int(number)}", limit=10, ranking=DEFAULT).hits
    recency = {h.path: a for h in hits for a in h.arms if a.arm == "recency"}
    weight = next(x.weight for x in DEFAULT.arms if x.name == "recency")
    assert recency[newer].rank == 1 and recency[newer].weight == weight
    assert recency[newer].contribution == pytest.approx(weight / (1 + DEFAULT.rrf_k))
    assert all(a.weight == weight for a in recency.values())  # the arm counts again (the gate may still drop a term)


def test_the_explanation_and_the_workbench_agree(one_apply):
    store, _ = one_apply
    prepared = prepare_queries(store, [(q, None, ()) for q in QUERIES], DEFAULT)
    model = store.embedder.model_id
    for query, ready in zip(QUERIES, prepared):
        hits = store.search(query, limit=10, ranking=DEFAULT).hits
        assert list(rerank(ready, DEFAULT, 10, model).paths) == [h.path for h in hits], query
        second = hits[1]
        why = store.why(query, None, second.path, ranking=DEFAULT)
        assert why.fused_position == second.fused_position
        assert why.arms["recency"]["contribution"] == 0.0 and why.arms["recency"]["weight"] == 0.0
        assert any("orders nothing" in r for r in why.reasons)
