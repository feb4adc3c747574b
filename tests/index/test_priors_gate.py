"""Gated priors (`domain/priors.py`): recency and salience count only for memories the query
matches, in the search, its explanation and the workbench's re-ranking alike."""

from __future__ import annotations

import dataclasses
import random

import pytest

from memfiles import write_memory
from memhtml_desktop.domain.priors import gated_order, matches_query
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML
from memhtml_desktop.domain.refusion import rerank
from memhtml_desktop.index.arm_lists import prepare_queries

# The gate matters most under RRF, where a prior's rank is worth as much as a lexical or vector rank;
# under the default's convex fusion priors only order memories the arms scored alike (domain/fusion.py).
GATED = dataclasses.replace(DEFAULT, name="gated-rrf", fusion="rrf")
UNGATED = dataclasses.replace(GATED, name="ungated", gate_priors=False)
TARGET = "areas/data/reporting-replica-lag.html"
QUERY = "replication lag on the reporting replica during nightly batch window"


def test_the_pure_gate():
    assert matches_query(0.7, 0.6, False) and matches_query(None, 0.6, True) and matches_query(0.1, 0.6, True)
    assert not matches_query(0.59, 0.6, False) and not matches_query(None, 0.6, False)
    parts = {"a": [("fts", 0.01), ("recency", 0.008)], "b": [("vector", 0.0164)], "c": [("salience", 0.0066)]}
    assert gated_order(parts, lambda p: True) == [(pytest.approx(0.018), "a"), (0.0164, "b"), (0.0066, "c")]
    assert gated_order(parts, lambda p: p != "a") == [(0.0164, "b"), (0.01, "a"), (0.0066, "c")]
    assert gated_order(parts, lambda p: False)[-1] == (0.0, "c")  # priors alone count nothing


@pytest.fixture(params=[3, 8])
def crowded(request, store_root, make_store):
    """One old memory that means the query without holding its every word, and 45 newer ones that
    share one query word each ("nightly", "window", "batch", "lag") and nothing else."""
    rng = random.Random(request.param)
    write_memory(
        store_root,
        TARGET,
        title="Reporting replica lag",
        claim="Replication lag on the reporting replica stays under five seconds during the nightly batch.",
        created="2025-01-10T00:00:00Z",
    )
    subjects = ["cleanup", "invoice", "thumbnail", "export", "digest", "rotation", "backup", "audit", "sync"]
    shared = ["nightly", "window", "batch", "lag"]
    for i in range(45):
        word, subject = shared[i % 4], rng.choice(subjects)
        day = 1 + rng.randrange(28)
        name = f"{rng.choice('abcdefgh')}{i:02d}-{subject}"  # names sort every which way around the target
        write_memory(
            store_root,
            f"resources/ops/{name}.html",
            title=f"The {subject} job {i}",
            claim=f"The {subject} job {i} uses the {word} slot for its {subject} work on shard {i}.",
            created=f"2026-{1 + i % 9:02d}-{day:02d}T00:00:00Z",
        )
    store = make_store(store_root)
    store.index()
    yield store
    store.close_thread_connection()


def test_priors_do_not_lift_memories_the_query_does_not_match(crowded):
    plain = crowded.search(QUERY, limit=10, ranking=UNGATED)
    gated = crowded.search(QUERY, limit=10, ranking=GATED)
    assert plain.fts_form == "any"  # no memory holds every word: a paraphrase-like query
    plain_paths = [h.path for h in plain.hits]
    assert TARGET not in plain_paths[:1]  # newer one-word matches outrank it on recency
    assert gated.hits[0].path == TARGET
    crowders = [h for h in gated.hits if h.path != TARGET]
    assert crowders and all(
        not a.counted and a.contribution == 0.0 for h in crowders for a in h.arms if a.arm in ("recency", "salience")
    )
    target = gated.hits[0]
    assert all(a.counted for a in target.arms)  # the one the query means keeps its recency
    # The memhtml profile is memhtml's fusion: nothing gated.
    assert all(a.counted for h in crowded.search(QUERY, ranking=MEMHTML).hits for a in h.arms)


def test_the_explanation_ranks_as_the_search_does(crowded):
    gated = crowded.search(QUERY, limit=10, ranking=GATED)
    crowder = gated.hits[1].path
    why = crowded.why(QUERY, None, crowder, ranking=GATED)
    assert why.fused_position == gated.hits[1].fused_position
    assert why.arms["recency"]["counted"] is False and why.arms["recency"]["contribution"] == 0.0
    assert any("not counted" in r for r in why.reasons)
    target = crowded.why(QUERY, None, TARGET, ranking=GATED)
    assert target.fused_position == 1 and "counted" not in target.arms.get("recency", {})
    assert crowded.why(QUERY, None, TARGET, ranking=UNGATED).fused_position > 1


@pytest.mark.parametrize("profile", [GATED, UNGATED, DEFAULT], ids=["gated", "ungated", "default-convex"])
def test_the_workbench_re_ranking_equals_the_search(crowded, profile):
    queries = [QUERY, "nightly window", "reporting replica", "cleanup job batch lag slot"]
    prepared = prepare_queries(crowded, [(q, None, ()) for q in queries], profile)
    model = crowded.embedder.model_id
    for query, ready in zip(queries, prepared):
        searched = [h.path for h in crowded.search(query, limit=10, ranking=profile).hits]
        assert list(rerank(ready, profile, 10, model).paths) == searched, query


def test_the_cli_marks_ranks_that_did_not_count(crowded, capsys):
    from memhtml_desktop.cli.output import print_search, print_why

    print_search(crowded.search(QUERY, limit=10, ranking=GATED))
    out = capsys.readouterr().out
    assert "(rank): ranked but not counted" in out
    crowder = next(line for line in out.splitlines() if line.strip().startswith("2 "))
    assert "(" in crowder  # its recency rank in parentheses
    print_search(crowded.search(QUERY, limit=10, ranking=UNGATED))
    assert "not counted" not in capsys.readouterr().out
    gated = crowded.search(QUERY, limit=10, ranking=GATED)
    print_why(crowded.why(QUERY, None, gated.hits[1].path, ranking=GATED))
    assert "not counted" in capsys.readouterr().out
