"""The work a memory file may ask of the parser: bounds that hold in time, not only in size.

A file under the 8 MB cap can still cost lexbor minutes. Measured (selectolax 0.4 / lexbor,
`bench/parse_budget.py`), the costs that grow faster than the file are all lexbor's own; our flat
walk (`tree.flatten`) and the projection stay linear:

* nesting: tree construction walks the stack of open elements (scope checks) for every start tag,
  so it is quadratic in depth (~0.8 s at 20,000 nested `<div>`s, minutes at 200,000);
* attributes on one element: each new attribute is compared with those already on the element
  (the duplicate-attribute rule), quadratic in the element's attributes (10,000: 0.3 s, 20,000:
  2.4 s; end tags too, they carry attributes for the tokenizer);
* distinct attribute names in a document: every name is interned in one document-wide table that
  does not grow with it (25,000 elements with 4 names each of their own: 3.8 s, with 8: 27 s).

So a file is measured before it is parsed (`check`), with plain counts and two regular
expressions that mirror the tokenizer's tag and attribute states, and refused
(`DocumentTooComplex`, "unreadable: ..." under Problems, saying which bound) past any of the
limits below. At the limits lexbor takes well under a second (`bench/parse_budget.py`). A memory is
one fact: the 42 golden files carry at most 3 attributes on an element and 68 in all.

The counts over-approximate, never under-approximate, what lexbor will build: a `<p a b>` inside a
comment, a `<script>` or a `<title>` counts though the tokenizer reads it as text. A file is only
refused for such text when it would also be pathological as markup (a thousand attribute-like
words after a `<p` with no `>`). The parse worker's CPU limit (index/parse_pool.py) is the
backstop for any cost these counts do not foresee.
"""

from __future__ import annotations

import re

#: Start tags (`<` and a letter) a memory file may have: bounds the quadratic nesting cost.
MAX_START_TAGS = 25_000
#: Attributes one element (or end tag) may carry: bounds lexbor's duplicate-attribute check.
MAX_ELEMENT_ATTRIBUTES = 1_000
#: Attributes a whole file may carry: bounds the element check summed over elements.
MAX_ATTRIBUTES = 50_000
#: Distinct attribute names (as written, so `A` and `a` count twice) a file may use.
MAX_ATTRIBUTE_NAMES = 10_000

_START_TAG = re.compile(r"<[A-Za-z]")
# A tag whose name is followed by at least one attribute (the HTML tokenizer's tag name state,
# then the before-attribute-name state). Tags without one (`<p>`, `</p>`) are skipped in C.
_TAG_WITH_ATTRIBUTE = re.compile(r"</?([A-Za-z][^\t\n\f\r />]*+)(?=[\t\n\f\r /]+[^\t\n\f\r />])")
# One attribute, as the tokenizer reads it: separators, a name (its first character may be `=`), then
# an optional value, quoted (to the closing quote, or the end of the file) or not (to whitespace or
# `>`). A tag ends where this stops matching: at its `>` or at the end of the file. Atomic, so a
# failed repeat never backtracks into a name to split it into more attributes.
_ONE = (
    r"""(?>[\t\n\f\r /]*+([^\t\n\f\r />][^\t\n\f\r />=]*+)"""
    r"""(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:"[^"]*+"?|'[^']*+'?|[^\t\n\f\r >]*+))?)"""
)
_ATTRIBUTE = re.compile(_ONE)
_ATTRIBUTES = re.compile(f"{_ONE}*+")
_TOO_MANY = re.compile(f"{_ONE}{{{MAX_ELEMENT_ATTRIBUTES + 1}}}")
_CROWDED_TAG = re.compile(r"</?([A-Za-z][^\t\n\f\r />]*+)" + _ONE + f"{{{MAX_ELEMENT_ATTRIBUTES + 1}}}")
_TAG_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}")


class DocumentTooComplex(ValueError):
    """Parsing the file could take minutes: it is past one of this module's limits (the message says which)."""


def check(text: str) -> None:
    """Refuse a decoded file whose parse would cost more than the limits allow; cheap for a memory.

    Raises:
        DocumentTooComplex: past a limit; the message names it, in the Problems pane's words.
    """
    if text.count("<") > MAX_START_TAGS:
        tags = sum(1 for _ in _START_TAG.finditer(text))
        if tags > MAX_START_TAGS:
            raise DocumentTooComplex(f"{tags} start tags, more than the {MAX_START_TAGS} a memory file may have")
    # Every attribute takes two characters at least (one before it, its name's first), so a short
    # file is under every limit (a typical memory, 2 KB), and one of up to 20,000 characters is
    # under the file-wide ones: only a tag past the element limit could refuse it, and one search
    # for such a tag (in C, ~25 us for 2-3 KB) tells.
    if len(text) <= 2 * MAX_ELEMENT_ATTRIBUTES:
        return
    if len(text) <= 2 * min(MAX_ATTRIBUTES, MAX_ATTRIBUTE_NAMES):
        crowded = _CROWDED_TAG.search(text)
        if crowded is not None:
            raise _too_many_on_one(crowded.group(1))
        return
    _count_attributes(text)


def _count_attributes(text: str) -> None:
    """Each tag with attributes: its attribute list matched to its end, then its names found, both
    in C (a memory's few dozen tags cost microseconds; the Python work is per tag, not per attribute)."""
    total = 0
    names: set[str] = set()
    search, to_end, over, find = _TAG_WITH_ATTRIBUTE.search, _ATTRIBUTES.match, _TOO_MANY.match, _ATTRIBUTE.findall
    at = 0
    while (tag := search(text, at)) is not None:
        start = tag.end()
        at = to_end(text, start).end()  # type: ignore[union-attr]  (matches the empty list too)
        if at - start > 2 * MAX_ELEMENT_ATTRIBUTES and over(text, start, at) is not None:
            raise _too_many_on_one(tag.group(1))
        found = find(text, start, at)
        total += len(found)
        names.update(found)
        if total > MAX_ATTRIBUTES:
            raise DocumentTooComplex(f"more than {MAX_ATTRIBUTES} attributes (a memory file may have {MAX_ATTRIBUTES})")
        if len(names) > MAX_ATTRIBUTE_NAMES:
            raise DocumentTooComplex(
                f"more than {MAX_ATTRIBUTE_NAMES} different attribute names (a memory file may use {MAX_ATTRIBUTE_NAMES})"
            )


def _too_many_on_one(name: str) -> DocumentTooComplex:
    """`<p>` for a plain tag name; a name an agent made up of anything else is not echoed."""
    lowered = name.lower()
    element = f"<{lowered}>" if _TAG_NAME.fullmatch(lowered) else "element"
    return DocumentTooComplex(
        f"more than {MAX_ELEMENT_ATTRIBUTES} attributes on one {element} "
        f"(an element of a memory file may have {MAX_ELEMENT_ATTRIBUTES})"
    )
