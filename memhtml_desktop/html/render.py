"""Safe HTML for the reader pane: an untrusted article re-emitted in Qt's rich-text subset.

Agents write memory files, so the article is hostile input. Nothing from the source is copied as
markup: every element is mapped through `_BLOCKS`/`_INLINES`/special cases to a tag *we* emit,
with no source attributes at all. The only attributes in the output are ones generated here: a
`style` from a fixed palette, and an `href` that passed `_safe_href`. So the output never holds
script, style, iframe, object, embed, img, svg, form, link, meta or base elements, event
handlers, class/id/style copied from input, src/srcset/background, data: URIs, or any URL Qt
would fetch by itself (QTextBrowser loads `<img>` through `loadResource`, so images become a text
placeholder). Links survive only as `memhtml:/<path>` for memory paths (the UI intercepts them)
or http/https/mailto (the UI asks before opening); the rest keep their text and lose the link.

The walk is iterative, so nesting depth cannot overflow the stack.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from urllib.parse import quote

from selectolax.lexbor import LexborHTMLParser, LexborNode

from memhtml_desktop.domain.paths import normalize_path
from memhtml_desktop.html import budget
from memhtml_desktop.html.constraints import is_root_relative_href
from memhtml_desktop.html.project import decode

MARK_STYLE = "background-color:#ffe58a; color:#000000;"
HIGHLIGHT_STYLE = "background-color:#d6e8ff; color:#000000;"  # explicit text colour: readable on a dark palette too
MUTED_STYLE = "color:#6b6b6b;"
ASIDE_STYLE = "color:#6b6b6b; font-style:italic;"

#: Elements whose whole subtree is dropped: active content, embedded documents, head matter.
_DROP = frozenset({
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "svg", "math",
    "template", "noscript", "noembed", "noframes", "head", "title", "meta", "link", "base",
    "canvas", "audio", "video", "source", "track", "picture", "map", "area", "input", "select",
    "textarea", "button", "param", "portal", "xmp", "plaintext", "selectedcontent",
})  # fmt: skip

#: Source tag -> the block tag we emit (Qt knows each of these).
_BLOCKS = {
    "p": "p", "ul": "ul", "ol": "ol", "li": "li", "dl": "dl", "dd": "dd", "pre": "pre",
    "table": "table", "thead": "thead", "tbody": "tbody", "tfoot": "tfoot", "tr": "tr",
    "td": "td", "th": "th", "blockquote": "blockquote", "h1": "h3", "h2": "h3", "h3": "h4",
    "h4": "h5", "h5": "h6", "h6": "h6", "section": "div", "article": "div", "figure": "div",
    "div": "div", "address": "div", "header": "div", "footer": "div", "main": "div", "nav": "div",
    "form": "div", "fieldset": "div", "center": "div", "listing": "pre",
}  # fmt: skip

#: Source tag -> the inline tag we emit; `None` keeps the children and drops the element.
_INLINES: dict[str, str | None] = {
    "strong": "b", "b": "b", "em": "i", "i": "i", "code": "code", "kbd": "kbd", "samp": "samp",
    "var": "var", "cite": "cite", "dfn": "i", "sub": "sub", "sup": "sup", "small": "small",
    "u": "u", "s": "s", "del": "s", "ins": "u", "tt": "code", "span": None, "data": None,
    "font": None, "label": None, "a": None, "abbr": None, "time": None, "q": None, "mark": None,
}  # fmt: skip

_VOIDS = {"br": "<br />", "hr": "<hr />", "wbr": ""}
_URL_NOISE = re.compile(r"[\x00-\x20\x7f]+")
_WEB_SCHEMES = ("http:", "https:", "mailto:")


READER_TEXT_CAP = 100_000
"""Characters of text the reader lays out. Past this a memory's article is cut (at a space) and a
note says how much is not shown: a 5 MB memory held QTextBrowser's layout on the GUI thread for a
quarter of a second to several seconds (bench/large_memory_bench.py), and a memory is one fact;
the whole file opens in the editor (docs/architecture.md, "Large memories")."""


def render_safe_html(data: bytes, *, highlight_terms: Sequence[str] = (), max_text: int = READER_TEXT_CAP) -> str:
    """The first `<article>` (or the body, when there is none) as inert Qt rich text, its text cut
    after `max_text` characters with a note of what was left out."""
    try:
        text = decode(data)
        try:
            budget.check(text)
        except budget.DocumentTooComplex as exc:
            return f'<p style="{MUTED_STYLE}">[this file is too complex to display: {escape(str(exc))}]</p>'
        parser = LexborHTMLParser(text, scripting=True)
        root = parser.css_first("article") or parser.body
        if root is None:
            return ""
        renderer = _Renderer(_highlighter(highlight_terms), max_text)
        out = renderer.render(root)
        if renderer.cut:
            shown = renderer.shown
            out += (
                f'<p style="{MUTED_STYLE}"><b>\u22ef Cut here:</b> the reader shows the first {shown:,} '
                f"characters of this memory's text; {renderer.cut:,} more are not shown "
                f"({shown + renderer.cut:,} in all). Open it in your editor for the whole of it.</p>"
            )
        return out
    except Exception as exc:  # noqa: BLE001 - the reader pane must show something, never crash
        return f'<p style="{MUTED_STYLE}">[unreadable: {escape(type(exc).__name__)}]</p>'


def _highlighter(terms: Sequence[str]) -> re.Pattern[str] | None:
    """Whole-word, case-insensitive alternation of the terms, longest first."""
    words = sorted({t.strip() for t in terms if t and t.strip()}, key=len, reverse=True)
    if not words:
        return None
    return re.compile(r"(?<!\w)(" + "|".join(map(re.escape, words)) + r")(?!\w)", re.IGNORECASE)


def _safe_href(href: str | None) -> str | None:
    """`memhtml:/path` for a memory path, the URL for http/https/mailto, otherwise None.

    Browsers ignore ASCII control characters and spaces inside a scheme (`java\\tscript:`), so
    they are removed before the scheme is judged.
    """
    if href is None:
        return None
    cleaned = _URL_NOISE.sub("", href)
    if cleaned.startswith("/") and not cleaned.startswith("//"):
        if not is_root_relative_href(cleaned):
            return None
        path = normalize_path(re.split(r"[?#]", cleaned, maxsplit=1)[0])
        return "memhtml:/" + quote(path, safe="/-._~")
    lowered = cleaned.lower()
    if lowered.startswith(_WEB_SCHEMES) and len(cleaned) <= 2048:
        return cleaned
    return None


def _children(node: LexborNode) -> list[LexborNode]:
    out = []
    child = node.first_child
    while child is not None:
        out.append(child)
        child = child.next
    return out


class _Renderer:
    def __init__(self, highlight: re.Pattern[str] | None, max_text: int = READER_TEXT_CAP) -> None:
        self.highlight = highlight
        self.out: list[str] = []
        self.room = max_text  # characters of text still to lay out
        self.shown = 0
        self.cut = 0  # characters of text left out past the cap

    def render(self, root: LexborNode) -> str:
        # The stack holds nodes to open and literal strings (closing tags) to emit.
        stack: list[LexborNode | str] = list(reversed(_children(root)))
        out = self.out
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            tag = item.tag
            if tag == "-text":
                out.append(self.text(self.within_cap(item.text_content or "")))
                continue
            if self.room <= 0 and item.is_element_node:  # past the cap: count the text, emit nothing
                self.cut += len(item.text(deep=True) or "")
                continue
            if not item.is_element_node or tag in _DROP:
                continue
            opening, closing, descend = self.element(item, tag)
            out.append(opening)
            stack.append(closing)
            if descend:
                stack.extend(reversed(_children(item)))
        return "".join(out)

    def within_cap(self, value: str) -> str:
        """`value`, or as much of it as the cap leaves room for, cut at a space and marked."""
        if self.room <= 0:
            self.cut += len(value)
            return ""
        if len(value) <= self.room:
            self.room -= len(value)
            self.shown += len(value)
            return value
        space = value.rfind(" ", 0, self.room)
        keep = space if space > 0 else self.room
        self.cut += len(value) - keep
        self.shown += keep
        self.room = 0
        return value[:keep] + " \u2026"

    def text(self, value: str) -> str:
        if self.highlight is None:
            return escape(value, quote=False)
        parts = []
        last = 0
        for match in self.highlight.finditer(value):
            parts.append(escape(value[last : match.start()], quote=False))
            parts.append(f'<span style="{HIGHLIGHT_STYLE}">{escape(match.group(0), quote=False)}</span>')
            last = match.end()
        parts.append(escape(value[last:], quote=False))
        return "".join(parts)

    def element(self, node: LexborNode, tag: str) -> tuple[str, str, bool]:
        """`(opening, closing, descend)` for one source element; all markup is ours."""
        attrs = node.attributes
        if tag in _VOIDS:
            return _VOIDS[tag], "", False
        if tag == "img":
            alt = (attrs.get("alt") or "").strip()
            label = f"[image: {alt}]" if alt else "[image]"
            return f'<span style="{MUTED_STYLE}">{escape(label, quote=False)}</span>', "", False
        if tag == "mark":
            return f'<span style="{MARK_STYLE}">', "</span>", True
        if tag == "a":
            href = _safe_href(attrs.get("href"))
            if href is None:
                return "", "", True
            return f'<a href="{escape(href, quote=True)}">', "</a>", True
        if tag == "q":
            return "\u201c", "\u201d", True
        if tag == "time":
            stamp = attrs.get("datetime")
            note = f' <span style="{MUTED_STYLE}">[{escape(stamp, quote=False)}]</span>' if stamp else ""
            return "", note, True
        if tag == "abbr":
            title = (attrs.get("title") or "").strip()
            note = f' <span style="{MUTED_STYLE}">({escape(title, quote=False)})</span>' if title else ""
            return "", note, True
        if tag == "dt":
            return "<dt><b>", "</b></dt>", True
        if tag == "details":
            return "<blockquote>", "</blockquote>", True
        if tag == "summary":
            return "<p><b>\u25be ", "</b></p>", True
        if tag == "aside":
            return f'<div style="{ASIDE_STYLE}"><b>Note:</b> ', "</div>", True
        if tag == "figcaption":
            return f'<p style="{MUTED_STYLE}"><i>', "</i></p>", True
        if tag == "caption":
            return "<tr><td><b>", "</b></td></tr>", True
        if tag in _BLOCKS:
            emitted = _BLOCKS[tag]
            return f"<{emitted}>", f"</{emitted}>", True
        if tag in _INLINES:
            emitted = _INLINES[tag]
            return ("", "", True) if emitted is None else (f"<{emitted}>", f"</{emitted}>", True)
        # Unknown element: keep its text, and keep a word boundary at its edges.
        return " ", " ", True
