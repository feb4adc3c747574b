"""The fast token-range text functions agree with a literal port of memhtml's `hash.ts` walk.

`canonical.py` computes canonical text from the flat token list (ranges, masks, shortcuts); this
test re-derives the same strings the slow, obvious way, straight from the selectolax tree with
memhtml's segment algorithm, and compares them for every element of golden and fuzzed files.
"""

from __future__ import annotations

import random
import re

from fuzz_inputs import golden_documents, mutate, random_markup
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from memhtml_desktop.html.canonical import canonical, text_excluding_code, text_of
from memhtml_desktop.html.jsnum import js_trim
from memhtml_desktop.html.project import decode
from memhtml_desktop.html.tree import _OPTIONS, MAX_START_TAGS, flatten
from memhtml_desktop.html.vocabulary import INLINE_ELEMENTS

ASCII_RUN = re.compile("[ \t\n\x0c\r]+")


def reference_canonical(root, exclude_code: bool = False) -> str:
    """`canonicalText` of hash.ts, transcribed: segments, coalesce, collapse, edge trims."""
    segments: list[list] = []
    stack: list = [(root, root.tag == "pre")]
    while stack:
        frame = stack.pop()
        if isinstance(frame, str):
            segments.append([False, frame])
            continue
        node, verbatim = frame
        if node.tag == "-text":
            segments.append([verbatim, node.text_content or ""])
            continue
        if not node.is_element_node:
            continue
        if exclude_code and node.tag in ("pre", "code"):
            continue
        if node.tag not in INLINE_ELEMENTS:
            segments.append([False, " "])
            stack.append(" ")
        nested = verbatim or node.tag == "pre"
        children = []
        child = node.first_child
        while child is not None:
            children.append(child)
            child = child.next
        stack.extend((c, nested) for c in reversed(children))
    merged: list[list] = []
    for verbatim, text in segments:
        if merged and merged[-1][0] == verbatim:
            merged[-1][1] += text
        else:
            merged.append([verbatim, text])
    out = []
    for index, (verbatim, text) in enumerate(merged):
        if not verbatim:
            text = ASCII_RUN.sub(" ", text)
            if index == 0:
                text = re.sub("^ ", "", text)
            if index == len(merged) - 1:
                text = re.sub(" $", "", text)
        out.append(text)
    return "".join(out)


def reference_collapse(text: str) -> str:
    return js_trim(ASCII_RUN.sub(" ", text))


def assert_agrees(data: bytes) -> None:
    text = decode(data)
    if text.count("<") > MAX_START_TAGS:
        return
    parser = LexborHTMLParser(text, scripting=True, options=_OPTIONS)
    tree = flatten(parser.root)
    nodes = [n for n in parser.root.traverse() if n.is_element_node]
    assert [n.tag for n in nodes] == [el.tag for el in tree.elements]
    for node, el in zip(nodes, tree.elements, strict=True):
        exact = reference_canonical(node)
        assert canonical(tree, el) == exact, el
        assert text_of(tree, el) == reference_collapse(exact), el
        assert text_excluding_code(tree, el) == reference_collapse(reference_canonical(node, exclude_code=True)), el


def test_golden_files_agree() -> None:
    for data in golden_documents():
        assert_agrees(data)


PRE_HEAVY = [
    b"<article><pre>  a\n\n b <b> c </b>\t</pre> x  y <pre><code>q  r</code></pre></article>",
    b"<pre>\n<div> a  </div>  b<pre> c </pre></pre><p> d </p>",
    b"<mark>a <code>x  y</code> b<pre>z</pre> c</mark><code><pre> in </pre></code>",
    b"<pre></pre><pre>\n</pre><pre>\n\n</pre><pre> </pre>",
    b"<pre><table><tr><td> t </td></tr></table>  u</pre>",
    b"><?l> <p>x<?pi?>y</p>",  # lexbor makes a tagless node of a body processing instruction
]


def test_pre_and_code_shapes_agree() -> None:
    for data in PRE_HEAVY:
        assert_agrees(data)


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_fuzzed_files_agree(seed: int) -> None:
    rng = random.Random(seed)
    golden = golden_documents()
    assert_agrees(random_markup(rng) if seed % 2 else mutate(rng, rng.choice(golden)))
