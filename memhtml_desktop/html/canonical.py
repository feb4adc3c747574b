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

from memhtml_desktop.html.jsnum import ASCII_SPACE_RUN, JS_WHITESPACE
from memhtml_desktop.html.tree import Element, Tree

HASH_PREFIX = "sha256:"


def text_of(tree: Tree, el: Element) -> str:
    """`collapse(canonical(el))`: the value of every text column and every extracted text."""
    raw = "".join(tree.tokens[el.tok_start : el.tok_end])
    return ASCII_SPACE_RUN.sub(" ", raw).strip(JS_WHITESPACE)


def text_excluding_code(tree: Tree, el: Element) -> str:
    """`collapse(canonical(el, excludeCode))`: the gist rule, skipping `<pre>`/`<code>` subtrees.

    A token is inside such a subtree of `el` when its code depth exceeds the depth at `el`'s start;
    the edge spaces of a skipped `<pre>` are counted as inside, so `a<pre>x</pre>b` gives `ab`.
    """
    start, stop = el.tok_start, el.tok_end
    depth = el.code_depth
    codes = tree.tok_code
    tokens = tree.tokens
    if max(codes[start:stop], default=0) <= depth:
        raw = "".join(tokens[start:stop])
    else:
        raw = "".join(tokens[i] for i in range(start, stop) if codes[i] <= depth)
    return ASCII_SPACE_RUN.sub(" ", raw).strip(JS_WHITESPACE)


def canonical(tree: Tree, el: Element) -> str:
    """The exact string memhtml hashes for the subtree rooted at `el` (code included)."""
    start, stop = el.tok_start, el.tok_end
    tokens = tree.tokens
    pres = tree.tok_pre
    base = el.pre_depth
    if max(pres[start:stop], default=-1) <= base:
        segments = [(False, "".join(tokens[start:stop]))]
    else:
        segments = []
        current_mode: bool | None = None
        parts: list[str] = []
        for i in range(start, stop):
            verbatim = pres[i] > base
            if verbatim is not current_mode and parts:
                segments.append((bool(current_mode), "".join(parts)))
                parts = []
            current_mode = verbatim
            parts.append(tokens[i])
        if parts:
            segments.append((bool(current_mode), "".join(parts)))
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
