"""Commands that maintain the index and the state plane: index, doctor, state, watch."""

from __future__ import annotations

import argparse
import sys

from memhtml_desktop.cli.common import EXIT_OK, open_store, print_json


def add_parsers(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("index", parents=[common], help="bring the index in step with the store")
    p.add_argument("--rebuild", action="store_true", help="drop the index and build it from scratch")
    p.add_argument("--json", action="store_true", help="print a JSON summary")

    p = sub.add_parser("doctor", parents=[common], help="files with violations, warnings, duplicate bodies")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("state", parents=[common], help="export or import the shared state plane")
    state_sub = p.add_subparsers(dest="state_command", metavar="ACTION", required=True)
    e = state_sub.add_parser("export", parents=[common], help="write .memhtml/state/access.jsonl (or --out)")
    e.add_argument("--out", metavar="FILE", help="write here instead ('-' for stdout)")
    i = state_sub.add_parser("import", parents=[common], help="merge an access.jsonl into the state plane")
    i.add_argument("file", metavar="FILE")

    p = sub.add_parser("watch", parents=[common], help="keep the index in step with the disk (headless)")
    p.add_argument("--json", action="store_true", help="one JSON object per batch")


def cmd_index(args: argparse.Namespace) -> int:
    from memhtml_desktop.cli import output

    store = open_store(args)
    progress = output.progress_printer() if sys.stderr.isatty() and not args.json else None
    report = store.index(rebuild=args.rebuild, progress=progress)
    for notice in store.notices:
        print(f"note: {notice}", file=sys.stderr)
    if args.json:
        print_json(report.to_json())
    else:
        output.print_index_report(report, store)
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from memhtml_desktop.cli import output

    store = open_store(args)
    sound = store.verify()  # a full integrity check of the index; damage is moved aside and rebuilt
    store.index()
    problems = store.problems()
    stats = store.stats()
    for notice in store.notices:
        print(f"note: {notice}", file=sys.stderr)
    if args.json:
        print_json({"index_sound": sound, "stats": stats, "problems": [p.to_json() for p in problems]})
    else:
        print(f"index integrity: {'ok' if sound else 'damaged, moved aside and rebuilt'}")
        output.print_problems(problems, stats)
    return EXIT_OK


def cmd_state(args: argparse.Namespace) -> int:
    """Export or import the sidecar, through the Store (an `--out` file is replaced atomically)."""
    from pathlib import Path

    store = open_store(args)
    if args.state_command == "export":
        if args.out == "-":
            sys.stdout.buffer.write(store.export_state())
        else:
            print(f"wrote {store.write_state_export(Path(args.out) if args.out else None)}")
        return EXIT_OK
    report = store.import_state(Path(args.file).read_bytes())
    print(f"imported {report.imported} rows; skipped {report.skipped_lines} unparseable lines")
    for error in report.errors[:20]:
        print(f"  {error}", file=sys.stderr)
    return EXIT_OK


def cmd_watch(args: argparse.Namespace) -> int:
    from memhtml_desktop.watch.headless import run_headless

    store = open_store(args)
    return run_headless(store, as_json=args.json)


COMMANDS = {
    "index": cmd_index,
    "doctor": cmd_doctor,
    "state": cmd_state,
    "watch": cmd_watch,
}
