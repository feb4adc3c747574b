"""The optimizer: arm weights, RRF's k, MMR's λ and the lexical knobs for the best MRR, with an honest held-out gain.

The probe set is split once, deterministically (`split_probes`: each probe's key hashed with the
seed, so the split does not depend on file order and is the same on every machine). The search
sees only the training part: every trial is judged on it alone, and the best trial is chosen on
it alone. The held-out part is read twice, at the end, for the base and the chosen
configuration; the gain reported is the held-out gain, with how sure it is:

- a paired bootstrap interval (95 %, seeded) of the mean difference in reciprocal rank over the
  held-out probes, and
- a sign test over the held-out probes whose reciprocal rank changed (exact binomial, two-sided).

A gain on the training part alone is what any search finds by fitting noise; the held-out figure
is the one to believe, and with few held-out probes the interval says how little it proves.

The search is seeded random sampling around the base (weights 0–3, k from a grid, λ 0.3–1.0;
on a base that ranks with the stemmed lexical index, also bm25's field weights from `FIELD_GRID`
and whether question words are left out; on a convex base, the store's embedder's lexical share and
lexical confidence), then coordinate refinement of the best; every trial
re-ranks the cached per-arm candidate lists (`runs.judge_prepared`), so a trial costs arithmetic,
not SQL (a lexical variant is read once, the first time a trial asks for it). Progress is reported per trial;
cancelling stops the search and still reports the best so far (`cancelled=True`).
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from dataclasses import dataclass, field, replace
from random import Random
from typing import TYPE_CHECKING, Any, Callable, Sequence

from memhtml_desktop.domain.configs import Configuration
from memhtml_desktop.domain.metrics import mean
from memhtml_desktop.domain.probes import EvalProbe, ProbeSet
from memhtml_desktop.domain.ranking import PerEmbedder, RankingProfile
from memhtml_desktop.workbench.runs import RUN_LIMIT, Cancelled, PreparedSet, Progress, judge_prepared, prepare_set

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import WorkbenchStore

K_GRID = (5, 10, 20, 30, 45, 60, 90, 120, 200)
WEIGHT_RANGE = (0.0, 3.0)
LAMBDA_RANGE = (0.3, 1.0)
FIELD_GRID = ((1.0, 1.0, 1.0), (2.0, 1.0, 1.0), (3.0, 1.0, 1.0), (2.0, 2.0, 1.0), (1.0, 2.0, 1.0), (1.0, 1.0, 2.0))
"""bm25's (title, claim, body) weights the optimizer tries for the stemmed lexical index. Each value
of them, and each setting of `question_words`, changes the lexical arm's candidates, so each costs
one more reading of the probe set (made once, when a trial first asks for it)."""
SHARE_RANGE = (0.05, 0.95)
CONFIDENCE_GRID = (0.0, 0.25, 0.5, 1.0, 2.0)
"""Under the convex fusion the optimizer also tries this store's embedder's `lexical_share` (sampled in
`SHARE_RANGE`) and `lexical_confidence` (from this grid); neither changes the candidates, so both are
arithmetic on the cached lists."""


def split_probes(probes: Sequence[EvalProbe], *, holdout: float = 0.3, seed: int = 1) -> tuple[list[int], list[int]]:
    """(training indexes, held-out indexes): probes ordered by sha1(seed:key), the last
    `holdout` share held out (at least one each side when there are two or more probes)."""
    if not 0.0 < holdout < 1.0:
        raise ValueError(f"holdout must lie strictly between 0 and 1, got {holdout!r}")
    order = sorted(range(len(probes)), key=lambda i: hashlib.sha1(f"{seed}:{probes[i].key}".encode()).hexdigest())
    n = len(order)
    held = min(max(1, round(n * holdout)), n - 1) if n >= 2 else 0
    return sorted(order[: n - held]), sorted(order[n - held :])


@dataclass(frozen=True)
class Trial:
    number: int
    knobs: dict[str, Any]
    train_mrr: float


@dataclass(frozen=True)
class Certainty:
    """How sure the held-out gain is."""

    interval: tuple[float, float]  # paired bootstrap 95 % interval of the mean RR difference
    wins: int  # held-out probes ranked higher by the chosen configuration
    losses: int
    p_value: float  # two-sided exact sign test over wins and losses

    def to_json(self) -> dict[str, Any]:
        return {
            "interval_95": [round(self.interval[0], 6), round(self.interval[1], 6)],
            "wins": self.wins,
            "losses": self.losses,
            "sign_test_p": round(self.p_value, 6),
        }


MIN_STEP = 0.05
"""The local search halves its step when no untried neighbour is left; below this it has converged."""


@dataclass(frozen=True)
class OptimizeResult:
    base: Configuration
    best: Configuration
    knobs: dict[
        str, Any
    ]  # the chosen knobs (arms, rrf_k, mmr_lambda; field_weights, question_words; lexical_share, lexical_confidence)
    train: tuple[int, ...]  # indexes into the prepared probes
    held_out: tuple[int, ...]
    base_train_mrr: float
    best_train_mrr: float
    base_held_out_mrr: float
    best_held_out_mrr: float
    certainty: Certainty
    trials: int
    elapsed_s: float
    cancelled: bool = False
    pid: int = field(default_factory=os.getpid, compare=False)
    asked: int = 0
    """The trials asked for (`trials` is how many ran: fewer when stopped or converged)."""
    converged: bool = False
    """The search ended before `asked` because it had nothing left to try: every neighbour of the
    best, down to the smallest step (`MIN_STEP`), had been tried (issue 41: it stopped at 184 of
    200 and said nothing)."""

    @property
    def ended(self) -> str:
        """Why the search ran `trials` and not `asked`, in words ("" when it ran them all)."""
        if self.cancelled:
            return "stopped early: the best found so far"
        if self.converged:
            return (
                f"converged after {self.trials} of {self.asked} trials: every neighbour of the best, down to "
                f"the smallest step ({MIN_STEP:g}), had been tried"
            )
        return ""

    """The process the search ran in (the window's, or the child the backend ran it in)."""

    @property
    def held_out_gain(self) -> float:
        return self.best_held_out_mrr - self.base_held_out_mrr

    @property
    def trials_per_s(self) -> float:
        return self.trials / self.elapsed_s if self.elapsed_s > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "base": self.base.name,
            "best": self.best.profile.to_json(),
            "knobs": self.knobs,
            "train_probes": len(self.train),
            "held_out_probes": len(self.held_out),
            "base_train_mrr": round(self.base_train_mrr, 6),
            "best_train_mrr": round(self.best_train_mrr, 6),
            "base_held_out_mrr": round(self.base_held_out_mrr, 6),
            "best_held_out_mrr": round(self.best_held_out_mrr, 6),
            "held_out_gain": round(self.held_out_gain, 6),
            "certainty": self.certainty.to_json(),
            "trials": self.trials,
            "trials_per_s": round(self.trials_per_s, 2),
            "elapsed_s": round(self.elapsed_s, 3),
            "cancelled": self.cancelled,
            "asked": self.asked,
            "converged": self.converged,
            "ended": self.ended,
        }


