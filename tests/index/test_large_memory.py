"""A memory of megabytes (issue 41, item 8): Problems (and so `doctor`) warn about its size, `expand`
hands over a capped body with a marker of what was cut, and the reader's rendering is bounded.
Real files, a real index; sizes vary so nothing passes at one lucky length."""

from __future__ import annotations

import json
import re

import pytest

from memhtml_desktop.domain.catalogue import EXPAND_BODY_CAP, cut_body
from memhtml_desktop.html.render import READER_TEXT_CAP, render_safe_html
from memhtml_desktop.index.listing import LARGE_MEMORY_BYTES
from tests.memfiles import memory_html, write_memory

BIG = "areas/logs/pasted-transcript.html"


def paragraphs(approx_bytes: int, seed: int) -> str:
    out, size, n = [], 0, 0
    while size < approx_bytes:
        line = " ".join(f"Line {n}.{k} of the pasted transcript says the canary {seed + n} drained." for k in range(30))
        out.append(f"<p>{line}</p>")
        size += len(line) + 8
        n += 1
    return "\n".join(out)


@pytest.fixture(params=[(1.3, 1), (2.6, 7)], ids=["1.3MB", "2.6MB"])
def big_store(request, store_root, make_store):
    mb, seed = request.param
    write_memory(
        store_root,
        BIG,
        title="A pasted transcript",
        claim="The incident transcript was pasted whole.",
        article_extra=paragraphs(int(mb * 1_048_576), seed),
    )
    write_memory(store_root, "areas/oncall/small.html", title="Small", claim="A small memory stays unwarned.")
    store = make_store(store_root)
    store.index()
    return store


def test_problems_warn_about_a_large_memory_and_only_it(big_store):
    found = {p.path: p for p in big_store.problems()}
    assert BIG in found and "areas/oncall/small.html" not in found
    warning = found[BIG].warnings[0]
    assert warning.startswith("the file is ") and f"over the {LARGE_MEMORY_BYTES // 1_048_576} MB" in warning
    assert big_store.stats()["with_warnings"] == 1


def test_expand_hands_over_a_capped_body_with_a_marker(big_store):
    expansion = big_store.expand(BIG)
    assert len(expansion.body) > 1_000_000  # the index keeps the whole body
    assert expansion.body_cut == len(expansion.body) - len(expansion.shown_body) > 0
    assert len(expansion.shown_body) <= EXPAND_BODY_CAP and expansion.shown_body.endswith(".")
    text = expansion.text
    assert expansion.cost < EXPAND_BODY_CAP + 1_000 and f"[cut: {expansion.body_cut:,} of this memory" in text
    assert BIG in text.split("[cut:", 1)[1]  # where the whole of it is
    data = expansion.to_json()
    assert data["body_cut"] == expansion.body_cut and data["body_chars"] == len(expansion.body)
    json.dumps(data)


def test_a_small_body_is_handed_over_whole():
    body = "One fact. " * 50
    assert cut_body(body) == (body, 0)


def test_the_reader_renders_a_bounded_article_and_says_what_it_left_out():
    data = memory_html(title="Big", claim="Big.", article_extra=paragraphs(3_000_000, 3)).encode()
    html = render_safe_html(data, highlight_terms=("canary",))
    assert len(html) < READER_TEXT_CAP * 3  # the text, its markup and the highlights: bounded
    assert "Cut here:" in html and "Open it in your editor" in html
    note = re.search(
        r"the first ([\d,]+) characters of this memory's text; ([\d,]+) more are not shown "
        r"\(([\d,]+) in all\)",
        html,
    )
    shown, cut, whole = (int(g.replace(",", "")) for g in note.groups())
    assert shown <= READER_TEXT_CAP and shown + cut == whole and whole > 2_900_000  # every left-out character counted
    small = render_safe_html(memory_html(title="Small", claim="Small.").encode())
    assert "Cut here" not in small
