"""The workbench's measures against values computed by hand: nDCG@10, recall@10, reciprocal rank,
inversions, pass/fail, the set's figures, and which arm lost a probe."""

from __future__ import annotations

import math

import pytest

from memhtml_desktop.domain.judging import FusionTrace, RunFigures, dcg, figures, judge, lost_by, ndcg_at, recall_at
from memhtml_desktop.domain.probes import EvalProbe


def test_dcg_and_ndcg_by_hand():
    # relevant at positions 2 and 5: 1/log2(3) + 1/log2(6) = 0.63093 + 0.38685 = 1.01778
    assert dcg([2, 5]) == pytest.approx(0.6309297536 + 0.3868528072, abs=1e-9)
    # ideal for two relevant: 1/log2(2) + 1/log2(3) = 1 + 0.63093 = 1.63093; nDCG = 1.01778 / 1.63093 = 0.62405
    assert ndcg_at([2, 5], 2) == pytest.approx(1.0177825608 / 1.6309297536, abs=1e-9)
    assert ndcg_at([2, 5], 2) == pytest.approx(0.624050, abs=1e-6)
    assert ndcg_at([1], 1) == 1.0 and ndcg_at([], 1) == 0.0
    assert ndcg_at([11], 1) == 0.0, "past the first page counts nothing"
    # one relevant at position 3: 1/log2(4) = 0.5
    assert ndcg_at([3], 1) == pytest.approx(0.5)
    # three relevant, one found at 1: 1 / (1 + 0.63093 + 0.5) = 0.46927
    assert ndcg_at([1], 3) == pytest.approx(1 / (1 + 1 / math.log2(3) + 0.5))


def test_recall_at_10_by_hand():
    assert recall_at([2, 5], 2) == 1.0
    assert recall_at([2, 12], 2) == 0.5
    assert recall_at([], 3) == 0.0 and recall_at([4], 3) == pytest.approx(1 / 3)


LIST = ["c1.html", "t.html", "x.html", "c2.html", "t2.html"]


def test_one_probe_judged_by_hand():
    probe = EvalProbe("q", "t.html", ("c1.html", "c2.html"))
    v = judge(probe, LIST)
    assert v.rank == 2 and v.rr == 0.5 and v.inverted == ("c1.html",) and not v.passed
    assert v.ndcg == pytest.approx(1 / math.log2(3)) and v.recall == 1.0
    assert v.gate_rank == 2  # among {t, c1, c2}: c1 first
    assert v.lost_to == "c1.html"
    several = EvalProbe("q", "t2.html", targets=("t.html",), within=10)
    w = judge(several, LIST)
    # targets t2 (primary) and t: best at 2; DCG 1/log2(3) + 1/log2(6); ideal 1 + 1/log2(3)
    assert w.rank == 2 and w.passed and w.inverted == ()
    assert w.ndcg == pytest.approx((1 / math.log2(3) + 1 / math.log2(6)) / (1 + 1 / math.log2(3)))
    missing = judge(EvalProbe("q", "nowhere.html", ("c1.html",)), LIST)
    assert missing.rank is None and missing.rr == 0.0 and missing.inverted == ("c1.html",) and not missing.passed


def test_the_sets_figures_by_hand():
    verdicts = [
        judge(EvalProbe("a", "t.html"), ["t.html", "x.html"]),  # rr 1, passed
        judge(EvalProbe("b", "t.html", ("c1.html",)), LIST),  # rr 1/2, 1 inversion
        judge(EvalProbe("c", "t.html"), ["x.html", "y.html", "z.html", "t.html"]),  # rr 1/4, within 1: fails
        judge(EvalProbe("d", "t.html"), ["x.html"]),  # absent: rr 0, recall 0
    ]
    f = figures(verdicts, skipped=2)
    assert f.probes == 4 and f.passed == 1 and f.failed == 3 and f.skipped == 2
    assert f.mrr == pytest.approx((1 + 0.5 + 0.25 + 0) / 4) == 0.4375
    assert f.ndcg == pytest.approx((1 + 1 / math.log2(3) + 1 / math.log2(5) + 0) / 4)
    assert f.recall == pytest.approx(3 / 4)
    assert f.inversions == 1 and f.inverted_probes == 1
    assert RunFigures.from_json(f.to_json()) == RunFigures(
        4, 1, 0.4375, round(f.ndcg, 6), 0.75, 1, 1, 0, round(f.gate_mrr, 6), 2
    )


def test_which_arm_lost_the_probe():
    # target: fts 1, vector 3; control: fts 2, vector 1, recency 1. Control ahead by recency's 0.5/61.
    trace = FusionTrace(
        fused=("c.html", "t.html"),
        arm_ranks={"fts": {"t.html": 1, "c.html": 2}, "vector": {"c.html": 1, "t.html": 3}, "recency": {"c.html": 1}},
        weights={"fts": 1.0, "vector": 1.0, "recency": 0.5},
        k=60,
    )
    # margins: fts 1/62 - 1/61 < 0; vector 1/61 - 1/63 = 0.000520; recency 0.5/61 = 0.008197
    assert lost_by("t.html", "c.html", trace) == "recency"
    # a post-fusion step: fused order has the target first, the list does not
    moved = FusionTrace(
        fused=("t.html", "c.html"),
        arm_ranks={"fts": {"t.html": 1, "c.html": 2}},
        weights={"fts": 1.0},
        k=60,
        moves={"t.html": ("twins",)},
    )
    assert lost_by("t.html", "c.html", moved) == "twins"
    tie = FusionTrace(
        fused=("c.html", "t.html"),
        arm_ranks={"fts": {"t.html": 1, "c.html": 2}, "vector": {"t.html": 2, "c.html": 1}},
        weights={"fts": 1.0, "vector": 1.0},
        k=60,
    )
    assert lost_by("t.html", "c.html", tie) == "tie"
    unreached = FusionTrace(fused=("c.html",), arm_ranks={"fts": {"c.html": 1}}, weights={"fts": 1.0})
    assert lost_by("t.html", "c.html", unreached) == "unreached"
    verdict = judge(EvalProbe("q", "t.html", ("c.html",)), ["c.html", "t.html"], trace=trace)
    assert verdict.lost_by == "recency" and verdict.lost_to == "c.html"
