"""The reader pane's HTML is inert whatever the article holds (agents write these files)."""

from __future__ import annotations

import re

import pytest
from html_support import case_bytes, file_with
from selectolax.lexbor import LexborHTMLParser

from memhtml_desktop.html.render import (
    ASIDE_STYLE,
    HIGHLIGHT_STYLE,
    MARK_STYLE,
    MUTED_STYLE,
    render_safe_html,
)

ALLOWED_TAGS = {
    "html", "head", "body", "p", "ul", "ol", "li", "dl", "dt", "dd", "pre", "code", "kbd", "samp",
    "var", "table", "thead", "tbody", "tfoot", "tr", "td", "th", "blockquote", "h3", "h4", "h5",
    "h6", "div", "span", "b", "i", "cite", "sub", "sup", "small", "u", "s", "a", "br", "hr",
}  # fmt: skip
OUR_STYLES = {MARK_STYLE, HIGHLIGHT_STYLE, MUTED_STYLE, ASIDE_STYLE}

HOSTILE = """
<p onclick="steal()" class="x" id="y" style="background:url(http://evil.test/bg.png)">
<mark>The claim <script>alert(1)</script>stays.</mark>
<img src="http://evil.test/pixel.png" alt="a pixel" onerror="alert(2)">
<img srcset="http://evil.test/a.png 1x">
<iframe src="http://evil.test/frame"></iframe>
<a href="javascript:alert(3)">js link</a>
<a href=" JaVa&#x09;ScRiPt:alert(4)">obfuscated js</a>
<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCg1KTwvc2NyaXB0Pg==">data link</a>
<a href="file:///etc/passwd">file link</a>
<a href="vbscript:msgbox(1)">vb</a>
<a href="//evil.test/x">protocol relative</a>
<a href="/areas/ok/memory.html#frag">memory link</a>
<a href="https://example.test/a?b=1&amp;c=&quot;2&quot;">web link</a>
<a href="mailto:someone@example.test">mail</a>
<img src="data:image/png;base64,{big}">
</p>
<style>body {{ background: url(http://evil.test/css.png) }}</style>
<svg><script>alert(6)</script><image href="http://evil.test/svg.png"/></svg>
<svg><foreignObject><img src="http://evil.test/fo.png"></foreignObject></svg>
<math><mi xlink:href="javascript:alert(7)">m</mi></math>
<base href="http://evil.test/">
<link rel="stylesheet" href="http://evil.test/s.css">
<meta http-equiv="refresh" content="0;url=http://evil.test/">
<object data="http://evil.test/o.swf">fallback</object>
<embed src="http://evil.test/e.swf">
<form action="http://evil.test/post"><input name="q" value="v"><button>Go</button></form>
<video src="http://evil.test/v.mp4" poster="http://evil.test/p.png"></video>
<table background="http://evil.test/t.png"><tr><td style="background-image:url(x)">cell</td></tr></table>
<noscript><img src="http://evil.test/ns.png"></noscript>
<template><img src="http://evil.test/tpl.png"></template>
<p>&lt;script&gt;alert(8)&lt;/script&gt; is text</p>
"""


@pytest.fixture(scope="module")
def rendered() -> str:
    body = HOSTILE.format(big="A" * 200_000)
    return render_safe_html(file_with(body).encode())


def test_no_active_or_fetching_elements(rendered: str) -> None:
    lowered = rendered.lower()
    for tag in ("script", "style", "iframe", "object", "embed", "img", "svg", "math", "form",
                "link", "meta", "base", "input", "button", "video", "image", "template"):  # fmt: skip
        assert f"<{tag}" not in lowered, tag


def test_no_dangerous_attributes_or_urls(rendered: str) -> None:
    lowered = rendered.lower()
    assert not re.search(r"\son\w+\s*=", lowered)
    for needle in ("class=", "id=", "src=", "srcset", "background=", "data:", "javascript:",
                   "vbscript:", "file:", "url(", "evil.test", "http-equiv", "poster"):  # fmt: skip
        assert needle not in lowered, needle


def test_structure_is_only_our_markup(rendered: str) -> None:
    tree = LexborHTMLParser(rendered)
    for node in tree.root.traverse():
        assert node.tag in ALLOWED_TAGS, node.tag
        for name, value in node.attributes.items():
            assert name in ("style", "href"), (node.tag, name)
            if name == "style":
                assert value in OUR_STYLES
            else:
                assert node.tag == "a"
                assert value.startswith(("memhtml:/", "https://", "http://", "mailto:"))


def test_links_are_rewritten_or_dropped_text_kept(rendered: str) -> None:
    assert '<a href="memhtml:/areas/ok/memory.html">memory link</a>' in rendered
    assert '<a href="https://example.test/a?b=1&amp;c=&quot;2&quot;">web link</a>' in rendered
    assert '<a href="mailto:someone@example.test">mail</a>' in rendered
    for text in ("js link", "obfuscated js", "data link", "file link", "protocol relative"):
        assert text in rendered
        assert f">{text}</a>" not in rendered


def test_claim_is_highlighted_and_text_is_escaped(rendered: str) -> None:
    assert f'<span style="{MARK_STYLE}">The claim stays.</span>' in rendered
    assert "&lt;script&gt;alert(8)&lt;/script&gt; is text" in rendered
    assert "[image: a pixel]" in rendered
    assert "cell" in rendered


def test_semantic_structure_survives() -> None:
    html = render_safe_html(case_bytes("areas__oncall__format-md-procedural.html"))
    assert "<dl>" in html and "<dt><b>Applies to</b></dt>" in html
    assert "<pre><code>aws elbv2" in html
    assert "\u25be How this was learned" in html  # details/summary as a labeled block
    assert f'<div style="{ASIDE_STYLE}"><b>Note:</b>' in html  # aside as a muted note
    assert f'<span style="{MUTED_STYLE}">[2026-07-28]</span>' in html  # time shows its datetime
    assert "<cite>checkout-api sev2</cite>" in html


def test_highlight_terms_whole_words_case_insensitive() -> None:
    data = file_with("<p><mark>Drain the VIP.</mark> Drained vip, <code>drain</code>.</p>").encode()
    html = render_safe_html(data, highlight_terms=["drain", "vip", " "])
    marked = re.findall(rf'<span style="{re.escape(HIGHLIGHT_STYLE)}">(.*?)</span>', html)
    assert marked == ["Drain", "VIP", "vip", "drain"]
    assert "Drained" in html


def test_highlight_terms_are_escaped_not_injected() -> None:
    data = file_with("<p><mark>a &lt;b&gt; c</mark></p>").encode()
    html = render_safe_html(data, highlight_terms=["<b>"])
    assert "<b>" not in html.replace("<b>Note:</b>", "")


def test_no_article_renders_the_body_and_garbage_never_raises() -> None:
    assert "hello" in render_safe_html(b"<p>hello</p>")
    assert isinstance(render_safe_html(b"\xff\xfe\x00<\x00"), str)
    assert "too complex to display: 30000 start tags" in render_safe_html(b"<div>" * 30_000)
