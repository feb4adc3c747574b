"""`memhtml-desktop eval PROBES`: the discrimination gate and known-item search over a store.

A probe file is JSON lines (`query`, `target`, `controls`, optional `scope`; see
`domain/probes.py`); `gen_store --probes FILE` writes one. Each probe is searched at `--limit`
(40, as memhtml's gate does) under the chosen ranking profile, and the report gives, per probe,
the target's rank among its controls, its rank in the whole list and the controls that beat it;
for the set, inversions, MRR, corpus MRR and degraded probes. `--known-items N` adds known-item
MRR@10 for queries of three content words from N sampled memories' claims and titles.
"""

from __future__ import annotations

import argparse
import sys

from memhtml_desktop.cli.common import (
    EXIT_FAIL, EXIT_OK, CliError, add_ranking_flag, open_store, print_json, ranking_from, refresh,
)


def add_parsers(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("eval", parents=[common], help="rank probe targets against their near-twin controls")
    p.add_argument("probes", nargs="?", metavar="PROBES", help="a JSON-lines probe file (gen_store --probes)")
    p.add_argument("--limit", type=int, default=40, metavar="N", help="hits per probe search (default 40)")
    p.add_argument("--known-items", type=int, default=0, metavar="N",
                   help="also measure known-item MRR@10 over N sampled memories (claim and title words)")
    p.add_argument("--seed", type=int, default=1, help="sampling seed for --known-items")
    add_ranking_flag(p)
    p.add_argument("--check", action="store_true", help="exit 1 unless the gate passes (zero inversions, MRR >= 0.85)")
    p.add_argument("--no-refresh", action="store_true", help="do not rescan the store first")
    p.add_argument("--json", action="store_true")


def cmd_eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    from memhtml_desktop.domain.probes import ProbeFileError, parse_probes

    if not args.probes and not args.known_items:
        raise CliError("give a probe file, --known-items N, or both")
    if args.limit < 1:
        raise CliError("--limit must be at least 1")
    probes = []
    if args.probes:
        try:
            probes = parse_probes(Path(args.probes).read_text(encoding="utf-8"))
        except OSError as exc:
            raise CliError(f"cannot read {args.probes}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError:
            raise CliError(f"{args.probes} is not UTF-8 text (a probe file is JSON lines)") from None
        except ProbeFileError as exc:
            raise CliError(f"{args.probes}: {exc}") from exc
        if not probes:
            raise CliError(f"{args.probes} holds no probe")
    profile = ranking_from(args)
    store = open_store(args)
    refresh(store, args)
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
