"""The grid behind the lexical arm's and the fusion's knobs, on the TRAIN split of the real-text sets.

    python bench/realtext_tune.py [--sets perl,pylibs,tools] [--embedders hash,minilm]
                                  [--out bench/out/realtext] [--split train|test]

Reads each probe's candidates once (the lexical arm's bm25 scores under each lexical variant, top
`DEPTH`; the vector arm's best-chunk cosines, top `DEPTH`), then scores, in memory, the fused order
(before twin resolution and MMR, without the query-blind priors, which the gate leaves out for a
memory the query does not match) of:

- the lexical arm alone under each variant: memhtml's one-column unicode61 index or the porter
  index over title, claim and body with field weights; function and question words kept or left
  out; the all-then-any forms (`all_any`) or the any-of form alone;
- RRF with weights per embedder, and a convex combination of normalised scores (Bruch et al. 2023:
  `α · bm25 / max bm25 + (1 − α) · cosine`, and min-max normalised), over the best lexical variant,
  with α fixed or following each query's lexical confidence (`--confidences`, the exponents of
  `lexical_confidence`); per embedder, the convex row whose worst gain over the best arm alone across
  the sets is highest is printed on stderr (how `lexical_share` and `lexical_confidence` were chosen).

MRR@10 per set and embedder, and the mean over the sets. Never run it on `heldout` (refused). The
figures in docs/ranking.md were chosen on `--split train` and reported on `--split test`.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import apsw  # noqa: E402
import numpy as np  # noqa: E402
from realtext_eval import ROOT, load_probes, open_indexed  # noqa: E402

from memhtml_desktop.domain.fts_query import parse_fts_query  # noqa: E402
from memhtml_desktop.domain.fusion import confidence, query_share  # noqa: E402
from memhtml_desktop.domain.stopwords import QUESTION_WORDS, STOPWORD_SET  # noqa: E402
from memhtml_desktop.index.retrieval import common_words  # noqa: E402

DEPTH = 100
K = 10


@dataclass(frozen=True)
class Lexical:
    name: str
    table: str  # files_fts or files_fts_stemmed
    weights: tuple[float, ...] = ()
    drop: frozenset[str] = frozenset()  # words left out of the MATCH
    forms: str = "all_any"  # or "any"


def lexical_variants(question_words: frozenset[str]) -> list[Lexical]:
    out = [
        Lexical("memhtml-index all_any", "files_fts", (), STOPWORD_SET),
        Lexical("memhtml-index any", "files_fts", (), STOPWORD_SET, "any"),
        Lexical("porter any w111", "files_fts_stemmed", (1, 1, 1), STOPWORD_SET, "any"),
        Lexical("porter all_any w111", "files_fts_stemmed", (1, 1, 1), STOPWORD_SET),
        Lexical("porter any w111 +q", "files_fts_stemmed", (1, 1, 1), STOPWORD_SET | question_words, "any"),
    ]
    for t, c, b in itertools.product((1, 2, 3, 5), (1, 2), (1,)):
        out.append(
            Lexical(f"porter any w{t}{c}{b} +q", "files_fts_stemmed", (t, c, b), STOPWORD_SET | question_words, "any")
        )
    return out


def lexical_candidates(conn, variant: Lexical, query: str) -> list[tuple[str, float]]:
    fts = parse_fts_query(query)
    terms = [t for t in fts.terms if len(t) > 1 or t[0] not in variant.drop] or list(fts.terms)
    if not terms:
        return []
    literal = ['"' + " ".join(t) + '"' for t in terms]
    bm25 = f"bm25({variant.table}{''.join(f', {w}' for w in variant.weights)})"
    sql = (
        f"SELECT files.path, {bm25} AS s FROM {variant.table} JOIN files ON files.rowid = {variant.table}.rowid "
        f"WHERE {variant.table} MATCH ?1 AND files.archived = 0 AND files.memory_type <> 'task' "
        f"ORDER BY s ASC, files.path ASC LIMIT {DEPTH}"
    )
    if variant.forms == "all_any" and len(terms) > 1:
        rows = conn.execute(sql, (" AND ".join(literal),)).fetchall()
        if rows:
            return [(p, -float(s)) for p, s in rows]
    common = common_words(conn, tuple(w for t in terms for w in t)) if variant.table == "files_fts" else frozenset()
    kept = [lit for t, lit in zip(terms, literal) if len(t) > 1 or t[0] not in common] or literal
    return [(p, -float(s)) for p, s in conn.execute(sql, (" OR ".join(kept),))]


def vector_candidates(store, conn, snapshot, qvec) -> list[tuple[str, float]]:
    if qvec is None or snapshot is None:
        return []
    rowids, dists = snapshot.ranked_files(qvec, DEPTH)
    paths = dict(
        conn.execute(
            "SELECT rowid, path FROM files WHERE rowid IN carray(?1)",
            (apsw.carray(np.ascontiguousarray(rowids, dtype=np.int64)),),
        ).fetchall()
    )
    return [(paths[int(r)], 1.0 - float(d)) for r, d in zip(rowids, dists) if int(r) in paths]


def rr(order: list[str], targets) -> float:
    for i, p in enumerate(order[:K], start=1):
        if p in targets:
            return 1.0 / i
    return 0.0


def rrf(lists: dict[str, list[tuple[str, float]]], weights: dict[str, float], k: int) -> list[str]:
    scores: dict[str, float] = {}
    for arm, items in lists.items():
        w = weights.get(arm, 0.0)
        if w <= 0:
            continue
        for rank, (path, _) in enumerate(items[:40], start=1):
            scores[path] = scores.get(path, 0.0) + w / (rank + k)
    return [p for p, _ in sorted(scores.items(), key=lambda x: (-x[1], x[0]))]


def convex(lists: dict[str, list[tuple[str, float]]], alpha: float, norm: str, exponent: float = 0.0) -> list[str]:
    """α · lexical + (1 − α) · vector over normalised scores; a memory one arm did not list scores 0 there.
    With `exponent` > 0, α is this query's (`domain.fusion.query_share` of the lexical window's confidence)."""
    scores: dict[str, float] = {}
    if exponent > 0 and lists.get("fts") and lists.get("vector"):
        alpha = query_share(alpha, confidence([s for _, s in lists["fts"][:40]], 40), exponent)
    for arm, weight in (("fts", alpha), ("vector", 1 - alpha)):
        items = lists.get(arm, [])[:40]
        if not items:
            continue
        values = [s for _, s in items]
        top, low = max(values), min(values)
        for path, s in items:
            if norm == "max":
                v = s / top if top > 0 else 0.0
            elif norm == "minmax":
                v = (s - low) / (top - low) if top > low else 1.0
            else:  # "raw" cosines, bm25 by its max
                v = s if arm == "vector" else (s / top if top > 0 else 0.0)
            scores[path] = scores.get(path, 0.0) + weight * v
    return [p for p, _ in sorted(scores.items(), key=lambda x: (-x[1], x[0]))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="perl,pylibs,tools")
    ap.add_argument("--embedders", default="hash,minilm")
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "realtext"))
    ap.add_argument("--split", choices=("train", "test", "all"), default="train")
    ap.add_argument("--only", default="", help="lexical | fusion (default both)")
    ap.add_argument("--alphas", default="0.2,0.3,0.4,0.5,0.6,0.7,0.8", help="lexical shares the convex rows try")
    ap.add_argument("--norms", default="max,minmax,raw")
    ap.add_argument(
        "--confidences", default="0", help="lexical_confidence exponents the convex rows try (0: fixed share)"
    )
    ap.add_argument("--no-rrf", action="store_true", help="leave the RRF grid out")
    ap.add_argument("--no-index", action="store_true", help="read the index dbs as they are (a copy of built sets)")
    args = ap.parse_args(argv)
    if "heldout" in args.sets.split(","):
        raise SystemExit("heldout is for reporting only: tune on your own sets")
    out = Path(args.out).resolve()
    table: dict[str, dict[str, float]] = {}
    variants = lexical_variants(QUESTION_WORDS)
    for name in args.sets.split(","):
        probes = load_probes(out, name, args.split)
        for emb in args.embedders.split(","):
            store = open_indexed(out, name, emb, refresh=not args.no_index)
            retriever = store.retriever()
            conn = retriever.conn
            snapshot = retriever.vector_snapshot()
            vectors = np.asarray(store.embedder.embed([p.query for p in probes]), dtype=np.float32)
            key = f"{name}/{emb}"
            col = table.setdefault(key, {})
            lex_cache: dict[str, list[list[tuple[str, float]]]] = {}
            with conn:
                for v in variants:
                    if args.only in ("", "lexical") or v.name == "porter any w211 +q":
                        lex_cache[v.name] = [lexical_candidates(conn, v, p.query) for p in probes]
                vec = [vector_candidates(store, conn, snapshot, q) for q in vectors]
            for v in variants:
                if v.name in lex_cache:
                    col["lex: " + v.name] = float(
                        np.mean([rr([p for p, _ in c], pr.targets) for c, pr in zip(lex_cache[v.name], probes)])
                    )
            col["vector alone"] = float(np.mean([rr([p for p, _ in c], pr.targets) for c, pr in zip(vec, probes)]))
            if args.only in ("", "fusion"):
                lex = lex_cache["porter any w211 +q"]
                grid = (
                    ()
                    if args.no_rrf
                    else itertools.product((0.5, 1.0, 1.5, 2.0), (0.5, 1.0, 1.5, 2.0, 3.0), (10, 30, 60))
                )
                for wl, wv, k in grid:
                    order = [rrf({"fts": a, "vector": b}, {"fts": wl, "vector": wv}, k) for a, b in zip(lex, vec)]
                    col[f"rrf fts {wl} vec {wv} k {k}"] = float(
                        np.mean([rr(o, p.targets) for o, p in zip(order, probes)])
                    )
                for alpha, norm, exponent in itertools.product(
                    [float(a) for a in args.alphas.split(",")],
                    args.norms.split(","),
                    [float(c) for c in args.confidences.split(",")],
                ):
                    order = [convex({"fts": a, "vector": b}, alpha, norm, exponent) for a, b in zip(lex, vec)]
                    label = f"cc {norm} a {alpha}" + (f" c {exponent:g}" if exponent else "")
                    col[label] = float(np.mean([rr(o, p.targets) for o, p in zip(order, probes)]))
            print(f"{key}: {len(probes)} probes", file=sys.stderr)
    keys = list(table)
    for emb in args.embedders.split(","):
        mine = [k for k in keys if k.endswith("/" + emb)]
        best_arm = {
            k: max(v for r, v in table[k].items() if r.startswith("lex: porter any w211 +q") or r == "vector alone")
            for k in mine
        }
        fused = {r for k in mine for r in table[k] if r.startswith("cc ")}
        if fused:
            pick = max(fused, key=lambda r: min(table[k].get(r, -1.0) - best_arm[k] for k in mine))
            print(
                f"{emb}: highest worst gain over the best arm alone: {pick} "
                + " ".join(f"{k} {table[k][pick] - best_arm[k]:+.3f}" for k in mine),
                file=sys.stderr,
            )
    rows = sorted({r for c in table.values() for r in c}, key=lambda r: -np.mean([table[k].get(r, 0) for k in keys]))
    print(f"{'variant':<34}" + "".join(f"{k:>16}" for k in keys) + f"{'mean':>8}")
    for r in rows:
        vals = [table[k].get(r, math.nan) for k in keys]
        print(f"{r:<34}" + "".join(f"{v:>16.3f}" for v in vals) + f"{np.nanmean(vals):>8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
