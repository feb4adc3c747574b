"""The other pack shapes from the command line: `recall --shape quotas|catalog`, `recall --costs`, `expand PATH`.

`recall --shape memhtml` is the plain `recall` (read_commands.py). None of these count as a read:
they read the index only, so an agent's salience signal is untouched by a curator's previews.
"""

from __future__ import annotations

import argparse
import sys

from memhtml_desktop.cli.common import EXIT_OK, CliError, open_store, print_json, print_notices, refresh, scope_from
from memhtml_desktop.cli.output import field
from memhtml_desktop.cli.verbs import HELP

SHAPES = ("memhtml", "quotas", "catalog")


def add_recall_flags(p: argparse.ArgumentParser) -> None:
    """The recall parser's shape flags (read_commands adds the rest)."""
    g = p.add_argument_group("pack shapes", "seed 003's other shapes (docs/recall.md)")
    g.add_argument(
        "--shape",
        choices=SHAPES,
        default="memhtml",
        help="memhtml's pack (default), four quota ledgers, or a catalogue of the top --k with expand costs",
    )
    g.add_argument("--k", type=int, default=10, metavar="N", help="entries in the catalogue (default 10)")
    g.add_argument(
        "--ledgers",
        metavar="FILE",
        help="a JSON ledger map (default: the store's .memhtml-desktop/ledgers.json, else the seed's)",
    )
    g.add_argument(
        "--costs", action="store_true", help="every shape's cost for this query side by side, and which is cheaper"
    )


