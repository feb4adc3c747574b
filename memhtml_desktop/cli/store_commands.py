"""Commands that maintain the index: index, doctor, watch. (`state` and `doctor --fix` write: curation_commands.)"""

from __future__ import annotations

import argparse
import sys

from memhtml_desktop.cli.common import EXIT_FAIL, EXIT_OK, CliError, open_store, print_json, print_notices
from memhtml_desktop.cli.verbs import HELP


def add_parsers(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("index", parents=[common], help=HELP["index"])
    p.add_argument("--rebuild", action="store_true", help="drop the index and build it from scratch")
    p.add_argument("--json", action="store_true", help="print a JSON summary")

    p = sub.add_parser("doctor", parents=[common], help=HELP["doctor"])
    p.add_argument(
        "--fix",
        action="store_true",
        help="repair dangling links and prune orphan state rows, in one commit (memhtml's doctor --fix)",
    )
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("watch", parents=[common], help=HELP["watch"])
    p.add_argument("--json", action="store_true", help="one JSON object per batch")


def cmd_index(args: argparse.Namespace) -> int:
    from memhtml_desktop.cli import output
    from memhtml_desktop.index.store import UNWRITABLE

    store = open_store(args)
    progress = output.progress_printer() if sys.stderr.isatty() and not args.json else None

    def waiting(text: str) -> None:
        print(f"note: {output.field(text)} (Ctrl-C to stop waiting)", file=sys.stderr, flush=True)

    try:
        # Another writer (the window's watcher, a `watch`, a second `index`) is waited for, not fought.
        report = store.index(rebuild=args.rebuild, progress=progress, on_wait=waiting)
    except UNWRITABLE as exc:
        raise CliError(f"the index could not be written: {exc} (is the disk full? {store.index_path})") from exc
    print_notices(store)
    if args.json:
        print_json(report.to_json())
    else:
        output.print_index_report(report, store)
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from memhtml_desktop.cli import output

    if args.fix:
        from memhtml_desktop.cli.curation_commands import cmd_doctor_fix

        return cmd_doctor_fix(args)

    from memhtml_desktop.write.curator import survey

    store = open_store(args, recover=False)  # doctor reports an interrupted write; `doctor --fix` finishes it
    sound = store.verify()  # a full integrity check of the index; damage is moved aside and rebuilt
    state = store.state_health()  # the state plane cannot be rebuilt: checked, never repaired here
    store.refresh()
    problems = store.problems()
    stats = store.stats()
    found = survey(store.root)  # interrupted writes, this app's temp files, git's locks, rows waiting to move
    print_notices(store)
    if args.json:
        print_json({"index_sound": sound, "state": state.to_json(), "stats": stats,
                    "problems": [p.to_json() for p in problems], **found.to_json()})  # fmt: skip
    else:
        print(f"index integrity: {'ok' if sound else 'damaged, moved aside and rebuilt'}")
        for line in state.lines():
            print(line)
        for line in found.lines(store.root):
            print(output.field(line))
        output.print_problems(problems, stats)
    return EXIT_OK if state.sound else EXIT_FAIL


def cmd_watch(args: argparse.Namespace) -> int:
    from memhtml_desktop.watch.headless import run_headless

    store = open_store(args)
    return run_headless(store, as_json=args.json)


COMMANDS = {
    "index": cmd_index,
    "doctor": cmd_doctor,
    "watch": cmd_watch,
}
