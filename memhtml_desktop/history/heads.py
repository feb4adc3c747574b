"""What the listing needs from a memory's bytes, read fast: its title, its session, its links.

The inbox classifies thousands of changes (an edit, a link added, a task's status) by comparing a
file's head before and after, so it cannot afford a full parse per version (`html/detail.py`
costs ~0.5 ms a file). `head_facts` splits the bytes at `</head>` and reads, only when asked and
with a few regular expressions over the head: the `<title>`, the `<meta name content>` and
`<link rel href>` elements whose name or rel starts with `memhtml-`. What a version does not
hold is not looked for (no `memhtml-session` in the bytes: no session, without a parse). A file
that is not HTML gives an empty head, never an error. The detail of one change (the claim before
and after) is read with the real parser (`detail.py`).
"""

from __future__ import annotations

import html
import re
from functools import cached_property

_HEAD_END = re.compile(rb"</head\s*>", re.IGNORECASE)
_TITLE = re.compile(rb"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(rb"<(meta|link)\b([^>]*)>", re.IGNORECASE)
_CANONICAL = re.compile(rb'\s+(name|rel)="([^"]*)"\s+(content|href)="([^"]*)"\s*/?')
_ATTR = re.compile(rb"""([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?""")
_SPACE = re.compile(r"\s+")
#: The metas the listing asks for by name, found at once in memhtml's own form (a head written
#: otherwise is parsed whole).
_META_VALUE = {name: re.compile(rb'<meta\s+name="' + name.encode() + rb'"\s+content="([^"]*)"', re.IGNORECASE)
               for name in ("memhtml-session", "memhtml-task-status")}  # fmt: skip
HEAD_LIMIT = 256 * 1024


def _text(raw: bytes) -> str:
    return html.unescape(raw.decode("utf-8", "replace")) if b"&" in raw else raw.decode("utf-8", "replace")


def _attrs(raw: bytes) -> dict[bytes, bytes]:
    """A tag's attributes: memhtml's own form (`name="…" content="…"`) at once, any other by parts."""
    fast = _CANONICAL.fullmatch(raw)
    if fast is not None:
        return {fast.group(1).lower(): fast.group(2), fast.group(3).lower(): fast.group(4)}
    found: dict[bytes, bytes] = {}
    for match in _ATTR.finditer(raw):
        value = next((g for g in match.group(2, 3, 4) if g is not None), b"")
        found.setdefault(match.group(1).lower(), value)
    return found


class HeadFacts:
    """One version of a memory file: its head read lazily, its article as bytes."""

    __slots__ = ("head", "article", "__dict__")

    def __init__(self, head: bytes = b"", article: bytes = b"") -> None:
        self.head = head
        self.article = article

    @cached_property
    def title(self) -> str:
        match = _TITLE.search(self.head)
        return _SPACE.sub(" ", _text(match.group(1))).strip() if match else ""

    @cached_property
    def _tags(self) -> tuple[tuple[tuple[str, str], ...], frozenset[tuple[str, str]]]:
        metas: list[tuple[str, str]] = []
        links: set[tuple[str, str]] = set()
        if b"memhtml-" not in self.head:
            return (), frozenset()
        for match in _TAG.finditer(self.head):
            attrs = _attrs(match.group(2))
            if match.group(1).lower() == b"meta":
                name = attrs.get(b"name", b"")
                if name.startswith(b"memhtml-"):
                    metas.append((_text(name), _text(attrs.get(b"content", b""))))
            else:
                rel = attrs.get(b"rel", b"")
                if rel.startswith(b"memhtml-"):
                    links.add((_text(rel[8:]).replace("-", "_"), _text(attrs.get(b"href", b""))))
        return tuple(metas), frozenset(links)

    @property
    def metas(self) -> tuple[tuple[str, str], ...]:
        """The `memhtml-` metas, in order."""
        return self._tags[0]

    @property
    def links(self) -> frozenset[tuple[str, str]]:
        """The `memhtml-` links as (rel without the prefix, in underscore form, href)."""
        return self._tags[1]

    def meta(self, name: str) -> str | None:
        if name.encode() not in self.head:
            return None
        fast = _META_VALUE.get(name)
        found = fast.search(self.head) if fast is not None else None
        if found is not None:
            return _text(found.group(1))
        for key, value in self.metas:
            if key == name:
                return value
        return None

    @property
    def session(self) -> str | None:
        value = (self.meta("memhtml-session") or "").strip()
        return value or None

    @property
    def task_status(self) -> str | None:
        return self.meta("memhtml-task-status")

    def supersedes(self) -> set[str]:
        """The paths this memory says it supersedes (hrefs as store paths)."""
        if b"memhtml-supersedes" not in self.head:
            return set()
        return {href.strip().lstrip("/") for rel, href in self.links if rel == "supersedes" and href.strip()}

    def metas_but(self, *names: str) -> tuple[tuple[str, str], ...]:
        return tuple(m for m in self.metas if m[0] not in names)


EMPTY = HeadFacts()


def head_facts(data: bytes | None) -> HeadFacts:
    """The head of one version of a memory file (empty for None or for bytes that hold no head)."""
    if not data:
        return EMPTY
    end = _HEAD_END.search(data, 0, HEAD_LIMIT)
    if end is None:
        return HeadFacts(b"", data)
    return HeadFacts(data[: end.start()], data[end.end() :])
