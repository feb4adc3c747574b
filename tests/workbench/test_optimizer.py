"""The optimizer: a deterministic split, the held-out part never used for choosing, an honest report
of the gain, progress and cancellation."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from memhtml_desktop.domain.configs import Configuration, shipped
from memhtml_desktop.domain.probes import EvalProbe, ProbeSet
from memhtml_desktop.domain.ranking import DEFAULT
from memhtml_desktop.workbench import optimizer as opt
from memhtml_desktop.workbench.runs import judge_prepared, prepare_set

DEFAULT_CONFIG = {c.name: c for c in shipped()}["default"]


def _probes(n: int, seed: str = "") -> list[EvalProbe]:
    return [EvalProbe(f"query {seed}{i}", f"areas/x/t{i}.html") for i in range(n)]


def test_the_split_is_deterministic_disjoint_and_independent_of_order():
    probes = _probes(40)
    train, held = opt.split_probes(probes, holdout=0.3, seed=3)
    assert len(held) == 12 and len(train) == 28 and not set(train) & set(held)
    assert sorted(train + held) == list(range(40))
    assert opt.split_probes(probes, holdout=0.3, seed=3) == (train, held)
    shuffled = list(reversed(probes))
    train2, held2 = opt.split_probes(shuffled, holdout=0.3, seed=3)
    assert {shuffled[i].key for i in held2} == {probes[i].key for i in held}, (
        "the split follows the probes, not the file order"
    )
    assert opt.split_probes(probes, holdout=0.3, seed=4)[1] != held, "another seed, another split"
    two = opt.split_probes(_probes(2), holdout=0.9)
    assert sorted(two[0] + two[1]) == [0, 1] and len(two[0]) == len(two[1]) == 1, "one probe each side at least"
    with pytest.raises(ValueError):
        opt.split_probes(probes, holdout=1.0)


def test_sign_test_and_bootstrap_by_hand():
    # 8 wins, 1 loss: P(X <= 1) for Binomial(9, 1/2) = (1 + 9) / 512; two-sided 20/512 = 0.0390625
    assert opt.sign_test(8, 1) == pytest.approx(20 / 512)
    assert opt.sign_test(0, 0) == 1.0 and opt.sign_test(3, 3) == 1.0
    assert opt.sign_test(5, 0) == pytest.approx(2 / 32)
    low, high = opt.bootstrap_interval([0.5] * 10)
    assert low == high == 0.5
    low, high = opt.bootstrap_interval([1.0, -1.0] * 20, seed=2)
    assert low < 0 < high
    assert opt.bootstrap_interval([]) == (0.0, 0.0)


@pytest.fixture
def prepared(small):
    store, probes = small
    return prepare_set(store, ProbeSet("gate", tuple(probes), (), "gate"), DEFAULT)


def test_a_weak_base_is_improved_and_the_gain_is_measured_on_the_held_out_part(prepared):
    """Start from a configuration that hides the lexical and vector arms: the optimizer finds
    weights that bring targets back, and reports the held-out gain it measured."""
    # Priors counted for every memory (gate_priors off): with the gate, recency and salience could
    # not bury the targets however heavy, and there would be nothing to improve.
    weak = replace(
        DEFAULT,
        name="weak",
        gate_priors=False,
        arms=tuple(
            replace(a, weight={"fts": 0.05, "vector": 0.05, "recency": 3.0, "salience": 3.0}[a.name])
            for a in DEFAULT.arms
        ),
    )
    base = Configuration("weak", weak)
    result = opt.optimize_prepared(prepared, base, trials=40, seed=5, holdout=0.34)
    held = list(result.held_out)
    before = judge_prepared(prepared, weak, indexes=held)
    after = judge_prepared(prepared, result.best.profile, indexes=held)
    assert result.base_held_out_mrr == pytest.approx(sum(v.rr for v in before) / len(held))
    assert result.best_held_out_mrr == pytest.approx(sum(v.rr for v in after) / len(held))
    assert result.best_train_mrr > result.base_train_mrr and result.held_out_gain > 0
    c = result.certainty
    assert c.wins + c.losses <= len(held) and c.interval[0] <= result.held_out_gain <= c.interval[1] + 1e-9
    assert result.trials == 40 and not result.cancelled and result.trials_per_s > 0
    assert result.best.profile.fts_forms == weak.fts_forms and result.best.name == "weak-optimized"
    assert set(result.knobs) == {"arms", "rrf_k", "mmr_lambda", "lexical_share", "lexical_confidence"}


def test_the_held_out_probes_never_choose(prepared):
    """Spoil every held-out probe (its store reading swapped for another query's, so its target is
    nowhere in its list; the probe itself, and so the split, unchanged): the chosen configuration
    is exactly the same, only the held-out figures change."""
    base = Configuration("default", DEFAULT)
    train, held = opt.split_probes(prepared.probes, holdout=0.3, seed=9)
    first = opt.optimize_prepared(prepared, base, trials=25, seed=9)
    spoiled = list(prepared.queries)
    for i in held:
        spoiled[i] = prepared.queries[train[0]]
    other = replace(prepared, queries=tuple(spoiled))
    second = opt.optimize_prepared(other, base, trials=25, seed=9)
    assert first.knobs == second.knobs and first.best_train_mrr == second.best_train_mrr
    assert first.train == second.train == tuple(train)
    assert second.best_held_out_mrr == 0.0 and second.base_held_out_mrr == 0.0


def test_progress_and_cancellation_report_the_best_so_far(prepared):
    seen = []
    calls = {"n": 0}

    def cancelled() -> bool:
        calls["n"] += 1
        return calls["n"] > 6

    result = opt.optimize_prepared(
        prepared,
        Configuration("default", DEFAULT),
        trials=200,
        seed=2,
        progress=lambda stage, done, total: seen.append((stage, done, total)),
        cancelled=cancelled,
    )
    assert result.cancelled and result.trials < 200
    assert seen and all(stage == "trial" and total == 200 for stage, _, total in seen)
    assert [d for _, d, _ in seen] == sorted(d for _, d, _ in seen)
    assert math.isfinite(result.best_held_out_mrr)


def test_too_few_probes_is_a_clear_error(prepared):
    one = replace(prepared, probes=prepared.probes[:1], queries=prepared.queries[:1])
    with pytest.raises(ValueError, match="at least two probes"):
        opt.optimize_prepared(one, DEFAULT_CONFIG, trials=5)


def test_the_lexical_knobs_are_searched_each_variant_read_once_and_judged_with_its_own_reading(small):
    """On a stemmed base with a reader for other profiles, trials vary bm25's field weights and the
    question words; each lexical variant is read once, and the winner is judged on its own reading
    (its figures equal a fresh preparation's under the winning profile)."""
    store, probes = small
    probe_set = ProbeSet("gate", tuple(probes), (), "gate")
    base = Configuration("default", replace(DEFAULT, field_weights=(1.0, 1.0, 2.0)))
    prepared = prepare_set(store, probe_set, base.profile)
    reads: list[tuple] = []

    def prepare(profile):
        reads.append(profile.lexical_key)
        return prepare_set(store, probe_set, profile)

    result = opt.optimize_prepared(prepared, base, trials=30, seed=3, holdout=0.34, prepare=prepare)
    assert {"field_weights", "question_words"} <= set(result.knobs)
    assert len(reads) == len(set(reads)) and reads, "every lexical variant read once, and some were"
    assert all(tuple(k[2]) in opt.FIELD_GRID or tuple(k[2]) == (1.0, 1.0, 2.0) for k in reads)
    best = result.best.profile
    assert (
        best.field_weights == tuple(result.knobs["field_weights"])
        and best.question_words == result.knobs["question_words"]
    )
    fresh = prepare_set(store, probe_set, best)
    held = list(result.held_out)
    assert result.best_held_out_mrr == pytest.approx(
        sum(v.rr for v in judge_prepared(fresh, best, indexes=held)) / len(held)
    )
    without = opt.optimize_prepared(prepared, base, trials=10, seed=3, holdout=0.34)
    assert "field_weights" not in without.knobs, "without a reader, only the re-rankable knobs are searched"


def test_the_fusion_knobs_are_searched_for_this_stores_embedder_only(prepared):
    """On a convex base the optimizer varies the lexical share and the lexical confidence of the store's
    embedder; every other embedder's values stay the base's, the winner's held-out figure is what its
    profile gives, and an RRF base (memhtml) has no fusion knobs to vary."""
    from memhtml_desktop.domain.ranking import PerEmbedder

    model = prepared.model_id
    other = "some-other-embedder"
    base_profile = replace(
        DEFAULT,
        lexical_share=PerEmbedder(((model, 0.5), (other, 0.61)), 0.42),
        lexical_confidence=PerEmbedder(((model, 0.0), (other, 3.0)), 0.7),
    )
    result = opt.optimize_prepared(prepared, Configuration("fusion", base_profile), trials=30, seed=4, holdout=0.34)
    best = result.best.profile
    share, exponent = result.knobs["lexical_share"], result.knobs["lexical_confidence"]
    assert opt.SHARE_RANGE[0] <= share <= opt.SHARE_RANGE[1] or share == 0.5
    assert exponent in opt.CONFIDENCE_GRID
    assert best.lexical_share.get(model) == share and best.lexical_confidence.get(model) == exponent
    assert best.lexical_share.get(other) == 0.61 and best.lexical_share.default == 0.42
    assert best.lexical_confidence.get(other) == 3.0 and best.lexical_confidence.default == 0.7
    held = list(result.held_out)
    assert result.best_held_out_mrr == pytest.approx(
        sum(v.rr for v in judge_prepared(prepared, best, indexes=held)) / len(held)
    )
    memhtml = {c.name: c for c in shipped()}["memhtml"]
    assert "lexical_share" not in opt.knobs_of(memhtml.profile, convex=memhtml.profile.fusion == "convex")
    applied = opt.apply_knobs(DEFAULT, {**opt.knobs_of(DEFAULT), "lexical_share": 0.33, "lexical_confidence": 2.0})
    assert applied.lexical_share.default == 0.33 and applied.lexical_confidence.default == 2.0, (
        "no embedder named: the fallback"
    )
    assert applied.lexical_share.values == DEFAULT.lexical_share.values
