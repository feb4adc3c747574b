"""Commands that read the store: search, recall, read, reinforce, list."""

from __future__ import annotations

import argparse
import sys

from memhtml_desktop.cli import shape_commands
from memhtml_desktop.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    CliError,
    add_ranking_flag,
    add_scope_flags,
    open_store,
    print_json,
    print_notices,
    refresh,
    scope_from,
)
from memhtml_desktop.cli.verbs import HELP

SIGNALS = ("positive", "negative", "neutral")


def add_parsers(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("search", parents=[common], help=HELP["search"])
    p.add_argument("query")
    p.add_argument("--limit", type=int, default=10, metavar="N")
    add_scope_flags(p)
    add_ranking_flag(p)
    p.add_argument("--why", metavar="PATH", help="explain where PATH stood for this query and what excluded it")
    p.add_argument("--no-refresh", action="store_true", help="do not rescan the store first")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("recall", parents=[common], help=HELP["recall"])
    p.add_argument("query")
    p.add_argument("--budget", type=int, metavar="CHARS", help="characters for memories (default 16000)")
    p.add_argument("--limit", type=int, default=10, metavar="N", help="memories considered (pool is 3x)")
    add_ranking_flag(p)
    add_scope_flags(p)
    p.add_argument("--no-refresh", action="store_true")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true")
    out.add_argument("--text", action="store_true", help="render the pack as the agent receives it")
    shape_commands.add_recall_flags(p)

    p = sub.add_parser("read", parents=[common], help=HELP["read"])
    p.add_argument("path")
    p.add_argument("--no-bump", action="store_true", help="do not count this as a read")
    p.add_argument("--no-refresh", action="store_true", help="do not re-index this file first")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("reinforce", parents=[common], help=HELP["reinforce"])
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--signal", choices=SIGNALS, default="neutral")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("list", parents=[common], help=HELP["list"])
    add_scope_flags(p, para=True)
    p.add_argument("--limit", type=int, default=50, metavar="N")
    p.add_argument("--cursor", metavar="C", help="continue after this path")
    p.add_argument("--no-refresh", action="store_true")
    p.add_argument("--json", action="store_true")


def cmd_search(args: argparse.Namespace) -> int:
    from memhtml_desktop.cli import output

    store = open_store(args)
    scope = scope_from(args)
    refresh(store, args)
    if args.why:
        from memhtml_desktop.index.store import StoreError

        try:
            report = store.why(args.query, scope, args.why, limit=args.limit)
        except StoreError as exc:
            raise CliError(str(exc)) from exc
        print_json(report.to_json()) if args.json else output.print_why(report)
        print_notices(store)
        return EXIT_OK
    result = store.search(args.query, scope, limit=args.limit)
    print_json(result.to_json()) if args.json else output.print_search(result)
    print_notices(store)
    return EXIT_OK


def cmd_recall(args: argparse.Namespace) -> int:
    from memhtml_desktop.cli import output
    from memhtml_desktop.domain.disclosure import render_pack_text

    if shape_commands.wants_shape(args):
        return shape_commands.cmd_recall_shape(args)
    store = open_store(args)
    scope = scope_from(args)
    refresh(store, args)
    pack = store.recall(args.query, scope, budget=args.budget, limit=args.limit)
    if args.json:
        print_json(pack.to_json())
    elif args.text:
        sys.stdout.write(render_pack_text(pack) + "\n")
    else:
        output.print_recall(pack)
    print_notices(store)
    return EXIT_OK


def cmd_read(args: argparse.Namespace) -> int:
    from memhtml_desktop.cli import output
    from memhtml_desktop.index.store import MemoryNotFound, StoreError, safe_store_path

    store = open_store(args)
    try:
        # The index's view of this one file (links, backlinks, validity) should be current.
        refresh(store, args, [safe_store_path(args.path)])
        detail = store.read(args.path, bump=not args.no_bump)
    except (MemoryNotFound, StoreError) as exc:
        raise CliError(str(exc)) from exc
    print_json(detail.to_json()) if args.json else output.print_detail(detail)
    print_notices(store)
    return EXIT_OK


def cmd_reinforce(args: argparse.Namespace) -> int:
    from memhtml_desktop.cli import output
    from memhtml_desktop.index.store import StoreError

    store = open_store(args)
    try:
        result = store.reinforce(args.paths, args.signal)
    except (StoreError, ValueError) as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        print_json(result.to_json())
    else:
        output.print_reinforce(result, args.signal)
    print_notices(store)
    if result.queued:  # not recorded now: kept, and recorded with its own instant once the plane can take it
        print(
            f"not recorded yet: {output.field(result.refused)}; it is kept (.memhtml/state.db-pending.jsonl) and "
            "recorded by the next command that can write state.db",
            file=sys.stderr,
        )
    elif result.refused:
        print(f"not recorded: {output.field(result.refused)}", file=sys.stderr)
    return EXIT_FAIL if result.refused else EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    from memhtml_desktop.cli import output

    store = open_store(args)
    scope = scope_from(args)
    refresh(store, args)
    page = store.list(scope, limit=args.limit, cursor=args.cursor)
    print_json(page.to_json()) if args.json else output.print_list(page)
    print_notices(store)
    return EXIT_OK


COMMANDS = {
    "search": cmd_search,
    "recall": cmd_recall,
    "read": cmd_read,
    "reinforce": cmd_reinforce,
    "list": cmd_list,
}
