"""The gate's measures: rank among controls, inversions, MRR, corpus MRR, known-item MRR@k."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memhtml_desktop.domain.metrics import (
    known_item_summary,
    probe_outcome,
    probe_rank,
    reciprocal,
    summarize,
)


def test_probe_rank_matches_memhtml():
    assert probe_rank(["c1", "t", "c2"], "t", ["c1", "c2", "c3"]) == 2
    assert probe_rank(["t"], "t", ["c1"]) == 1, "an absent control counts as beaten"
    assert probe_rank(["c1"], "t", ["c1", "c2"]) == 3, "an absent target is beaten by every control"


def test_outcome_names_what_beat_the_target():
    o = probe_outcome("q", ["x", "c2", "t", "c1"], "t", ["c1", "c2", "c3"], families=["negation", "numeric", "variant"])
    assert o.rank == 2 and o.corpus_rank == 3
    assert o.inverted == ("c2",) and o.inverted_families == ("numeric",)
    absent = probe_outcome("q", ["c1"], "t", ["c1", "c2"])
    assert absent.inverted == ("c1", "c2") and absent.corpus_rank is None


def test_summary_gate():
    clean = [probe_outcome("q", ["t", "c"], "t", ["c"]) for _ in range(20)]
    s = summarize(clean)
    assert s.passed and s.mrr == 1.0 and s.corpus_mrr == 1.0 and s.inversions == 0
    one_bad = clean + [probe_outcome("q", ["c", "t"], "t", ["c"], families=["numeric"])]
    s = summarize(one_bad)
    assert not s.passed and s.mrr > 0.85, "one inversion fails whatever the MRR"
    assert s.inversions == 1 and s.inverted_probes == 1 and s.by_family == {"numeric": 1}
    assert not summarize([]).passed and summarize([]).mrr == 0.0
    degraded = summarize([probe_outcome("q", ["t"], "t", [], degraded=True)])
    assert degraded.degraded_probes == 1


def test_known_item_mrr_at_k():
    s = known_item_summary("claim", [1, 2, None, 11], 10, twinned=[False, True, False, False])
    assert s.mrr == (1 + 0.5 + 0 + 0) / 4 and s.missing == 2
    assert s.twin_free_n == 3 and s.twin_free_mrr == 1 / 3
    assert reciprocal(11, 10) == 0.0 and reciprocal(None) == 0.0 and reciprocal(4) == 0.25


@given(st.permutations(["t", "a", "b", "c", "x", "y"]))
def test_rank_and_inversions_agree(paths):
    o = probe_outcome("q", list(paths), "t", ["a", "b", "c"])
    assert o.rank == 1 + len(o.inverted)
    assert o.corpus_rank == paths.index("t") + 1
