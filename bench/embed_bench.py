"""How fast the default hash embedder runs: texts per second on memory-sized texts.

Run: .venv/bin/python bench/embed_bench.py [n_texts] [chars]. Prints throughput for one text per
call and for batches, plus short queries. The indexing target is >= 1,000 files/s including
parsing, so a ~1,500-character memory must embed in well under 0.3 ms. The embedder keeps no cache,
so there is no cold/warm difference to measure. Timings are CPU time (`time.process_time`, so
other load on the machine does not count), best of three runs.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.domain.hash_embedder import HashEmbedder  # noqa: E402

VOCAB = (
    "the a of to and in is was for on with that it as be by this are from at or not an deploy "
    "rollback drain vip checkout api service payment webhook retry queue kafka consumer lag "
    "postgres sqlite index migration schema incident outage error timeout oncall engineer page "
    "alert latency p99 budget decision adr review merge interval calendar export report finance "
    "nightly job laptop thinkpad notebook battery firmware update release canary traffic shift "
    "region failover replica primary lock vacuum bloat table partition cron scheduler token auth "
    "login session cookie expiry rotate secret vault credential policy"
).split()


def corpus(n: int, chars: int, seed: int = 20260802) -> list[str]:
    rng = random.Random(seed)
    # a tail of rare words, so the vocabulary is not unrealistically small
    rare = [f"{rng.choice(VOCAB)}{rng.randrange(100000)}" for _ in range(20000)]
    texts = []
    for _ in range(n):
        words: list[str] = []
        while sum(len(w) + 1 for w in words) < chars:
            words.append(rng.choice(rare) if rng.random() < 0.08 else rng.choice(VOCAB))
        texts.append(" ".join(words).capitalize() + ".")
    return texts


def run(label: str, embedder: HashEmbedder, texts: list[str], batch: int) -> None:
    took = float("inf")
    for _ in range(3):
        start = time.process_time()
        for i in range(0, len(texts), batch):
            embedder.embed(texts[i : i + batch])
        took = min(took, time.process_time() - start)
    print(f"{label:<28} {len(texts) / took:>10,.0f} texts/s   {took / len(texts) * 1e3:.3f} ms/text")


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n_texts", type=int, nargs="?", default=20000)
    parser.add_argument("chars", type=int, nargs="?", default=1500)
    args = parser.parse_args()
    n, chars = args.n_texts, args.chars
    texts = corpus(n, chars)
    print(f"{n} texts of ~{chars} chars")
    embedder = HashEmbedder()
    for _ in range(3):  # warm-up: first-touch allocations otherwise land on the first row
        embedder.embed(texts[:512])
    for batch in (1, 8, 64, 512):
        run(f"batch {batch}", embedder, texts, batch)
    run("queries (~60 chars), batch 1", embedder, corpus(n, 60, seed=7), 1)


if __name__ == "__main__":
    main()
