"""Commands that change the store: memhtml's write verbs, plus undo, state export and the repairs.

`write`, `task add|status`, `correct`, `archive`, `link` and `apply` take memhtml's arguments in
memhtml's grammar (`memhtml_argv.py`), so `memhtml-desktop --repo DIR correct PATH --claim …` runs
exactly as `memhtml --repo DIR correct PATH --claim …` does; `cli.main` hands such an argv here
before argparse sees it. The flags are also registered with argparse, for `--help`.

Output follows this app's conventions: a line or two for a person, or with `--json` the result
object with snake_case keys (memhtml's `data` object renamed; see docs/writing.md). A usage error
exits 2 and a refused or failed write exits 1, with memhtml's message where memhtml has one; with
`--json` the error is also printed to stdout as `{"error", "code", "suggestions"}`.

`MEMHTML_DESKTOP_NOW` (an ISO instant) pins the clock the write stamps with, for reproducible runs.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import sys
from typing import Any, Callable

from memhtml_desktop.cli.common import EXIT_FAIL, EXIT_OK, EXIT_USAGE, CliError, open_store, print_json
from memhtml_desktop.cli.memhtml_argv import Parsed, UsageError, parse
from memhtml_desktop.cli.memhtml_argv import find_verb as _find_verb

NOW_ENV = "MEMHTML_DESKTOP_NOW"


# -- argparse registration (help text, and the verbs that are this app's own) -------------------


def add_parsers(sub, common: argparse.ArgumentParser) -> None:
    def memhtml_verb(name: str, help_text: str, positionals=(), flags=()) -> None:
        p = sub.add_parser(name, parents=[common], help=help_text,
                           description=help_text + ". Arguments as memhtml's CLI takes them.")  # fmt: skip
        for pos in positionals:
            p.add_argument(pos)
        for flag, flag_help in flags:
            p.add_argument(f"--{flag}", help=flag_help)
        p.add_argument("--json", action="store_true", help="print the result as JSON")

    new_flags = [
        ("title", "the title (required)"), ("claim", "the one-sentence claim"),
        ("article-html", "the whole article as HTML (instead of --claim)"),
        ("body", "a paragraph or one fenced code block (repeatable)"),
        ("path", "an explicit path (an existing file needs --force)"), ("workspace", "projects/<slug>/"),
        ("tag", "a tag (repeatable)"), ("entity", "TYPE:NAME (repeatable)"), ("importance", "1..10"),
        ("confidence", "0..1"), ("session-id", "provenance"), ("prompt-id", "provenance"),
        ("turn-uuid", "provenance"),
    ]  # fmt: skip
    memhtml_verb("write", "write a new memory and commit it", (), [*new_flags, ("type", "the memory type (required)")])
    memhtml_verb("correct", "supersede a memory: write the correction, archive the old one, one commit", ("target",),
                 [("title", "the corrected title (required)"), ("claim", ""), ("article-html", ""), ("body", ""),
                  ("type", "default: the target's"), ("reason", "why (kept as a Memhtml-Reason trailer)"),
                  ("session-id", ""), ("tag", ""), ("entity", ""), ("workspace", ""),
                  ("expect", "the blob sha or content hash the target must still have")])  # fmt: skip
    memhtml_verb("archive", "move a memory into archive/<year>/ and commit", ("path",),
                 [("reason", "why (required; the commit subject)"), ("expect", "")])  # fmt: skip
    memhtml_verb("link", "add a typed link from one memory to another", ("src", "rel", "dst"), [("expect", "")])
    memhtml_verb("apply", "write a JSONL batch of memories in one commit", (),
                 [("file", "read the batch from FILE (default: stdin)"), ("consolidate", "last-wins"),
                  ("session-id", ""), ("prompt-id", ""), ("turn-uuid", "")])  # fmt: skip
    p = sub.add_parser("task", parents=[common], help="add a task or change its status (memhtml's arguments)")
    task_sub = p.add_subparsers(dest="task_command", metavar="ACTION")
    a = task_sub.add_parser("add", parents=[common], help="add a task")
    for flag, flag_help in [*new_flags, ("due", "YYYY-MM-DD"), ("status", "todo|doing|blocked|done")]:
        a.add_argument(f"--{flag}", help=flag_help)
    s = task_sub.add_parser("status", parents=[common], help="set a task's status (done archives it)")
    s.add_argument("path")
    s.add_argument("status")
    s.add_argument("--reason")

    p = sub.add_parser("undo", parents=[common], help="revert this app's last commit (while it is still HEAD)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("supersede", parents=[common],
                       help="WINNER supersedes LOSER: archive LOSER, link them, one commit")  # fmt: skip
    p.add_argument("winner")
    p.add_argument("loser")
    p.add_argument("--reason", help="why (kept as a Memhtml-Reason trailer)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("conflicts", parents=[common],
                       help="near-twin memories whose claims disagree (a negation, a number, a qualifier)")  # fmt: skip
    p.add_argument("--no-refresh", action="store_true", help="do not rescan the store first")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("history", parents=[common], help="a memory's supersession chain, oldest first")
    p.add_argument("path")
    p.add_argument("--no-refresh", action="store_true", help="do not rescan the store first")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("state", parents=[common], help="export or import the shared state plane")
    state_sub = p.add_subparsers(dest="state_command", metavar="ACTION", required=True)
    e = state_sub.add_parser("export", parents=[common],
                             help="write and commit .memhtml/state/access.jsonl (or --out, not committed)")  # fmt: skip
    e.add_argument("--out", metavar="FILE", help="write here instead, without committing ('-' for stdout)")
    e.add_argument("--force", action="store_true", help="replace a sidecar holding rows with an empty export")
    e.add_argument("--json", action="store_true")
    i = state_sub.add_parser("import", parents=[common], help="merge an access.jsonl into the state plane")
    i.add_argument("file", metavar="FILE")


# -- running memhtml's verbs ---------------------------------------------------------------------


def find_verb(argv: list[str]) -> str | None:
    """The memhtml verb argv runs here, or None (argparse's turn; also for `--help`)."""
    if "-h" in argv or "--help" in argv:
        return None
    return _find_verb(argv)


def intercept(argv: list[str]) -> int | None:
    """Run argv here when it names one of memhtml's write verbs (and asks for no help)."""
    if find_verb(argv) is None:
        return None
    json_out = "--json" in argv or "--json=true" in argv
    try:
        parsed = parse(argv)
    except UsageError as exc:
        return _fail(str(exc), exc.code, EXIT_USAGE, json_out, exc.suggestions)
    json_out = bool(parsed.globals.get("json"))
    handler = HANDLERS[parsed.verb.name]
    from memhtml_desktop.write.errors import WriteError

    try:
        result, notices = handler(parsed)
    except UsageError as exc:  # found while reading the input (apply's JSONL): still before any write
        return _fail(str(exc), exc.code, EXIT_USAGE, json_out, exc.suggestions)
    except WriteError as exc:
        return _fail(str(exc), exc.code, EXIT_FAIL, json_out)
    except CliError as exc:
        return _fail(str(exc), "ERR_STORAGE", EXIT_FAIL, json_out)
    except OSError as exc:
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        return _fail(f"storage operation failed: {exc.strerror or exc}{where}", "ERR_STORAGE", EXIT_FAIL, json_out)
    for notice in notices:
        print(f"note: {notice}", file=sys.stderr)
    if json_out:
        print_json(result)
    else:
        print(describe(parsed.verb.name, result))
    return EXIT_OK


def _fail(message: str, code: str, exit_code: int, json_out: bool, suggestions: list[str] | None = None) -> int:
    print(f"memhtml-desktop: {message}", file=sys.stderr)
    if json_out:
        print_json({"error": message, "code": code, "suggestions": suggestions or []})
    return exit_code


def pinned_clock() -> Callable[[], _dt.datetime] | None:
    raw = os.environ.get(NOW_ENV)
    if not raw:
        return None
    try:
        moment = _dt.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError as exc:
        raise CliError(f"{NOW_ENV}={raw!r} is not an ISO instant") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    return lambda: moment


def open_curator(options: dict[str, Any], *, refresh: bool = True):
    """The Curator for the store the flags name. The repository is checked BEFORE the store is
    opened, so a refusal (not a git repository, say) leaves nothing behind, not even `.memhtml/`."""
    from memhtml_desktop.cli.common import settings_from
    from memhtml_desktop.settings import resolve_store
    from memhtml_desktop.write.curator import Curator
    from memhtml_desktop.write.git import Git
    from memhtml_desktop.write.preflight import check_repository

    namespace = argparse.Namespace(**{k.replace("-", "_"): v for k, v in options.items() if v is not None})
    root = resolve_store(settings_from(namespace))
    if not root.is_dir():
        raise CliError(f"store not found: {root} does not exist (use --repo DIR or set MEMHTML_ROOT)")
    check_repository(Git(root))
    clock = pinned_clock()
    store = open_store(namespace)
    if clock is not None:
        store.clock = clock
    if refresh:
        store.index()  # the duplicate check and the link checks read this app's own index
    return Curator(store)


def _run(parsed: Parsed, request) -> tuple[dict[str, Any], list[str]]:
    curator = open_curator(parsed.globals)
    applied = curator.run(request)
    return applied.result, [*applied.plan.notes, *applied.notices, *curator.store.notices]


def _new_memory_fields(parsed: Parsed) -> dict[str, Any]:
    return dict(
        title=parsed.get("title", ""), claim=parsed.get("claim"), article_html=parsed.get("article-html"),
        bodies=tuple(parsed.get("body", [])), path=parsed.get("path"), workspace=parsed.get("workspace"),
        tags=tuple(parsed.get("tag", [])), entities=tuple(parsed.get("entity", [])),
        importance=parsed.get("importance"), confidence=parsed.get("confidence"),
        session=parsed.get("session-id"), prompt=parsed.get("prompt-id"), turn=parsed.get("turn-uuid"),
        force=bool(parsed.get("force", False)),
    )  # fmt: skip


def run_write(parsed: Parsed):
    from memhtml_desktop.write.requests import WriteRequest

    return _run(parsed, WriteRequest(memory_type=parsed.get("type"), **_new_memory_fields(parsed)))


def run_task_add(parsed: Parsed):
    from memhtml_desktop.write.requests import WriteRequest

    fields = _new_memory_fields(parsed)
    if fields["claim"] is None and fields["article_html"] is None:
        fields["claim"] = fields["title"]  # memhtml: the claim defaults to the title, verbatim
    request = WriteRequest(memory_type="task", task_status=parsed.get("status", "todo"), due=parsed.get("due"), **fields)
    return _run(parsed, request)


def run_correct(parsed: Parsed):
    from memhtml_desktop.write.requests import CorrectRequest

    request = CorrectRequest(
        target=parsed.positionals[0], title=parsed.get("title", ""), claim=parsed.get("claim"),
        article_html=parsed.get("article-html"), bodies=tuple(parsed.get("body", [])),
        memory_type=parsed.get("type"), reason=parsed.get("reason"), session=parsed.get("session-id"),
        workspace=parsed.get("workspace"), tags=tuple(parsed.get("tag", [])),
        entities=tuple(parsed.get("entity", [])), importance=parsed.get("importance"),
        confidence=parsed.get("confidence"), expected=parsed.get("expect"),
    )  # fmt: skip
    return _run(parsed, request)


def run_archive(parsed: Parsed):
    from memhtml_desktop.write.requests import ArchiveRequest

    return _run(parsed, ArchiveRequest(parsed.positionals[0], parsed.get("reason", ""), expected=parsed.get("expect")))


def run_task_status(parsed: Parsed):
    from memhtml_desktop.write.requests import TaskStatusRequest

    path, status = parsed.positionals[:2]
    return _run(parsed, TaskStatusRequest(path, status, parsed.get("reason"), expected=parsed.get("expect")))


def run_link(parsed: Parsed):
    from memhtml_desktop.write.requests import LinkRequest

    src, rel, dst = parsed.positionals[:3]
    return _run(parsed, LinkRequest(src, rel, dst, expected=parsed.get("expect")))


def run_apply(parsed: Parsed):
    from memhtml_desktop.cli.apply_input import read_batch

    request = read_batch(parsed)  # usage errors (a malformed line) raise UsageError: exit 2
    return _run(parsed, request)


HANDLERS: dict[str, Callable[[Parsed], tuple[dict[str, Any], list[str]]]] = {
    "write": run_write,
    "task add": run_task_add,
    "task status": run_task_status,
    "correct": run_correct,
    "archive": run_archive,
    "link": run_link,
    "apply": run_apply,
}


def _sha(sha: str | None) -> str:
    return f" (commit {sha[:12]})" if sha else ""


def describe(verb: str, r: dict[str, Any]) -> str:
    """One or two lines for a person."""
    if verb in ("write", "task add"):
        if r.get("deduped"):
            return f"already stored as {r['existing_path']} (the same text): nothing written"
        return f"wrote {r['path']}{_sha(r.get('commit_sha'))}"
    if verb == "correct":
        return f"wrote {r['path']}\narchived the old version as {r['archived_path']}{_sha(r.get('commit_sha'))}"
    if verb == "archive":
        return f"archived {r['path']} -> {r['archive_path']}{_sha(r.get('commit_sha'))}"
    if verb == "task status":
        if r.get("unchanged"):
            return f"{r['path']} is already {r['task_status']}: nothing written"
        where = f"; archived as {r['archive_path']}" if r.get("archived") else ""
        return f"{r['path']}: {r['task_status']}{where}{_sha(r.get('commit_sha'))}"
    if verb == "link":
        if not r.get("commit_sha"):
            return f"{r['src_path']} already links {r['rel']} to {r['dst_path']}: nothing written"
        return f"linked {r['src_path']} {r['rel']} {r['dst_path']}{_sha(r['commit_sha'])}"
    if verb == "apply":
        from memhtml_desktop.cli.apply_input import describe_batch

        return describe_batch(r)
    return str(r)


# -- argparse-routed verbs ------------------------------------------------------------------------


def cmd_undo(args: argparse.Namespace) -> int:
    from memhtml_desktop.write.errors import WriteError

    try:
        curator = open_curator(vars(args), refresh=False)
        applied = curator.undo()
    except WriteError as exc:
        return _fail(str(exc), exc.code, EXIT_FAIL, args.json)
    for notice in applied.notices:
        print(f"note: {notice}", file=sys.stderr)
    if args.json:
        print_json(applied.result)
    else:
        print(f"reverted {applied.result['reverted'][:12]}: {applied.plan.subject}{_sha(applied.commit_sha)}")
    return EXIT_OK


def cmd_state(args: argparse.Namespace) -> int:
    from pathlib import Path

    from memhtml_desktop.index import state as state_plane

    if args.state_command == "export" and not args.out:
        return _state_export_commit(args)
    store = open_store(args)
    conn = store.reader()
    if args.state_command == "export":
        if args.out == "-":
            sys.stdout.buffer.write(state_plane.export_access(conn))
            return EXIT_OK
        import tempfile

        target = Path(args.out)
        fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
        with os.fdopen(fd, "wb") as handle:
            handle.write(state_plane.export_access(conn))
        os.replace(tmp, target)  # never a half-written export
        print(f"wrote {args.out}")
        return EXIT_OK
    data = Path(args.file).read_bytes()
    report = state_plane.import_access(conn, data)
    print(f"imported {report.imported} rows; skipped {report.skipped_lines} unparseable lines")
    for error in report.errors[:20]:
        print(f"  {error}", file=sys.stderr)
    return EXIT_OK


def _state_export_commit(args: argparse.Namespace) -> int:
    from memhtml_desktop.write.errors import WriteError
    from memhtml_desktop.write.requests import StateExportRequest

    try:
        curator = open_curator(vars(args), refresh=False)
        applied = curator.run(StateExportRequest(force=args.force))
    except WriteError as exc:
        return _fail(str(exc), exc.code, EXIT_FAIL, args.json)
    r = applied.result
    if args.json:
        print_json(r)
    elif r["written"]:
        print(f"exported {r['rows']} access rows to {r['path']}{_sha(r['commit_sha'])}")
    else:
        print(f"{r['path']} already holds these {r['rows']} rows: nothing written")
    return EXIT_OK


def cmd_doctor_fix(args: argparse.Namespace) -> int:
    """`doctor --fix`: repair dangling links and prune orphan state rows, in one commit."""
    from memhtml_desktop.write.errors import WriteError
    from memhtml_desktop.write.requests import DoctorFixRequest

    try:
        curator = open_curator(vars(args))
        applied = curator.run(DoctorFixRequest())
    except WriteError as exc:
        return _fail(str(exc), exc.code, EXIT_FAIL, getattr(args, "json", False))
    for notice in [*applied.plan.notes, *applied.notices]:
        print(f"note: {notice}", file=sys.stderr)
    r = applied.result
    if getattr(args, "json", False):
        print_json(r)
        return EXIT_OK
    for item in r["dangling"]:
        fix = f"rewritten to {item['rewrite_to']}" if item["rewrite_to"] else "dropped"
        print(f"dangling  {item['src_path']} {item['rel']} {item['dst_path']}: {fix}")
    for path in r["orphan_access_rows"]:
        print(f"orphan    state row {path}: pruned")
    rep = r["repaired"]
    print(f"repaired: {rep['rewritten']} rewritten, {rep['dropped']} dropped, "
          f"{rep['pruned_access_rows']} state rows pruned{_sha(rep['commit_sha'])}")  # fmt: skip
    return EXIT_OK


def cmd_supersede(args: argparse.Namespace) -> int:
    from memhtml_desktop.write.errors import WriteError
    from memhtml_desktop.write.requests import SupersedeRequest

    try:
        curator = open_curator(vars(args))
        applied = curator.run(SupersedeRequest(args.winner, args.loser, args.reason))
    except WriteError as exc:
        return _fail(str(exc), exc.code, EXIT_FAIL, args.json)
    r = applied.result
    if args.json:
        print_json(r)
    else:
        print(f"{r['winner']} supersedes {r['loser']}, archived as {r['superseded_path']}{_sha(r['commit_sha'])}")
    return EXIT_OK


def cmd_conflicts(args: argparse.Namespace) -> int:
    from memhtml_desktop.write.conflicts import scan_conflicts

    store = open_store(args)
    if not args.no_refresh:
        store.index()
    report = scan_conflicts(store)
    if args.json:
        print_json(report.to_json())
        return EXIT_OK
    for pair in report.pairs:
        print(f"{', '.join(pair.diff.kinds)} (cosine {pair.cosine:.3f})")
        print(f"  {pair.a.path}\n    {pair.a.claim}")
        print(f"  {pair.b.path}\n    {pair.b.claim}")
    print(f"{len(report.pairs)} conflicting pair(s) among {report.compared} memories ({report.seconds:.2f} s)")
    return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    from memhtml_desktop.write.errors import WriteError

    try:
        curator = open_curator(vars(args), refresh=not args.no_refresh)
        chain = curator.history(args.path)
    except WriteError as exc:
        return _fail(str(exc), exc.code, EXIT_FAIL, args.json)
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


def cmd_memhtml_verb(args: argparse.Namespace) -> int:  # pragma: no cover - argparse reaches it only for help
    raise CliError(f"{args.command}: run it with memhtml's arguments, e.g. memhtml-desktop {args.command} --help")


COMMANDS = {
    **{verb: cmd_memhtml_verb for verb in ("write", "correct", "archive", "link", "apply", "task")},
    "undo": cmd_undo,
    "supersede": cmd_supersede,
    "conflicts": cmd_conflicts,
    "history": cmd_history,
    "state": cmd_state,
}
