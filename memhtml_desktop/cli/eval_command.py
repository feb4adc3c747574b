"""`memhtml-desktop eval PROBES`: the discrimination gate and known-item search over a store.

A probe file is JSON lines (`query`, `target`, `controls`, optional `scope`; see
`domain/probes.py`); `gen_store --probes FILE` writes one. Each probe is searched at `--limit`
(40, as memhtml's gate does) under the chosen ranking profile, and the report gives, per probe,
the target's rank among its controls, its rank in the whole list and the controls that beat it;
for the set, inversions, MRR, corpus MRR and degraded probes. `--known-items N` adds known-item
MRR@10 for queries of three content words from N sampled memories' claims and titles.

The relevance workbench's modes (`--config`, `--compare`, `--optimize`, `--history`, `--set`) are
in `workbench_commands.py`. A malformed probe line or a probe naming a memory that is not in the
store is named (file and line) on stderr, and the rest of the set runs.
"""

from __future__ import annotations

import argparse
import sys

from memhtml_desktop.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    CliError,
    add_ranking_flag,
    open_store,
    print_json,
    ranking_from,
    refresh,
)
from memhtml_desktop.cli.verbs import HELP


def add_parsers(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("eval", parents=[common], help=HELP["eval"])
    p.add_argument("probes", nargs="?", metavar="PROBES", help="a JSON-lines probe file (gen_store --probes)")
    p.add_argument("--limit", type=int, default=40, metavar="N", help="hits per probe search (default 40)")
    p.add_argument(
        "--known-items",
        type=int,
        default=0,
        metavar="N",
        help="also measure known-item MRR@10 over N sampled memories (claim and title words)",
    )
    p.add_argument("--seed", type=int, default=1, help="sampling seed for --known-items")
    add_ranking_flag(p)
    p.add_argument("--check", action="store_true", help="exit 1 unless the gate passes (zero inversions, MRR >= 0.85)")
    p.add_argument("--no-refresh", action="store_true", help="do not rescan the store first")
    p.add_argument("--json", action="store_true")
    w = p.add_argument_group(
        "relevance workbench",
        "a configuration is memhtml, default, a store "
        "configuration's name (.memhtml-desktop/configs/NAME.json) or a JSON file",
    )
    w.add_argument("--set", metavar="NAME", help="the store's probe set NAME (.memhtml-desktop/probes/NAME.jsonl)")
    w.add_argument("--config", metavar="FILE|NAME", help="run this configuration (recorded in the history)")
    w.add_argument(
        "--compare", metavar="FILE|NAME", help="compare it with --config (or --ranking's profile) probe by probe"
    )
    w.add_argument("--optimize", action="store_true", help="search arm weights, k and MMR lambda for the best MRR")
    w.add_argument("--trials", type=int, default=200, help="optimizer trials (default 200)")
    w.add_argument(
        "--holdout", type=float, default=0.3, help="share of probes held out from the optimizer (default 0.3)"
    )
    w.add_argument("--save", metavar="NAME", help="save the optimizer's best as configuration NAME (one commit)")
    w.add_argument("--history", action="store_true", help="list the recorded runs (of this set) and what broke when")
    w.add_argument(
        "--diff", nargs=2, metavar=("RUN_A", "RUN_B"), help="with --history: probe by probe between two runs"
    )
    w.add_argument("--no-record", action="store_true", help="do not record this run in the history")
    w.add_argument(
        "--floor-scan",
        action="store_true",
        help="the relevance floor scan on this set: per candidate floor, targets dropped and non-targets admitted",
    )
    w.add_argument(
        "--save-floor",
        type=float,
        metavar="COSINE",
        help="with --floor-scan: save this floor for the store's embedder as configuration --save NAME",
    )
    w.add_argument(
        "--coverage",
        action="store_true",
        help="crowders (on most probes' first page) and memories their own claim cannot reach",
    )
    shapes = p.add_argument_group(
        "pack shapes", "how often each pack shape lands the target, at what cost (docs/recall.md)"
    )
    shapes.add_argument(
        "--shapes",
        action="store_true",
        help="compare memhtml's pack, the quota ledgers and catalogue + expand over the probes",
    )
    shapes.add_argument("--budget", type=int, metavar="CHARS", help="with --shapes: the recall budget (default 16000)")
    shapes.add_argument("--k", type=int, default=10, metavar="N", help="with --shapes: catalogue entries (default 10)")
    shapes.add_argument("--ledgers", metavar="FILE", help="with --shapes: a JSON ledger map")


def cmd_eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    from memhtml_desktop.cli import workbench_commands
    from memhtml_desktop.workbench import check_probe_paths, read_probe_file

    if args.limit < 1:
        raise CliError("--limit must be at least 1")
    if args.shapes:
        from memhtml_desktop.cli import shape_commands

        return shape_commands.cmd_eval_shapes(args)
    if workbench_commands.wants_workbench(args):
        return workbench_commands.cmd_workbench_eval(args)
    if not args.probes and not args.known_items:
        raise CliError("give a probe file, --known-items N, or both")
    probe_set = None
    if args.probes:
        probe_set = read_probe_file(Path(args.probes))
        fatal = [p for p in probe_set.problems if p.line == 0]
        if fatal:
            raise CliError(str(fatal[0]))
    profile = ranking_from(args)
    store = open_store(args)
    refresh(store, args)
    probes = []
    if probe_set is not None:
        probes, missing, _ = check_probe_paths(store, probe_set)
        for problem in (*probe_set.problems, *missing):
            print(f"memhtml-desktop: {problem}", file=sys.stderr)
        if not probes:
            raise CliError(f"{args.probes} holds no probe that can run")
    gate = store.evaluate(probes, ranking=profile, limit=args.limit) if probes else None
    known = store.known_item_report(args.known_items, seed=args.seed, ranking=profile) if args.known_items else None
    if args.json:
        payload = {"ranking": profile.name, "profile": profile.to_json(), "embedder": store.embedder.model_id}
        if gate:
            payload["gate"] = gate.to_json()
        if known:
            payload["known_items"] = known.to_json()
        print_json(payload)
    else:
        print_report(profile, store, gate, known)
    if args.check and gate is not None and not gate.summary.passed:
        return EXIT_FAIL
    return EXIT_OK


def print_report(profile, store, gate, known) -> None:
    print(f"ranking: {profile.name} · embedder: {store.embedder.model_id}")
    if gate:
        width = max((len(o.target) for o in gate.outcomes), default=20)
        print(f"{'rank':>4} {'list':>5} {'inv':>3}  {'target':<{width}}  query")
        for o in gate.outcomes:
            where = str(o.corpus_rank) if o.corpus_rank else "-"
            flag = " degraded" if o.degraded else ""
            print(f"{o.rank:>4} {where:>5} {len(o.inverted):>3}  {o.target:<{width}}  {o.query}{flag}")
            for control, family in zip(o.inverted, o.inverted_families):
                print(f"{'':>16}beaten by {control}" + (f" ({family})" if family else ""))
        s = gate.summary
        families = ", ".join(f"{k} {v}" for k, v in s.by_family.items())
        print(
            f"\n{s.probes} probes at --limit {gate.limit}: {s.inversions} inversions in {s.inverted_probes} probes"
            + (f" ({families})" if families else "")
            + f", MRR {s.mrr:.3f}, corpus MRR {s.corpus_mrr:.3f}, {s.degraded_probes} degraded"
            + f" · gate {'passed' if s.passed else 'FAILED'}"
        )
    if known:
        for source, summary in known.summaries.items():
            print(
                f"known items ({source} words): MRR@{summary.k} {summary.mrr:.3f} over {summary.n}, "
                f"{summary.missing} not on the first page; without a near-twin in the store "
                f"{summary.twin_free_mrr:.3f} over {summary.twin_free_n}"
            )
    sys.stdout.flush()


COMMANDS = {"eval": cmd_eval}
