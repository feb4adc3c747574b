"""A static embedding distilled from MiniLM's own vocabulary, against MiniLM itself, on real questions.

    python bench/static_embed_eval.py [--sets tools,heldout] [--built /work/realtext-built]
                                      [--out bench/out/static-embed] [--precision int8]

Issue 23 asks for a faster semantic model, offered if it is at least 3x faster than MiniLM-L6
within 0.03 MRR@10 on the real question sets. No package ships a static (model2vec-style) model
file, so this bench distils one the way model2vec does, from the installed MiniLM:

1. every WordPiece token of MiniLM's vocabulary (30,522) runs alone through the app's MiniLM graph
   as `[CLS] token [SEP]`; its sentence embedding is the token's row (cached in `--out`);
2. variants of model2vec's post-processing: none, SIF weighting by vocabulary rank (BERT's
   vocabulary is roughly frequency-ordered past its special and character tokens), PCA to 256
   dimensions then SIF, and Zipf weighting `log(1 + rank)`;
3. a text's vector is the mean of its tokens' rows (special tokens dropped), L2-normalised.

Each variant and MiniLM itself embed the same texts (title + body of every live memory of a set
built by `bench/realtext_build.py`) and the set's questions; the figure is the vector arm alone as
a plain cosine top-10 (MRR@10), without the app's chunking, so only the comparison between the rows
means anything. Throughput is texts per wall second, one thread each. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import apsw  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

from memhtml_desktop.embedders.minilm import MiniLMEmbedder, locate_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SPECIAL = {0, 100, 101, 102, 103}  # [PAD] [UNK] [CLS] [SEP] [MASK]
FIRST_WORD = 1996  # BERT uncased: [unused*] and single characters come before the words
K = 10


def distil(embedder: MiniLMEmbedder, cache: Path) -> np.ndarray:
    if cache.is_file():
        return np.load(cache)
    session, tokenizer = embedder._ensure_loaded()
    size = max(tokenizer.get_vocab().values()) + 1
    table = np.zeros((size, embedder.dim), np.float32)
    started = time.perf_counter()
    for token in range(size):
        ids = np.asarray([[101, token, 102]], dtype=np.int64)
        table[token] = session.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0][0]
    print(f"distilled {size} tokens in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, table)
    return table


def sif(size: int, coefficient: float = 1e-4) -> np.ndarray:
    inverse = 1.0 / (np.arange(size) + 2.0)
    probability = inverse / inverse.sum()
    return coefficient / (coefficient + probability)


def variants(table: np.ndarray) -> dict[str, np.ndarray]:
    centred = table - table.mean(axis=0)
    _, _, vt = np.linalg.svd(centred[FIRST_WORD:], full_matrices=False)
    pca = centred @ vt[:256].T
    weights = sif(table.shape[0])[:, None]
    return {
        "static, plain": table,
        "static, SIF": table * weights,
        "static, PCA 256 + SIF": pca * weights,
        "static, Zipf": table * np.log1p(np.arange(table.shape[0]))[:, None],
    }


class Static:
    def __init__(self, table: np.ndarray, tokenizer) -> None:
        self.table, self.tokenizer = table.astype(np.float32), tokenizer

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.table.shape[1]), np.float32)
        for i, encoding in enumerate(self.tokenizer.encode_batch(texts)):
            ids = [t for t in encoding.ids if t not in SPECIAL]
            if ids:
                vector = self.table[ids].mean(axis=0)
                out[i] = vector / (np.linalg.norm(vector) or 1.0)
        return out


def mrr(embed, texts: list[str], paths: list[str], probes: list[dict]) -> tuple[float, float]:
    started = time.perf_counter()
    memories = embed(texts)
    rate = len(texts) / (time.perf_counter() - started)
    questions = embed([p["query"] for p in probes])
    total = 0.0
    for probe, question in zip(probes, questions):
        top = np.argsort(-(memories @ question), kind="stable")[:K]
        for place, index in enumerate(top, start=1):
            if paths[index] == probe["target"]:
                total += 1.0 / place
                break
    return total / len(probes), rate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="tools,heldout")
    parser.add_argument("--built", type=Path, default=Path("/work/realtext-built"))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "static-embed")
    parser.add_argument("--precision", default="int8", choices=("int8", "fp32"))
    args = parser.parse_args(argv)

    minilm = MiniLMEmbedder(precision=args.precision, threads=1)
    table = distil(minilm, args.out / f"tokens-{minilm.model_id}.npy")
    tokenizer = Tokenizer.from_file(str(locate_model().tokenizer))
    tokenizer.no_padding()
    embedders = {name: Static(t, tokenizer).embed for name, t in variants(table).items()}
    embedders[f"MiniLM-L6 {args.precision}"] = minilm.embed

    results: dict[str, dict] = {}
    for name in args.sets.split(","):
        index = next(iter(sorted(args.built.glob(f"{name}.index-*.db"))))
        conn = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
        rows = list(conn.execute("SELECT path, title, coalesce(body_text, '') FROM files WHERE archived = 0 ORDER BY path"))
        probes = [json.loads(line) for line in (args.built / f"{name}.probes.jsonl").read_text(encoding="utf-8").splitlines() if line]
        texts, paths = [f"{title}\n{body}" for _, title, body in rows], [path for path, _, _ in rows]
        print(f"\n{name}: {len(texts)} memories, {len(probes)} questions — vector arm alone, MRR@{K}, texts/s")
        for label, embed in embedders.items():
            value, rate = mrr(embed, texts, paths, probes)
            results[f"{name}/{label}"] = {"mrr": round(value, 4), "texts_per_s": round(rate, 1)}
            print(f"  {label:<24} {value:.3f}   {rate:8.0f}")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
