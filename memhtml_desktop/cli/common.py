"""What every command shares: exit codes, the user-facing error, the store flags and the store opener.

Each command module (`read_commands`, `store_commands`, `window_commands`, …) adds its own
subparsers through `add_parsers(sub, common)` and names its handlers in `COMMANDS`; `cli/__init__`
only assembles them. A new verb is a new module, not new branches here.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class CliError(Exception):
    """A runtime failure with a message meant for the user (exit 1)."""


def common_parser() -> argparse.ArgumentParser:
    """The flags every command accepts, before or after the verb."""
    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("store")
    group.add_argument(
        "--store",
        "--repo",
        dest="store",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="the memhtml store (default: $MEMHTML_ROOT, then ~/memhtml); --repo is memhtml's name",
    )
    group.add_argument(
        "--index",
        metavar="FILE",
        default=argparse.SUPPRESS,
        help="the index file (default: one per store in the user cache directory)",
    )
    group.add_argument(
        "--embedder",
        choices=("hash", "minilm"),
        default=argparse.SUPPRESS,
        help="embedding model for the vector arm (default: hash)",
    )
    group.add_argument(
        "--vector-backend",
        choices=("numpy", "sqlite-vec"),
        default=argparse.SUPPRESS,
        help="how the vector arm searches (default: numpy)",
    )
    group.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="log to stderr")
    return common


def as_of_value(text: str) -> str:
    """`--as-of` checked as argparse parses it, so bad input is a usage error (exit 2) naming the flag."""
    from memhtml_desktop.domain.instants import NotAnInstant, as_of_instant

    try:
        as_of_instant(text)
    except NotAnInstant as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_scope_flags(parser: argparse.ArgumentParser, *, para: bool = False) -> None:
    group = parser.add_argument_group(
        "scope",
        "Axes combine with AND. Tags are any-of. Facets: values under one name broaden (OR), "
        "different names narrow (AND). Archived files and tasks are out unless asked for.",
    )
    group.add_argument(
        "--type",
        dest="types",
        action="append",
        default=[],
        metavar="T",
        help="memory type (repeatable; naming 'task' opts tasks in)",
    )
    group.add_argument("--workspace", metavar="W", help="strict workspace (projects/<W>/...)")
    group.add_argument("--tag", dest="tags", action="append", default=[], metavar="T", help="tag (repeatable, any-of)")
    group.add_argument("--entity", metavar="TYPE:NAME", help="one entity reference, case-insensitive")
    group.add_argument(
        "--facet",
        dest="facets",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="facet filter (repeatable; same NAME broadens, different NAMEs narrow)",
    )
    group.add_argument("--include-archived", action="store_true", help="include archived memories")
    group.add_argument(
        "--as-of",
        metavar="ISO",
        type=as_of_value,
        help="memories valid at this instant (archived included), e.g. 2026-03-23T13:00:00+02:00; "
        "a date alone is the end of that day (UTC), a time without a zone is UTC",
    )
    if para:
        group.add_argument("--para", choices=("projects", "areas", "resources", "archive"), help="PARA bucket")


def add_ranking_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ranking",
        metavar="PROFILE",
        help="ranking profile: default (the seeds' design, measured) or memhtml (what memhtml 0.4 does), "
        "or a JSON file of knobs over the default (docs/ranking.md)",
    )


def ranking_from(args: argparse.Namespace):
    """The ranking profile the flags (or the `ranking` setting) name; CliError when unknown."""
    import json
    from pathlib import Path

    from memhtml_desktop.domain.ranking import RankingProfile, profile_named

    name = getattr(args, "ranking", None) or settings_from(args).ranking
    if name.endswith(".json"):
        try:
            data = json.loads(Path(name).read_text(encoding="utf-8"))
            base = profile_named(data.pop("base", None)) if isinstance(data, dict) else None
            return RankingProfile.from_json(data, base=base)
        except OSError as exc:
            raise CliError(f"cannot read {name}: {exc.strerror or exc}") from exc
        except (ValueError, TypeError) as exc:
            raise CliError(f"{name}: {exc}") from exc
    try:
        return profile_named(name)
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def settings_from(args: argparse.Namespace):
    from memhtml_desktop.settings import load_settings

    return load_settings(
        {
            "store": getattr(args, "store", None),
            "index": getattr(args, "index", None),
            "embedder": getattr(args, "embedder", None),
            "vector_backend": getattr(args, "vector_backend", None),
        }
    )


def checked_root(args: argparse.Namespace):
    """The store folder the flags name, once `check_store` says it is one (index/store_check.py):
    otherwise CliError, and nothing was created anywhere."""
    from memhtml_desktop.index.store import check_store
    from memhtml_desktop.settings import resolve_store

    check = check_store(resolve_store(settings_from(args)))
    if check.problem is not None:
        hint = " (use --store DIR or set MEMHTML_ROOT)" if not check.path.exists() else ""
        raise CliError(check.problem + hint)
    return check.path


def open_store(args: argparse.Namespace, *, recover: bool = True):
    """The Store the flags name. Raises CliError with a clear message when it cannot be used (a
    folder that is not a memhtml store included: `checked_root`).

    A write a crash interrupted (in any process) is finished or rolled back first, so a read never
    answers from a half-written store; what was done, or why it could not be, is a notice."""
    from memhtml_desktop.embedders.registry import make_embedder_or_default
    from memhtml_desktop.index.store import Store, StoreError
    from memhtml_desktop.settings import resolve_index

    Store.one_shot_process()  # its peak memory is what its user sees (index/vector_file.py Pages)
    settings = settings_from(args)
    root = checked_root(args)
    embedder, notice = make_embedder_or_default(settings.embedder, load=settings.embedder != "hash")
    if notice:
        from memhtml_desktop.cli.output import field

        print(f"note: {field(notice)}", file=sys.stderr)
    try:
        store = Store(
            root,
            index_path=resolve_index(settings, root),
            embedder=embedder,
            vector_backend=settings.vector_backend,
            ranking=ranking_from(args),
        )
    except StoreError as exc:
        raise CliError(str(exc)) from exc
    if recover:
        from memhtml_desktop.write.journal import nothing_to_recover

        if not nothing_to_recover(store.root):  # the write core is imported only when it has work
            from memhtml_desktop.write.curator import recover_interrupted

            recover_interrupted(store)
    return store


def scope_from(args: argparse.Namespace):
    from memhtml_desktop.domain.as_of import parse_as_of
    from memhtml_desktop.domain.types import Scope

    try:
        return Scope.build(
            memory_types=args.types,
            workspace=args.workspace,
            tags=args.tags,
            entity=args.entity,
            facets=args.facets,
            include_archived=args.include_archived,
            as_of=parse_as_of(args.as_of),
            para=getattr(args, "para", None),
        )
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def print_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")


def refresh(store, args: argparse.Namespace, paths=None) -> None:
    """Bring the index in step with the store first, unless `--no-refresh`. When another process is
    writing the index, or its disk is full, the command answers from the last committed state and
    says so (`Store.refresh` leaves the notice). A live watcher's lease stands in for the walk of
    the whole store (index/lease.py)."""
    if getattr(args, "no_refresh", False):
        return
    from memhtml_desktop.cli import output

    store.refresh(
        paths, progress=output.progress_printer() if sys.stderr.isatty() and paths is None else None, trust_watcher=True
    )


def print_notices(store) -> None:
    """Every notice the store gathered (a refresh skipped, a damaged index rebuilt), on stderr."""
    from memhtml_desktop.cli.output import field

    for notice in store.notices:
        print(f"note: {field(notice)}", file=sys.stderr)


def environment_failure(exc: Exception) -> str | None:
    """A clear sentence for failures of the machine rather than of the program (a full disk, an
    index that cannot be opened, a state plane that refused), or None for a real surprise."""
    from memhtml_desktop.index.store import UNWRITABLE, IndexUnavailable, StateError

    if isinstance(exc, (IndexUnavailable, StateError)):
        return str(exc)
    if isinstance(exc, UNWRITABLE):
        return f"cannot write: {exc} (is the disk full, or the store read-only?)"
    return None
