"""The `memhtml-desktop` command: the window, and headless commands over the same library.

Exit codes: 0 success (an index run that skipped broken files still succeeds and lists them),
1 runtime failure (a clear one-line message on stderr, never a traceback), 2 usage.
This module never imports Qt unless the window or a screenshot is asked for, so `--help` and
every headless command start fast.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any

from memhtml_desktop import __version__

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
SIGNALS = ("positive", "negative", "neutral")


class CliError(Exception):
    """A runtime failure with a message meant for the user."""


# -- argument parsing ---------------------------------------------------------------------------


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("store")
    group.add_argument("--store", metavar="DIR", default=argparse.SUPPRESS,
                       help="the memhtml store (default: $MEMHTML_ROOT, then ~/memhtml)")
    group.add_argument("--index", metavar="FILE", default=argparse.SUPPRESS,
                       help="the index file (default: one per store in the user cache directory)")
    group.add_argument("--embedder", choices=("hash", "minilm"), default=argparse.SUPPRESS,
                       help="embedding model for the vector arm (default: hash)")
    group.add_argument("--vector-backend", choices=("numpy", "sqlite-vec"), default=argparse.SUPPRESS,
                       help="how the vector arm searches (default: numpy)")
    group.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="log to stderr")
    return common


def _scope_flags(parser: argparse.ArgumentParser, *, para: bool = False) -> None:
    group = parser.add_argument_group(
        "scope",
        "Axes combine with AND. Tags are any-of. Facets: values under one name broaden (OR), "
        "different names narrow (AND). Archived files and tasks are out unless asked for.",
    )
    group.add_argument("--type", dest="types", action="append", default=[], metavar="T",
                       help="memory type (repeatable; naming 'task' opts tasks in)")
    group.add_argument("--workspace", metavar="W", help="strict workspace (projects/<W>/...)")
    group.add_argument("--tag", dest="tags", action="append", default=[], metavar="T", help="tag (repeatable, any-of)")
    group.add_argument("--entity", metavar="TYPE:NAME", help="one entity reference, case-insensitive")
    group.add_argument("--facet", dest="facets", action="append", default=[], metavar="NAME=VALUE",
                       help="facet filter (repeatable; same NAME broadens, different NAMEs narrow)")
    group.add_argument("--include-archived", action="store_true", help="include archived memories")
    group.add_argument("--as-of", metavar="ISO", help="memories valid at this instant (archived included)")
    if para:
        group.add_argument("--para", choices=("projects", "areas", "resources", "archive"), help="PARA bucket")


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(
        prog="memhtml-desktop",
        description="Browse and search a memhtml store, and see why each memory ranked where it did. "
        "With no command, the window opens.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"memhtml-desktop {__version__}")
    parser.add_argument("--demo", action="store_true", help="open a fresh copy of the bundled demo store")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("gui", parents=[common], help="open the window (the default)")
    p.add_argument("--demo", action="store_true", default=argparse.SUPPRESS,
                   help="open a fresh copy of the bundled demo store")

    p = sub.add_parser("index", parents=[common], help="bring the index in step with the store")
    p.add_argument("--rebuild", action="store_true", help="drop the index and build it from scratch")
    p.add_argument("--json", action="store_true", help="print a JSON summary")

    p = sub.add_parser("search", parents=[common], help="fused four-arm search, explained")
    p.add_argument("query")
    p.add_argument("--limit", type=int, default=10, metavar="N")
    _scope_flags(p)
    p.add_argument("--why", metavar="PATH", help="explain where PATH stood for this query and what excluded it")
    p.add_argument("--no-refresh", action="store_true", help="do not rescan the store first")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("recall", parents=[common], help="the budgeted recall pack an agent would receive")
    p.add_argument("query")
    p.add_argument("--budget", type=int, metavar="CHARS", help="characters for memories (default 16000)")
    p.add_argument("--limit", type=int, default=10, metavar="N", help="memories considered (pool is 3x)")
    _scope_flags(p)
    p.add_argument("--no-refresh", action="store_true")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true")
    out.add_argument("--text", action="store_true", help="render the pack as the agent receives it")

    p = sub.add_parser("read", parents=[common], help="one memory in full (counts as a read)")
    p.add_argument("path")
    p.add_argument("--no-bump", action="store_true", help="do not count this as a read")
    p.add_argument("--no-refresh", action="store_true", help="do not re-index this file first")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("reinforce", parents=[common], help="record that memories were right or wrong")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--signal", choices=SIGNALS, default="neutral")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("list", parents=[common], help="memories in path order, scoped like search")
    _scope_flags(p, para=True)
    p.add_argument("--limit", type=int, default=50, metavar="N")
    p.add_argument("--cursor", metavar="C", help="continue after this path")
    p.add_argument("--no-refresh", action="store_true")
    p.add_argument("--json", action="store_true")

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

    p = sub.add_parser("screenshot", parents=[common], help="render the window offscreen to a PNG")
    p.add_argument("--out", required=True, metavar="FILE.png")
    p.add_argument("--query", default="")
    p.add_argument("--view", choices=("results", "reader", "recall", "problems"), default="results")
    p.add_argument("--open", metavar="PATH", help="the memory to show in the reader")
    p.add_argument("--size", default="1400x900", metavar="WxH")
    p.add_argument("--demo", action="store_true", default=argparse.SUPPRESS,
                   help="use a fresh copy of the demo store")
    return parser


# -- helpers -----------------------------------------------------------------------------------


def _settings(args: argparse.Namespace):
    from memhtml_desktop.settings import load_settings

    return load_settings(
        {
            "store": getattr(args, "store", None),
            "index": getattr(args, "index", None),
            "embedder": getattr(args, "embedder", None),
            "vector_backend": getattr(args, "vector_backend", None),
        }
    )


def open_store(args: argparse.Namespace):
    """The Store the flags name. Raises CliError with a clear message when it cannot be used."""
    from memhtml_desktop.embedders.registry import make_embedder_or_default
    from memhtml_desktop.index.store import Store, StoreError
    from memhtml_desktop.settings import resolve_index, resolve_store

    settings = _settings(args)
    root = resolve_store(settings)
    if not root.exists():
        raise CliError(f"store not found: {root} does not exist (use --store DIR or set MEMHTML_ROOT)")
    embedder, notice = make_embedder_or_default(settings.embedder, load=settings.embedder != "hash")
    if notice:
        print(f"note: {notice}", file=sys.stderr)
    try:
        return Store(root, index_path=resolve_index(settings, root), embedder=embedder,
                     vector_backend=settings.vector_backend)
    except StoreError as exc:
        raise CliError(str(exc)) from exc


def _scope(args: argparse.Namespace):
    from memhtml_desktop.domain.types import Scope

    try:
        return Scope.build(
            memory_types=args.types,
            workspace=args.workspace,
            tags=args.tags,
            entity=args.entity,
            facets=args.facets,
            include_archived=args.include_archived,
            as_of=args.as_of,
            para=getattr(args, "para", None),
        )
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def _print_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")


def _refresh(store, args: argparse.Namespace) -> None:
    if getattr(args, "no_refresh", False):
        return
    from memhtml_desktop import cli_output

    store.index(progress=cli_output.progress_printer() if sys.stderr.isatty() else None)


# -- commands ----------------------------------------------------------------------------------


def cmd_index(args: argparse.Namespace) -> int:
    from memhtml_desktop import cli_output

    store = open_store(args)
    progress = cli_output.progress_printer() if sys.stderr.isatty() and not args.json else None
    report = store.index(rebuild=args.rebuild, progress=progress)
    for notice in store.notices:
        print(f"note: {notice}", file=sys.stderr)
    if args.json:
        _print_json(report.to_json())
    else:
        cli_output.print_index_report(report, store)
    return EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    from memhtml_desktop import cli_output

    store = open_store(args)
    scope = _scope(args)
    _refresh(store, args)
    if args.why:
        from memhtml_desktop.index.store import StoreError

        try:
            report = store.why(args.query, scope, args.why)
        except StoreError as exc:
            raise CliError(str(exc)) from exc
        _print_json(report.to_json()) if args.json else cli_output.print_why(report)
        return EXIT_OK
    result = store.search(args.query, scope, limit=args.limit)
    _print_json(result.to_json()) if args.json else cli_output.print_search(result)
    return EXIT_OK


def cmd_recall(args: argparse.Namespace) -> int:
    from memhtml_desktop import cli_output
    from memhtml_desktop.domain.disclosure import render_pack_text

    store = open_store(args)
    scope = _scope(args)
    _refresh(store, args)
    pack = store.recall(args.query, scope, budget=args.budget, limit=args.limit)
    if args.json:
        _print_json(pack.to_json())
    elif args.text:
        sys.stdout.write(render_pack_text(pack) + "\n")
    else:
        cli_output.print_recall(pack)
    return EXIT_OK


def cmd_read(args: argparse.Namespace) -> int:
    from memhtml_desktop import cli_output
    from memhtml_desktop.index.reader import MemoryNotFound
    from memhtml_desktop.index.store import StoreError, safe_store_path

    store = open_store(args)
    try:
        if not args.no_refresh:
            # The index's view of this one file (links, backlinks, validity) must be current.
            store.update_paths([safe_store_path(args.path)])
        detail = store.read(args.path, bump=not args.no_bump)
    except (MemoryNotFound, StoreError) as exc:
        raise CliError(str(exc)) from exc
    _print_json(detail.to_json()) if args.json else cli_output.print_detail(detail)
    return EXIT_OK


def cmd_reinforce(args: argparse.Namespace) -> int:
    from memhtml_desktop.index.store import StoreError

    store = open_store(args)
    try:
        result = store.reinforce(args.paths, args.signal)
    except (StoreError, ValueError) as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        _print_json(result.to_json())
    else:
        for path in result.bumped:
            print(f"counted     {path}")
        for path in result.cooled_down:
            print(f"cooled down {path} (read within the last 15 minutes)")
        for path in result.signal_applied:
            print(f"{args.signal:<11} {path}")
        for path in result.signal_cooled:
            print(f"signal cooled {path} (a signal within the last 15 minutes)")
        if result.refused:
            print(f"not recorded: {result.refused}", file=sys.stderr)
    return EXIT_FAIL if result.refused else EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    from memhtml_desktop import cli_output

    store = open_store(args)
    scope = _scope(args)
    _refresh(store, args)
    page = store.list(scope, limit=args.limit, cursor=args.cursor)
    _print_json(page.to_json()) if args.json else cli_output.print_list(page)
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from memhtml_desktop import cli_output

    store = open_store(args)
    sound = store.verify()  # a full integrity check of the index; damage is moved aside and rebuilt
    store.index()
    problems = store.problems()
    stats = store.stats()
    for notice in store.notices:
        print(f"note: {notice}", file=sys.stderr)
    if args.json:
        _print_json({"index_sound": sound, "stats": stats, "problems": [p.to_json() for p in problems]})
    else:
        print(f"index integrity: {'ok' if sound else 'damaged, moved aside and rebuilt'}")
        cli_output.print_problems(problems, stats)
    return EXIT_OK


def cmd_state(args: argparse.Namespace) -> int:
    from pathlib import Path

    from memhtml_desktop.index import state as state_plane

    store = open_store(args)
    conn = store.reader()
    if args.state_command == "export":
        if args.out == "-":
            sys.stdout.buffer.write(state_plane.export_access(conn))
            return EXIT_OK
        if args.out:
            import os
            import tempfile

            target = Path(args.out)
            fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
            with os.fdopen(fd, "wb") as handle:
                handle.write(state_plane.export_access(conn))
            os.replace(tmp, target)  # never a half-written export
            print(f"wrote {args.out}")
        else:
            print(f"wrote {state_plane.write_export(conn, store.root)}")
        return EXIT_OK
    data = Path(args.file).read_bytes()
    report = state_plane.import_access(conn, data)
    print(f"imported {report.imported} rows; skipped {report.skipped_lines} unparseable lines")
    for error in report.errors[:20]:
        print(f"  {error}", file=sys.stderr)
    return EXIT_OK


def cmd_watch(args: argparse.Namespace) -> int:
    from memhtml_desktop.watch.headless import run_headless

    store = open_store(args)
    return run_headless(store, as_json=args.json)


def cmd_gui(args: argparse.Namespace) -> int:
    from memhtml_desktop.ui.app import run_app

    return run_app(_settings(args), demo=getattr(args, "demo", False),
                   explicit_store=getattr(args, "store", None) is not None,
                   verbose=getattr(args, "verbose", False))


def cmd_screenshot(args: argparse.Namespace) -> int:
    from memhtml_desktop.ui.screenshot import take_screenshot

    return take_screenshot(_settings(args), args)


COMMANDS = {
    "index": cmd_index,
    "search": cmd_search,
    "recall": cmd_recall,
    "read": cmd_read,
    "reinforce": cmd_reinforce,
    "list": cmd_list,
    "doctor": cmd_doctor,
    "state": cmd_state,
    "watch": cmd_watch,
    "gui": cmd_gui,
    "screenshot": cmd_screenshot,
}


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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(decode_argv(sys.argv[1:] if argv is None else list(argv)))
    logging.basicConfig(
        level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    command = COMMANDS[args.command or "gui"]
    streams = sys.stdout, sys.stderr
    if not getattr(args, "json", False):
        from memhtml_desktop.cli_output import PrintableStream

        sys.stdout, sys.stderr = PrintableStream(sys.stdout), PrintableStream(sys.stderr)
    try:
        return _run(command, args)
    finally:
        sys.stdout, sys.stderr = streams


def _run(command, args: argparse.Namespace) -> int:
    try:
        return command(args)
    except CliError as exc:
        print(f"memhtml-desktop: {exc}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        print("memhtml-desktop: interrupted", file=sys.stderr)
        return EXIT_FAIL
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the last line of defence: a message, not a traceback
        logging.getLogger("memhtml_desktop").debug("unexpected failure", exc_info=True)
        print(f"memhtml-desktop: unexpected error: {type(exc).__name__}: {exc} (run with -v for details)",
              file=sys.stderr)
        return EXIT_FAIL


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