def apply_knobs(profile: RankingProfile, knobs: dict[str, Any], model_id: str | None = None) -> RankingProfile:
    """`profile` with `knobs`; the fusion's per-embedder knobs are set for `model_id` only (None: the
    fallback every embedder without a value of its own reads)."""
    arms = tuple(replace(a, weight=float(knobs["arms"].get(a.name, a.weight))) for a in profile.arms)
    lexical: dict[str, Any] = {}
    for key in ("lexical_share", "lexical_confidence"):
        if key in knobs:
            table = getattr(profile, key)
            lexical[key] = (
                PerEmbedder.from_json({model_id: float(knobs[key])}, what=key, base=table)
                if model_id
                else PerEmbedder(table.values, float(knobs[key]))
            )
    if "field_weights" in knobs:
        lexical["field_weights"] = tuple(float(w) for w in knobs["field_weights"])
    if "question_words" in knobs:
        lexical["question_words"] = bool(knobs["question_words"])
    return replace(profile, arms=arms, rrf_k=int(knobs["rrf_k"]), mmr_lambda=float(knobs["mmr_lambda"]), **lexical)


def knobs_of(
    profile: RankingProfile, *, lexical: bool = False, convex: bool = False, model_id: str | None = None
) -> dict[str, Any]:
    """The knobs the search varies; with `lexical`, the stemmed index's field weights and question words too;
    with `convex`, `model_id`'s lexical share and lexical confidence."""
    out: dict[str, Any] = {
        "arms": {a.name: a.weight for a in profile.arms},
        "rrf_k": profile.rrf_k,
        "mmr_lambda": profile.mmr_lambda,
    }
    if lexical:
        out.update(field_weights=list(profile.field_weights), question_words=profile.question_words)
    if convex:
        out.update(
            lexical_share=profile.lexical_share.get(model_id),
            lexical_confidence=profile.lexical_confidence.get(model_id),
        )
    return out


