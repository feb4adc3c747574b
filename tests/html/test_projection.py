"""Checkable facts of spec §8 about rows: examples, entities, edges, paths, counts, chunks."""

from __future__ import annotations

from html_support import case_bytes, file_with

from memhtml_desktop.html.project import Projection, blob_sha_of, project
from memhtml_desktop.html.rows import word_count

PROCEDURAL = "areas__oncall__format-md-procedural.html"
TASK = "projects__checkout-api__tasks__format-md-task.html"
TUTORIAL = "resources__infra__one-writer-and-many-readers-share-the-index.html"


def projected(name: str, path: str | None = None) -> Projection:
    result = project(path or name.replace("__", "/"), case_bytes(name), "NOW")
    assert result.ok, result.violations
    return result


def files_row(result: Projection) -> dict:
    return result.tables["files"][0]


def test_procedural_example() -> None:
    result = projected(PROCEDURAL)
    row = files_row(result)
    assert row["content_hash"].startswith("sha256:134d64")
    assert row["gist"] == "If a prod rollback is issued, drain the VIP before reverting the deploy."
    assert (row["event_at"], row["confidence"], row["importance"], row["word_count"]) == (
        "2026-07-28", 0.9, 8, 129)  # fmt: skip
    assert row["frame_key"] is None
    assert result.warnings == []
    [chunk] = result.tables["chunks"]
    assert chunk["char_count"] == 887 and chunk["chunk_id"].startswith("6ba271ef32c5")

    tables = result.tables
    assert [(f["name"], f["value"], f["numeric_value"]) for f in tables["file_facets"]] == [
        ("Applies to", "ALB and NLB target-group deploys", None),
        ("Failure window", "about two minutes of pinned connections", 120),
    ]
    assert [c["text"] for c in tables["file_citations"]] == ["checkout-api sev2"]
    assert [(e["entity_type"], e["entity_name"]) for e in tables["file_entities"]] == [
        ("service", "checkout-api"), ("person", "sanju"), ("concept", "connection draining"),
        ("lang", "bash"),
    ]  # fmt: skip
    assert [t["tag"] for t in tables["file_tags"]] == ["deploy", "oncall"]
    assert [(e["rel"], e["dst_path"], e["edge_class"]) for e in tables["edges"]] == [
        ("supersedes", "archive/2026/areas/oncall/rollback-order.html", "memory"),
        ("part_of", "areas/arcs/reversibility-first.html", "memory"),
    ]
    assert row["disclosure_text"].split("\n") == [
        row["gist"],
        "How this was learned",
        "Applies to: ALB and NLB target-group deploys",
        "Failure window: about two minutes of pinned connections",
        "checkout-api sev2",
    ]


def test_task_example() -> None:
    result = projected(TASK)
    row = files_row(result)
    assert row["content_hash"].startswith("sha256:f66c2f")
    assert (row["task_status"], row["due_at"], row["event_at"]) == ("doing", "2026-08-20", None)
    assert (row["importance"], row["confidence"], row["workspace"]) == (7, 1.0, "checkout-api")
    assert row["word_count"] == 52
    facets = [(f["name"], f["value"], f["numeric_value"]) for f in result.tables["file_facets"]]
    assert ("Estimate", "about two hours", 2) in facets
    assert [(e["rel"], e["edge_class"]) for e in result.tables["edges"]] == [("blocks", "task")]
    assert result.tables["file_entities"] == []


def test_tutorial_memory() -> None:
    row = files_row(projected(TUTORIAL))
    assert row["content_hash"].startswith("sha256:8744f8")
    assert row["word_count"] == 29
    assert row["frame_key"] == "wal admits a single writer at a time and any number of"


def test_entities_split_and_dedup() -> None:
    head = (
        '<meta name="memhtml-entity" content="url:https://x.test/a">\n'
        '<meta name="memhtml-entity" content="checkout-api">\n'
        '<meta name="memhtml-entity" content="concept:watermark">\n'
    )
    article = (
        "<p><mark>A claim.</mark> <dfn>watermark</dfn></p>"
        '<pre><code data-lang="ts">a</code></pre><pre><code data-lang=" TS">b</code></pre>'
    )
    result = project("areas/x/e.html", file_with(article, head=head).encode(), "NOW")
    assert [(e["entity_type"], e["entity_name"]) for e in result.tables["file_entities"]] == [
        ("url", "https://x.test/a"), ("unknown", "checkout-api"), ("concept", "watermark"),
        ("lang", "ts"),
    ]  # fmt: skip


