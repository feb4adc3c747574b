"""Build a BERT sentence-encoder ONNX graph from safetensors weights, with onnx.helper and no torch.

The graph reproduces what sentence-transformers runs for all-MiniLM-L6-v2 (Transformer -> mean
Pooling -> Normalize): a post-LN BERT encoder with exact (erf) GELU, an additive attention-mask bias
of float32-min on padded keys, mean pooling over the attention mask (count clamped at 1e-9), and L2
normalisation (norm clamped at 1e-12, as `torch.nn.functional.normalize`). Token type ids are always
0 for a single sentence, so the type-0 embedding is folded into a constant.

Inputs:  `input_ids` int64 [batch, seq], `attention_mask` int64 [batch, seq].
Output:  `sentence_embedding` float32 [batch, hidden].

Two precisions. `fp32` is the reference graph above, in standard ONNX ops only. `int8` runs every
linear layer as onnxruntime's `DynamicQuantizeMatMul` (com.microsoft): the weights are quantised
here, by `quantize_columns` (symmetric, one scale per output column, 7-bit codes, round half to
even), and the activations are quantised by onnxruntime per call (asymmetric uint8 over the whole
input tensor). Because that activation scale spans the whole tensor, an int8 vector depends on
every row it is run with; the embedder therefore runs one text per call, and a text's vector is
then a function of that text alone. 7-bit weight codes keep every uint8 x int8 pair product sum
inside int16, so the AVX2 kernels (which add pairs in saturating 16-bit arithmetic) compute the
same integers as the VNNI and ARM ones. GELU is the fused `BiasGelu` (exact erf form), and residual
+ LayerNorm stay two standard ops: onnxruntime's fused SkipLayerNormalization was measured 4-5x
slower than the two on the reference machine, so the session disables that fusion
(`UNFUSED_OPTIMIZERS`).

Only `build_bert_graph`, `load_bert_weights` and `quantize_columns` are public; the caller owns
caching and the session.
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
# The int8 graph's version lives with the embedder (`minilm.INT8_VERSION`, part of its vector space
# and cache file name): bump it there whenever this module changes what the int8 graph computes.
PRECISIONS = ("fp32", "int8")
WEIGHT_BITS = 7
# Graph optimisers an inference session should leave out (see the module docstring).
UNFUSED_OPTIMIZERS = ("SkipLayerNormFusion",)
_MS = "com.microsoft"
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
            name = key[len("bert.") :] if key.startswith("bert.") else key
            out[name] = handle.get_tensor(key)
    return out


def quantize_columns(w: np.ndarray, bits: int = WEIGHT_BITS) -> tuple[np.ndarray, np.ndarray]:
    """A [in, out] float weight as int8 codes [in, out] and one float32 scale per output column.

    Symmetric (zero point 0): code = rint(w / scale), scale = max|w| of the column / (2^(bits-1) - 1).
    Deterministic: numpy's rint rounds half to even, so the same weights always give the same bytes.
    """
    limit = 2 ** (bits - 1) - 1
    w = np.asarray(w, dtype=np.float32)
    scale = (np.abs(w).max(axis=0) / np.float32(limit)).astype(np.float32)
    scale = np.where(scale > 0, scale, np.float32(1.0)).astype(np.float32)  # an all-zero column stays zero
    codes = np.clip(np.rint(w / scale), -limit, limit).astype(np.int8)
    return codes, scale


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

    def op(self, op_type: str, *inputs: str, domain: str = "", **attrs) -> str:
        return self.op_n(op_type, *inputs, n=1, domain=domain, **attrs)[0]

    def op_n(self, op_type: str, *inputs: str, n: int, domain: str = "", **attrs) -> list[str]:
        self._n += 1
        outs = [f"{op_type.lower()}_{self._n}"] if n == 1 else [f"{op_type.lower()}_{self._n}_{i}" for i in range(n)]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs, domain=domain or None, **attrs))
        return outs

    def linear(self, x: str, weights: Mapping[str, np.ndarray], prefix: str) -> str:
        # torch Linear stores [out, in]; MatMul wants [in, out].
        w = self.init(f"{prefix}.weight_t", weights[f"{prefix}.weight"].astype(np.float32).T)
        b = self.init(f"{prefix}.bias", weights[f"{prefix}.bias"].astype(np.float32))
        return self.op("Add", self.op("MatMul", x, w), b)

    def qlinear(
        self, x: str, weights: Mapping[str, np.ndarray], prefixes: tuple[str, ...], *, with_bias: bool = True
    ) -> tuple[str, str]:
        """x @ W + b through DynamicQuantizeMatMul, the layers of `prefixes` side by side in one matrix.

        Returns (output, bias initializer name); with `with_bias=False` the bias is left for the
        caller to fuse into the next op (BiasGelu).
        """
        w = np.concatenate([weights[f"{p}.weight"].astype(np.float32).T for p in prefixes], axis=1)
        codes, scale = quantize_columns(w)
        name = prefixes[0] if len(prefixes) == 1 else prefixes[0].rsplit(".", 1)[0] + ".qkv"
        bias = self.init(f"{name}.bias", np.concatenate([weights[f"{p}.bias"].astype(np.float32) for p in prefixes]))
        inputs = [
            x,
            self.init(f"{name}.weight_q", codes),
            self.init(f"{name}.weight_scale", scale),
            self.init(f"{name}.weight_zero", np.zeros(codes.shape[1], dtype=np.int8)),
        ]
        if with_bias:
            inputs.append(bias)
        return self.op("DynamicQuantizeMatMul", *inputs, domain=_MS), bias

    def layer_norm(self, x: str, weights: Mapping[str, np.ndarray], prefix: str, eps: float) -> str:
        scale = self.init(f"{prefix}.weight", weights[f"{prefix}.weight"].astype(np.float32))
        bias = self.init(f"{prefix}.bias", weights[f"{prefix}.bias"].astype(np.float32))
        return self.op("LayerNormalization", x, scale, bias, axis=-1, epsilon=eps)


def build_bert_graph(
    weights: Mapping[str, np.ndarray], config: BertConfig, *, precision: str = "fp32", check: bool = False
) -> onnx.ModelProto:
    """The whole sentence encoder as one ONNX model (weights embedded as initializers).

    `precision` is "fp32" (standard ops only) or "int8" (quantised linear layers, contrib ops; see
    the module docstring). `check=True` runs `onnx.checker` on it (the tests do; at run time
    onnxruntime validates the graph on load anyway, and the checker's serialised copy would add
    ~180 MB to the build's peak memory).
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    int8 = precision == "int8"
    g = _Graph()
    hidden, heads = config.hidden_size, config.num_attention_heads
    head_dim = hidden // heads
    eps = config.layer_norm_eps

    # Embeddings: word + position[:seq] + token_type[0], then LayerNorm.
    word = g.init("embeddings.word_embeddings.weight", weights["embeddings.word_embeddings.weight"].astype(np.float32))
    pos = g.init(
        "embeddings.position_embeddings.weight", weights["embeddings.position_embeddings.weight"].astype(np.float32)
    )
    type0 = g.init(
        "embeddings.token_type_embeddings.row0",
        weights["embeddings.token_type_embeddings.weight"][0].astype(np.float32),
    )
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
    if not int8:  # the int8 graph's GELU is one fused op
        half, one, inv_sqrt2 = g.const(0.5), g.const(1.0), g.const(1.0 / math.sqrt(2.0))

    for layer in range(config.num_hidden_layers):
        p = f"encoder.layer.{layer}"
        a = f"{p}.attention.self"
        if int8:  # one quantised matmul for Q, K and V, then split
            qkv, _ = g.qlinear(x, weights, (f"{a}.query", f"{a}.key", f"{a}.value"))
            q_in, k_in, v_in = g.op_n("Split", qkv, g.const([hidden] * 3, np.int64), n=3, axis=-1)
            projections = {"query": lambda: q_in, "key": lambda: k_in, "value": lambda: v_in}
        else:
            projections = {
                part: (lambda part=part: g.linear(x, weights, f"{a}.{part}")) for part in ("query", "key", "value")
            }
        q = g.op("Transpose", g.op("Reshape", projections["query"](), split_heads), perm=[0, 2, 1, 3])
        k = g.op("Transpose", g.op("Reshape", projections["key"](), split_heads), perm=[0, 2, 3, 1])
        v = g.op("Transpose", g.op("Reshape", projections["value"](), split_heads), perm=[0, 2, 1, 3])
        scores = g.op("Add", g.op("Mul", g.op("MatMul", q, k), scale), bias)
        probs = g.op("Softmax", scores, axis=-1)
        context = g.op("Reshape", g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3]), merge_heads)
        if int8:
            dense, _ = g.qlinear(context, weights, (f"{p}.attention.output.dense",))
            attn = g.layer_norm(g.op("Add", dense, x), weights, f"{p}.attention.output.LayerNorm", eps)
            inter, inter_bias = g.qlinear(attn, weights, (f"{p}.intermediate.dense",), with_bias=False)
            gelu = g.op("BiasGelu", inter, inter_bias, domain=_MS)  # exact (erf) GELU of inter + bias
            out = g.op("Add", g.qlinear(gelu, weights, (f"{p}.output.dense",))[0], attn)
        else:
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
    opsets = [helper.make_opsetid("", OPSET)] + ([helper.make_opsetid(_MS, 1)] if int8 else [])
    model = helper.make_model(
        graph,
        opset_imports=opsets,
        producer_name="memhtml-desktop",
        producer_version=f"{GRAPH_VERSION}-int8" if int8 else str(GRAPH_VERSION),
    )
    model.ir_version = IR_VERSION
    if check:
        onnx.checker.check_model(model)
    return model
