"""The default hash embedder: the protocol, determinism across processes, geometry."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memhtml_desktop.domain.embedder import Embedder, space_of
from memhtml_desktop.domain.hash_embedder import CONCEPT_GROUPS, HashEmbedder, words_of

ROOT = Path(__file__).resolve().parents[2]
CLAIM = "The nightly export job merges overlapping calendar intervals before it sends the weekly report to finance"
UNRELATED = [
    CLAIM,
    "Postgres autovacuum was disabled on the ledger table which caused bloat and a slow Monday outage",
    "Drain the VIP before reverting the checkout deploy so in-flight payments finish on the old pods",
    "The team decided to keep Kafka consumer lag alerts at five minutes to avoid paging on rebalance",
    "Sanju prefers squash merges for small pull requests so the main branch history stays readable",
    "Rotate the vault token for the billing worker every thirty days or the batch jobs fail silently",
    "The ThinkPad battery drains overnight unless the firmware update from March is installed first",
    "Use the staging cluster in eu-west for load tests because prod quotas are shared with the search team",
]


@pytest.fixture(scope="module")
def emb() -> HashEmbedder:
    return HashEmbedder()


def _cos(emb: HashEmbedder, a: str, b: str) -> float:
    v = emb.embed([a, b]).astype(np.float64)
    return float(v[0] @ v[1])


def test_it_satisfies_the_embedder_protocol(emb: HashEmbedder) -> None:
    assert isinstance(emb, Embedder)
    assert emb.model_id == "memhtml-desktop-hash-v1" and emb.dim == 384
    assert emb.space == "memhtml-desktop-hash-v1@384" == space_of(emb)


def test_shape_dtype_and_norms(emb: HashEmbedder) -> None:
    out = emb.embed(["hello world", "", "!!! ???", "\ud800", "日本語 memory", "a"])
    assert out.shape == (6, 384) and out.dtype == np.float32
    norms = np.linalg.norm(out.astype(np.float64), axis=1)
    assert norms[[0, 4, 5]] == pytest.approx(1.0, abs=1e-6)
    assert not out[1:4].any()
    assert emb.embed([]).shape == (0, 384)


def test_a_text_embeds_the_same_alone_or_in_any_batch(emb: HashEmbedder) -> None:
    texts = [UNRELATED[i % len(UNRELATED)] + f" {i}" * (i % 5) for i in range(300)]
    texts[7] = "x" * 40_000  # longer than one vectorised pass
    batched = emb.embed(texts)
    for i in (0, 6, 7, 8, 150, 299):
        assert np.array_equal(batched[i], emb.embed([texts[i]])[0])
    assert np.array_equal(emb.embed(texts[::-1])[::-1], batched)


def test_normalisation_folds_case_width_and_punctuation(emb: HashEmbedder) -> None:
    same = ["Déployé CAFÉ", "déployé café", "de\u0301ploye\u0301 cafe\u0301", "déployé, café!"]
    out = emb.embed(same)
    assert all(np.array_equal(out[0], row) for row in out[1:])
    assert np.array_equal(emb.embed(["ＤＥＰＬＯＹ"])[0], emb.embed(["deploy"])[0])
    # an ASCII word gets the same features whether or not its text is all ASCII
    assert np.array_equal(emb.embed(["deploy now ¡"])[0], emb.embed(["deploy now"])[0])
    assert words_of("Déployé, ThinkPad-X1!") == ["déployé", "thinkpad", "x1"]


def _digest(vectors: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(vectors, dtype="<f4").tobytes()).hexdigest()


_SCRIPT = (
    "import hashlib, numpy as np\n"
    "from memhtml_desktop.domain.hash_embedder import HashEmbedder\n"
    "v = HashEmbedder().embed({texts!r})\n"
    "print(hashlib.sha256(np.ascontiguousarray(v, dtype='<f4').tobytes()).hexdigest())\n"
)


@pytest.mark.parametrize("seed", ["0", "12345", "random"])
def test_vectors_do_not_depend_on_the_process(emb: HashEmbedder, seed: str) -> None:
    texts = [*UNRELATED, "laptop ThinkPad notebook", "日本語 déployé"]
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", _SCRIPT.format(texts=texts)], env=env, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == _digest(emb.embed(texts))


def test_the_model_is_pinned(emb: HashEmbedder) -> None:
    """Changing features or weights changes every stored vector: bump `model_id` with this digest."""
    vector = emb.embed([CLAIM])[0]
    assert _digest(vector) == "061aa584ffeb5d28315044dd3331862da726371598541bb9062d9cc317643e28"


def test_similar_texts_are_closer_than_unrelated_ones(emb: HashEmbedder) -> None:
    query = "deploy rollback"
    assert _cos(emb, query, "we reverted the release") > _cos(emb, query, "kafka consumer lag")
    assert _cos(emb, "deploy", "deployed") > 0.4
    assert _cos(emb, CLAIM, CLAIM.replace("weekly", "monthly")) > 0.9


def test_unrelated_claims_stay_low(emb: HashEmbedder) -> None:
    v = emb.embed(UNRELATED).astype(np.float64)
    sims = (v @ v.T)[np.triu_indices(len(UNRELATED), 1)]
    assert sims.max() < 0.2 and sims.mean() < 0.1


def test_concept_groups_bridge_words_with_no_letters_in_common(emb: HashEmbedder) -> None:
    assert "thinkpad" in CONCEPT_GROUPS["laptop"]
    assert _cos(emb, "laptop", "ThinkPad") > 0.3
    assert _cos(emb, "what is my notebook", "I have a ThinkPad") > 0.2
    assert _cos(emb, "postgres outage", "sqlite error") > 0.3
    assert _cos(emb, "laptop", "kafka") < 0.1


@pytest.mark.parametrize(
    "negated",
    [
        CLAIM.replace("merges", "never merges"),
        CLAIM.replace("merges", "merges no"),
        "Do not drain the VIP before reverting the checkout deploy so in-flight payments finish on the old pods",
    ],
)
def test_a_one_word_negation_stays_a_near_twin(emb: HashEmbedder, negated: str) -> None:
    original = negated.replace("never ", "").replace(" no ", " ").replace("Do not drain", "Drain")
    assert 0.9 <= _cos(emb, original, negated) < 1.0


def test_does_not_plus_inflection_measures_just_below_the_twin_threshold(emb: HashEmbedder) -> None:
    # "merges" -> "does not merge" changes three words of fifteen; recorded, not tuned away.
    value = _cos(emb, CLAIM, CLAIM.replace("merges", "does not merge"))
    assert 0.8 < value < 0.9
