"""Ranking quality across generated stores, embedders and profile variants: the figures behind
docs/ranking.md.

    python bench/ranking_eval.py [--embedder hash|minilm] [--stores SPEC ...] [--variants NAME ...]
        [--known-items N] [--json]

A store SPEC is `COUNT:SEED:PROBES:NAMES` (NAMES one of gen_store's `--control-names`); the default
set is the suite's fixture and two more at other seeds and sizes, each with the target's file name
sorting after its controls' (`target_last`: an exact tie always goes to a control). Each store is
generated once under the temp directory, its access sidecar imported (memhtml's seeded state
plane), and indexed with the chosen embedder.

For every variant (a shipped profile, or the default profile with one knob changed) it prints the
discrimination gate (`--limit 40`: inversions, MRR, corpus MRR) and known-item MRR@10 for queries
of three content words from a memory's claim and from its title. With `--redundancy` it also
prints, for the claim-word queries, the near-duplicate pairs on a page of ten (cosine at or above
the embedder's twin threshold) and how many hits MMR moved a page.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.devtools.gen_store import generate_store  # noqa: E402
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML, PerEmbedder  # noqa: E402
from memhtml_desktop.index.evaluate import EvalProbe, known_items, run_known_items, run_probes  # noqa: E402
from memhtml_desktop.index.sidecar import import_file  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402

STORES = ("1500:20260802:36:target_last", "600:7:48:target_last", "3000:99:60:target_last")


def variants() -> dict:
    fused = dict(polarity=False, twins=False, mmr_lambda=1.0)
    seeds = dict(
        polarity=True,
        polarity_cosine=PerEmbedder((), 0.9),
        twins=False,
        mmr_redundancy="cosine",
        mmr_keeps_known_items=False,
    )
    return {
        "memhtml": MEMHTML,
        "memhtml-fused": replace(MEMHTML, **fused),
        "default": DEFAULT,
        "default-fused": replace(DEFAULT, **fused),
        "default-no-mmr": replace(DEFAULT, mmr_lambda=1.0),
        "default-no-newer": replace(DEFAULT, newer_first=False),
        "default-no-gate": replace(DEFAULT, gate_priors=False),
        "default-no-twins": replace(DEFAULT, twins=False),
        "default+polarity": replace(DEFAULT, polarity=True),
        "default-no-keep": replace(DEFAULT, mmr_keeps_known_items=False),
        "default-cosine-mmr": replace(DEFAULT, mmr_redundancy="cosine"),
        "default-cosine-no-keep": replace(DEFAULT, mmr_redundancy="cosine", mmr_keeps_known_items=False),
        "seeds": replace(DEFAULT, **seeds),
        "seeds-no-mmr": replace(DEFAULT, **seeds | {"mmr_lambda": 1.0}),
        "twins-0.90": replace(DEFAULT, twin_cosine=PerEmbedder((), 0.90)),
        "twins-0.97": replace(DEFAULT, twin_cosine=PerEmbedder((), 0.97)),
    }


def open_store(spec: str, embedder_name: str):
    count, seed, probes, names = spec.split(":")
    base = Path(tempfile.gettempdir()) / f"memhtml-rank-{count}-{seed}-{probes}-{names}"
    root = base / "store"
    if not (base / "probes.json").exists():
        made = generate_store(
            root, int(count), int(seed), probes=int(probes), state=True, force=True, control_names=names
        )
        (base / "probes.json").write_text(json.dumps([p.to_json() for p in made.probes]))
    probes = [
        EvalProbe(p["query"], p["target"], tuple(p["controls"]), kind=p["kind"], families=tuple(p["families"]))
        for p in json.loads((base / "probes.json").read_text())
    ]
    from memhtml_desktop.embedders.registry import make_embedder

    embedder = make_embedder(embedder_name)
    store = Store(root, index_path=base / f"index-{embedder_name}.db", embedder=embedder)
    import_file(store.reader(), store.root)
    started = time.perf_counter()
    report = store.index()
    if report.indexed:
        print(
            f"  indexed {report.indexed} files with {embedder_name} in {time.perf_counter() - started:.1f}s",
            file=sys.stderr,
        )
    return store, probes


def redundancy(store, items, profile) -> dict:
    """Near-duplicate pairs on a page of ten and hits MMR moved, averaged over `items`' queries."""
    import numpy as np

    conn = store.reader()
    snapshot = store.vector_snapshot(conn)
    rowid = dict(conn.execute("SELECT path, rowid FROM files").fetchall())
    threshold = DEFAULT.twin_cosine.get(store.embedder.model_id)
    pairs = moves = 0
    for item in items:
        hits = store.search(item.query, limit=10, ranking=profile).hits
        vectors = [v for v in (snapshot.file_vector(rowid[h.path]) for h in hits) if v is not None]
        if len(vectors) > 1:
            m = np.stack(vectors).astype(np.float64)
            m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
            pairs += int((np.triu(m @ m.T, 1) >= threshold).sum())
        moves += sum(1 for h in hits if any(mv.step == "mmr" for mv in h.moves))
    n = max(1, len(items))
    return {"dup_pairs": pairs / n, "mmr_moves": moves / n}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="hash", choices=("hash", "minilm"))
    parser.add_argument("--stores", nargs="+", default=list(STORES), metavar="SPEC")
    parser.add_argument("--variants", nargs="+", default=None, metavar="NAME")
    parser.add_argument("--known-items", type=int, default=300, metavar="N")
    parser.add_argument("--redundancy", action="store_true", help="near-duplicate pairs a page, MMR moves a page")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    table = variants()
    chosen = args.variants or list(table)
    rows = []
    for spec in args.stores:
        store, probes = open_store(spec, args.embedder)
        twin = DEFAULT.twin_cosine.get(store.embedder.model_id)
        items = known_items(store, args.known_items, seed=1, twin_cosine=twin) if args.known_items else []
        for name in chosen:
            profile = table[name]
            gate = run_probes(store, probes, ranking=profile)
            known = run_known_items(store, items, ranking=profile) if items else None
            s = gate.summary
            row = {
                "store": spec,
                "embedder": args.embedder,
                "variant": name,
                "probes": s.probes,
                "inversions": s.inversions,
                "inverted_probes": s.inverted_probes,
                "mrr": round(s.mrr, 4),
                "corpus_mrr": round(s.corpus_mrr, 4),
                "by_family": s.by_family,
            }
            if known:
                for source, summary in known.summaries.items():
                    row[f"known_{source}_mrr10"] = round(summary.mrr, 4)
                    row[f"known_{source}_missing"] = summary.missing
                    row[f"known_{source}_free_mrr10"] = round(summary.twin_free_mrr, 4)
                    row[f"known_{source}_free_n"] = summary.twin_free_n
            if args.redundancy and items:
                row.update(redundancy(store, [it for it in items if it.source == "claim"], profile))
            rows.append(row)
            if not args.json:
                print(
                    f"{spec:<28} {args.embedder:<6} {name:<20} inv {s.inversions:>3} ({s.inverted_probes:>2} probes) "
                    f"mrr {s.mrr:.3f} corpus {s.corpus_mrr:.3f}  "
                    + "  ".join(
                        f"{k[6:-6]} {v:.3f}" for k, v in row.items() if k.startswith("known_") and k.endswith("_mrr10")
                    )
                    + "  "
                    + " ".join(f"{k}:{v}" for k, v in s.by_family.items())
                    + (
                        f"  dup-pairs/page {row['dup_pairs']:.2f} mmr-moves/page {row['mmr_moves']:.2f}"
                        if "dup_pairs" in row
                        else ""
                    ),
                    flush=True,
                )
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