def test_self_loops_dropped_and_repeats_merged() -> None:
    head = (
        '<link rel="memhtml-supports" href="/areas/x/e.html">\n'
        '<link rel="memhtml-supports" href="/areas/y.html">\n'
        '<link rel="memhtml-supports" href="/areas/y.html">\n'
        '<link rel="memhtml-contradicts" href="/areas/y.html">\n'
    )
    result = project("areas/x/e.html", file_with("<p><mark>A.</mark></p>", head=head).encode(), "NOW")
    assert [(e["rel"], e["dst_path"]) for e in result.tables["edges"]] == [
        ("supports", "areas/y.html"), ("contradicts", "areas/y.html"),
    ]  # fmt: skip
    assert all(e["created_at"] == "NOW" and e["strength"] == 1.0 for e in result.tables["edges"])


def test_paths_decide_archive_and_workspace() -> None:
    data = file_with("<p><mark>A.</mark></p>").encode()
    row = files_row(project("archive/2026/areas/a.html", data, "T"))
    assert (row["para"], row["archived"], row["origin_path"]) == ("archive", 1, "areas/a.html")
    assert files_row(project("projects/memhtml/nested/a.html", data, "T"))["workspace"] == "memhtml"
    assert files_row(project("projects/a.html", data, "T"))["workspace"] is None
    assert files_row(project("archive/2026/projects/x/a.html", data, "T"))["workspace"] is None


def test_status_meta_is_ignored_for_archived() -> None:
    data = file_with("<p><mark>A.</mark></p>").encode()  # says memhtml-status=active
    assert files_row(project("archive/2026/areas/a.html", data, "T"))["archived"] == 1


def test_word_count() -> None:
    assert word_count("  spaced   out \n words ") == 3
    assert word_count("") == 0
    assert word_count("a\u00a0b") == 2  # NBSP splits words here, though it is content to the hash


def test_dropped_optionals_and_odd_values() -> None:
    dropped = files_row(projected("areas__bad__dropped-optionals.html"))
    assert (dropped["confidence"], dropped["importance"], dropped["reprieves"]) == (1.0, 5, 0)
    assert dropped["needs_revision"] == 0
    odd = files_row(projected("areas__x__self.html"))
    assert (odd["confidence"], odd["importance"], odd["reprieves"], odd["needs_revision"]) == (0, 10, 3, 1)


def test_self_case_facets_citations_links() -> None:
    result = projected("areas__x__self.html")
    facets = result.tables["file_facets"]
    assert [(f["name"], f["value"]) for f in facets[:2]] == [("Owner", "alice"), ("Owner", "bob")]
    assert files_row(result)["disclosure_text"].count("Owner: ") == 3
    assert facets[2]["numeric_value"] == 0  # <data value=""> is Number("") == 0
    citations = result.tables["file_citations"]
    assert [c["text"] for c in citations].count("Src A") == 1
    assert files_row(result)["disclosure_text"].count("Src A") == 2
    assert citations[1]["href"] == "https://ex.com/q"
    edges = [(e["rel"], e["dst_path"]) for e in result.tables["edges"]]
    assert ("laterally_related", "areas/x/other.html") in edges
    assert ("caused_by", "areas/x/a.html#frag") in edges
    assert ("Service", "Checkout API") in [(e["entity_type"], e["entity_name"]) for e in result.tables["file_entities"]]
    assert result.aliases == ["laith"]


def test_long_case_chunk_lengths() -> None:
    result = projected("resources__edge__long.html")
    assert len(files_row(result)["body_text"]) == 10025
    assert [c["char_count"] for c in result.tables["chunks"]] == [1564, 1798, 1775, 873, 1800, 1800, 411]
    assert [c["ordinal"] for c in result.tables["chunks"]] == list(range(7))


def test_br_sub_case() -> None:
    result = projected("areas__edge__br_sub.html")
    row = files_row(result)
    assert row["gist"].startswith("H 2 O") and row["body_text"].startswith("H 2 O")
    assert result.warnings == [
        "<sub> is outside the closed vocabulary",
        "<br> is outside the closed vocabulary",
        "<b> is outside the closed vocabulary",
    ]


def test_emoji_char_count_is_utf16() -> None:
    result = projected("areas__edge__emoji.html")
    chunk = result.tables["chunks"][0]
    assert chunk["char_count"] == len(chunk["text"].encode("utf-16-le")) // 2 > len(chunk["text"])


def test_blob_sha_is_git_blob_id() -> None:
    assert blob_sha_of(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    assert blob_sha_of(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


def test_invalid_file_has_no_rows_but_keeps_head_facts() -> None:
    result = project("areas/x.html", case_bytes("areas__bad__two-marks.html"), "T")
    assert not result.ok and result.tables == {}
    assert result.blob_sha == blob_sha_of(case_bytes("areas__bad__two-marks.html"))
    assert result.reason == "2 <mark> elements: exactly one span is the claim"
