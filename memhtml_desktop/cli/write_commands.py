"""memhtml's write verbs: write, task add|status, correct, archive, link, apply.

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
from memhtml_desktop.cli.verbs import HELP

NOW_ENV = "MEMHTML_DESKTOP_NOW"


# -- argparse registration (help text only: the verbs run through memhtml_argv) -----------------


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
    memhtml_verb("write", HELP["write"], (), [*new_flags, ("type", "the memory type (required)")])
    memhtml_verb("correct", HELP["correct"], ("target",),
                 [("title", "the corrected title (required)"), ("claim", ""), ("article-html", ""), ("body", ""),
                  ("type", "default: the target's"), ("reason", "why (kept as a Memhtml-Reason trailer)"),
                  ("session-id", ""), ("tag", ""), ("entity", ""), ("workspace", ""),
                  ("expect", "the blob sha or content hash the target must still have"),
                  ("keep-graph", "this app's own: keep the memory's place in the graph (carry its links, entities "
                                 "and facets, repoint the links to it, its reads follow); not memhtml's bytes")])  # fmt: skip
    memhtml_verb("archive", HELP["archive"], ("path",),
                 [("reason", "why (required; the commit subject)"), ("expect", "")])  # fmt: skip
    memhtml_verb("link", HELP["link"], ("src", "rel", "dst"), [("expect", "")])
    memhtml_verb("apply", HELP["apply"], (),
                 [("file", "read the batch from FILE (default: stdin)"), ("consolidate", "last-wins"),
                  ("session-id", ""), ("prompt-id", ""), ("turn-uuid", "")])  # fmt: skip
    p = sub.add_parser("task", parents=[common], help=HELP["task"])
    task_sub = p.add_subparsers(dest="task_command", metavar="ACTION")
    a = task_sub.add_parser("add", parents=[common], help="add a task")
    for flag, flag_help in [*new_flags, ("due", "YYYY-MM-DD"), ("status", "todo|doing|blocked|done")]:
        a.add_argument(f"--{flag}", help=flag_help)
    s = task_sub.add_parser("status", parents=[common], help="set a task's status (done archives it)")
    s.add_argument("path")
    s.add_argument("status")
    s.add_argument("--reason")


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
        return fail(str(exc), exc.code, EXIT_USAGE, json_out, exc.suggestions)
    json_out = bool(parsed.globals.get("json"))
    handler = HANDLERS[parsed.verb.name]
    from memhtml_desktop.write.errors import WriteError, suggestions_for

    try:
        result, notices = handler(parsed)
    except UsageError as exc:  # found while reading the input (apply's JSONL): still before any write
        return fail(str(exc), exc.code, EXIT_USAGE, json_out, exc.suggestions)
    except WriteError as exc:
        return fail(str(exc), exc.code, EXIT_FAIL, json_out, suggestions_for(exc.code))
    except CliError as exc:
        return fail(str(exc), "ERR_STORAGE", EXIT_FAIL, json_out)
    except OSError as exc:
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        return fail(f"storage operation failed: {exc.strerror or exc}{where}", "ERR_STORAGE", EXIT_FAIL, json_out)
    for notice in notices:
        print(f"note: {notice}", file=sys.stderr)
    if json_out:
        print_json(result)
    else:
        print(describe(parsed.verb.name, result))
    return EXIT_OK


def fail(message: str, code: str, exit_code: int, json_out: bool, suggestions: list[str] | None = None) -> int:
    message = message.encode("utf-8", "backslashreplace").decode("utf-8")  # a path from argv may hold a surrogate
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


def open_curator(options: dict[str, Any], *, refresh: bool = True, defer_state: bool = False):
    """The Curator for the store the flags name. The folder (a memhtml store?) and the repository are
    checked BEFORE the store is opened, so a refusal (not a store, not a git repository) leaves
    nothing behind, not even `.memhtml/`.
    `defer_state`: a store never opened gets its state.db only once the write is known to happen
    (`_run`); `state export`, `doctor --fix` and the others need the plane as it is, so they do not defer."""
    from memhtml_desktop.cli.common import checked_root, settings_from
    from memhtml_desktop.settings import resolve_store
    from memhtml_desktop.write.curator import Curator, Git, check_repository

    namespace = argparse.Namespace(**{k.replace("-", "_"): v for k, v in options.items() if v is not None})
    root = resolve_store(settings_from(namespace))
    if root.is_dir():  # memhtml's own refusal first (case 44: ERR_GIT), then whether it is a store at all
        check_repository(Git(root))
    checked_root(namespace)
    clock = pinned_clock()
    store = open_store(namespace)
    if defer_state:  # a refused write leaves nothing behind, not even state.db (docs/writing.md, case 44)
        store.create_state = store.state_path.exists()
    if clock is not None:
        store.clock = clock
    if refresh:
        store.index()  # the duplicate check and the link checks read this app's own index
    return Curator(store)


def _run(parsed: Parsed, request, *, keep_graph: bool = False) -> tuple[dict[str, Any], list[str]]:
    curator = open_curator(parsed.globals, defer_state=True)
    if keep_graph:
        request = curator.keeping_graph(request)
    planned = None
    if not curator.store.create_state:
        planned = curator.plan(request)  # a refusal raises here, before state.db exists
        curator.store.create_state = True
        curator.store.close_thread_connection()  # the next connection creates and attaches it
    applied = curator.run(request, planned=planned)  # the plan is made once when nothing moved meanwhile
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
    request = WriteRequest(
        memory_type="task", task_status=parsed.get("status", "todo"), due=parsed.get("due"), **fields
    )
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
    return _run(parsed, request, keep_graph=bool(parsed.get("keep-graph", False)))


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


def commit_note(sha: str | None) -> str:
    return f" (commit {sha[:12]})" if sha else ""


def describe(verb: str, r: dict[str, Any]) -> str:
    """One or two lines for a person."""
    if verb in ("write", "task add"):
        if r.get("deduped"):
            return f"already stored as {r['existing_path']} (the same text): nothing written"
        return f"wrote {r['path']}{commit_note(r.get('commit_sha'))}"
    if verb == "correct":
        kept = r.get("kept")
        more = ""
        if kept:
            more = (f"\nkept {len(kept['links'])} links; repointed {len(kept['repointed'])} memories linking to it"
                    + ("; its reads follow it" if kept.get("reads") == r["path"] else ""))  # fmt: skip
        return f"wrote {r['path']}\narchived the old version as {r['archived_path']}{commit_note(r.get('commit_sha'))}{more}"
    if verb == "archive":
        return f"archived {r['path']} -> {r['archive_path']}{commit_note(r.get('commit_sha'))}"
    if verb == "task status":
        if r.get("unchanged"):
            return f"{r['path']} is already {r['task_status']}: nothing written"
        where = f"; archived as {r['archive_path']}" if r.get("archived") else ""
        return f"{r['path']}: {r['task_status']}{where}{commit_note(r.get('commit_sha'))}"
    if verb == "link":
        if not r.get("commit_sha"):
            return f"{r['src_path']} already links {r['rel']} to {r['dst_path']}: nothing written"
        return f"linked {r['src_path']} {r['rel']} {r['dst_path']}{commit_note(r['commit_sha'])}"
    if verb == "apply":
        from memhtml_desktop.cli.apply_input import describe_batch

        return describe_batch(r)
    return str(r)


def cmd_memhtml_verb(args: argparse.Namespace) -> int:  # pragma: no cover - argparse reaches it only for help
    raise CliError(f"{args.command}: run it with memhtml's arguments, e.g. memhtml-desktop {args.command} --help")


COMMANDS = {
    **{verb: cmd_memhtml_verb for verb in ("write", "correct", "archive", "link", "apply", "task")},
}
