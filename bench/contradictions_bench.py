"""The conflicts scan on stores with a known answer, and its time at 20,000 memories.

    python bench/contradictions_bench.py [--slots 2600] [--seed 5] [--embedders hash,minilm]
                                         [--docs 3000] [--realtext bench/out/realtext] [--scale 20000]
                                         [--dir DIR]

1. a conflicting-fact store (`devtools/fact_store.py`: real facts, a change worded like the fact it
   replaces three times in four): recall of the true (newer, older) pairs, precision (and precision
   without the two relations that hold many values at once, which no rule over words can tell from a
   slot), and whether `newer` names the newer side; per embedder;
2. documentation stores, which state almost no contradictions: the Python reference and the standard
   library's docstrings (`devtools/doc_store.py`), and the real-text sets `bench/realtext_build.py`
   made, if present (`--realtext`): every flagged pair is printed, to be read;
3. the scan's time on a generated store of `--scale` memories (hash vectors), against the 5 s target.

A standalone script (the bench suite's runner has not landed yet); each figure is printed beside what
it is measured against. The machine is shared: run it on a quiet one for the final figures.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.devtools import doc_store, fact_store  # noqa: E402
from memhtml_desktop.embedders.registry import make_embedder  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402
from memhtml_desktop.write.conflicts import scan_conflicts  # noqa: E402

LISTS = ("neighbour", "spoken")


def scanned(root: Path, embedder: str, index: Path):
    store = Store(root, index_path=index, embedder=make_embedder(embedder))
    store.index()
    started = time.perf_counter()
    report = scan_conflicts(store)
    return store, report, time.perf_counter() - started


def facts_figures(made, report) -> dict:
    relation = {f.path: f.relation for f in made.facts}
    truth = {frozenset(p): p[0] for p in made.pairs}
    flagged = {frozenset((p.a.path, p.b.path)): p for p in report.pairs}
    found = [k for k in flagged if k in truth]
    lists = [k for k in flagged if k not in truth and relation[min(k)] in LISTS]
    reworded = {k for k in truth if made_wording(made, k)}
    return {
        "pairs": len(truth),
        "found": len(found),
        "recall": len(found) / max(1, len(truth)),
        "flagged": len(flagged),
        "precision": len(found) / max(1, len(flagged)),
        "precision_without_lists": len(found) / max(1, len(flagged) - len(lists)),
        "newer_right": sum(flagged[k].newer == truth[k] for k in found),
        "reworded_pairs": len(reworded),
        "reworded_found": len([k for k in found if k in reworded]),
        "reasons": collections.Counter(flagged[k].reason.reason for k in found),
        "missed_by_relation": collections.Counter(relation[min(k)] for k in truth if k not in flagged),
        "false_by_relation": collections.Counter(relation[min(k)] for k in flagged if k not in truth),
    }


def made_wording(made, pair) -> bool:
    """Whether the two facts of a pair are worded differently (their claims' frames differ)."""
    from memhtml_desktop.html.frame import frame_key_of

    by_path = {f.path: f for f in made.facts}
    a, b = (by_path[p] for p in pair)
    ka, kb = frame_key_of(a.claim), frame_key_of(b.claim)
    template = (
        lambda f: next(
            i
            for i, t in enumerate(fact_store.TEMPLATES[f.relation][0])  # noqa: E731
            if t.format(s=f.subject, v=fact_store._format(f.relation, f.value))[1:] == f.claim[1:]
        )
    )
    return template(a) != template(b) or (ka is None) != (kb is None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slots", type=int, default=2600)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--embedders", default="hash,minilm")
    ap.add_argument("--docs", type=int, default=3000)
    ap.add_argument("--realtext", type=Path, default=Path(__file__).resolve().parent / "out" / "realtext")
    ap.add_argument("--scale", type=int, default=20000)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    base = args.dir or Path(tempfile.mkdtemp(prefix="contradictions-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    embedders = [e for e in args.embedders.split(",") if e]

    made = fact_store.build(base / "facts", slots=args.slots, seed=args.seed)
    print(
        f"fact store: {len(made.facts)} memories, {len(made.pairs)} (newer, older) pairs, "
        f"{len(made.questions)} questions, {len(made.restatements)} agreeing restatements"
    )
    for embedder in embedders:
        _, report, seconds = scanned(made.root, embedder, base / f"facts-{embedder}.db")
        f = facts_figures(made, report)
        print(
            f"  {embedder}: recall {f['found']}/{f['pairs']} = {f['recall']:.3f} (target >= 0.80; reworded pairs "
            f"{f['reworded_found']}/{f['reworded_pairs']}), precision {f['found']}/{f['flagged']} = {f['precision']:.3f}, "
            f"without list relations {f['precision_without_lists']:.3f}; newer named right {f['newer_right']}/{f['found']}; "
            f"scan {seconds:.2f} s"
        )
        print(
            f"    found by {dict(f['reasons'])}; missed {dict(f['missed_by_relation'])}; "
            f"false {dict(f['false_by_relation'])}"
        )

    stores = [("pydoc", base / "docs")]
    written = doc_store.build(base / "docs", limit=args.docs)
    print(f"documentation store (pydoc topics + stdlib docstrings): {written} memories")
    stores += (
        [(p.name, p) for p in sorted(args.realtext.glob("*")) if (p / ".git").exists()]
        if args.realtext.exists()
        else []
    )
    for name, root in stores:
        for embedder in embedders:
            _, report, seconds = scanned(root, embedder, base / f"docs-{name}-{embedder}.db")
            print(
                f"  {name}/{embedder}: {len(report.pairs)} pairs flagged among {report.memories} memories "
                f"({seconds:.2f} s)"
            )
            for p in report.pairs:
                print(
                    f"    [{p.reason.reason}] {p.a.claim[:110]}\n    {'':{len(p.reason.reason) + 2}} {p.b.claim[:110]}"
                )

    if args.scale:
        from memhtml_desktop.devtools.gen_store import generate_store

        generate_store(base / "scale", args.scale, 7, state=False, force=True)
        store = Store(base / "scale", index_path=base / "scale-hash.db", embedder=make_embedder("hash"))
        store.index()
        times = []
        for _ in range(3):
            started = time.perf_counter()
            report = scan_conflicts(store)
            times.append(time.perf_counter() - started)
        print(
            f"scan at {report.memories:,} memories (hash): best {min(times):.2f} s of {len(times)} "
            f"(target <= 5 s on two cores), {len(report.pairs)} pairs, {report.twins} near-twin pairs"
        )
    print(f"stores kept in {base}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
