"""Which pack shape feeds a question more cheaply, for specific and for vague questions.

    python bench/shapes_eval.py [--size 3000] [--seed 11] [--budgets 1000,4000,16000] [--embedders hash,minilm]

One store per run: a generated store (`devtools/gen_store.py`) of N - 90 memories with its gate
probes (each query made of a target's own claim words: **specific** questions, and three near-twin
controls per target), plus the 90 memories of the paraphrase set (`devtools/paraphrases.py`: 30
targets, 60 same-topic distractors; each query says the same in other words: **vague** questions).
For each embedder and budget, `workbench.shapes.compare_shapes` over both probe sets: how often each
shape delivered the target's text, only a pointer, or nothing, the mean characters handed over,
which of direct recall and catalogue + one expansion was cheaper per question kind, and how many
catalogues listed entries they could not tell apart (same title and summary). Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from paraphrase_scale import DISTRACTORS, make_embedder, plant  # noqa: E402

from memhtml_desktop.devtools.gen_store import generate_store  # noqa: E402
from memhtml_desktop.devtools.paraphrases import PARAPHRASES  # noqa: E402
from memhtml_desktop.domain.probes import EvalProbe  # noqa: E402
from memhtml_desktop.index.store import Store  # noqa: E402
from memhtml_desktop.workbench.shapes import compare_shapes  # noqa: E402

SHAPES = ("memhtml", "quotas", "catalog+1", "catalog+2", "catalog+pick")


def build(directory: Path, size: int, seed: int) -> tuple[Path, list[EvalProbe], list[EvalProbe]]:
    root = directory / f"shapes-{size}-{seed}"
    made = generate_store(root, size - len(PARAPHRASES) - len(DISTRACTORS), seed, probes=30, state=True, force=True)
    specific = [EvalProbe(p.query, p.target, p.controls) for p in made.probes]
    vague = [EvalProbe(query, target) for (_, query), target in zip(PARAPHRASES, plant(root))]
    return root, specific, vague


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--budgets", default="1000,4000,16000")
    parser.add_argument("--embedders", default="hash")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "memhtml-shapes-eval")
    args = parser.parse_args(argv)
    root, specific, vague = build(args.dir, args.size, args.seed)
    out: dict[str, dict] = {}
    for name in args.embedders.split(","):
        from memhtml_desktop.index.sidecar import import_file

        store = Store(root, index_path=args.dir / f"index-{name}.db", embedder=make_embedder(name))
        import_file(store.reader(), store.root)
        started = time.perf_counter()
        files = store.index().seen
        print(f"\n{name}: {files} memories indexed in {time.perf_counter() - started:.1f}s")
        for budget in (int(b) for b in args.budgets.split(",")):
            for kind, probes in (("specific", specific), ("vague", vague)):
                report = compare_shapes(store, probes, budget=budget)
                figures = {f.shape: f for f in report.figures}
                rule = report.rule()
                key = f"{name}/{budget}/{kind}"
                out[key] = {
                    "probes": len(probes),
                    "indistinct_probes": report.indistinct_probes,
                    "rule": rule,
                    "controls_listed_probes": report.controls_listed_probes,
                    **{s: figures[s].to_json() for s in SHAPES},
                }
                print(
                    f"  budget {budget:>6,} · {kind:<8} ({len(probes)} probes; read as "
                    + ", ".join(f"{k} {sum(v.values())}" for k, v in rule.items())
                    + f"; {report.indistinct_probes} catalogues with lookalikes, "
                    + f"{report.controls_listed_probes} listing a near-twin control)"
                )
                for s in SHAPES:
                    f = figures[s]
                    print(
                        f"    {s:<13} content {f.content:>3}  pointer {f.pointer:>3}  missing "
                        f"{f.probes - f.content - f.pointer:>3}  mean {f.mean_cost:>8,.0f} chars "
                        f"(charged {f.mean_charged:>7,.0f})"
                    )
                cheaper = {"direct": 0, "catalog": 0}
                for counts in rule.values():
                    for k, v in counts.items():
                        cheaper[k] += v
                print(
                    f"    cheaper (delivered): direct recall {cheaper['direct']}, catalogue + one expansion {cheaper['catalog']}"
                )
                charged_direct = sum(
                    1 for row in report.rows if row.landing("memhtml").charged <= row.landing("catalog+1").cost
                )
                print(
                    f"    cheaper (charged only): direct recall {charged_direct}, "
                    f"catalogue + one expansion {len(report.rows) - charged_direct}"
                )
                out[key]["charged_direct_cheaper"] = charged_direct
        store.close_thread_connection()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