def _sample(rng: Random, names: Sequence[str], lexical: bool = False, convex: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "arms": {n: round(rng.uniform(*WEIGHT_RANGE), 2) for n in names},
        "rrf_k": rng.choice(K_GRID),
        "mmr_lambda": round(rng.uniform(*LAMBDA_RANGE), 2),
    }
    if lexical:
        out.update(field_weights=list(rng.choice(FIELD_GRID)), question_words=rng.random() < 0.5)
    if convex:
        out.update(lexical_share=round(rng.uniform(*SHARE_RANGE), 2), lexical_confidence=rng.choice(CONFIDENCE_GRID))
    return out


def _neighbours(knobs: dict[str, Any], step: float) -> list[dict[str, Any]]:
    out = []
    if "field_weights" in knobs:
        at = FIELD_GRID.index(tuple(knobs["field_weights"])) if tuple(knobs["field_weights"]) in FIELD_GRID else None
        if at is not None:
            out += [
                {**knobs, "field_weights": list(FIELD_GRID[j])} for j in (at - 1, at + 1) if 0 <= j < len(FIELD_GRID)
            ]
        out.append({**knobs, "question_words": not knobs["question_words"]})
    if "lexical_share" in knobs:
        for d in (-step / 5, step / 5):
            value = round(min(max(knobs["lexical_share"] + d, SHARE_RANGE[0]), SHARE_RANGE[1]), 2)
            if value != knobs["lexical_share"]:
                out.append({**knobs, "lexical_share": value})
        at = (
            CONFIDENCE_GRID.index(knobs["lexical_confidence"])
            if knobs["lexical_confidence"] in CONFIDENCE_GRID
            else None
        )
        if at is not None:
            out += [
                {**knobs, "lexical_confidence": CONFIDENCE_GRID[j]}
                for j in (at - 1, at + 1)
                if 0 <= j < len(CONFIDENCE_GRID)
            ]
    for arm, w in knobs["arms"].items():
        for d in (-step, step):
            value = round(min(max(w + d, WEIGHT_RANGE[0]), WEIGHT_RANGE[1]), 2)
            if value != w:
                out.append({**knobs, "arms": {**knobs["arms"], arm: value}})
    at = K_GRID.index(knobs["rrf_k"]) if knobs["rrf_k"] in K_GRID else None
    if at is not None:
        out += [{**knobs, "rrf_k": K_GRID[j]} for j in (at - 1, at + 1) if 0 <= j < len(K_GRID)]
    for d in (-step / 3, step / 3):
        value = round(min(max(knobs["mmr_lambda"] + d, LAMBDA_RANGE[0]), LAMBDA_RANGE[1]), 2)
        if value != knobs["mmr_lambda"]:
            out.append({**knobs, "mmr_lambda": value})
    return out


