"""Paraphrase queries at realistic store sizes: fused MRR@10 and what holds it back.

    python bench/paraphrase_scale.py [--sizes 300,3000,30000] [--seed 11] [--embedders minilm]
                                     [--dir DIR] [--keep]

For each size N: a generated store (`devtools/gen_store.py`, seed S, its access sidecar imported as
the state plane) of N - 90 memories, plus the 90 memories of `devtools/paraphrases.py` (30 targets,
60 same-topic distractors) written as ordinary semantic memories dated across the corpus year, so N
memories in all. It is indexed from scratch with each embedder, then each of the 30 paraphrase
queries is searched as a person would (`Store.search`, limit 10, the default scope) and explained
(`Store.why`: the target's rank in every arm over the whole store, and its fused position), once
per ranking profile (`--rankings`, default both: `default` and `memhtml`; a `.json` file is a what-if
profile, `--ranking FILE.json`'s format, reported under the file's name) over the same index.

Printed per size and embedder: fused MRR@10 and recall@10 (the list a person sees, after polarity
and MMR), the vector arm's MRR and recall@10 over the whole store, the median fused position of the
target among those that reach the fused pool (every arm's top 40), and for the targets that miss the first page, what fills it: the share of page-one hits
ranked by two or more arms, and the median fused score of the 10th hit against the target's. Also
the cold-index time. The last line is JSON.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.devtools.gen_store import generate_store  # noqa: E402
from memhtml_desktop.devtools.paraphrases import DISTRACTORS, PARAPHRASES  # noqa: E402
from memhtml_desktop.domain.configs import parse_configuration  # noqa: E402
from memhtml_desktop.domain.ranking import PROFILES, RankingProfile, profile_named  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402

PROBE_DIR = "areas/notes"
YEAR_START = 1756684800  # 2025-09-01T00:00:00Z, where gen_store's corpus year starts


def _slug(text: str) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", text.lower())[:6])


def _memory(title: str, claim: str, when: str) -> str:
    esc = html.escape
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f"<title>{esc(title)}</title>",
            '<meta name="memhtml-type" content="semantic">',
            '<meta name="memhtml-status" content="active">',
            f'<meta name="memhtml-created" content="{when}">',
            f'<meta name="memhtml-updated" content="{when}">',
            "</head>",
            "<body>",
            "<article>",
            f"<p><mark>{esc(claim)}</mark></p>",
            "</article>",
            "</body>",
            "</html>",
            "",
        ]
    )


def plant(root: Path) -> list[str]:
    """Write the 90 paraphrase memories; return the 30 targets' paths in PARAPHRASES order."""
    targets = []
    texts = [(claim, True) for claim, _ in PARAPHRASES] + [(claim, False) for claim in DISTRACTORS]
    for i, (claim, is_target) in enumerate(texts):
        day = (i * 113) % 360  # spread across the corpus year, deterministically
        when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(YEAR_START + day * 86400 + 9 * 3600))
        title = " ".join(claim.split()[:6]).rstrip(".,;")
        path = f"{PROBE_DIR}/{_slug(claim)}.html"
        (root / PROBE_DIR).mkdir(parents=True, exist_ok=True)
        (root / path).write_text(_memory(title, claim, when), encoding="utf-8")
        if is_target:
            targets.append(path)
    return targets


def build(directory: Path, size: int, seed: int) -> tuple[Path, list[str]]:
    root = directory / f"store-{size}-{seed}"
    if root.exists():
        shutil.rmtree(root)
    generate_store(root, size - len(PARAPHRASES) - len(DISTRACTORS), seed, state=True)
    return root, plant(root)


def make_embedder(name: str):
    from memhtml_desktop.embedders.registry import make_embedder as make

    return make(name)


def ranking_of(name: str) -> RankingProfile:
    """A shipped profile by name, or a what-if profile read from a `.json` file."""
    if name.endswith(".json"):
        return parse_configuration(Path(name).read_text(encoding="utf-8"), source=name).profile
    return profile_named(name)


def measure(root: Path, targets: list[str], embedder_name: str, index: Path, rankings: list[str]) -> dict[str, dict]:
    """Index once, then search every query under each ranking profile: {profile name: figures}."""
    from memhtml_desktop.index.sidecar import import_file

    store = Store(root, index_path=index, embedder=make_embedder(embedder_name))
    import_file(store.reader(), store.root)
    started = time.perf_counter()
    report = store.index()
    index_s = time.perf_counter() - started
    return {name: _searches(store, targets, ranking_of(name), report.seen, index_s) for name in rankings}


