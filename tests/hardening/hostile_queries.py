"""Hostile queries and scope values (item 2), and the check every one of them must pass.

Quotes, colons, hyphens, bare AND/OR/NOT/NEAR, `*`, `^`, parentheses, SQL fragments, 10,000
characters, control characters, emoji; scope values with quotes, colons, `%`, `_`, NUL, `=` inside
facet values, huge tag lists, workspace `..`, para and as_of junk. Lone surrogates are generated
only on request: they are a known bug (see test_query_fuzz.py).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

FIXED_QUERIES = (
    "",
    " ",
    '"',
    '""',
    '"""',
    "'",
    "''",
    ":",
    "::",
    "-",
    "--",
    "-deploy",
    "---x",
    "a-b-c",
    "NOT",
    "AND",
    "OR",
    "NEAR",
    "near",
    "AND OR NOT",
    "a AND",
    "OR b",
    "NOT NOT",
    "NEAR(a b)",
    'NEAR("a" "b", 3)',
    "NEAR/3",
    "*",
    "a*",
    "*a",
    "^",
    "^a",
    "a^b",
    "(",
    ")",
    "((a)",
    "a)",
    "()",
    "(a OR b) AND NOT c",
    "{fts_text}: x",
    "fts_text:deploy",
    "files_fts:deploy",
    "col:term",
    "service:checkout-api",
    "rank:1",
    "rowid",
    "bm25(files_fts)",
    "'; DROP TABLE files; --",
    '" OR 1=1 --',
    "1; DELETE FROM files",
    "?1",
    "?999",
    ":name",
    "@x",
    "$x",
    "%",
    "_",
    "%_%",
    "\\",
    "\\\\",
    "/",
    "//",
    "x" * 10_000,
    "deploy " * 1_500,
    "a b " * 3_000,
    "\x00",
    "\x00deploy",
    "deploy\x00rollback",
    "\x1b[31mred\x1b[0m",
    "\x07\x08\x0b\x0c",
    "\r\n\t",
    "\x7f",
    "\u0085\u2028\u2029",
    "\u202edeploy",
    "\ufeff",
    "\ufffd",
    "😀",
    "👩‍👩‍👧 deploy",
    "déployé",
    "ΣΊΣΥΦΟΣ",
    "ß" * 5_000,
    "İstanbul",
    "ﬁle",
    "中文 查询",
    "العربية",
    "\U0010ffff",
    'deploy 😀 "vip drain" -rollback NOT (x) ^y *',
)

_FTS_BITS = (
    '"',
    "'",
    ":",
    "-",
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "NEAR(",
    "*",
    "^",
    "(",
    ")",
    "{",
    "}",
    ",",
    "+",
    "/",
    "\\",
    ";",
    "--",
    "/*",
    "*/",
    "?1",
    ":x",
    "@y",
    "$z",
    "%",
    "_",
    "=",
    "<>",
    "\x00",
    "\t",
    "\n",
)
_WORDS = (
    "deploy",
    "rollback",
    "vip",
    "drain",
    "checkout",
    "api",
    "service",
    "oncall",
    "the",
    "a",
    "files",
    "SELECT",
    "DROP",
    "TABLE",
    "files_fts",
    "rank",
    "match",
    "rowid",
    "sqlite_schema",
    "memhtml_fold",
)
_UNICODE = (
    "é",
    "😀",
    "\u200b",
    "\u202e",
    "\ufeff",
    "ß",
    "İ",
    "\u0301",
    "中",
    "\U0001f3f3\ufe0f\u200d\U0001f308",
    "\x7f",
    "\x1b",
    "\x85",
    "\u2028",
    "\ufffd",
)
SURROGATES = ("\ud800", "\udfff", "\udcff", "\udc80", "\ud83d")


def hostile_query(rng: random.Random, *, surrogates: bool = False) -> str:
    """One query built from FTS5/SQL syntax, words, odd Unicode and control characters."""
    roll = rng.random()
    if roll < 0.15:
        return rng.choice(FIXED_QUERIES)
    if roll < 0.2:
        return rng.choice(_WORDS + _FTS_BITS) * rng.randint(500, 10_000)
    parts = []
    for _ in range(rng.randint(1, 12)):
        kind = rng.random()
        if kind < 0.4:
            parts.append(rng.choice(_FTS_BITS))
        elif kind < 0.75:
            parts.append(rng.choice(_WORDS))
        elif kind < 0.9:
            parts.append(rng.choice(_UNICODE))
        else:
            parts.append(chr(rng.randint(0, 0x2FFF)) if not surrogates else rng.choice(SURROGATES))
        parts.append(rng.choice(("", " ", " ", "  ")))
    text = "".join(parts)
    if not surrogates:
        text = "".join(ch for ch in text if not 0xD800 <= ord(ch) <= 0xDFFF)
    return text


