"""What changed since I last looked: `review` lists the store's changes since the review mark,
`review done` moves the mark (docs/review.md).

    memhtml-desktop review [--since REV|DATE] [--author PATTERN] [--json]
    memhtml-desktop review done [--upto COMMIT] [--json]

Both read git only (no index is opened, nothing is refreshed): listing writes nothing at all, and
`review done` writes one ref of this app's own (`refs/memhtml-desktop/review-mark`). A repository
in an unusual state (no commit yet, a detached HEAD, a shallow clone, a mark whose commit is
gone, a history rewritten under the mark) is listed as well as it can be, said on stderr, exit 0.
"""

from __future__ import annotations

import argparse
import sys

from memhtml_desktop.cli.common import EXIT_FAIL, EXIT_OK, EXIT_USAGE, CliError, print_json
from memhtml_desktop.cli.verbs import HELP


def add_parsers(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("review", parents=[common],
                       help=HELP["review"],
                       description="List every change to the store since the review mark (or --since) as "
                                   "memory-level events; `review done` moves the mark.")  # fmt: skip
    p.add_argument("--since", metavar="REV|DATE", help="list from this commit or date instead of the mark")
    p.add_argument("--author", metavar="PATTERN", help="only changes whose author (Name <email>) matches")
    p.add_argument("--json", action="store_true", help="print {mark, head, history_rewritten, changes}")
    actions = p.add_subparsers(dest="review_action", metavar="ACTION")
    done = actions.add_parser("done", parents=[common], help="mark everything up to HEAD (or --upto) reviewed")
    done.add_argument("--upto", metavar="COMMIT", help="move the mark to this commit instead of HEAD")
    done.add_argument("--json", action="store_true", help="print {mark, previous, moved, head}")


def _git(args: argparse.Namespace):
    from memhtml_desktop.cli.common import settings_from
    from memhtml_desktop.history import Git
    from memhtml_desktop.settings import resolve_store

    root = resolve_store(settings_from(args))
    if not root.is_dir():
        raise CliError(f"store not found: {root} does not exist (use --store DIR or set MEMHTML_ROOT)")
    git = Git(root)
    if git.executable is None:
        raise CliError("git was not found on PATH: the review reads the store's history through git")
    top, why = git.toplevel()
    if top is None:
        raise CliError(f"not a git repository: {root} ({(why.strip().splitlines() or ['git says no'])[-1]})")
    return git  # a store inside another repository is refused by the review itself (one clear line)


def _note(text: str) -> None:
    from memhtml_desktop.cli.output import field

    print(f"note: {field(text)}", file=sys.stderr)


def cmd_review(args: argparse.Namespace) -> int:
    if getattr(args, "review_action", None) == "done":
        return cmd_review_done(args)
    from memhtml_desktop.history import GitError, ReviewError, list_changes, review_range

    git = _git(args)
    try:
        rng = review_range(git, since=args.since)
        changes = list_changes(git, rng, author=args.author)
    except ReviewError as exc:
        print(f"memhtml-desktop: {exc}", file=sys.stderr)
        return EXIT_USAGE if args.since is not None and "--since" in str(exc) else EXIT_FAIL
    except GitError as exc:
        raise CliError(str(exc)) from exc
    for note in rng.notes:
        _note(note)
    if args.json:
        print_json(rng.to_json(changes))
        return EXIT_OK
    _print_changes(rng, changes)
    return EXIT_OK


def _print_changes(rng, changes) -> None:
    from memhtml_desktop.cli.output import field

    head = f"HEAD {rng.head[:12]}" if rng.head else "no commit yet"
    from memhtml_desktop.domain.plural import counted

    count = f"{counted(len(changes), 'change')} to review"
    print(f"{count} {rng.since} ({head})" if changes else f"all caught up: nothing to review {rng.since} ({head})")
    for c in changes:
        moved = f" (was {field(c.old_path)})" if c.old_path else ""
        session = f" · session {field(c.session)}" if c.session else ""
        print(f"{c.kind:<9} {field(c.path)}{moved}")
        print(f"          “{field(c.title)}” · {field(c.author)} · {c.at} · {c.commit[:12]}{session}")
        print(
            f"          {field(c.subject)}"
            + (f" — {field(c.reason)}" if c.reason and c.reason not in c.subject else "")
        )


def cmd_review_done(args: argparse.Namespace) -> int:
    from memhtml_desktop.history import GitError, ReviewError, review_done

    git = _git(args)
    try:
        done = review_done(git, upto=args.upto)
    except ReviewError as exc:
        print(f"memhtml-desktop: {exc}", file=sys.stderr)
        return EXIT_FAIL
    except GitError as exc:
        raise CliError(str(exc)) from exc
    if done.note:
        _note(done.note)
    if args.json:
        print_json({**done.to_json(), "head": git.head()})
    elif done.moved:
        print(f"review mark moved to {done.mark[:12]}" + (f" (was {done.previous[:12]})" if done.previous else ""))
    return EXIT_OK


COMMANDS = {"review": cmd_review}
