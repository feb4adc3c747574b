"""Curation commands of this app's own: undo, redo, supersede, conflicts, history; `state` and `doctor --fix`.

They change the store through the same write core as memhtml's verbs (`write_commands.py`) but
take argparse arguments, since memhtml has no such verbs (or, for `state` and `doctor`, its flags
are argparse-compatible already).
"""

from __future__ import annotations

import argparse
import sys

from memhtml_desktop.cli.common import EXIT_FAIL, EXIT_OK, open_store, print_json
from memhtml_desktop.cli.verbs import HELP
from memhtml_desktop.cli.write_commands import commit_note, fail, open_curator


def add_parsers(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("undo", parents=[common], help=HELP["undo"])
    p.add_argument(
        "change", nargs="?", metavar="CHANGE", help="the change's commit (a prefix will do); default: the newest"
    )
    p.add_argument("--list", action="store_true", help="list this app's own recent changes, newest first")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("redo", parents=[common], help=HELP["redo"])
    p.add_argument(
        "change", nargs="?", metavar="CHANGE", help="the change's commit (a prefix will do); default: the newest undone"
    )
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("supersede", parents=[common], help=HELP["supersede"])
    p.add_argument("winner")
    p.add_argument("loser")
    p.add_argument("--reason", help="why (kept as a Memhtml-Reason trailer)")
    p.add_argument("--keep-graph", action="store_true",
                   help="carry LOSER's links, entities and facets onto WINNER and repoint the links to LOSER "
                        "(memhtml's consolidation does neither)")  # fmt: skip
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("conflicts", parents=[common], help=HELP["conflicts"])
    p.add_argument("--no-refresh", action="store_true", help="do not rescan the store first")
    p.add_argument("--dismiss", nargs=2, metavar=("A", "B"),
                   help="A and B are not a conflict: remembered on a ref of this app's own (one commit, not on "
                        "your branch), never listed again while neither memory is edited")  # fmt: skip
    p.add_argument("--restore", nargs=2, metavar=("A", "B"), help="list a dismissed pair again")
    p.add_argument("--note", help="--dismiss: why (the commit's body)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("history", parents=[common], help=HELP["history"])
    p.add_argument("path")
    p.add_argument("--no-refresh", action="store_true", help="do not rescan the store first")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("state", parents=[common], help=HELP["state"])
    state_sub = p.add_subparsers(dest="state_command", metavar="ACTION", required=True)
    e = state_sub.add_parser("export", parents=[common],
                             help="write and commit .memhtml/state/access.jsonl (or --out, not committed)")  # fmt: skip
    e.add_argument("--out", metavar="FILE", help="write here instead, without committing ('-' for stdout)")
    e.add_argument("--force", action="store_true", help="replace a sidecar holding rows with an empty export")
    e.add_argument("--json", action="store_true")
    i = state_sub.add_parser("import", parents=[common], help="merge an access.jsonl into the state plane")
    i.add_argument("file", metavar="FILE")


def cmd_undo(args: argparse.Namespace, *, redo: bool = False) -> int:
    from memhtml_desktop.cli.output import field
    from memhtml_desktop.write.errors import WriteError

    try:
        curator = open_curator(vars(args), refresh=False)
        if getattr(args, "list", False):
            choices = curator.undo_choices()
            if args.json:
                print_json([{**change.to_json(), "refused": why} for change, why in choices])
                return EXIT_OK
            if not choices:
                print("no change of this app's to this store")
            for change, why in choices:
                state = "undone " if change.undone else "applied"
                can = f"{change.action}: {field(why)}" if why else f"can {change.action}"
                print(f"{change.sha[:12]}  {change.when or '?':<20}  {state}  {field(change.subject)}\n{'':14}{can}")
            return EXIT_OK
        applied = curator.undo(args.change, redo=redo)
    except WriteError as exc:
        return fail(str(exc), exc.code, EXIT_FAIL, args.json)
    for notice in applied.notices:
        print(f"note: {notice}", file=sys.stderr)
    if args.json:
        print_json(applied.result)
    else:
        verb = "reapplied" if redo else "reverted"
        print(
            f"{verb} {applied.result['change'][:12]} (reverting {applied.result['reverted'][:12]}): "
            f"{applied.plan.subject}{commit_note(applied.commit_sha)}"
        )
    return EXIT_OK


def cmd_redo(args: argparse.Namespace) -> int:
    return cmd_undo(args, redo=True)


def cmd_state(args: argparse.Namespace) -> int:
    """`state export` commits the sidecar (through the write core); `--out` and `import` go
    through the Store (an `--out` file is replaced atomically)."""
    from pathlib import Path

    from memhtml_desktop.cli.output import field

    if args.state_command == "export" and not args.out:
        return _state_export_commit(args)
    store = open_store(args)
    if args.state_command == "export":
        if args.out == "-":
            sys.stdout.buffer.write(store.export_state())
        else:
            print(f"wrote {field(store.write_state_export(Path(args.out)))}")
        return EXIT_OK
    report = store.import_state(Path(args.file).read_bytes())
    print(f"imported {report.imported} rows; skipped {report.skipped_lines} unparseable lines")
    for error in report.errors[:20]:
        print(f"  {field(error)}", file=sys.stderr)  # a sidecar line can carry any text
    return EXIT_OK


def _state_export_commit(args: argparse.Namespace) -> int:
    from memhtml_desktop.write.errors import WriteError
    from memhtml_desktop.write.requests import StateExportRequest

    try:
        curator = open_curator(vars(args), refresh=False)
        applied = curator.run(StateExportRequest(force=args.force))
    except WriteError as exc:
        return fail(str(exc), exc.code, EXIT_FAIL, args.json)
    r = applied.result
    if args.json:
        print_json(r)
    elif r["written"]:
        print(f"exported {r['rows']} access rows to {r['path']}{commit_note(r['commit_sha'])}")
    else:
        print(f"{r['path']} already holds these {r['rows']} rows: nothing written")
    return EXIT_OK


def cmd_doctor_fix(args: argparse.Namespace) -> int:
    """`doctor --fix`: repair dangling links and prune orphan state rows, in one commit."""
    from memhtml_desktop.write.curator import remove_stale_temp_files
    from memhtml_desktop.write.errors import WriteError
    from memhtml_desktop.write.requests import DoctorFixRequest

    try:
        curator = open_curator(vars(args))
        applied = curator.run(DoctorFixRequest())  # interrupted writes are finished first, rows retried
    except WriteError as exc:
        return fail(str(exc), exc.code, EXIT_FAIL, getattr(args, "json", False))
    for notice in [*applied.plan.notes, *applied.notices]:
        print(f"note: {notice}", file=sys.stderr)
    removed = remove_stale_temp_files(curator.root)
    for path in removed:
        print(
            f"note: removed {path.relative_to(curator.root)}, a temp file of a write that was killed", file=sys.stderr
        )
    r = applied.result
    if removed:
        r = {**r, "removed_temp_files": [p.relative_to(curator.root).as_posix() for p in removed]}
    if getattr(args, "json", False):
        print_json(r)
        return EXIT_OK
    for item in r["dangling"]:
        fix = f"rewritten to {item['rewrite_to']}" if item["rewrite_to"] else "dropped"
        print(f"dangling  {item['src_path']} {item['rel']} {item['dst_path']}: {fix}")
    for move in r.get("moved_access_rows", []):
        print(f"moved     state row {move['src']}: followed its memory to {move['dst']}")
    for path in r["orphan_access_rows"]:
        print(f"orphan    state row {path}: pruned")
    rep = r["repaired"]
    print(f"repaired: {rep['rewritten']} rewritten, {rep['dropped']} dropped, "
          f"{rep['pruned_access_rows']} state rows pruned{commit_note(rep['commit_sha'])}")  # fmt: skip
    return EXIT_OK


def cmd_supersede(args: argparse.Namespace) -> int:
    from memhtml_desktop.write.errors import WriteError
    from memhtml_desktop.write.requests import SupersedeRequest

    try:
        curator = open_curator(vars(args))
        request = SupersedeRequest(args.winner, args.loser, args.reason)
        applied = curator.run(curator.keeping_graph(request) if args.keep_graph else request)
    except WriteError as exc:
        return fail(str(exc), exc.code, EXIT_FAIL, args.json)
    r = applied.result
    if args.json:
        print_json(r)
    else:
        print(
            f"{r['winner']} supersedes {r['loser']}, archived as {r['superseded_path']}{commit_note(r['commit_sha'])}"
        )
    return EXIT_OK


def cmd_conflicts(args: argparse.Namespace) -> int:
    from memhtml_desktop.ops.curate import ConflictsJob

    if args.dismiss or args.restore:
        return _dismiss(args)
    store = open_store(args)
    if not args.no_refresh:
        store.index()
    report = ConflictsJob().run(store, lambda: False, lambda *_: None)  # the window's route, in this process
    if args.json:
        print_json(report.to_json())
        return EXIT_OK
    dismissed = sum(1 for pair in report.pairs if pair.dismissed)
    report.pairs = [pair for pair in report.pairs if not pair.dismissed]
    for pair in report.pairs:
        alike = f", cosine {pair.cosine:.3f}" if pair.cosine is not None else ""
        print(
            f"{pair.reason.reason if pair.reason else ', '.join(pair.diff.kinds)}{alike}: "
            f"{pair.reason.detail if pair.reason else ''}"
        )
        for side in (pair.a, pair.b):
            mark = " (newer)" if side.path == pair.newer else ""
            print(f"  {side.path}{mark}\n    {side.claim}")
    more = f"; {dismissed} dismissed as not a conflict" if dismissed else ""
    print(f"{len(report.pairs)} conflicting pair(s) among {report.compared} memories{more} ({report.seconds:.2f} s)")
    return EXIT_OK


def _dismiss(args: argparse.Namespace) -> int:
    from memhtml_desktop.write.curator import DismissRequest
    from memhtml_desktop.write.errors import WriteError

    a, b = args.dismiss or args.restore
    try:
        curator = open_curator(vars(args), refresh=not args.no_refresh)
        applied = curator.run(DismissRequest(a, b, note=args.note, restore=bool(args.restore)))
    except WriteError as exc:
        return fail(str(exc), exc.code, EXIT_FAIL, args.json)
    r = applied.result
    if args.json:
        print_json(r)
    elif not applied.commit_sha:
        print(applied.plan.notes[0])
    else:
        what = "dismissed: not a conflict" if r["dismissed"] else "restored: listed again"
        print(f"{r['a']} / {r['b']} {what}{commit_note(applied.commit_sha)}")
    return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    from memhtml_desktop.write.errors import WriteError

    try:
        curator = open_curator(vars(args), refresh=not args.no_refresh)
        chain = curator.history(args.path)
    except WriteError as exc:
        return fail(str(exc), exc.code, EXIT_FAIL, args.json)
    if args.json:
        print_json(chain.to_json())
        return EXIT_OK
    replaced = {older: newer for newer, older in chain.edges}
    for v in chain.versions:
        mark = "*" if v.path == chain.focus else " "
        span = f"{v.start or '?'} .. {v.valid_until or ('archived ' + v.archived_at if v.archived_at else 'now')}"
        after = f"  -> superseded by {replaced[v.path]}" if v.path in replaced else ""
        print(f"{mark} {span:<45} {v.path}{after}")
    return EXIT_OK


COMMANDS = {
    "undo": cmd_undo,
    "redo": cmd_redo,
    "supersede": cmd_supersede,
    "conflicts": cmd_conflicts,
    "history": cmd_history,
    "state": cmd_state,
}