_JUNK = (
    "",
    " ",
    "..",
    "../..",
    "/",
    "\\",
    "%",
    "_",
    "%_",
    "'",
    '"',
    "a'b",
    'a"b',
    ":",
    "a:b:c",
    "x=y",
    "\x00",
    "a\x00b",
    "*",
    "^",
    "NEAR",
    "' OR 1=1 --",
    "😀",
    "\u202e",
    "x" * 2_000,
    "NULL",
    "null",
    "0",
)
ENTITIES = (
    "service:checkout-api",
    "SERVICE:CHECKOUT-API",
    "person:Zoë",
    "a'b:c\"d",
    "x:%",
    "%:%",
    "_:_",
    "::",
    ":",
    "a:",
    ":b",
    "service:checkout-api\x00",
    "\x00",
    "service:%checkout%",
    "' OR 1=1 --:x",
)
FACETS = (
    "doc-type=runbook",
    "tier=1",
    "no-equals-sign",
    "a=b=c",
    "x=",
    "=y",
    "=",
    "==",
    "name= value with spaces ",
    "tier=1 OR 1=1",
    "%=%",
    "_=_",
    "a'b=c\"d",
    "n=\x00",
    "\x00=v",
    "Owner=Sanju",
    "tier==1",
)
AS_OF = (
    "2026-01-01",
    "2026-01-01T00:00:00Z",
    "not a date",
    "9999-99-99",
    "0000-00-00",
    "",
    "\x00",
    "2026-13-45T99:99:99Z",
    "' OR 1=1 --",
    "1e309",
    "-1",
    "😀",
    "x" * 500,
    "2026-02-30",
)
PARAS = ("projects", "areas", "resources", "archive", "junk", "", "..", "ARCHIVE", "\x00", "%", "projects/x")
TYPES = ("semantic", "procedural", "task", "arc", "bogus", "", "SEMANTIC", "task'", "\x00", "%", "episodic ")


def hostile_scope_kwargs(rng: random.Random) -> dict[str, Any]:
    """Keyword arguments for `Scope.build`, every value a string (or a list of strings) someone could send."""
    kwargs: dict[str, Any] = {}
    if rng.random() < 0.4:
        kwargs["memory_types"] = [rng.choice(TYPES) for _ in range(rng.randint(0, 4))]
    if rng.random() < 0.4:
        kwargs["workspace"] = rng.choice(_JUNK + ("checkout-api",))
    if rng.random() < 0.4:
        if rng.random() < 0.1:
            kwargs["tags"] = [f"t{i}" for i in range(rng.choice((1_000, 5_000)))]
        else:
            kwargs["tags"] = [rng.choice(_JUNK + ("deploy", "oncall")) for _ in range(rng.randint(0, 6))]
    if rng.random() < 0.4:
        kwargs["entity"] = rng.choice(ENTITIES + _JUNK)
    if rng.random() < 0.4:
        kwargs["facets"] = [rng.choice(FACETS) for _ in range(rng.randint(0, 5))]
    if rng.random() < 0.3:
        kwargs["as_of"] = rng.choice(AS_OF)
    if rng.random() < 0.3:
        kwargs["para"] = rng.choice(PARAS)
    if rng.random() < 0.3:
        kwargs["include_archived"] = rng.choice((True, False, "yes", 0, 1))
    return kwargs


@dataclass
class QueryOutcome:
    op: str
    ok: bool
    refused: bool = False  # Scope.build said no with a ValueError (a message, at the door)
    error: str = ""


def json_roundtrip(payload: Any) -> None:
    """Valid JSON a client can read: serialises, encodes as strict UTF-8, parses back equal."""
    text = json.dumps(payload, ensure_ascii=False)
    data = text.encode("utf-8")  # strict: a lone surrogate cannot be written to a pipe
    assert json.loads(data.decode("utf-8")) == json.loads(text)


def run_query_case(store, query: str, scope_kwargs: dict[str, Any], *, cursor: str | None = None) -> list[QueryOutcome]:
    """search, recall and list with one hostile input; each either works or is refused at Scope.build."""
    from memhtml_desktop.domain.types import Scope

    try:
        scope = Scope.build(**scope_kwargs)
    except ValueError as exc:
        return [QueryOutcome("scope", True, refused=True, error=str(exc))]
    outcomes = []
    for op in ("search", "recall", "list"):
        try:
            if op == "search":
                value = store.search(query, scope, limit=10)
                assert len(value.hits) <= 10
            elif op == "recall":
                value = store.recall(query, scope, limit=10)
            else:
                value = store.list(scope, limit=20, cursor=cursor)
            json_roundtrip(value.to_json())
            outcomes.append(QueryOutcome(op, True))
        except Exception as exc:  # noqa: BLE001 - the point is to catch everything
            outcomes.append(QueryOutcome(op, False, error=f"{type(exc).__name__}: {str(exc)[:200]}"))
    return outcomes
