"""Real questions against their own answers: MRR@10 and recall@10 per ranking, both embedders.

    python bench/realtext_eval.py [--sets perl,pylibs,tools,heldout] [--embedders hash,minilm]
                                  [--out bench/out/realtext] [--split all|train|test] [--json FILE]
                                  [--rankings default,...] [--no-index]

(`--no-index` searches the index dbs as they are, e.g. a copy of sets built elsewhere, without the
refreshing index pass.)

Reads what `bench/realtext_build.py` wrote (the stores, `SET.probes.jsonl`), indexes each store
with each embedder (`OUT/SET.index-EMBEDDER.db`, kept between runs), and searches every probe at
`--limit 40` (as `eval` does) under:

- `default`, `default` without its newer-first step (the step's before, in the same run), and the
  `memhtml` profile;
- each arm alone (the other weights 0) and fts + vector (recency and salience 0), over `default`;
- `bm25` and `bm25+porter`: plain FTS5 `bm25()` over title + body with the question's words OR-ed,
  in an in-memory table built from the same index's rows in the same run (unicode61, then porter);

and prints MRR@10 / recall@10 for each (with `--split all`, the default, also on the test split
alone). `--split train|test` keeps the optimizer's split of each set (`workbench.optimizer.split_probes`,
30 % held out, seed 1): the knobs were tuned on `train` (`bench/realtext_tune.py`), `test` is what
they were not chosen on. The `heldout` set is for reporting only. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import apsw  # noqa: E402

from memhtml_desktop.domain.fts_query import parse_fts_query  # noqa: E402
from memhtml_desktop.domain.probes import read_probe_set  # noqa: E402
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML, RankingProfile  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402
from memhtml_desktop.workbench.optimizer import split_probes  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 40
K = 10


def arms_only(profile: RankingProfile, keep: set[str], name: str) -> RankingProfile:
    arms = tuple(replace(a, weight=a.weight if a.name in keep else 0.0) for a in profile.arms)
    return replace(profile, arms=arms, name=name)


def rankings() -> dict[str, RankingProfile]:
    return {
        "default": DEFAULT,
        "default-no-newer": replace(DEFAULT, newer_first=False, name="default-no-newer"),
        "memhtml": MEMHTML,
        "fts alone": arms_only(DEFAULT, {"fts"}, "fts-alone"),
        "vector alone": arms_only(DEFAULT, {"vector"}, "vector-alone"),
        "fts + vector": arms_only(DEFAULT, {"fts", "vector"}, "fts-vector"),
    }


def open_indexed(out: Path, name: str, embedder_name: str, *, refresh: bool = True) -> Store:
    from memhtml_desktop.embedders.registry import make_embedder

    store = Store(
        out / name, index_path=out / f"{name}.index-{embedder_name}.db", embedder=make_embedder(embedder_name)
    )
    if not refresh:
        return store
    started = time.perf_counter()
    report = store.index()
    if report.indexed:
        print(
            f"  {name}: indexed {report.indexed} files with {embedder_name} in {time.perf_counter() - started:.0f} s",
            file=sys.stderr,
        )
    return store


def measure(ranks: list[int | None]) -> tuple[float, float]:
    """(MRR@K, recall@K) over one target per probe; a rank past K counts 0."""
    if not ranks:
        return 0.0, 0.0
    rr = [1.0 / r if r is not None and r <= K else 0.0 for r in ranks]
    return sum(rr) / len(rr), sum(1 for r in ranks if r is not None and r <= K) / len(ranks)


def rank_of(paths: list[str], targets: tuple[str, ...]) -> int | None:
    for i, path in enumerate(paths, start=1):
        if path in targets:
            return i
    return None


class Bm25Baseline:
    """Plain FTS5 bm25 over title + body in an in-memory table, the query's words OR-ed."""

    def __init__(self, store: Store, tokenizer: str) -> None:
        self.conn = apsw.Connection(":memory:")
        self.conn.execute(
            f"CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, title, body, tokenize = '{tokenizer}')"
        )
        reader = store.reader()
        with reader:
            rows = reader.execute("SELECT path, title, body_text FROM files WHERE archived = 0").fetchall()
        with self.conn:
            self.conn.executemany("INSERT INTO docs (path, title, body) VALUES (?, ?, ?)", rows)

    def search(self, query: str, limit: int = K) -> list[str]:
        words = parse_fts_query(query.replace('"', " ")).words
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT path FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), path LIMIT ?", (match, limit)
            )
        ]


def evaluate(store: Store, probes, profiles: dict[str, RankingProfile]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for label, profile in profiles.items():
        started = time.perf_counter()
        ranks = [
            rank_of([h.path for h in store.search(p.query, p.scope, limit=LIMIT, ranking=profile).hits], p.targets)
            for p in probes
        ]
        mrr, recall = measure(ranks)
        out[label] = {
            "mrr": round(mrr, 4),
            "recall": round(recall, 4),
            "s": round(time.perf_counter() - started, 1),
            "ranks": ranks,
        }
    for label, tokenizer in (("bm25", "unicode61"), ("bm25+porter", "porter unicode61")):
        baseline = Bm25Baseline(store, tokenizer)
        ranks = [rank_of(baseline.search(p.query), p.targets) for p in probes]
        mrr, recall = measure(ranks)
        out[label] = {"mrr": round(mrr, 4), "recall": round(recall, 4), "ranks": ranks}
    return out


def load_probes(out: Path, name: str, split: str):
    probe_set = read_probe_set((out / f"{name}.probes.jsonl").read_text(encoding="utf-8"), name)
    probes = list(probe_set.probes)
    if split == "all":
        return probes
    train, test = split_probes(probes, holdout=0.3, seed=1)
    return [probes[i] for i in (train if split == "train" else test)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="perl,pylibs,tools,heldout")
    ap.add_argument("--embedders", default="hash,minilm")
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "realtext"))
    ap.add_argument("--split", choices=("all", "train", "test"), default="all")
    ap.add_argument("--rankings", default="", help="comma-separated subset of the rankings (default: all)")
    ap.add_argument("--no-index", action="store_true", help="search the index dbs as they are (a copy of built sets)")
    ap.add_argument("--json", metavar="FILE", help="also write every probe's rank per ranking here")
    args = ap.parse_args(argv)
    out = Path(args.out).resolve()
    profiles = rankings()
    if args.rankings:
        profiles = {k: v for k, v in profiles.items() if k in args.rankings.split(",")}
    results: dict[str, dict] = {}
    for name in args.sets.split(","):
        probes = load_probes(out, name, args.split)
        for embedder_name in args.embedders.split(","):
            store = open_indexed(out, name, embedder_name, refresh=not args.no_index)
            figures = evaluate(store, probes, profiles)
            results[f"{name}/{embedder_name}"] = figures
            test = set(split_probes(probes, holdout=0.3, seed=1)[1]) if args.split == "all" else set()
            print(
                f"\n{name} ({len(probes)} questions, {args.split}), {embedder_name}: MRR@{K} / recall@{K}"
                + (f"; and on the {len(test)} test-split questions alone" if test else "")
            )
            for label, f in figures.items():
                line = f"  {label:<14} {f['mrr']:.3f} / {f['recall']:.3f}"
                if test:
                    mrr, recall = measure([r for i, r in enumerate(f["ranks"]) if i in test])
                    f["test"] = [round(mrr, 4), round(recall, 4)]
                    line += f"    test {mrr:.3f} / {recall:.3f}"
                print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    summary = {
        key: {label: [f["mrr"], f["recall"]] for label, f in figures.items()} for key, figures in results.items()
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
