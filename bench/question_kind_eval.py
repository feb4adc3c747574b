"""How well "specific / vague" is read off what a question matched (issue 41, item 1).

    python bench/question_kind_eval.py [--sets tools,perl,pylibs,heldout] [--out bench/out/realtext]
                                       [--embedders hash] [--vague 60] [--json FILE]

The catalogue's verdict (seed 003, 6.3: direct recall for a specific question, catalogue plus
expansion for a vague one) rests on `domain/catalogue.question_kind`. Labelled questions:

- **specific**: each real question of `bench/realtext_build.py`'s sets (one known answer, a single
  memory, in `SET.probes.jsonl`);
- **vague**: topic questions no single memory answers, made from the same store: a word, or two
  words that occur together, carried by the titles of at least 2k memories (k = 10, the catalogue's
  size), sampled with a fixed seed (`--vague` per set). A person asking "regular expressions" of
  a Perl manual wants a list, not one memory.

For each question, under `default` and `memhtml` (k = 10): how many in-scope memories hold every
content word (`Retriever.every_word_count`), the bound form's count (what the old rule read), and
the page's fused scores. Then each rule's accuracy on the two labels, per set and pooled: the old
rule (the bound form: any-of under `default` is always vague), the count alone (1..k memories hold
every word), the peak alone (the top fused score's lead over the second, relative), and the count
or the peak. The peak's threshold is chosen on `tools` and `perl` (the training sets) and reported
on `pylibs` and `heldout` too. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from realtext_eval import open_indexed  # noqa: E402

from memhtml_desktop.domain.catalogue import LEAD, question_kind, score_lead  # noqa: E402
from memhtml_desktop.domain.probes import read_probe_set  # noqa: E402
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML  # noqa: E402
from memhtml_desktop.domain.stopwords import STOPWORD_SET  # noqa: E402

K = 10
TRAIN = ("tools", "perl")
_WORD = re.compile(r"[a-z]{4,}")


def vague_questions(store, n: int, seed: int) -> list[str]:
    """Topic words (and co-occurring pairs) that at least 2k memories' titles carry."""
    titles = [str(t).lower() for (t,) in store.reader().execute("SELECT title FROM files WHERE archived = 0")]
    words = [set(w for w in _WORD.findall(t) if w not in STOPWORD_SET) for t in titles]
    single = Counter(w for ws in words for w in ws)
    pairs = Counter((a, b) for ws in words for a in ws for b in ws if a < b)
    ones = sorted(w for w, c in single.items() if c >= 2 * K)
    twos = sorted(f"{a} {b}" for (a, b), c in pairs.items() if c >= 2 * K)
    rng = random.Random(seed)
    picked = rng.sample(ones, min(len(ones), n // 2)) + rng.sample(twos, min(len(twos), n - n // 2))
    return picked


def features(store, query: str, profile) -> dict:
    result = store.search(query, limit=K, ranking=profile)
    every = store.retriever().every_word_count(query, None, profile)
    return {
        "every": every.count,
        "every_form": every.form,
        "bound_form": result.matches.form,
        "bound": result.matches.count,
        "scores": [h.score for h in result.hits],
    }


def old_rule(f: dict) -> str:
    return question_kind(f["bound_form"], f["bound"], K)[0]


def rules(threshold: float, fusion: str) -> dict:
    return {
        "old (the bound form)": old_rule,
        "count: 1..k hold every word": lambda f: "specific" if 0 < f["every"] <= K else "vague",
        f"peak: lead >= {threshold:.2f}": lambda f: "specific" if score_lead(f["scores"]) >= threshold else "vague",
        "count or peak (new)": lambda f: question_kind("all", f["every"], K, f["scores"], threshold)[0],
        "count or peak, shipped LEAD": lambda f: question_kind(
            "all", f["every"], K, f["scores"], LEAD[fusion].get(f["model"])
        )[0],
    }


def accuracy(rows: list[dict], rule) -> tuple[float, float, float]:
    spec = [r for r in rows if r["label"] == "specific"]
    vague = [r for r in rows if r["label"] == "vague"]
    s = sum(rule(r) == "specific" for r in spec) / len(spec) if spec else 0.0
    v = sum(rule(r) == "vague" for r in vague) / len(vague) if vague else 0.0
    both = (sum(rule(r) == "specific" for r in spec) + sum(rule(r) == "vague" for r in vague)) / max(1, len(rows))
    return s, v, both


def balanced(rows: list[dict], rule) -> float:
    s, v, _ = accuracy(rows, rule)
    return (s + v) / 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="tools,perl,pylibs,heldout")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "realtext")
    parser.add_argument("--embedders", default="hash")
    parser.add_argument("--vague", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows: list[dict] = []
    for name in args.sets.split(","):
        if not (args.out / f"{name}.probes.jsonl").exists():
            print(f"{name}: not built (python bench/realtext_build.py --sets {name})")
            continue
        probes = read_probe_set((args.out / f"{name}.probes.jsonl").read_text(encoding="utf-8"), name).probes
        for embedder in args.embedders.split(","):
            store = open_indexed(args.out, name, embedder)
            asked = [(p.query, "specific") for p in probes] + [
                (q, "vague") for q in vague_questions(store, args.vague, args.seed)
            ]
            for profile in (DEFAULT, MEMHTML):
                for query, label in asked:
                    rows.append(
                        {
                            "set": name,
                            "embedder": embedder,
                            "model": store.embedder.model_id,
                            "profile": profile.name,
                            "query": query,
                            "label": label,
                            **features(store, query, profile),
                        }
                    )
            print(f"{name}/{embedder}: {len(probes)} specific, {len(asked) - len(probes)} vague", flush=True)
            store.close_thread_connection()
    grid = [x / 100 for x in range(0, 61, 2)]
    out: dict = {}
    for profile in ("default", "memhtml"):
        train = [r for r in rows if r["profile"] == profile and r["set"] in TRAIN]
        best = max(grid, key=lambda t: (balanced(train, rules(t, "rrf")["count or peak (new)"]), -t))
        out[profile] = {"threshold": best, "rules": {}}
        print(f"\n{profile}: the lead threshold chosen on {', '.join(TRAIN)}: {best:.2f}")
        print(f"  {'rule':<30} " + "  ".join(f"{s:>22}" for s in (*args.sets.split(","), "all")))
        for rule_name, rule in rules(best, "convex" if profile == "default" else "rrf").items():
            cells = []
            for name in (*args.sets.split(","), "all"):
                part = [r for r in rows if r["profile"] == profile and (name == "all" or r["set"] == name)]
                s, v, both = accuracy(part, rule)
                cells.append(f"{s:.2f} / {v:.2f} / {both:.2f}")
                out[profile]["rules"].setdefault(rule_name, {})[name] = {
                    "specific": round(s, 3),
                    "vague": round(v, 3),
                    "all": round(both, 3),
                    "n": len(part),
                }
            print(f"  {rule_name:<30} " + "  ".join(f"{c:>22}" for c in cells))
    print("  (each cell: specific questions read specific / vague read vague / all questions right)")
    if args.json:
        args.json.write_text(json.dumps({"summary": out, "rows": rows}, indent=1), encoding="utf-8")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
