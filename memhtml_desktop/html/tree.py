"""One pass over a selectolax tree into a flat, index-addressable document.

Every later step (constraints, canonical text, the hash, extraction) reads this flat form instead
of walking selectolax nodes again, because each selectolax node access crosses into C and builds a
Python object. One walk per file, not one per question, is what keeps parse + project of a typical
2 KB memory well under half a millisecond.

The flat form:

- `elements`: every element in document order (`elementsOf(document)` in memhtml). Each knows its
  subtree as an element range `[index, end)` and a token range `[tok_start, tok_end)`.
- `tokens`: the document's text in order, with a collapsible `" "` at both edges of every
  non-inline element. An element's own edge spaces are the first and last tokens of its range,
  so "the text inside this `<pre>`" or "everything inside this `<code>`" is a token range too;
  that is how the hash's verbatim mode and the gist's code exclusion are computed (`canonical.py`)
  without tagging every token.

Parsing matches parse5 (memhtml's parser) as configured upstream: scripting enabled, so
`<noscript>` content is one raw text node; `<template>` content is a separate fragment and is not
walked; comments and doctypes contribute nothing.
"""

from __future__ import annotations

from bisect import bisect_left

from selectolax.lexbor import LexborHTMLParser, LexborNode

from memhtml_desktop.html import budget
from memhtml_desktop.html.budget import MAX_START_TAGS, DocumentTooComplex  # noqa: F401  (the parser's limits)
from memhtml_desktop.html.vocabulary import INLINE_ELEMENTS

#: Ancestor bits, recorded when an element opens; `hasAncestor` without walking up.
IN_FIGURE = 1
IN_ASIDE = 2
IN_DETAILS = 4

#: Elements whose direct text children are kept, for memhtml's `textOf` (title emptiness and the
#: `<time>` violation message). `<dl>` elements keep their element children, for facets.
_KEEP_TEXT = frozenset({"title", "time"})
_BOUNDARY = " "

try:  # selectolax >= 1.0: suppress DOM mutation side effects such as <selectedcontent> cloning.
    from selectolax.lexbor import LexborDocumentOptions

    _OPTIONS = int(LexborDocumentOptions.WO_EVENTS.value)
except (ImportError, AttributeError):  # pragma: no cover - older selectolax
    _OPTIONS = 0


class Element:
    """One element of the flat document. Plain slots: thousands are built per second.

    `attrs` maps lowercased attribute names to values as written (`""` for a valueless one).
    `ancestors` holds the `IN_*` bits of its ancestors, the element itself excluded.
    """

    __slots__ = (
        "tag", "attrs", "index", "end", "parent", "tok_start", "tok_end", "ancestors",
        "children", "texts",
    )  # fmt: skip

    def __init__(
        self, tag: str, attrs: dict[str, str], index: int, parent: Element | None,
        tok_start: int, ancestors: int,
    ) -> None:  # fmt: skip
        self.tag = tag
        self.attrs = attrs
        self.index = index
        self.end = index + 1
        self.parent = parent
        self.tok_start = tok_start
        self.tok_end = tok_start
        self.ancestors = ancestors
        self.children: list[Element] | None = None
        self.texts: list[str] | None = None

    def contains(self, other: Element) -> bool:
        """True when `other` is this element or one of its descendants."""
        return self.index <= other.index < self.end

    def direct_text(self) -> str:
        return "".join(self.texts or ())

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"<{self.tag} #{self.index}>"


class Tree:
    """The flat document. See the module docstring for the invariants."""

    __slots__ = ("elements", "by_tag", "tokens")

    def __init__(self) -> None:
        self.elements: list[Element] = []
        self.by_tag: dict[str, list[Element]] = {}
        self.tokens: list[str] = []

    def named(self, tag: str) -> list[Element]:
        return self.by_tag.get(tag, [])

    def named_within(self, root: Element, *tags: str) -> list[Element]:
        """`elementsNamed(root, ...tags)`: root included, document order.

        `by_tag` lists are in document order and a subtree is an index range, so each lookup is
        two bisections, not a scan: a hostile file with thousands of `<dd>`s stays linear.
        """
        found: list[Element] = []
        for tag in tags:
            bucket = self.by_tag.get(tag)
            if bucket:
                lo = bisect_left(bucket, root.index, key=_index)
                hi = bisect_left(bucket, root.end, lo, key=_index)
                found += bucket[lo:hi]
        if len(tags) > 1:
            found.sort(key=_index)
        return found

    def first(self, tag: str) -> Element | None:
        found = self.by_tag.get(tag)
        return found[0] if found else None


