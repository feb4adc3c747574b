"""MiniLMEmbedder against references we can run without torch.

No sentence-transformers here (it needs torch), so correctness rests on: the similarity matrix that
sentence-transformers publishes for all-MiniLM-L6-v2 in its quickstart; an independent float64
numpy forward pass over the same safetensors; and the properties the indexer relies on (unit rows,
determinism, padding invariance, truncation, input order, empty texts).

Every test here takes the `minilm` fixture, which skips when the optional packages are missing.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

MIXED = [
    "The user works on a ThinkPad X1 Carbon running Fedora.",
    "ok",
    "Deployments to production happen every Tuesday afternoon after the release review, "
    "unless the on-call engineer vetoes the release because an incident is still open.",
    "Alice is allergic to peanuts.",
    "café naïve résumé — Grüße aus Zürich! 東京 emoji 🙂",
    "x " * 300,
]


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


# ---- agreement with references ------------------------------------------------------------------


def test_published_sentence_transformers_similarities(minilm) -> None:
    # sentence-transformers' README/quickstart, model "all-MiniLM-L6-v2", printed to 4 decimals:
    # tensor([[1.0000, 0.6660, 0.1046], [0.6660, 1.0000, 0.1411], [0.1046, 0.1411, 1.0000]])
    vectors = minilm.embed(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
    sims = vectors @ vectors.T
    expected = np.array([[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]])
    np.testing.assert_allclose(sims, expected, atol=6e-5)


def _numpy_bert(weights: dict[str, np.ndarray], ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A plain float64 BERT + mean pooling + L2 norm, written from the paper, not from bert_onnx."""
    w = {k: v.astype(np.float64) for k, v in weights.items()}

    def ln(x, p):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * w[p + ".weight"] + w[p + ".bias"]

    def lin(x, p):
        return x @ w[p + ".weight"].T + w[p + ".bias"]

    erf = np.vectorize(math.erf)
    batch, seq = ids.shape
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:seq]
    x = ln(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
    keep = mask.astype(bool)[:, None, None, :]
    for layer in range(6):
        p = f"encoder.layer.{layer}"
        heads = [lin(x, f"{p}.attention.self.{n}").reshape(batch, seq, 12, 32).transpose(0, 2, 1, 3) for n in ("query", "key", "value")]
        q, k, v = heads
        scores = np.where(keep, q @ k.transpose(0, 1, 3, 2) / math.sqrt(32), -np.inf)
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, 384)
        a = ln(lin(ctx, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
        h = lin(a, f"{p}.intermediate.dense")
        h = 0.5 * h * (1.0 + erf(h / math.sqrt(2.0)))
        x = ln(lin(h, f"{p}.output.dense") + a, f"{p}.output.LayerNorm")
    m = mask.astype(np.float64)[:, :, None]
    pooled = (x * m).sum(1) / m.sum(1)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


@pytest.mark.slow
def test_matches_an_independent_numpy_forward_pass(minilm) -> None:
    from tokenizers import Tokenizer

    from memhtml_desktop.embedders.bert_onnx import load_bert_weights
    from memhtml_desktop.embedders.minilm import locate_model

    files = locate_model()
    texts = MIXED[:5]
    tok = Tokenizer.from_file(str(files.tokenizer))
    tok.enable_truncation(max_length=256)
    tok.no_padding()
    encodings = tok.encode_batch(texts)
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(texts), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for i, e in enumerate(encodings):
        ids[i, : len(e.ids)] = e.ids
        mask[i, : len(e.ids)] = 1
    expected = _numpy_bert(load_bert_weights(files.weights), ids, mask)
    np.testing.assert_allclose(minilm.embed(texts), expected, atol=1e-5)


def test_graph_passes_the_onnx_checker(minilm) -> None:
    from memhtml_desktop.embedders import bert_onnx
    from memhtml_desktop.embedders.minilm import locate_model

    files = locate_model()
    model = bert_onnx.build_bert_graph(
        bert_onnx.load_bert_weights(files.weights), bert_onnx.BertConfig.from_json(files.config), check=True
    )
    assert [o.name for o in model.graph.output] == ["sentence_embedding"]


# ---- properties the index relies on -------------------------------------------------------------


def test_shape_dtype_unit_norm_and_space(minilm) -> None:
    vectors = minilm.embed(MIXED)
    assert vectors.shape == (len(MIXED), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert minilm.space == "all-MiniLM-L6-v2@384"


def test_deterministic_across_two_sessions(minilm, minilm_cache_dir: Path) -> None:
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    other = MiniLMEmbedder(cache_dir=minilm_cache_dir)
    first, second = minilm.embed(MIXED), other.embed(MIXED)
    assert other.built_graph is False  # reused the cached graph
    np.testing.assert_allclose(first, second, atol=1e-6)
    np.testing.assert_array_equal(minilm.embed(MIXED), first)  # same session, same batch: bit-identical


def test_padding_and_batching_do_not_change_results(minilm) -> None:
    batched = minilm.embed(MIXED)  # one batch padded to the longest text
    singles = np.vstack([minilm.embed([text]) for text in MIXED])  # no padding at all
    np.testing.assert_allclose(batched, singles, atol=1e-5)


def test_many_small_batches_keep_input_order(minilm_cache_dir: Path, minilm) -> None:
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    tiny = MiniLMEmbedder(cache_dir=minilm_cache_dir, batch_size=2)
    texts = MIXED[:5] + list(reversed(MIXED[:5]))
    small = tiny.embed(texts)
    np.testing.assert_allclose(small, minilm.embed(texts), atol=1e-5)
    np.testing.assert_allclose(small[:5], small[5:][::-1], atol=1e-6)


def test_truncates_at_256_tokens(minilm) -> None:
    head = " ".join(f"memory{i} about the deployment schedule" for i in range(120))  # > 256 tokens
    tail = " ".join(["sourdough"] * 5000)
    long_text = head + " " + tail  # ~5,000 more words
    assert len(long_text.split()) > 5000
    vectors = minilm.embed([long_text, head])
    np.testing.assert_allclose(np.linalg.norm(vectors[0]), 1.0, atol=1e-5)
    # Everything past the 254th content token is cut, so the tail changes nothing.
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-5)


def test_empty_and_blank_texts_get_zero_rows(minilm) -> None:
    assert minilm.embed([]).shape == (0, 384)
    vectors = minilm.embed(["", "   \n\t", "laptop", "\u200b"])
    assert not vectors[0].any() and not vectors[1].any()
    assert not vectors[3].any()  # a zero-width space is dropped by the tokenizer: no content tokens
    np.testing.assert_allclose(np.linalg.norm(vectors[2]), 1.0, atol=1e-5)
    assert vectors.dtype == np.float32


def test_rejects_a_bare_string(minilm) -> None:
    with pytest.raises(TypeError):
        minilm.embed("laptop")


def test_laptop_is_closer_to_thinkpad_than_to_bread(minilm) -> None:
    laptop, thinkpad, bread = minilm.embed(["laptop", "ThinkPad", "sourdough bread"])
    near, far = _cos(laptop, thinkpad), _cos(laptop, bread)
    assert near > far + 0.25, (near, far)
    have, ask = minilm.embed(["I have a ThinkPad", "what is my notebook"])
    assert _cos(have, ask) > 0.3


# ---- the cached graph ---------------------------------------------------------------------------


def test_graph_is_cached_by_weights_hash(minilm, minilm_cache_dir: Path) -> None:
    from memhtml_desktop.embedders import bert_onnx
    from memhtml_desktop.embedders.minilm import file_sha256, locate_model

    digest = file_sha256(locate_model().weights)[:16]
    assert minilm.graph_path == minilm_cache_dir / f"minilm-{digest}-g{bert_onnx.GRAPH_VERSION}.onnx"
    assert minilm.graph_path.is_file()
    assert [p.name for p in minilm_cache_dir.iterdir() if p.name.endswith(".tmp")] == []


def test_a_corrupt_cached_graph_is_rebuilt(minilm, tmp_path: Path) -> None:
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    (tmp_path / minilm.graph_path.name).write_bytes(b"not an onnx model")
    fresh = MiniLMEmbedder(cache_dir=tmp_path)
    vector = fresh.embed(["laptop"])
    assert fresh.built_graph is True
    assert (tmp_path / minilm.graph_path.name).stat().st_size == minilm.graph_path.stat().st_size
    np.testing.assert_allclose(vector, minilm.embed(["laptop"]), atol=1e-6)


_RACER = """
import json, sys
from pathlib import Path
from memhtml_desktop.embedders.minilm import MiniLMEmbedder
e = MiniLMEmbedder(cache_dir=Path(sys.argv[1]))
v = e.embed(["laptop", "ThinkPad"])
print(json.dumps({"built": e.built_graph, "v": v.tolist()}))
"""


@pytest.mark.slow
def test_two_processes_racing_to_build_leave_one_good_graph(minilm, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    procs = [
        subprocess.Popen([sys.executable, "-c", _RACER, str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        for _ in range(2)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [minilm.graph_path.name]  # one graph, no temp leftovers
    np.testing.assert_allclose(results[0]["v"], results[1]["v"], atol=1e-6)
    # And the survivor loads in a third process without a rebuild.
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    third = MiniLMEmbedder(cache_dir=tmp_path)
    np.testing.assert_allclose(third.embed(["laptop", "ThinkPad"]), results[0]["v"], atol=1e-6)
    assert third.built_graph is False


def test_close_releases_and_the_next_embed_reloads(minilm, minilm_cache_dir: Path) -> None:
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    other = MiniLMEmbedder(cache_dir=minilm_cache_dir)
    assert not other.is_loaded
    first = other.embed(["laptop"])
    assert other.is_loaded
    other.close()
    assert not other.is_loaded
    np.testing.assert_array_equal(other.embed(["laptop"]), first)


def test_concurrent_embeds_from_threads_agree(minilm) -> None:
    from concurrent.futures import ThreadPoolExecutor

    expected = minilm.embed(MIXED)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: minilm.embed(MIXED), range(4)))
    for result in results:
        np.testing.assert_allclose(result, expected, atol=1e-6)
