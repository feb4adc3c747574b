"""Canonical text and the content hash (`html/src/hash.ts`, spec §3.1 and §4).

`canonical(root)` is memhtml's text of a subtree: text nodes in document order, a collapsible
space at both edges of every non-inline element (the root included), ASCII whitespace runs
collapsed outside `<pre>`, kept verbatim inside, and one space trimmed at the very start and end
only where that edge is collapsible. The content hash is `sha256:` + hex over its UTF-8 bytes,
taken over the first `<article>`, so edits to metas, the title or links never move it.

Every *text field* (title, gist, body, facet names...) is `collapse(canonical(x))`. Because
`collapse` re-collapses ASCII whitespace everywhere and JS-trims, the `<pre>` distinction and the
single-space edge trims cannot survive it, so text fields take the shortcut `collapse(raw)` over
the joined tokens. Only the hash needs the segment machinery.
"""

from __future__ import annotations

import hashlib
import re

from memhtml_desktop.html.jsnum import ASCII_SPACE_RUN, JS_WHITESPACE, collapse, squeeze_edges_trimmed
from memhtml_desktop.html.tree import Element, Tree
from memhtml_desktop.html.vocabulary import INLINE_ELEMENTS

HASH_PREFIX = "sha256:"
_VERBATIM_RUN = re.compile(b"\x01+")


def text_of(tree: Tree, el: Element) -> str:
    """`collapse(canonical(el))`: the value of every text column and every extracted text."""
    return collapse("".join(tree.tokens[el.tok_start : el.tok_end]))


def text_excluding_code(tree: Tree, el: Element) -> str:
    """`collapse(canonical(el, excludeCode))`: the gist rule, skipping `<pre>`/`<code>` subtrees.

    A skipped subtree is a token range that includes a `<pre>`'s own edge spaces, so
    `a<pre>x</pre>b` gives `ab`, as memhtml's segment walk does.
    """
    start, stop = el.tok_start, el.tok_end
    tokens = tree.tokens
    skipped = tree.named_within(el, "pre", "code")  # the root too, as memhtml's walk does
    if not skipped:
        raw = "".join(tokens[start:stop])
    else:
        parts = []
        at = start
        for sub in skipped:
            if sub.tok_start >= at:  # nested pre/code inside a skipped one is already covered
                parts.append("".join(tokens[at : sub.tok_start]))
                at = sub.tok_end
        parts.append("".join(tokens[at:stop]))
        raw = "".join(parts)
    return collapse(raw)


def _verbatim_mask(tree: Tree, root: Element, pres: list[Element]) -> bytearray:
    """1 for each text token of the subtree with a `<pre>` ancestor-or-self inside the subtree.

    Edge spaces always collapse, including the `<pre>`'s own and those of elements inside it.
    """
    base = root.tok_start
    mask = bytearray(root.tok_end - base)
    for pre in pres:
        mask[pre.tok_start + 1 - base : pre.tok_end - 1 - base] = b"\x01" * (pre.tok_end - pre.tok_start - 2)
    inline = INLINE_ELEMENTS
    for pre in pres:
        for inner in tree.elements[pre.index + 1 : pre.end]:
            if inner.tag not in inline:
                mask[inner.tok_start - base] = 0
                mask[inner.tok_end - 1 - base] = 0
    return mask


def canonical(tree: Tree, el: Element) -> str:
    """The exact string memhtml hashes for the subtree rooted at `el` (code included)."""
    start, stop = el.tok_start, el.tok_end
    tokens = tree.tokens
    pres = tree.named_within(el, "pre")
    if not pres:
        return squeeze_edges_trimmed("".join(tokens[start:stop]))
    # Alternate collapsible and verbatim runs; the mask's runs of 1s are the verbatim ones.
    segments: list[tuple[bool, str]] = []
    at = 0
    for run in _VERBATIM_RUN.finditer(_verbatim_mask(tree, el, pres)):
        if run.start() > at:
            segments.append((False, "".join(tokens[start + at : start + run.start()])))
        segments.append((True, "".join(tokens[start + run.start() : start + run.end()])))
        at = run.end()
    if start + at < stop:
        segments.append((False, "".join(tokens[start + at : stop])))
    last = len(segments) - 1
    rendered = []
    for index, (verbatim, text) in enumerate(segments):
        if not verbatim:
            text = ASCII_SPACE_RUN.sub(" ", text)
            if index == 0 and text.startswith(" "):
                text = text[1:]
            if index == last and text.endswith(" "):
                text = text[:-1]
        rendered.append(text)
    return "".join(rendered)


def digest(text: str) -> str:
    """`sha256:<64 lowercase hex>` over the UTF-8 bytes of `text`."""
    return HASH_PREFIX + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def content_hash(tree: Tree, article: Element) -> str:
    """The dedup key: the digest of the first article's canonical text."""
    return digest(canonical(tree, article))


def body_and_hash(tree: Tree, article: Element) -> tuple[str, str]:
    """`(body_text, content_hash)` of an article, sharing the one collapse when it has no `<pre>`.

    Without `<pre>` the canonical string is the collapsed text minus one edge space at each end,
    and `body_text` is the same collapsed text JS-trimmed; the article is the biggest text of the
    file, so collapsing it once matters.
    """
    if tree.named_within(article, "pre"):
        return text_of(tree, article), content_hash(tree, article)
    canonical_text = squeeze_edges_trimmed("".join(tree.tokens[article.tok_start : article.tok_end]))
    return canonical_text.strip(JS_WHITESPACE), digest(canonical_text)
