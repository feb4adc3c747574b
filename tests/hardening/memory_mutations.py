"""Mutated real memories (item 1): the demo store's files broken the way agents and editors break them.

The byte/token mutator is the parser fuzzer's own (tests/html/fuzz_inputs.py); the rest are
memhtml-shaped edits. `check_memory` runs one input through every entry point and its invariants.
"""

from __future__ import annotations

import random
import re
import sys

from hardening_support import ROOT

_INTERNALS = ("Traceback", " object at 0x", "NoneType", "AttributeError", "KeyError", "IndexError", "TypeError")


def _fuzz_inputs():
    """tests/html/fuzz_inputs.py (the parser fuzzer's own mutator), importable from here and from the bench."""
    html_tests = str(ROOT / "tests" / "html")
    if html_tests not in sys.path:
        sys.path.insert(0, html_tests)
    import fuzz_inputs

    return fuzz_inputs


_DEMO_EDITS = (
    (b'content="', b'content="\x00'),
    (b'content="', b'content="\x1b[2J'),
    (b"<mark>", b"<mark><mark>"),
    (b"</mark>", b""),
    (b"<article>", b"<article><article>"),
    (b"</title>", b""),
    (b"<title>", b"<title><title>"),
    (b'name="memhtml-type"', b'name="memhtml-TYPE"'),
    (b'name="memhtml-', b'name="memhtml-\xff'),
    (b"<p>", b"<p onclick=x>"),
    (b"<p>", b"<aside><p>"),
    (b"\n", b"\r\n"),
    (b"<dl>", b"<dl><dt><dd><dt>"),
    (b'href="/', b'href="/../../'),
    (b'href="/', b'href="javascript:'),
    (b"<time", b"<time datetime=''"),
    (b"utf-8", b"latin-1"),
    (b"2026-", b"2026-13-"),
    (b'content="0.', b'content="1e309'),
    (b"</p>", b"</p>" * 50),
)


def demo_mutation(rng: random.Random, memories: list[tuple[str, bytes]]) -> tuple[str, bytes]:
    """One real demo-store memory, broken the way agents and editors break files.

    Half the time the parser fuzzer's byte/token mutator (tests/html/fuzz_inputs.mutate); otherwise
    targeted edits of memhtml structure (doubled claims, stray control bytes in metas, CRLF, a cut at
    a random point, a BOM, a re-encoding to UTF-16, deep nesting around the article).
    """
    path, data = rng.choice(memories)
    roll = rng.random()
    if roll < 0.5:
        return path, _fuzz_inputs().mutate(rng, data)
    out = data
    for _ in range(rng.randint(1, 4)):
        old, new = rng.choice(_DEMO_EDITS)
        out = out.replace(old, new, rng.choice((1, -1)))
    if roll < 0.6:
        out = out[: rng.randint(0, len(out))]
    elif roll < 0.65:
        out = b"\xef\xbb\xbf" + out
    elif roll < 0.7:
        out = out.decode("utf-8", "replace").encode("utf-16")
    elif roll < 0.75:
        depth = rng.choice((100, 1000, 5000))
        out = out.replace(b"<article>", b"<div>" * depth + b"<article>", 1)
    return path, out


def unreadable_violation(violation: object) -> str | None:
    """Why a violation would not help a person (None: it reads as a sentence about the file)."""
    if not isinstance(violation, str):
        return f"not text: {type(violation).__name__}"
    if not violation.strip():
        return "empty"
    if any(marker in violation for marker in _INTERNALS) and not violation.startswith("unreadable:"):
        return "leaks an internal error"
    if (
        violation.startswith("unreadable:")
        and "start tags" not in violation
        and "nests too deeply" not in violation
        and "too large" not in violation
    ):
        return "an internal error contained by project()"
    return None


def check_memory(path: str, data: bytes, *, render: bool) -> tuple[bool, list[str]]:
    """project + read_document (+ render) on one input; (accepted, violations). Raises on a broken invariant."""
    from memhtml_desktop.html.detail import read_document
    from memhtml_desktop.html.project import TABLES, project
    from memhtml_desktop.html.render import render_safe_html

    result = project(path, data, "2026-09-01T00:00:00Z")
    if result.ok:
        assert not result.violations and tuple(result.tables) == TABLES and len(result.tables["files"]) == 1
    else:
        assert result.violations, "a rejected file must say why"
        bad = [(v, unreadable_violation(v)) for v in result.violations if unreadable_violation(v)]
        assert not bad, bad
    read_document(path, data)
    if render:
        html = render_safe_html(data, highlight_terms=("deploy",)).lower()
        # Tags and attributes, not text: a file re-encoded as UTF-16 shows its markup as escaped text.
        assert "<script" not in html and "<img" not in html  # text is escaped: '<' opens only real tags
        for tag in re.findall(r"<[a-z][^>]*>", html):  # every tag is the renderer's: style and href only
            assert not re.search(r"\s(?!style=|href=)[a-z-]+=", tag) and "javascript:" not in tag, tag
    return result.ok, list(result.violations)
