"""MiniLMEmbedder against references we can run without torch.

No sentence-transformers here (it needs torch), so correctness rests on: the similarity matrix that
sentence-transformers publishes for all-MiniLM-L6-v2 in its quickstart; an independent float64
numpy forward pass over the same safetensors (both for the fp32 graph, to their printed precision);
the int8 graph measured against the fp32 one; and the properties the indexer relies on (unit rows,
bit-identical vectors whatever else is in the call and however many threads run, truncation, input
order, empty texts). The int8 quantisation itself is in test_minilm_int8.py.

Every test here takes the `minilm` (int8) or `minilm_fp32` fixture, which skip when the optional
packages are missing.
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


QUICKSTART = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
# sentence-transformers' README/quickstart, model "all-MiniLM-L6-v2", printed to 4 decimals:
# tensor([[1.0000, 0.6660, 0.1046], [0.6660, 1.0000, 0.1411], [0.1046, 0.1411, 1.0000]])
QUICKSTART_SIMS = np.array([[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]])


def test_published_sentence_transformers_similarities(minilm_fp32) -> None:
    vectors = minilm_fp32.embed(QUICKSTART)
    np.testing.assert_allclose(vectors @ vectors.T, QUICKSTART_SIMS, atol=6e-5)


def test_int8_keeps_the_published_similarities_close(minilm) -> None:
    vectors = minilm.embed(QUICKSTART)
    np.testing.assert_allclose(vectors @ vectors.T, QUICKSTART_SIMS, atol=0.03)


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
        heads = [
            lin(x, f"{p}.attention.self.{n}").reshape(batch, seq, 12, 32).transpose(0, 2, 1, 3)
            for n in ("query", "key", "value")
        ]
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
def test_matches_an_independent_numpy_forward_pass(minilm_fp32) -> None:
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
    np.testing.assert_allclose(minilm_fp32.embed(texts), expected, atol=1e-5)


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_graph_passes_the_onnx_checker(minilm, precision: str) -> None:
    from memhtml_desktop.embedders import bert_onnx
    from memhtml_desktop.embedders.minilm import locate_model

    files = locate_model()
    model = bert_onnx.build_bert_graph(
        bert_onnx.load_bert_weights(files.weights),
        bert_onnx.BertConfig.from_json(files.config),
        precision=precision,
        check=True,
    )
    assert [o.name for o in model.graph.output] == ["sentence_embedding"]
    ops = {node.op_type for node in model.graph.node}
    assert ("DynamicQuantizeMatMul" in ops) == (precision == "int8")
    assert "SkipLayerNormalization" not in ops  # measured slower than Add + LayerNormalization


def test_int8_vectors_stay_close_to_fp32(minilm, minilm_fp32) -> None:
    texts = [t for t in MIXED if t.strip()] + [
        "Remember that deploys of the billing service are frozen on Friday while finance closes the books.",
        "The root cause was an unbounded retry loop in the sync daemon, which saturated Redis connections.",
    ]
    cosines = np.sum(minilm.embed(texts) * minilm_fp32.embed(texts), axis=1)
    # Quantisation noise averages out over a text's tokens in the mean pooling, so a lone word
    # moves most ("ok": 0.967); a phrase or a memory stays at 0.98 or more (measured: >= 0.987).
    assert cosines.min() >= 0.95, cosines
    assert min(c for c, t in zip(cosines, texts) if len(t.split()) >= 3) >= 0.98, cosines


# ---- properties the index relies on -------------------------------------------------------------


@pytest.mark.parametrize("fixture", ["minilm", "minilm_fp32"])
def test_shape_dtype_unit_norm_and_space(fixture: str, request: pytest.FixtureRequest) -> None:
    embedder = request.getfixturevalue(fixture)
    vectors = embedder.embed(MIXED)
    assert vectors.shape == (len(MIXED), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    expected = "all-MiniLM-L6-v2@384" if fixture == "minilm_fp32" else "all-MiniLM-L6-v2-int8-v1@384"
    assert embedder.space == expected


@pytest.mark.parametrize("precision", ["int8", "fp32"])
def test_bit_identical_across_sessions(minilm, minilm_fp32, minilm_cache_dir: Path, precision: str) -> None:
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    first = (minilm if precision == "int8" else minilm_fp32).embed(MIXED)
    other = MiniLMEmbedder(cache_dir=minilm_cache_dir, precision=precision)
    np.testing.assert_array_equal(other.embed(MIXED), first)
    assert other.built_graph is False  # reused the cached graph


@pytest.mark.parametrize("precision", ["int8", "fp32"])
def test_a_vector_depends_on_its_text_alone(minilm, minilm_fp32, precision: str) -> None:
    # The int8 graph quantises each run's input with one scale: run in a batch, a text's vector
    # would move with its neighbours. One text per run makes every row the text's own, exactly.
    embedder = minilm if precision == "int8" else minilm_fp32
    together = embedder.embed(MIXED)
    alone = np.vstack([embedder.embed([text]) for text in MIXED])
    np.testing.assert_array_equal(together, alone)
    shuffled = embedder.embed(list(reversed(MIXED)) + ["Alice is allergic to peanuts and shellfish."] * 3)
    np.testing.assert_array_equal(shuffled[: len(MIXED)][::-1], together)


def test_thread_count_changes_nothing_and_keeps_input_order(minilm_cache_dir: Path, minilm) -> None:
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    texts = MIXED[:5] + list(reversed(MIXED[:5]))
    expected = minilm.embed(texts)
    for threads in (1, 3):
        vectors = MiniLMEmbedder(cache_dir=minilm_cache_dir, threads=threads).embed(texts)
        np.testing.assert_array_equal(vectors, expected)
    np.testing.assert_array_equal(expected[:5], expected[5:][::-1])


def test_truncates_at_256_tokens(minilm) -> None:
    head = " ".join(f"memory{i} about the deployment schedule" for i in range(120))  # > 256 tokens
    tail = " ".join(["sourdough"] * 5000)
    long_text = head + " " + tail  # ~5,000 more words
    assert len(long_text.split()) > 5000
    vectors = minilm.embed([long_text, head])
    np.testing.assert_allclose(np.linalg.norm(vectors[0]), 1.0, atol=1e-5)
    # Everything past the 254th content token is cut, so the tail changes nothing.
    np.testing.assert_array_equal(vectors[0], vectors[1])


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


@pytest.mark.parametrize("fixture", ["minilm", "minilm_fp32"])
def test_graph_is_cached_by_weights_hash_with_its_digest(
    fixture: str, request: pytest.FixtureRequest, minilm_cache_dir: Path
) -> None:
    embedder = request.getfixturevalue(fixture)  # first: it skips without the optional extra
    from memhtml_desktop.embedders import bert_onnx
    from memhtml_desktop.embedders.minilm import INT8_VERSION, file_sha256, locate_model

    digest = file_sha256(locate_model().weights)[:16]
    suffix = "" if fixture == "minilm_fp32" else f"-int8-v{INT8_VERSION}"
    assert embedder.graph_path == minilm_cache_dir / f"minilm-{digest}-g{bert_onnx.GRAPH_VERSION}{suffix}.onnx"
    assert embedder.graph_path.is_file()
    recorded = embedder.graph_path.with_name(embedder.graph_path.name + ".sha256").read_text(encoding="ascii")
    assert recorded == file_sha256(embedder.graph_path)
    assert [p.name for p in minilm_cache_dir.iterdir() if p.name.endswith(".tmp")] == []


def test_a_corrupt_cached_graph_is_rebuilt(minilm, tmp_path: Path) -> None:
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    (tmp_path / minilm.graph_path.name).write_bytes(b"not an onnx model")
    fresh = MiniLMEmbedder(cache_dir=tmp_path)
    vector = fresh.embed(["laptop"])
    assert fresh.built_graph is True
    assert (tmp_path / minilm.graph_path.name).read_bytes() == minilm.graph_path.read_bytes()
    np.testing.assert_array_equal(vector, minilm.embed(["laptop"]))


def test_a_cached_graph_with_a_flipped_weight_is_rebuilt(minilm, tmp_path: Path) -> None:
    # Still a valid model that onnxruntime loads, but it would embed wrongly; the digest catches it.
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    good = minilm.graph_path.read_bytes()
    target = tmp_path / minilm.graph_path.name
    target.with_name(target.name + ".sha256").write_bytes(
        minilm.graph_path.with_name(target.name + ".sha256").read_bytes()
    )
    bad = bytearray(good)
    for offset in range(len(bad) // 2, len(bad) // 2 + 4096):  # a run of bytes inside the weights
        bad[offset] ^= 0x40
    target.write_bytes(bytes(bad))
    fresh = MiniLMEmbedder(cache_dir=tmp_path)
    vector = fresh.embed(["laptop"])
    assert fresh.built_graph is True
    assert target.read_bytes() == good
    np.testing.assert_array_equal(vector, minilm.embed(["laptop"]))


def test_a_cached_graph_without_its_digest_is_rebuilt(minilm, tmp_path: Path) -> None:
    # What a crash between writing the graph and writing its digest leaves behind.
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    (tmp_path / minilm.graph_path.name).write_bytes(minilm.graph_path.read_bytes())
    fresh = MiniLMEmbedder(cache_dir=tmp_path)
    fresh.load()
    assert fresh.built_graph is True
    assert (tmp_path / (minilm.graph_path.name + ".sha256")).is_file()


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
        subprocess.Popen(
            [sys.executable, "-c", _RACER, str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
        for _ in range(2)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [minilm.graph_path.name, minilm.graph_path.name + ".sha256"]  # one graph, no temp leftovers
    assert results[0]["v"] == results[1]["v"]
    # And the survivor loads in a third process without a rebuild.
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    third = MiniLMEmbedder(cache_dir=tmp_path)
    np.testing.assert_array_equal(third.embed(["laptop", "ThinkPad"]), np.array(results[0]["v"], dtype=np.float32))
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
        np.testing.assert_array_equal(result, expected)
