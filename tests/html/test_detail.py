"""`read_document`: what the reader pane shows, for valid and invalid files alike."""

from __future__ import annotations

from html_support import case_bytes

from memhtml_desktop.html.detail import read_document


def test_valid_file_reads_like_its_projection() -> None:
    doc = read_document("areas/x/self.html", case_bytes("areas__x__self.html"))
    assert doc.ok and doc.violations == []
    assert doc.title == "Edge metas"
    assert doc.gist == "A claim here."
    assert doc.metas[0] == ("memhtml-type", "semantic")
    assert ("memhtml-alias", "laith") in doc.metas
    assert all(name.startswith("memhtml-") for name, _ in doc.metas)  # description is not listed
    assert doc.tags == ["deploy", "Deploy"]
    assert ("Service", "Checkout API") in doc.entities and ("lang", "ts") in doc.entities
    assert doc.facets[0] == ("Owner", "alice", None)
    assert doc.citations[1] == ("quoted words", "https://ex.com/q")
    assert doc.article_text.startswith("A claim cmd here.")
    assert doc.links[1] == {
        "rel": "laterally_related",
        "href": "/areas/x/other.html",
        "dst_path": "areas/x/other.html",
        "edge_class": "memory",
        "valid": True,
    }
    assert doc.warnings == [
        'data-lang=" TS " is not a language token',
        'data-lang="" is not a language token',
    ]


def test_invalid_file_is_read_best_effort() -> None:
    doc = read_document("areas/bad/x.html", case_bytes("areas__bad__bad-rel-and-hrefs.html"))
    assert not doc.ok and len(doc.violations) == 5
    assert doc.title == "A test memory" and doc.gist == "A claim."
    assert [(link["rel"], link["valid"]) for link in doc.links] == [
        ("likes", False), ("supports", False), ("supports", False), ("supports", False),
        ("supports", False),
    ]  # fmt: skip
    assert doc.links[0]["edge_class"] is None
    assert doc.links[4]["href"] is None and doc.links[4]["dst_path"] is None


def test_no_article_still_reads_the_head() -> None:
    doc = read_document("areas/bad/x.html", case_bytes("areas__bad__no-article.html"))
    assert doc.violations == ["no <article>: a memory file needs exactly one"]
    assert doc.title == "A test memory" and doc.article_text == ""


def test_garbage_never_raises() -> None:
    doc = read_document("areas/x.html", b"\x00\xff<article><mark>")
    assert doc.violations
    assert read_document("areas/x.html", None).violations[0].startswith("unreadable:")  # type: ignore[arg-type]
