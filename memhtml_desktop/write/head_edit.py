"""Edits of an existing file's head, spliced into its text: the article is never touched.

memhtml never re-serializes an existing file (`html/src/editors.ts`): it finds the `memhtml-`
metas and links the parser put in `<head>` and splices text at their source offsets, so the
content hash and every byte outside the edit stay put. lexbor gives no source offsets, so this
module scans the head's tags itself and then checks its findings against the parsed tree: the
same memhtml metas and links, in the same order, with the same values. When the two disagree (a
head only a browser could love: a meta inside a comment-like construct, a `<meta>` in `<body>`
that the parser hoisted) the edit is refused rather than guessed: `HeadNotEditable`.

Placement rules (write-paths §1.6):

* `set_meta`: replace the first meta of that name in place (canonical markup, rest of the line
  kept); else insert a line before the first memhtml meta that sorts after it in META_ORDER; else
  after the line of the last one that sorts at or before it; else before the `</head>` line.
* `add_link`: a no-op when the same rel token and href exist; else a line after the last memhtml
  link's line, else after the last memhtml meta's, else before `</head>`.
* `remove_link`: DELIBERATELY different from memhtml, which deletes every whole line holding a
  match and with it any neighbour on that line. Here only the element goes, and its line only
  when nothing but whitespace is left on it.

Inserted lines end in `\\n` even in a CRLF file, as memhtml's do.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from memhtml_desktop.domain.paths import normalize_path
from memhtml_desktop.html.constraints import read_head
from memhtml_desktop.html.tree import parse_html
from memhtml_desktop.html.vocabulary import META_NAMES, META_ORDER, META_PREFIX
from memhtml_desktop.write.markup import escape_attr

_ORDER = {name: i for i, name in enumerate(META_ORDER)}
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)")
_ATTR = re.compile(r"""\s*([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")
#: Elements the parser keeps in `<head>`; any other start tag (or text) starts the body.
_HEAD_TAGS = frozenset({"html", "head", "meta", "link", "title", "base", "style", "script", "noscript", "template"})
_RAW_END = {
    "title": "</title",
    "style": "</style",
    "script": "</script",
    "noscript": "</noscript",
    "template": "</template",
}


class HeadNotEditable(ValueError):
    """The head cannot be edited safely (its tags could not be located unambiguously)."""


@dataclass(frozen=True)
class Tag:
    kind: str  # "meta" or "link"
    key: str  # the meta name or the link rel token
    value: str  # content or href (character references decoded)
    start: int
    end: int


def _attributes(text: str, start: int, end: int) -> dict[str, str]:
    attrs: dict[str, str] = {}
    body = text[start:end]
    pos = 0
    while pos < len(body):
        match = _ATTR.match(body, pos)
        if not match or match.end() == pos:
            pos += 1
            continue
        name = match.group(1).lower()
        raw = next((g for g in match.groups()[1:] if g is not None), "")
        attrs.setdefault(name, html.unescape(raw))
        pos = match.end()
    return attrs


def _tag_end(text: str, pos: int) -> int:
    """Index just past the `>` closing the tag that starts before `pos` (quotes respected)."""
    quote = None
    while pos < len(text):
        ch = text[pos]
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == ">":
            return pos + 1
        pos += 1
    raise HeadNotEditable("a tag in the head is never closed")


def scan_head(text: str) -> tuple[list[Tag], int]:
    """The head's memhtml metas and links with their spans, and the offset of `</head>`."""
    tags: list[Tag] = []
    pos = 0
    while True:
        lt = text.find("<", pos)
        if lt < 0:
            raise HeadNotEditable("no </head> found")
        between = text[pos:lt]
        if between.strip() and tags:
            raise HeadNotEditable("text inside the head")
        if text.startswith("<!--", lt):
            close = text.find("-->", lt + 4)
            if close < 0:
                raise HeadNotEditable("an unclosed comment in the head")
            pos = close + 3
            continue
        if text.startswith("<!", lt) or text.startswith("<?", lt):
            pos = _tag_end(text, lt + 2)
            continue
        match = _TAG.match(text, lt)
        if not match:
            pos = lt + 1
            continue
        closing, name = match.group(1) == "/", match.group(2).lower()
        end = _tag_end(text, match.end())
        if closing:
            if name == "head":
                return tags, lt
            pos = end
            continue
        if name not in _HEAD_TAGS:
            raise HeadNotEditable(f"<{name}> before </head>")
        if name in ("meta", "link"):
            attrs = _attributes(text, match.end(), end - 1)
            if name == "meta" and attrs.get("name", "").startswith(META_PREFIX):
                tags.append(Tag("meta", attrs["name"], attrs.get("content", ""), lt, end))
            elif name == "link" and attrs.get("rel", "").startswith(META_PREFIX):
                tags.append(Tag("link", attrs["rel"], attrs.get("href", ""), lt, end))
        elif name in _RAW_END:
            close = text.lower().find(_RAW_END[name], end)
            if close < 0:
                raise HeadNotEditable(f"<{name}> is never closed")
            end = _tag_end(text, close)
        pos = end


def _verified(text: str) -> tuple[list[Tag], int]:
    """`scan_head`, checked against the WHATWG tree: the same memhtml metas and links in order."""
    tags, head_end = scan_head(text)
    tree = parse_html(text)
    head = read_head(tree)
    parsed_metas = [(n, v) for n, v in head.metas if n.startswith(META_PREFIX)]
    parsed_links = [(el.attrs.get("rel", ""), el.attrs.get("href", "")) for el in head.links
                    if el.attrs.get("rel", "").startswith(META_PREFIX)]  # fmt: skip
    scanned_metas = [(t.key, t.value) for t in tags if t.kind == "meta"]
    scanned_links = [(t.key, t.value) for t in tags if t.kind == "link"]
    if parsed_metas != scanned_metas or parsed_links != scanned_links:
        raise HeadNotEditable("its head could not be read unambiguously; edit it by hand")
    return tags, head_end


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_end(text: str, pos: int) -> int:
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def _insert_line(text: str, at: int, line: str) -> str:
    if at > 0 and text[at - 1] != "\n":  # after a last line with no newline of its own
        line = "\n" + line
    return text[:at] + line + "\n" + text[at:]


def meta_markup(name: str, value: str) -> str:
    return f'<meta name="{escape_attr(name)}" content="{escape_attr(value)}">'


def rel_token(rel: str) -> str:
    return META_PREFIX + rel.replace("_", "-")


def set_meta(text: str, name: str, value: str) -> str:
    if name not in META_NAMES:
        return text
    tags, head_end = _verified(text)
    metas = [t for t in tags if t.kind == "meta"]
    existing = next((t for t in metas if t.key == name), None)
    if existing is not None:
        return text[: existing.start] + meta_markup(name, value) + text[existing.end :]
    rank = _ORDER[name]
    after = next((t for t in metas if _ORDER.get(t.key, len(_ORDER)) > rank), None)
    if after is not None:
        return _insert_line(text, _line_start(text, after.start), meta_markup(name, value))
    before = [t for t in metas if _ORDER.get(t.key, len(_ORDER)) <= rank]
    if before:
        return _insert_line(text, _line_end(text, before[-1].end), meta_markup(name, value))
    return _insert_line(text, _line_start(text, head_end), meta_markup(name, value))


def get_meta(text: str, name: str) -> str | None:
    tags, _ = _verified(text)
    return next((t.value for t in tags if t.kind == "meta" and t.key == name), None)


def has_link(text: str, rel: str, href: str) -> bool:
    tags, _ = _verified(text)
    return any(t.kind == "link" and t.key == rel_token(rel) and t.value == href for t in tags)


def add_link(text: str, rel: str, href: str) -> str:
    tags, head_end = _verified(text)
    token = rel_token(rel)
    if any(t.kind == "link" and t.key == token and t.value == href for t in tags):
        return text
    line = f'<link rel="{escape_attr(token)}" href="{escape_attr(href)}">'
    links = [t for t in tags if t.kind == "link"]
    metas = [t for t in tags if t.kind == "meta"]
    if links:
        return _insert_line(text, _line_end(text, links[-1].end), line)
    if metas:
        return _insert_line(text, _line_end(text, metas[-1].end), line)
    return _insert_line(text, _line_start(text, head_end), line)


def remove_link(text: str, rel: str, dst_path: str) -> str:
    """Remove each `rel` link whose href names `dst_path` (compared as normalised paths).

    Only the element is removed; its line goes too when nothing but whitespace is left on it.
    """
    tags, _ = _verified(text)
    token = rel_token(rel)
    doomed = [t for t in tags if t.kind == "link" and t.key == token and normalize_path(t.value) == dst_path]
    for tag in sorted(doomed, key=lambda t: t.start, reverse=True):
        start, end = tag.start, tag.end
        line_start, line_end = _line_start(text, start), _line_end(text, end)
        if (text[line_start:start] + text[end:line_end]).strip() == "":
            start, end = line_start, line_end
        text = text[:start] + text[end:]
    return text


def add_repeated_meta(text: str, name: str, value: str) -> str:
    """Add one more value of a repeatable meta (`memhtml-entity`, `memhtml-tag`); a no-op when the
    same name and value is there. The line goes after the last meta of that name, else where
    `set_meta` would put a first one (META_ORDER)."""
    if name not in META_NAMES:
        return text
    tags, _ = _verified(text)
    metas = [t for t in tags if t.kind == "meta"]
    if any(t.key == name and t.value == value for t in metas):
        return text
    same = [t for t in metas if t.key == name]
    if same:
        return _insert_line(text, _line_end(text, same[-1].end), meta_markup(name, value))
    return set_meta(text, name, value)


def repoint_links(text: str, old_dst: str, new_href: str, *, skip_rels: frozenset[str] = frozenset()) -> str:
    """Every memhtml link whose href names `old_dst` (as a normalised path) now names `new_href`.

    The element is replaced in place, so the link keeps its place in the head; where the same rel
    already links to the new target the old element is removed instead (no duplicate). Rel tokens
    in `skip_rels` (as `memhtml-…` tokens) are left as they are.
    """
    tags, _ = _verified(text)
    new_dst = normalize_path(new_href)
    links = [t for t in tags if t.kind == "link"]
    present = {(t.key, normalize_path(t.value)) for t in links}
    for tag in sorted(links, key=lambda t: t.start, reverse=True):
        if normalize_path(tag.value) != old_dst or tag.key in skip_rels:
            continue
        if (tag.key, new_dst) in present:
            start, end = tag.start, tag.end
            line_start, line_end = _line_start(text, start), _line_end(text, end)
            if (text[line_start:start] + text[end:line_end]).strip() == "":
                start, end = line_start, line_end
            text = text[:start] + text[end:]
            continue
        text = (
            text[: tag.start] + f'<link rel="{escape_attr(tag.key)}" href="{escape_attr(new_href)}">' + text[tag.end :]
        )
        present.add((tag.key, new_dst))
    return text