def bootstrap_interval(diffs: Sequence[float], *, seed: int = 1, resamples: int = 2000) -> tuple[float, float]:
    """Paired bootstrap 95 % interval of the mean of `diffs` (seeded; (0, 0) when empty)."""
    if not diffs:
        return (0.0, 0.0)
    rng = Random(seed)
    n = len(diffs)
    means = sorted(math.fsum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    return (means[int(0.025 * resamples)], means[min(resamples - 1, int(0.975 * resamples))])


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact binomial p-value of `wins` against `losses` under p = 0.5."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(0, min(wins, losses) + 1)) / 2**n
    return min(1.0, 2 * tail)


def optimize_prepared(
    prepared: PreparedSet,
    base: Configuration,
    *,
    trials: int = 200,
    seed: int = 1,
    holdout: float = 0.3,
    limit: int = RUN_LIMIT,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    prepare: Callable[[RankingProfile], PreparedSet] | None = None,
) -> OptimizeResult:
    """Search on `prepared`'s training probes only; judge the base and the winner on the held-out.

    With `prepare` (a reading of the same probe set under another profile) and a base on the stemmed
    lexical index, the search varies the lexical knobs too (`FIELD_GRID`, `question_words`): each
    lexical variant is read once, when a trial first needs it, and every other trial re-ranks."""
    started = time.perf_counter()
    train, held = split_probes(prepared.probes, holdout=holdout, seed=seed)
    if not train or not held:
        raise ValueError("the optimizer needs at least two probes that can run (one to train on, one held out)")
    rng = Random(seed)
    names = base.profile.arm_names
    lexical = prepare is not None and base.profile.lexical == "stemmed" and base.profile.fts_forms != "all"
    convex = base.profile.fusion == "convex"
    model_id = prepared.model_id
    readings = {prepared.lexical_key: prepared}

    def reading(profile: RankingProfile) -> PreparedSet:
        key = profile.lexical_key
        if key not in readings:
            assert prepare is not None
            readings[key] = prepare(profile)
        return readings[key]

    def score(knobs: dict[str, Any]) -> float:
        profile = apply_knobs(base.profile, knobs, model_id)
        verdicts = judge_prepared(reading(profile), profile, limit=limit, indexes=train)
        return mean([v.rr for v in verdicts])

    best_knobs = knobs_of(base.profile, lexical=lexical, convex=convex, model_id=model_id)
    base_train = best_train = score(best_knobs)
    done, stopped, converged = 1, False, False
    seen = {repr(best_knobs)}
    explore = max(1, trials * 2 // 3)
    step = 0.5
    try:
        while done < trials:
            if cancelled is not None and cancelled():
                stopped = True
                break
            if done < explore:
                candidates = [_sample(rng, names, lexical, convex)]
            else:
                candidates = [k for k in _neighbours(best_knobs, step) if repr(k) not in seen][:1]
                if not candidates:
                    if step <= MIN_STEP:
                        converged = True
                        break
                    step /= 2
                    continue
            knobs = candidates[0]
            seen.add(repr(knobs))
            value = score(knobs)
            done += 1
            if value > best_train + 1e-12:
                best_knobs, best_train = knobs, value
            if progress is not None:
                progress("trial", done, trials)
    except Cancelled:
        stopped = True
    best_profile = apply_knobs(base.profile, best_knobs, model_id)
    name = f"{base.name}-optimized"
    best = Configuration(
        name,
        replace(best_profile, name=name),
        f"optimized from {base.name} on {prepared.name}",
        "",
        base.base if base.source else base.name,
    )
    before = judge_prepared(reading(base.profile), base.profile, limit=limit, indexes=held)
    after = judge_prepared(reading(best.profile), best.profile, limit=limit, indexes=held)
    diffs = [y.rr - x.rr for x, y in zip(before, after)]
    wins = sum(1 for d in diffs if d > 1e-12)
    losses = sum(1 for d in diffs if d < -1e-12)
    certainty = Certainty(bootstrap_interval(diffs, seed=seed), wins, losses, sign_test(wins, losses))
    return OptimizeResult(
        base=base,
        best=best,
        knobs=best_knobs,
        train=tuple(train),
        held_out=tuple(held),
        base_train_mrr=base_train,
        best_train_mrr=best_train,
        base_held_out_mrr=mean([v.rr for v in before]),
        best_held_out_mrr=mean([v.rr for v in after]),
        certainty=certainty,
        trials=done,
        elapsed_s=time.perf_counter() - started,
        cancelled=stopped,
        asked=trials,
        converged=converged and not stopped,
    )


def optimize(
    store: WorkbenchStore,
    probe_set: ProbeSet,
    base: Configuration,
    *,
    trials: int = 200,
    seed: int = 1,
    holdout: float = 0.3,
    limit: int = RUN_LIMIT,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> OptimizeResult:
    """Read the set once, then `optimize_prepared`. Raises Cancelled only while reading."""
    prepared = prepare_set(store, probe_set, base.profile, progress=progress, cancelled=cancelled)
    return optimize_prepared(
        prepared,
        base,
        trials=trials,
        seed=seed,
        holdout=holdout,
        limit=limit,
        progress=progress,
        cancelled=cancelled,
        prepare=lambda profile: prepare_set(store, probe_set, profile, cancelled=cancelled),
    )
