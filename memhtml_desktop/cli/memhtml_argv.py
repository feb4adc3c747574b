"""memhtml's command-line grammar, for the verbs this app shares with memhtml's CLI.

A script written for `memhtml --repo DIR correct PATH --claim …` must run unchanged against
`memhtml-desktop`, so these verbs do not go through argparse (which disagrees with memhtml on
several points) but through this parser, a port of `apps/cli/src/run.ts`'s rules (write-paths §1.1):

* `--flag value`, `--flag=value`; a value that starts with `--` needs the `=` form;
* a bare boolean flag is true, `--no-<flag>` is false; a scalar flag takes its LAST value;
  `--tag`, `--entity`, `--body` keep every non-empty value in order;
* extra positionals are ignored;
* usage is checked in memhtml's order, before the store is opened: unknown flag, unknown command,
  missing positional, missing required flag, claim XOR article, closed vocabularies of flags.
  Each is exit 2 with memhtml's message and code.

Global flags (`--repo`/`--store`, `--index`, `--embedder`, `--vector-backend`, `--json`, `-v`) may
come before or after the verb.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from memhtml_desktop.cli.verbs import MEMHTML_GRAMMAR
from memhtml_desktop.write.errors import INVALID_FLAG, MISSING_ARGUMENT

WRITABLE_TYPES = (
    "episodic", "semantic", "procedural", "agent_insight", "user_preference", "error_pattern",
    "verdict", "precedent", "task",
)  # fmt: skip
TASK_STATUSES = ("todo", "doing", "blocked", "done")

STR, LIST, BOOL = "str", "list", "bool"

GLOBAL_FLAGS: dict[str, str] = {
    "repo": STR, "store": STR, "index": STR, "embedder": STR, "vector-backend": STR, "json": BOOL,
    "verbose": BOOL,
}  # fmt: skip
GLOBAL_VOCAB = {"embedder": ("hash", "minilm"), "vector-backend": ("numpy", "sqlite-vec")}

_NEW = {
    "title": STR, "claim": STR, "article-html": STR, "body": LIST, "path": STR, "workspace": STR,
    "tag": LIST, "entity": LIST, "importance": STR, "confidence": STR, "session-id": STR,
    "prompt-id": STR, "turn-uuid": STR, "force": BOOL,
}  # fmt: skip


@dataclass(frozen=True)
class Verb:
    name: str
    positionals: tuple[str, ...]
    flags: dict[str, str]
    required: tuple[str, ...] = ()
    vocab: dict[str, tuple[str, ...]] = field(default_factory=dict)
    claim_xor: bool = False


VERBS: dict[str, Verb] = {
    "write": Verb("write", (), {**_NEW, "type": STR}, ("title", "type"), {"type": WRITABLE_TYPES}, True),
    "task add": Verb("task add", (), {**_NEW, "due": STR, "status": STR}, ("title",), {"status": TASK_STATUSES}),
    "task status": Verb("task status", ("path", "status"), {"reason": STR, "expect": STR}),
    "correct": Verb(
        "correct",
        ("target",),
        {
            "title": STR,
            "claim": STR,
            "article-html": STR,
            "body": LIST,
            "type": STR,
            "reason": STR,
            "session-id": STR,
            "workspace": STR,
            "tag": LIST,
            "entity": LIST,
            "importance": STR,
            "confidence": STR,
            "expect": STR,
            "keep-graph": BOOL,
        },
        ("title",),
        {"type": WRITABLE_TYPES},
        True,
    ),  # fmt: skip
    "archive": Verb("archive", ("path",), {"reason": STR, "expect": STR}, ("reason",)),
    "link": Verb("link", ("src", "rel", "dst"), {"expect": STR}),
    "apply": Verb(
        "apply",
        (),
        {
            "file": STR,
            "continue-on-error": BOOL,
            "detect-conflicts": BOOL,
            "consolidate": STR,
            "session-id": STR,
            "prompt-id": STR,
            "turn-uuid": STR,
        },
        (),
        {"consolidate": ("last-wins",)},
    ),  # fmt: skip
}
#: Verbs that take a sub-verb, and the sub-verbs they know.
GROUPS = {"task": ("add", "status")}
ROOTS = MEMHTML_GRAMMAR


class UsageError(Exception):
    """A usage error (exit 2) with memhtml's message, code and suggestions."""

    def __init__(self, message: str, code: str = INVALID_FLAG, suggestions: list[str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.suggestions = suggestions or []


@dataclass
class Parsed:
    verb: Verb
    positionals: list[str]
    flags: dict[str, Any]
    globals: dict[str, Any]

    def get(self, name: str, default: Any = None) -> Any:
        return self.flags.get(name, default)


def find_verb(argv: list[str]) -> str | None:
    """The memhtml verb this argv runs (`task` included), or None when it is not one of ours."""
    skip = False
    for token in argv:
        if skip:
            skip = False
            continue
        if token == "--":
            return None
        if token.startswith("-"):
            name = token.lstrip("-").split("=", 1)[0]
            if "=" not in token and GLOBAL_FLAGS.get(name) == STR:
                skip = True
            continue
        return token if token in ROOTS else None
    return None


ALL_BOOLS = frozenset(
    name for flags in (GLOBAL_FLAGS, *(v.flags for v in VERBS.values())) for name, kind in flags.items() if kind == BOOL
)


def _tokens(argv: list[str]) -> tuple[list[tuple[str, str | bool | None]], list[str]]:
    """Split argv into (flag name, raw value or None for bare) pairs and positionals.

    A boolean flag never takes the next word as its value (`--force PATH` keeps PATH a
    positional); `--flag=false` and `--no-flag` turn one off.
    """
    flags: list[tuple[str, str | bool | None]] = []
    positionals: list[str] = []
    i = 0
    rest = False
    while i < len(argv):
        token = argv[i]
        i += 1
        if rest or not token.startswith("--") or token == "--":
            if token == "--" and not rest:
                rest = True
                continue
            if token == "-v":
                flags.append(("verbose", True))
                continue
            positionals.append(token)
            continue
        body = token[2:]
        if "=" in body:
            name, value = body.split("=", 1)
            flags.append((name, value))
            continue
        is_bool = body in ALL_BOOLS or (body.startswith("no-") and body[3:] in ALL_BOOLS)
        if not is_bool and i < len(argv) and not argv[i].startswith("--"):
            flags.append((body, argv[i]))
            i += 1
        else:
            flags.append((body, None))
    return flags, positionals


def parse(argv: list[str]) -> Parsed:
    """memhtml's grammar and usage checks, in memhtml's order. Raises UsageError (exit 2)."""
    raw, positionals = _tokens(argv)
    root = positionals.pop(0) if positionals else ""
    sub = None
    if root in GROUPS:
        sub = positionals.pop(0) if positionals else ""
    name = f"{root} {sub}" if sub is not None else root
    verb = VERBS.get(name)
    known = {**GLOBAL_FLAGS, **(verb.flags if verb else {})}
    if sub is not None and verb is None:  # flags of every sub-verb are known while the verb is not
        for candidate in GROUPS[root]:
            known.update(VERBS[f"{root} {candidate}"].flags)
    flags: dict[str, Any] = {}
    bools = {n for n, kind in known.items() if kind == BOOL}
    # Usage check 1: unknown flags.
    for flag, value in raw:
        base = flag[3:] if flag.startswith("no-") and flag[3:] in bools else flag
        if base not in known:
            near = difflib.get_close_matches(flag, list(known), n=3, cutoff=0.6)
            raise UsageError(f"unknown flag: --{flag}", INVALID_FLAG, [f"--{n}" for n in near])
    # Usage check 2: unknown command.
    if verb is None:
        if sub is not None:
            raise UsageError(f"unknown command: {root} {sub}".rstrip(), INVALID_FLAG,
                             [f"memhtml-desktop {root} {s}" for s in GROUPS[root]])  # fmt: skip
        raise UsageError(f"unknown command: {root}", INVALID_FLAG)
    # Values: last wins for scalars, every non-empty value for lists, true/false for booleans.
    for flag, value in raw:
        if flag.startswith("no-") and flag[3:] in bools:
            flags[flag[3:]] = False
            continue
        kind = known[flag]
        if kind == BOOL:
            flags[flag] = True if value is None else str(value).lower() not in ("false", "0", "no", "")
        elif value is None:
            raise UsageError(f"--{flag} needs a value (write --{flag}=<value> when it starts with --)",
                             INVALID_FLAG)  # fmt: skip
        elif kind == LIST:
            if value != "":
                flags.setdefault(flag, []).append(value)
        else:
            flags[flag] = value
    glob = {n: flags.pop(n) for n in list(flags) if n in GLOBAL_FLAGS}
    if "repo" in glob:
        glob["store"] = glob.pop("repo")
    # Usage check 3: missing positionals.
    missing = verb.positionals[len(positionals) :]
    if missing:
        raise UsageError(f"{verb.name} requires: {', '.join(missing)}", MISSING_ARGUMENT,
                         [f"memhtml-desktop {verb.name} {' '.join('<' + p + '>' for p in verb.positionals)}"])  # fmt: skip
    # Usage check 4: missing required flags (presence only: an empty value passes, as in memhtml).
    absent = [f for f in verb.required if f not in flags]
    if absent:
        raise UsageError(f"{verb.name} requires: {', '.join('--' + f for f in absent)}", MISSING_ARGUMENT,
                         [f"memhtml {verb.name} --{f} <value>" for f in absent])  # fmt: skip
    # Usage check 5: exactly one of --claim / --article-html.
    if verb.claim_xor:
        _claim_xor(verb.name, flags)
    # Usage check 6: closed vocabularies of flags (positionals are checked at run time).
    for flag, allowed in {**verb.vocab, **GLOBAL_VOCAB}.items():
        value = flags.get(flag, glob.get(flag))
        if value is not None and value not in allowed:
            raise UsageError(f"--{flag} must be one of: {', '.join(allowed)}", INVALID_FLAG)
    return Parsed(verb, positionals, flags, glob)


def _claim_xor(name: str, flags: dict[str, Any]) -> None:
    has_claim, has_article = "claim" in flags, "article-html" in flags
    if has_claim and has_article:
        raise UsageError(
            f"{name} takes exactly one of --claim or --article-html, not both: --article-html is the whole "
            "article, so a --claim beside it would be silently discarded",
            INVALID_FLAG,
            [f"memhtml {name} --claim <sentence>", f"memhtml {name} --article-html '<p>…</p>'"],
        )
    if not has_claim and not has_article:
        raise UsageError(
            f"{name} requires: --claim or --article-html",
            MISSING_ARGUMENT,
            [f"memhtml {name} --claim <sentence>", f"memhtml {name} --article-html '<p>…</p>'"],
        )