def _searches(store: Store, targets: list[str], profile, files: int, index_s: float) -> dict:
    rows = []
    for (_, query), target in zip(PARAPHRASES, targets):
        hits = store.search(query, limit=10, ranking=profile).hits
        paths = [h.path for h in hits]
        why = store.why(query, None, target, ranking=profile)
        vector_rank = why.arms.get("vector", {}).get("rank")
        row = {
            "query": query,
            "position": paths.index(target) + 1 if target in paths else None,
            "fused_position": why.fused_position,
            "fused_score": why.fused_score,
            "vector_rank": vector_rank,
            "fts_rank": why.arms.get("fts", {}).get("rank"),
            "page_multi_arm": sum(1 for h in hits if sum(1 for a in h.arms if a.rank is not None) >= 2),
            "page_tenth_score": hits[-1].score if len(hits) == 10 else None,
        }
        rows.append(row)
    reciprocal = [1.0 / r["position"] if r["position"] else 0.0 for r in rows]
    vector_rr = [1.0 / r["vector_rank"] if r["vector_rank"] else 0.0 for r in rows]
    misses = [r for r in rows if not r["position"]]
    in_pool = [r["fused_position"] for r in rows if r["fused_position"]]
    return {
        "files": files,
        "index_seconds": round(index_s, 1),
        "index_files_per_s": round(files / index_s, 1) if index_s else None,
        "fused_mrr_at_10": round(statistics.mean(reciprocal), 4),
        "fused_recall_at_10": round(sum(1 for r in rows if r["position"]) / len(rows), 4),
        "fused_order_mrr_at_10": round(
            statistics.mean(
                1.0 / r["fused_position"] if r["fused_position"] and r["fused_position"] <= 10 else 0.0 for r in rows
            ),
            4,
        ),
        "vector_mrr": round(statistics.mean(vector_rr), 4),
        "vector_recall_at_10": round(
            sum(1 for r in rows if r["vector_rank"] and r["vector_rank"] <= 10) / len(rows), 4
        ),
        "vector_rank_1": sum(1 for r in rows if r["vector_rank"] == 1),
        "in_fused_pool": len(in_pool),
        "median_fused_position": statistics.median(in_pool) if in_pool else None,
        "misses": len(misses),
        "misses_with_vector_rank_1": sum(1 for r in misses if r["vector_rank"] == 1),
        "miss_page_multi_arm_share": round(statistics.mean(r["page_multi_arm"] / 10 for r in misses), 3)
        if misses
        else None,
        "miss_tenth_score_median": round(
            statistics.median(r["page_tenth_score"] for r in misses if r["page_tenth_score"]), 5
        )
        if misses
        else None,
        "miss_target_score_median": round(statistics.median(r["fused_score"] or 0.0 for r in misses), 5)
        if misses
        else None,
        "targets_with_fts_rank": sum(1 for r in rows if r["fts_rank"]),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="300,3000,30000")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--embedders", default="minilm")
    parser.add_argument(
        "--rankings", default=",".join(PROFILES), help="ranking profiles to search with (one index each size)"
    )
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "memhtml-paraphrase-scale")
    parser.add_argument(
        "--keep", action="store_true", help="keep the stores and indexes (per-query rows go to DIR/rows.json always)"
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    embedders = [e.strip() for e in args.embedders.split(",") if e.strip()]
    rankings = [r.strip() for r in args.rankings.split(",") if r.strip()]
    for name in rankings:
        ranking_of(name)  # an unknown name or a bad file fails here, before any store is built
    args.dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, dict]] = {}
    for size in sizes:
        root, targets = build(args.dir, size, args.seed)
        for name in embedders:
            index = args.dir / f"index-{size}-{name}.db"
            for suffix in ("", "-wal", "-shm"):
                Path(str(index) + suffix).unlink(missing_ok=True)
            for ranking, r in measure(root, targets, name, index, rankings).items():
                results.setdefault(str(size), {})[f"{name}/{ranking}"] = r
                print(
                    f"{size:>6} memories [{name}, ranking {ranking}] indexed in {r['index_seconds']:.1f} s ({r['index_files_per_s']} files/s); "
                    f"fused MRR@10 {r['fused_mrr_at_10']:.3f} (recall@10 {r['fused_recall_at_10']:.2f}; fused order before the "
                    f"post-fusion steps {r['fused_order_mrr_at_10']:.3f}); "
                    f"vector arm MRR {r['vector_mrr']:.3f} (recall@10 {r['vector_recall_at_10']:.2f}, rank 1: {r['vector_rank_1']}/30); "
                    f"in the fused pool {r['in_fused_pool']}/30 (median position {r['median_fused_position']}); misses {r['misses']} "
                    f"({r['misses_with_vector_rank_1']} with vector rank 1; page-one hits ranked by 2+ arms: "
                    f"{r['miss_page_multi_arm_share']}; 10th hit's score {r['miss_tenth_score_median']} vs target's "
                    f"{r['miss_target_score_median']}); targets the lexical arm ranks: {r['targets_with_fts_rank']}/30",
                    flush=True,
                )
            if not args.keep:
                for suffix in ("", "-wal", "-shm"):
                    Path(str(index) + suffix).unlink(missing_ok=True)
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    summary = {
        size: {name: {k: v for k, v in r.items() if k != "rows"} for name, r in by.items()}
        for size, by in results.items()
    }
    print(
        json.dumps(
            {
                "bench": "paraphrase_scale",
                "seed": args.seed,
                "loadavg_1m_end": round(os.getloadavg()[0], 2),
                "results": summary,
            }
        )
    )
    (args.dir / "rows.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