def _index(el: Element) -> int:
    return el.index


def parse_html(text: str) -> Tree:
    """Parse a decoded memory file with lexbor and flatten it.

    Raises:
        DocumentTooComplex: past one of the parse budget's limits (`budget.check`): checked first,
            so a file that would take lexbor minutes costs a few counts instead.
    """
    budget.check(text)
    parser = LexborHTMLParser(text, scripting=True, options=_OPTIONS)
    return flatten(parser.root)


def flatten(root: LexborNode | None) -> Tree:
    """Walk from the `<html>` element, iteratively, so nesting depth cannot overflow the stack.

    This loop is the hot path of indexing (about 1 µs per node), so it is written flat: locals
    instead of attribute lookups, no helper calls per node, ancestor counters as plain ints.
    """
    tree = Tree()
    if root is None:
        return tree
    elements = tree.elements
    by_tag = tree.by_tag
    tokens = tree.tokens
    append_token = tokens.append
    inline = INLINE_ELEMENTS
    keep_text = _KEEP_TEXT
    figures = asides = details = 0

    node_stack: list[LexborNode] = []  # open selectolax nodes; `parent` chains the open Elements
    parent: Element | None = None
    node: LexborNode | None = root
    while True:
        tag = node.tag
        if tag == "-text":
            value = node.text_content or ""
            append_token(value)
            if parent.tag in keep_text:  # type: ignore[union-attr]
                if parent.texts is None:  # type: ignore[union-attr]
                    parent.texts = [value]  # type: ignore[union-attr]
                else:
                    parent.texts.append(value)  # type: ignore[union-attr]
        elif not tag or tag[0] == "-":  # comment, doctype, lexbor processing instruction (None)
            pass
        else:
            attrs = node.attributes
            if attrs and None in attrs.values():
                attrs = {k: ("" if v is None else v) for k, v in attrs.items()}
            el = Element(
                tag, attrs, len(elements), parent, len(tokens),
                (IN_FIGURE if figures else 0) | (IN_ASIDE if asides else 0)
                | (IN_DETAILS if details else 0),
            )  # fmt: skip
            elements.append(el)
            bucket = by_tag.get(tag)
            if bucket is None:
                by_tag[tag] = [el]
            else:
                bucket.append(el)
            if parent is not None and parent.tag == "dl":
                if parent.children is None:
                    parent.children = [el]
                else:
                    parent.children.append(el)
            block = tag not in inline
            if block:
                append_token(_BOUNDARY)
                if tag == "figure":
                    figures += 1
                elif tag == "aside":
                    asides += 1
                elif tag == "details":
                    details += 1
            child = node.first_child
            if child is not None:
                node_stack.append(node)
                parent = el
                node = child
                continue
            if block:
                append_token(_BOUNDARY)
                if tag == "figure":
                    figures -= 1
                elif tag == "aside":
                    asides -= 1
                elif tag == "details":
                    details -= 1
            el.tok_end = len(tokens)
            if not node_stack:
                return tree
        # Advance to the next sibling, closing every element whose children are exhausted.
        while True:
            nxt = node.next
            if nxt is not None:
                node = nxt
                break
            node = node_stack.pop()
            closed = parent
            tag = closed.tag  # type: ignore[union-attr]
            if tag not in inline:
                append_token(_BOUNDARY)
                if tag == "figure":
                    figures -= 1
                elif tag == "aside":
                    asides -= 1
                elif tag == "details":
                    details -= 1
            closed.tok_end = len(tokens)  # type: ignore[union-attr]
            closed.end = len(elements)  # type: ignore[union-attr]
            if not node_stack:
                return tree
            parent = closed.parent  # type: ignore[union-attr]
