"""The int8 graph's weight quantisation: deterministic, within range, and named as its own space.

The quantiser tests need onnx (the minilm extra); the last builds the graph twice and compares it
with the cached file (skipped without the model package).
"""

from __future__ import annotations

import numpy as np
import pytest

from memhtml_desktop.embedders.minilm import INT8_VERSION, MiniLMEmbedder


def _quantize_columns():
    pytest.importorskip("onnx", reason="the minilm extra is not installed")
    from memhtml_desktop.embedders.bert_onnx import WEIGHT_BITS, quantize_columns

    return quantize_columns, WEIGHT_BITS


@pytest.mark.parametrize("seed", [3, 11, 20260802])
def test_codes_stay_in_seven_bits_and_reconstruct_within_half_a_step(seed: int) -> None:
    quantize_columns, bits = _quantize_columns()
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((96, 40)) * rng.uniform(0.01, 3.0, size=40)).astype(np.float32)
    codes, scale = quantize_columns(w)
    limit = 2 ** (bits - 1) - 1
    assert bits == 7 and limit == 63
    assert codes.dtype == np.int8 and codes.shape == w.shape and scale.shape == (40,)
    assert np.abs(codes.astype(np.int16)).max() == limit  # every column's largest weight hits the limit
    assert np.all(np.abs(codes.astype(np.int16)).max(axis=0) == limit)
    error = np.abs(codes * scale - w)
    assert np.all(error <= scale / 2 + 1e-7)


def test_quantisation_is_deterministic_and_keeps_zero_columns_zero() -> None:
    quantize_columns, _ = _quantize_columns()
    rng = np.random.default_rng(5)
    w = rng.standard_normal((64, 8)).astype(np.float32)
    w[:, 3] = 0.0
    w[0, 5] = 0.5 * (np.abs(w[:, 5]).max() / 63)  # exactly half a step: rint rounds half to even
    a_codes, a_scale = quantize_columns(w)
    b_codes, b_scale = quantize_columns(w.copy())
    assert a_codes.tobytes() == b_codes.tobytes() and a_scale.tobytes() == b_scale.tobytes()
    assert not a_codes[:, 3].any() and a_scale[3] == 1.0


def test_precision_names_the_vector_space() -> None:
    int8, fp32 = MiniLMEmbedder(), MiniLMEmbedder(precision="fp32")
    assert int8.precision == "int8" and int8.space == f"all-MiniLM-L6-v2-int8-v{INT8_VERSION}@384"
    assert fp32.space == "all-MiniLM-L6-v2@384"
    assert int8.space != fp32.space  # an index never mixes the two
    with pytest.raises(ValueError, match="precision"):
        MiniLMEmbedder(precision="int4")


def test_the_int8_build_is_byte_for_byte_repeatable(minilm) -> None:
    # Why quantising at first use is safe: every machine and every run derives the same graph from
    # the same weights, so the cached file is a pure function of the installed package.
    from memhtml_desktop.embedders import bert_onnx
    from memhtml_desktop.embedders.minilm import locate_model

    files = locate_model()
    config = bert_onnx.BertConfig.from_json(files.config)
    first = bert_onnx.build_bert_graph(bert_onnx.load_bert_weights(files.weights), config, precision="int8")
    second = bert_onnx.build_bert_graph(bert_onnx.load_bert_weights(files.weights), config, precision="int8")
    assert first.SerializeToString() == second.SerializeToString() == minilm.graph_path.read_bytes()


@pytest.mark.parametrize("precision", ["int8", "fp32"])
def test_every_minilm_space_has_its_own_calibrated_thresholds(precision: str) -> None:
    """The relevance floor and the twin threshold are raw cosines measured per vector space
    (bench/floor_scan.py, bench/twin_scan.py). A space without its own entry silently gets the
    fallback, which was calibrated on nothing: bumping INT8_VERSION must come with a new
    measurement, and this fails until it does."""
    from memhtml_desktop.domain.ranking import FLOOR_COSINE, TWIN_COSINE_BY_EMBEDDER

    model_id = MiniLMEmbedder(precision=precision).model_id
    assert model_id in dict(FLOOR_COSINE.values), f"no relevance floor calibrated for {model_id}"
    assert model_id in dict(TWIN_COSINE_BY_EMBEDDER.values), f"no twin threshold calibrated for {model_id}"