def add_parsers(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("expand", parents=[common], help=HELP["expand"])
    p.add_argument("path")
    p.add_argument("--no-refresh", action="store_true", help="do not re-index this file first")
    p.add_argument("--json", action="store_true")
    p.add_argument("--text", action="store_true", help="only the text the agent receives")


def wants_shape(args: argparse.Namespace) -> bool:
    return args.shape != "memhtml" or args.costs


def _ledgers(store, args):
    from memhtml_desktop.domain.quotas import LedgerMapError

    try:
        return store.ledger_map(args.ledgers)
    except LedgerMapError as exc:
        raise CliError(str(exc)) from exc


def cmd_recall_shape(args: argparse.Namespace) -> int:
    from memhtml_desktop.domain.catalogue import render_catalogue_text
    from memhtml_desktop.domain.quotas import render_quota_text

    if args.k < 1:
        raise CliError("--k must be at least 1")
    if args.budget is not None and args.budget < 0:
        raise CliError("--budget must be 0 or more")
    store = open_store(args)
    profile = store.ranking
    scope = scope_from(args)
    ledgers = _ledgers(store, args)
    refresh(store, args)
    if args.costs:
        comparison = store.shapes(
            args.query, scope, budget=args.budget, limit=args.limit, k=args.k, ranking=profile, ledgers=ledgers
        )
        print_json(comparison.to_json()) if args.json else print_costs(comparison)
    elif args.shape == "quotas":
        pack = store.quotas(args.query, scope, budget=args.budget, limit=args.limit, ranking=profile, ledgers=ledgers)
        if args.json:
            print_json(pack.to_json())
        elif args.text:
            sys.stdout.write(render_quota_text(pack) + "\n")
        else:
            print_quotas(pack)
    else:
        cat = store.catalogue(args.query, scope, k=args.k, budget=args.budget, ranking=profile)
        if args.json:
            print_json(cat.to_json())
        elif args.text:
            sys.stdout.write(render_catalogue_text(cat) + "\n")
        else:
            print_catalogue(cat)
    print_notices(store)
    return EXIT_OK


def cmd_expand(args: argparse.Namespace) -> int:
    from memhtml_desktop.index.store import MemoryNotFound, StoreError, safe_store_path

    store = open_store(args)
    try:
        safe_store_path(args.path)
        refresh(store, args)  # the whole store: neighbours and the chain live in other files
        expansion = store.expand(args.path)
    except (MemoryNotFound, StoreError) as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        print_json(expansion.to_json())
    elif args.text:
        sys.stdout.write(expansion.text + "\n")
    else:
        print_expansion(expansion)
    print_notices(store)
    return EXIT_OK


def print_quotas(pack) -> None:
    print(
        f"recall {pack.query!r} in four quota ledgers · ranking: {pack.ranking} · map: {pack.map_name}"
        + (f" ({pack.map_source})" if pack.map_source else "")
    )
    print(
        f"budget {pack.budget:,}: used {pack.used:,}, unspent {pack.unspent:,} (never moved to another ledger"
        + (f"; {pack.unallocated:,} in no ledger" if pack.unallocated else "")
        + ")"
    )
    if pack.fit_note():
        print(f"  {pack.fit_note()}")
    for reason in pack.degraded_reasons:
        print(f"  degraded: {field(reason)}")
    for ledger in pack.ledgers:
        counts = ledger.section.counts
        print(
            f"\n{ledger.spec.label.upper()} ({ledger.share}%): {ledger.used:,}/{ledger.limit:,} used, "
            f"{ledger.unspent:,} unspent · quote {counts['quote']}, claim {counts['disclosure']}, "
            f"index {counts['index']}" + (f" · {ledger.beyond} more not listed" if ledger.beyond else "")
        )
        print(f"  holds {ledger.spec.holds}; cut rule: {ledger.spec.cut_rule}")
        if ledger.overrun:
            print("  overrun: the profile outgrew its share (raise it in the ledger map)")
        for item in ledger.section.items:
            print(
                f"  {item.rank:>2}. [{item.tier.upper():<10}] {item.chars:>5} chars  {field(item.path)}  ({item.reason})"
            )


def print_catalogue(cat) -> None:
    print(
        f"catalogue {cat.query!r} · top {cat.k} · ranking: {cat.ranking}: {cat.cost:,} chars for "
        f"{len(cat.listed)} lines (budget {cat.budget:,}{', ' + str(cat.dropped) + ' left out' if cat.dropped else ''})"
    )
    if cat.question:
        print(f"  the question reads {cat.question}: {cat.question_why}")
    for e in cat.entries:
        mark = " " if e.listed else "-"
        print(f" {mark}{field(e.line)}")
    print(f"catalogue + expand #1: {cat.with_expansions(1):,} chars · + expand #1-2: {cat.with_expansions(2):,} chars")
    for group in cat.indistinct:
        print("  cannot tell apart (same title and summary): " + ", ".join(field(p) for p in group))


def print_costs(comparison) -> None:
    print(f"costs for {comparison.query!r} at budget {comparison.budget:,} (characters the agent receives)")
    for c in comparison.costs:
        print(
            f"  {c.label:<26} {c.delivered:>7,} delivered  {c.charged:>7,} charged"
            f"{'' if c.within else '  over budget'}  {field(c.note)}"
        )
    print(comparison.verdict())
    for group in comparison.catalogue.indistinct:
        print("  cannot tell apart: " + ", ".join(field(p) for p in group))


def print_expansion(e) -> None:
    print(f"{field(e.title)}\n{field(e.path)} · {field(e.memory_type)} · expand costs {e.cost:,} chars\n")
    print(field(e.shown_body))
    if e.body_cut:
        print(field(e.cut_note))
    for n in e.neighbours:
        arrow = "→" if n.direction == "out" else "←"
        print(f"{arrow} {n.rel} {field(n.path)}{'' if n.exists else ' (missing)'}")
    if len(e.chain) > 1:
        print("supersession: " + " → ".join(field(v.path) + (" (this)" if v.step == 0 else "") for v in e.chain))
    for source in e.evidence:
        print(f"evidence: {field(source.text)}" + (f" ({field(source.href)})" if source.href else ""))


def cmd_eval_shapes(args: argparse.Namespace) -> int:
    """`eval PROBES --shapes` (or `--set NAME --shapes`): every shape over the probe set."""
    from memhtml_desktop.cli.workbench_commands import _probe_set
    from memhtml_desktop.workbench import WorkbenchFiles, check_probe_paths, compare_shapes

    if not (args.probes or args.set):
        raise CliError("give a probe file or --set NAME")
    if args.k < 1 or (args.budget is not None and args.budget < 0):
        raise CliError("--k must be at least 1 and --budget 0 or more")
    store = open_store(args)
    probe_set = _probe_set(args, WorkbenchFiles(store.root))
    ledgers = _ledgers(store, args)
    refresh(store, args)
    probes, missing, _ = check_probe_paths(store, probe_set)
    for problem in (*probe_set.problems, *missing):
        print(f"memhtml-desktop: {problem}", file=sys.stderr)
    if not probes:
        raise CliError("the probe set holds no probe that can run")
    report = compare_shapes(store, probes, budget=args.budget, k=args.k, ranking=store.ranking, ledgers=ledgers)
    if args.json:
        print_json(report.to_json())
    else:
        print_shape_report(report, store.ranking.name)
    print_notices(store)
    return EXIT_OK


SHAPE_NAMES = {
    "memhtml": "memhtml's pack",
    "quotas": "quota ledgers",
    "catalog+1": "catalogue + expand #1",
    "catalog+2": "catalogue + expand #1-2",
    "catalog+pick": "catalogue + expand the target",
}


def print_shape_report(report, ranking: str) -> None:
    print(
        f"pack shapes over {len(report.rows)} probes · budget {report.budget:,} · catalogue k {report.k} · "
        f"ranking: {ranking}"
    )
    print(f"  {'shape':<30} {'content':>8} {'pointer':>8} {'missing':>8} {'mean chars':>11} {'charged':>8}")
    for f in report.figures:
        missing = f.probes - f.content - f.pointer
        print(
            f"  {SHAPE_NAMES[f.shape]:<30} {f.content:>8} {f.pointer:>8} {missing:>8} {f.mean_cost:>11,.0f}"
            f" {f.mean_charged:>8,.0f}"
        )
    print("content: the target's text reached the agent; pointer: only its index or catalogue line did")
    for kind, counts in report.rule().items():
        print(
            f"{kind} questions: direct recall cheaper {counts['direct']}, catalogue + one expansion cheaper "
            f"{counts['catalog']}"
        )
    print(
        f"catalogues with entries they cannot tell apart: {report.indistinct_probes} of {len(report.rows)}; "
        f"listing a near-twin control beside the target: {report.controls_listed_probes}"
    )


COMMANDS = {"expand": cmd_expand}
