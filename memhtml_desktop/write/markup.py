"""`--article-html` as memhtml stores it: parsed as a fragment in `<article>` context, re-serialized.

memhtml parses the caller's markup with parse5 (a WHATWG tree builder) in `<article>` context and
serializes the tree back (`html/src/serialize.ts`). The stored bytes are therefore canonical:
attributes sorted by name and double-quoted, void elements without an end tag, implied end tags
written, comments kept, raw-text elements unescaped, and a `<pre>`/`<textarea>`/`<listing>` whose
first text begins with a newline gets one more, so the blank line the author typed survives the
parser eating one on the next read. The whole result is JS-trimmed.

selectolax's lexbor builds the same WHATWG tree (store-format §2.1); this module only walks it.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

from memhtml_desktop.html import budget
from memhtml_desktop.html.jsnum import js_trim
from memhtml_desktop.write.errors import InvalidMemory

VOID_ELEMENTS = frozenset({
    "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input",
    "keygen", "link", "meta", "param", "source", "track", "wbr",
})  # fmt: skip
#: Text inside these is written as is (scripting on, as memhtml's parser runs: `noscript` too).
RAW_TEXT_ELEMENTS = frozenset({"style", "script", "xmp", "iframe", "noembed", "noframes", "plaintext", "noscript"})
LEADING_NEWLINE_ELEMENTS = frozenset({"pre", "textarea", "listing"})


def escape_text(text: str) -> str:
    """Text content as the serializer writes it: `& < >` and NBSP."""
    return text.replace("&", "&amp;").replace("\u00a0", "&nbsp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_attr(value: str) -> str:
    """An attribute value inside double quotes: `& "` and NBSP (never `< >`)."""
    return value.replace("&", "&amp;").replace("\u00a0", "&nbsp;").replace('"', "&quot;")


def canonical_article(markup: str) -> str:
    """The bytes memhtml stores between `<article>\\n` and `\\n</article>` for this markup."""
    try:  # lexbor would take minutes over markup past the parse budget, and the index refuse its file
        budget.check(markup)
    except budget.DocumentTooComplex as exc:
        raise InvalidMemory(f"the article is too complex for a memory file: {exc}") from None
    parser = LexborHTMLParser(markup, is_fragment=True, fragment_tag="article", scripting=True)
    out: list[str] = []
    for node in parser.root.iter(include_text=True):
        _serialize(node, out, raw=False)
    return js_trim("".join(out))


def _serialize(node: LexborNode, out: list[str], *, raw: bool) -> None:
    tag = node.tag
    if tag == "-text":
        text = node.text_content or ""
        out.append(text if raw else escape_text(text))
        return
    if tag == "-comment":
        out.append(node.html or "")
        return
    if tag is None or tag.startswith("-") or tag.startswith("_"):
        return  # doctype or processing instruction: nothing a fragment keeps
    if tag == "template":
        out.append(node.html or "")  # its content is a separate fragment; lexbor writes it whole
        return
    attrs = node.attributes
    out.append("<" + tag)
    for name in sorted(attrs):
        value = attrs[name]
        out.append(f' {name}="{escape_attr(value if value is not None else "")}"')
    out.append(">")
    if tag in VOID_ELEMENTS:
        return
    children = list(node.iter(include_text=True))
    if tag in LEADING_NEWLINE_ELEMENTS and children and children[0].tag == "-text":
        if (children[0].text_content or "").startswith("\n"):
            out.append("\n")
    child_raw = tag in RAW_TEXT_ELEMENTS
    for child in children:
        _serialize(child, out, raw=child_raw)
    out.append(f"</{tag}>")
