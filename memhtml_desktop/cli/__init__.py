"""The `memhtml-desktop` command: the window, and headless commands over the same library.

Exit codes: 0 success (an index run that skipped broken files still succeeds and lists them),
1 runtime failure (a clear one-line message on stderr, never a traceback), 2 usage.
This package never imports Qt unless the window or a screenshot is asked for, so `--help` and
every headless command start fast.

Each group of verbs lives in its own module with `add_parsers(sub, common)` and a `COMMANDS`
table; `cli/verbs.py` names every verb, its module and its help line. This module assembles the
parser of the verb asked for (only that module is imported: `--help` and every command start
without the others), decodes argv and turns failures into messages.
"""

from __future__ import annotations

import argparse
import logging
import sys

from memhtml_desktop import __version__
from memhtml_desktop.cli.common import EXIT_FAIL, EXIT_OK, EXIT_USAGE, CliError, common_parser, environment_failure
from memhtml_desktop.cli.verbs import HELP, MEMHTML_GRAMMAR, MODULE, MODULES

__all__ = ["COMMANDS", "EXIT_FAIL", "EXIT_OK", "EXIT_USAGE", "CliError", "build_parser", "main"]


def _group(module: str):
    import importlib

    return importlib.import_module(f"memhtml_desktop.cli.{module}")


def __getattr__(name: str):
    """`COMMANDS`, every verb's handler by name, imports every command module: built when asked for."""
    if name == "COMMANDS":
        return {verb: _group(MODULE[verb]).COMMANDS[verb] for verb in HELP}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_parser(verbs=None) -> argparse.ArgumentParser:
    """The command's parser. `verbs`: build the subparsers of these verbs' modules only, and list
    the other verbs by their help line (what the top-level `--help` shows of them anyway); None,
    every module's (tests, docs)."""
    common = common_parser()
    parser = argparse.ArgumentParser(
        prog="memhtml-desktop",
        description="Browse and search a memhtml store, and see why each memory ranked where it did. "
        "With no command, the window opens.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"memhtml-desktop {__version__}")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="open the demo store: your kept copy of the bundled one (made on first use, in the app's data folder)",
    )
    parser.add_argument(
        "--demo-fresh",
        action="store_true",
        help="open a throwaway copy of the bundled demo store (in a temporary folder; not kept)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    built = set(MODULES) if verbs is None else {MODULE[verb] for verb in verbs}
    for module in MODULES:  # in the table's order, so `--help` lists the verbs as it always did
        if module in built:
            _group(module).add_parsers(sub, common)
            continue
        for verb in (name for name in HELP if MODULE[name] == module):
            sub.add_parser(verb, help=HELP[verb], add_help=False)
    return parser


def parse(arguments: list[str]) -> argparse.Namespace:
    """argv as the full parser reads it, building only the verb's own subparser: a first pass with
    every verb a bare name finds the verb (or prints the top-level help, or the usage error the
    full parser would), the second parses with that verb's module."""
    first, _ = build_parser(()).parse_known_args(arguments)
    return build_parser((first.command,) if first.command else ()).parse_args(arguments)


def decode_argv(argv: list[str]) -> list[str]:
    """Arguments as UTF-8 text: undecodable bytes (which Python keeps as lone surrogates) become
    U+FFFD, so nothing downstream (SQLite, JSON, the terminal) meets an unencodable string."""
    import os

    out = []
    for arg in argv:
        try:
            out.append(os.fsencode(arg).decode("utf-8", "replace"))
        except (UnicodeError, TypeError):
            out.append(str(arg).encode("utf-8", "replace").decode("utf-8"))
    return out


class _EscapingFormatter(logging.Formatter):
    """Log lines carry paths and reasons written by agents: the message is escaped like any value
    (a traceback keeps its own line breaks)."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        from memhtml_desktop.domain.printable import field

        record.message = field(record.message)
        return super().formatMessage(record)


def _setup_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_EscapingFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, handlers=[handler])


def main(argv: list[str] | None = None) -> int:
    from memhtml_desktop.threads import one_blas_thread

    one_blas_thread()  # before anything imports numpy (memhtml_desktop/threads.py says why)
    arguments = decode_argv(sys.argv[1:] if argv is None else list(argv))
    # memhtml's write verbs keep memhtml's own grammar (cli/memhtml_argv.py), not argparse's.
    handled = _run_memhtml_verb(arguments)
    if handled is not None:
        return handled
    args = parse(arguments)
    _setup_logging(getattr(args, "verbose", False))
    verb = args.command or "gui"
    command = _group(MODULE[verb]).COMMANDS[verb]
    streams = sys.stdout, sys.stderr
    if not getattr(args, "json", False):
        from memhtml_desktop.cli.output import PrintableStream

        sys.stdout, sys.stderr = PrintableStream(sys.stdout), PrintableStream(sys.stderr)
    try:
        return _run(command, args)
    finally:
        sys.stdout, sys.stderr = streams


def _run_memhtml_verb(arguments: list[str]) -> int | None:
    if MEMHTML_GRAMMAR.isdisjoint(arguments):  # no word of argv is one of them: the module stays unloaded
        return None
    from memhtml_desktop.cli import write_commands

    if write_commands.find_verb(arguments) is None:
        return None
    _setup_logging("-v" in arguments or "--verbose" in arguments)
    streams = sys.stdout, sys.stderr
    if "--json" not in arguments:
        from memhtml_desktop.cli.output import PrintableStream

        sys.stdout, sys.stderr = PrintableStream(sys.stdout), PrintableStream(sys.stderr)
    try:
        return _run(lambda _: write_commands.intercept(arguments), None)
    finally:
        sys.stdout, sys.stderr = streams


def _run(command, args: argparse.Namespace) -> int:
    from memhtml_desktop.domain.printable import field

    try:
        return command(args)
    except CliError as exc:
        print(f"memhtml-desktop: {field(exc)}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        print("memhtml-desktop: interrupted", file=sys.stderr)
        return EXIT_FAIL
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the last line of defence: a message, not a traceback
        known = environment_failure(exc)
        if known:
            print(f"memhtml-desktop: {field(known)}", file=sys.stderr)
            return EXIT_FAIL
        verbose = getattr(args, "verbose", False)
        # -v shows what "run with -v for details" promised: the traceback, through the log handler.
        logging.getLogger("memhtml_desktop").log(
            logging.ERROR if verbose else logging.DEBUG, "unexpected failure", exc_info=True
        )
        advice = "" if verbose else " (run with -v for details)"
        print(f"memhtml-desktop: unexpected error: {type(exc).__name__}: {field(exc)}{advice}", file=sys.stderr)
        return EXIT_FAIL
