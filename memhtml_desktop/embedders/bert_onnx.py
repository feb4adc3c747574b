"""Build a BERT sentence-encoder ONNX graph from safetensors weights, with onnx.helper and no torch.

The graph reproduces what sentence-transformers runs for all-MiniLM-L6-v2 (Transformer -> mean
Pooling -> Normalize): a post-LN BERT encoder with exact (erf) GELU, an additive attention-mask bias
of float32-min on padded keys, mean pooling over the attention mask (count clamped at 1e-9), and L2
normalisation (norm clamped at 1e-12, as `torch.nn.functional.normalize`). Token type ids are always
0 for a single sentence, so the type-0 embedding is folded into a constant.

Inputs:  `input_ids` int64 [batch, seq], `attention_mask` int64 [batch, seq].
Output:  `sentence_embedding` float32 [batch, hidden].

Only `build_bert_graph` and `load_bert_weights` are public; the caller owns caching and the session.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# Bump when the graph changes shape or numerics: it is part of the cache file name.
GRAPH_VERSION = 1
OPSET = 17  # LayerNormalization is a standard op from 17 on.
IR_VERSION = 8  # the IR that goes with opset 17; old enough for any onnxruntime >= 1.14


@dataclass(frozen=True)
class BertConfig:
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    layer_norm_eps: float
    max_position_embeddings: int
    vocab_size: int

    @classmethod
    def from_json(cls, path: Path) -> "BertConfig":
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("model_type", "bert") != "bert":
            raise ValueError(f"{path}: model_type {raw.get('model_type')!r} is not 'bert'")
        if raw.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"{path}: hidden_act {raw.get('hidden_act')!r} is not 'gelu'")
        if raw.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(f"{path}: only absolute position embeddings are supported")
        return cls(
            hidden_size=int(raw["hidden_size"]),
            num_hidden_layers=int(raw["num_hidden_layers"]),
            num_attention_heads=int(raw["num_attention_heads"]),
            intermediate_size=int(raw["intermediate_size"]),
            layer_norm_eps=float(raw.get("layer_norm_eps", 1e-12)),
            max_position_embeddings=int(raw["max_position_embeddings"]),
            vocab_size=int(raw["vocab_size"]),
        )


def load_bert_weights(path: Path) -> dict[str, np.ndarray]:
    """Read every tensor of a safetensors file as float32 numpy (names without a `bert.` prefix)."""
    from safetensors import safe_open

    out: dict[str, np.ndarray] = {}
    with safe_open(str(path), framework="numpy") as handle:
        for key in handle.keys():
            name = key[len("bert."):] if key.startswith("bert.") else key
            out[name] = handle.get_tensor(key)
    return out


class _Graph:
    """A tiny builder: unique names, constants as initializers, one node per call."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._n = 0

    def init(self, name: str, array: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def const(self, values, dtype=np.float32) -> str:
        self._n += 1
        return self.init(f"const_{self._n}", np.asarray(values, dtype=dtype))

    def op(self, op_type: str, *inputs: str, **attrs) -> str:
        self._n += 1
        out = f"{op_type.lower()}_{self._n}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out

    def linear(self, x: str, weights: Mapping[str, np.ndarray], prefix: str) -> str:
        # torch Linear stores [out, in]; MatMul wants [in, out].
        w = self.init(f"{prefix}.weight_t", weights[f"{prefix}.weight"].astype(np.float32).T)
        b = self.init(f"{prefix}.bias", weights[f"{prefix}.bias"].astype(np.float32))
        return self.op("Add", self.op("MatMul", x, w), b)

    def layer_norm(self, x: str, weights: Mapping[str, np.ndarray], prefix: str, eps: float) -> str:
        scale = self.init(f"{prefix}.weight", weights[f"{prefix}.weight"].astype(np.float32))
        bias = self.init(f"{prefix}.bias", weights[f"{prefix}.bias"].astype(np.float32))
        return self.op("LayerNormalization", x, scale, bias, axis=-1, epsilon=eps)


def build_bert_graph(weights: Mapping[str, np.ndarray], config: BertConfig, *, check: bool = False) -> onnx.ModelProto:
    """The whole sentence encoder as one ONNX model (weights embedded as initializers).

    `check=True` runs `onnx.checker` on it (the tests do; at run time onnxruntime validates the graph
    on load anyway, and the checker's serialised copy would add ~180 MB to the build's peak memory).
    """
    g = _Graph()
    hidden, heads = config.hidden_size, config.num_attention_heads
    head_dim = hidden // heads
    eps = config.layer_norm_eps

    # Embeddings: word + position[:seq] + token_type[0], then LayerNorm.
    word = g.init("embeddings.word_embeddings.weight", weights["embeddings.word_embeddings.weight"].astype(np.float32))
    pos = g.init("embeddings.position_embeddings.weight", weights["embeddings.position_embeddings.weight"].astype(np.float32))
    type0 = g.init("embeddings.token_type_embeddings.row0", weights["embeddings.token_type_embeddings.weight"][0].astype(np.float32))
    seq_len = g.op("Slice", g.op("Shape", "input_ids"), g.const([1], np.int64), g.const([2], np.int64))
    positions = g.op("Slice", pos, g.const([0], np.int64), seq_len, g.const([0], np.int64))
    x = g.op("Add", g.op("Add", g.op("Gather", word, "input_ids", axis=0), positions), type0)
    x = g.layer_norm(x, weights, "embeddings.LayerNorm", eps)

    # Additive mask bias [batch, 1, 1, seq]: 0 on real tokens, float32-min on padding.
    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    neg = g.op("Mul", g.op("Sub", g.const(1.0), mask), g.const(np.finfo(np.float32).min))
    bias = g.op("Unsqueeze", neg, g.const([1, 2], np.int64))

    split_heads = g.const([0, 0, heads, head_dim], np.int64)
    merge_heads = g.const([0, 0, hidden], np.int64)
    scale = g.const(1.0 / math.sqrt(head_dim))
    half, one, inv_sqrt2 = g.const(0.5), g.const(1.0), g.const(1.0 / math.sqrt(2.0))

    for layer in range(config.num_hidden_layers):
        p = f"encoder.layer.{layer}"
        q = g.op("Transpose", g.op("Reshape", g.linear(x, weights, f"{p}.attention.self.query"), split_heads), perm=[0, 2, 1, 3])
        k = g.op("Transpose", g.op("Reshape", g.linear(x, weights, f"{p}.attention.self.key"), split_heads), perm=[0, 2, 3, 1])
        v = g.op("Transpose", g.op("Reshape", g.linear(x, weights, f"{p}.attention.self.value"), split_heads), perm=[0, 2, 1, 3])
        scores = g.op("Add", g.op("Mul", g.op("MatMul", q, k), scale), bias)
        probs = g.op("Softmax", scores, axis=-1)
        context = g.op("Reshape", g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3]), merge_heads)
        attn = g.op("Add", g.linear(context, weights, f"{p}.attention.output.dense"), x)
        attn = g.layer_norm(attn, weights, f"{p}.attention.output.LayerNorm", eps)
        inter = g.linear(attn, weights, f"{p}.intermediate.dense")
        gelu = g.op("Mul", g.op("Mul", inter, half), g.op("Add", one, g.op("Erf", g.op("Mul", inter, inv_sqrt2))))
        out = g.op("Add", g.linear(gelu, weights, f"{p}.output.dense"), attn)
        x = g.layer_norm(out, weights, f"{p}.output.LayerNorm", eps)

    # Mean pooling over the mask, then L2 normalisation. (At opset 17 ReduceSum takes its axes as an
    # input, ReduceL2 still as an attribute.)
    mask3 = g.op("Unsqueeze", mask, g.const([2], np.int64))
    summed = g.op("ReduceSum", g.op("Mul", x, mask3), g.const([1], np.int64), keepdims=0)
    counts = g.op("Max", g.op("ReduceSum", mask3, g.const([1], np.int64), keepdims=0), g.const(1e-9))
    mean = g.op("Div", summed, counts)
    norm = g.op("Max", g.op("ReduceL2", mean, axes=[1], keepdims=1), g.const(1e-12))
    g.nodes.append(helper.make_node("Div", [mean, norm], ["sentence_embedding"]))

    graph = helper.make_graph(
        g.nodes,
        "bert_sentence_encoder",
        inputs=[
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        outputs=[helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden])],
        initializer=g.inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="memhtml-desktop",
        producer_version=str(GRAPH_VERSION),
    )
    model.ir_version = IR_VERSION
    if check:
        onnx.checker.check_model(model)
    return model
