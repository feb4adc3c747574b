"""Canonical text and the content hash: spec §4 test vectors and memhtml's `hash.test.ts` facts."""

from __future__ import annotations

import pytest
from html_support import case_bytes, file_with

from memhtml_desktop.html.canonical import canonical
from memhtml_desktop.html.project import decode, project
from memhtml_desktop.html.tree import parse_html

NBSP = "\u00a0"


def canonical_article(source: str) -> str:
    tree = parse_html(source)
    return canonical(tree, tree.named("article")[0])


def hash_of(source: str | bytes) -> str:
    data = source.encode() if isinstance(source, str) else source
    projection = project("areas/t/x.html", data, "T")
    assert projection.ok, projection.violations
    return projection.tables["files"][0]["content_hash"]


VECTORS = [
    ("<p><mark>A claim.</mark></p>", "A claim.",
     "f3fa612a6e04172bd4227beb7b9cf290784d05bc5181e1ddb985ccc01e3aa10c"),
    ("<p><mark>A claim.</mark></p><ul><li>one</li><li>two</li></ul>", "A claim. one two",
     "8b35848019523496459ceec2906dfd188738244ad119175e7c7508991fcf0f5b"),
    ("<p><mark>A claim.</mark></p>\n  <ul>\n    <li>one</li>\n    <li>two</li>\n  </ul>",
     "A claim. one two", "8b35848019523496459ceec2906dfd188738244ad119175e7c7508991fcf0f5b"),
    ("<pre>  code</pre><p><mark>A claim.</mark></p>", "  code A claim.",
     "322184c7512d5b095bf227c072facde135ba91aed7f416b778d16a838ad4320d"),
    ("<pre>code</pre><p><mark>A claim.</mark></p>", "code A claim.",
     "525a64cedf9ea86c57e63d98a5a9ffe6414109756b31fc94947e0ceb27ac91f2"),
    ("<p><mark>A claim.</mark></p><pre>\n\nindented start</pre>", "A claim. \nindented start",
     "0329fdc79eeceba3a5711a2e5d1f38dcff1b7316e547b5d31de93c0442f05e60"),
    ("<p><mark>A&#xa0;claim.</mark>&nbsp;tail&#160;x</p>", f"A{NBSP}claim.{NBSP}tail{NBSP}x",
     "302c729cdb671acefe9a303555f7f0de7513acdc2c9522f102be016c59c251fc"),
    ("<p><mark>H<sub>2</sub>O is water.</mark><br>next<b>bold</b>x</p>",
     "H 2 O is water. next bold x",
     "f460fcb1d05e0a9c749d88d12c8a1eaf7668e1123a754c9b6327edb289a4efb1"),
    ("<p><mark>A claim.</mark></p><figure><pre><div>a  b</div>  c</pre></figure>",
     "A claim. a  b   c", "9345c9a30d74b713408630bec274c82f760c162c985e5df8c5d1f131dae0d81a"),
]  # fmt: skip


@pytest.mark.parametrize(("article", "text", "hexdigest"), VECTORS)
def test_hash_vectors(article: str, text: str, hexdigest: str) -> None:
    source = file_with(article)
    assert canonical_article(source) == text
    assert hash_of(source) == "sha256:" + hexdigest


@pytest.mark.parametrize(
    ("case", "hexdigest"),
    [
        ("areas__oncall__format-md-procedural.html",
         "134d641234f3f309caa7d7dd7f0b1038372ea0609d484058db45f3a8fe91f88b"),
        ("projects__checkout-api__tasks__format-md-task.html",
         "f66c2faacb461c65ba97438bbffe01862bb2306f6504945bdeb168da1e5b75f7"),
        ("resources__infra__one-writer-and-many-readers-share-the-index.html",
         "8744f8ea396a98bc283a023653e3cc143c0c4b1e2b442ad76c959e06e93b289e"),
        ("archive__2026__areas__oncall__html-tests-fixture.html",
         "e5ded1eada411da8180dbf267090abedfb33e66a6f69942baefb5a841fe94f8b"),
    ],
)  # fmt: skip
def test_upstream_example_hashes(case: str, hexdigest: str) -> None:
    assert hash_of(case_bytes(case)) == "sha256:" + hexdigest


def test_advisory_meta_hash_is_never_checked() -> None:
    data = case_bytes("archive__2026__areas__oncall__html-tests-fixture.html")
    projection = project("areas/x.html", data, "T")
    assert projection.ok
    assert projection.meta_content_hash == "sha256:1f4b9c"
    assert projection.tables["files"][0]["content_hash"].startswith("sha256:e5ded1")


def test_pre_edges_do_not_collapse_across() -> None:
    assert canonical_article(file_with("<p>a </p><pre> b</pre>")) == "a  b"


def test_pre_leading_spaces_change_the_hash() -> None:
    assert hash_of(file_with("<pre>  code</pre><p><mark>A claim.</mark></p>")) != hash_of(
        file_with("<pre>code</pre><p><mark>A claim.</mark></p>")
    )


def test_head_edits_never_move_the_hash() -> None:
    base = file_with("<p><mark>A claim.</mark></p>")
    edited = base.replace("<title>A test memory</title>", "<title>Another title</title>").replace(
        "</head>",
        '<meta name="memhtml-tag" content="x">\n<link rel="memhtml-supports" href="/areas/y.html">\n</head>',
    )
    assert hash_of(base) == hash_of(edited)


def test_bom_file_hashes_like_minimal() -> None:
    assert case_bytes("areas__edge__bom.html").startswith(b"\xef\xbb\xbf")
    assert hash_of(case_bytes("areas__edge__bom.html")) == hash_of(case_bytes("areas__edge__minimal.html"))


def test_decode_strips_one_bom_and_replaces_invalid_bytes() -> None:
    assert decode(b"\xef\xbb\xbfab") == "ab"
    assert decode(b"\xef\xbb\xbf\xef\xbb\xbfab") == "\ufeffab"
    assert decode(b"a\xffb") == "a\ufffdb"
    assert decode(b"") == ""


def test_crlf_is_normalized_by_the_parser() -> None:
    assert hash_of(case_bytes("areas__edge__crlf.html")) == hash_of(
        case_bytes("areas__edge__crlf.html").replace(b"\r\n", b"\n")
    )


def test_hash_scope_ignores_pre_ancestors_outside_the_article() -> None:
    # Verbatim mode counts <pre> from the subtree root down, so a <pre> around <article> is inert.
    tree = parse_html("<pre><article><p>a   b</p></article></pre>")
    assert canonical(tree, tree.named("article")[0]) == "a b"
