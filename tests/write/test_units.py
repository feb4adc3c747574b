"""The write core's pure parts: placement, numbers, the article template, markup, head edits, argv."""

from __future__ import annotations

import datetime as _dt

import pytest

from memhtml_desktop.cli.memhtml_argv import UsageError, parse
from memhtml_desktop.write import head_edit
from memhtml_desktop.write.context import commit_subject
from memhtml_desktop.write.markup import canonical_article
from memhtml_desktop.write.placement import candidate_path, directory_for, is_valid_memory_path, with_collision_ordinal
from memhtml_desktop.write.prose import split_prose
from memhtml_desktop.write.template import fenced_block, js_parse_float, js_parse_int, js_to_fixed_2, prose_article

NOW = _dt.datetime(2026, 12, 1, 23, 59, tzinfo=_dt.timezone.utc)


# -- placement ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "ws", "tags", "entities", "folder"), [
    ("arc", "x", ["t"], [], "areas/arcs"),
    ("task", "Checkout API", [], [], "projects/checkout-api/tasks"),
    ("task", None, ["security"], [], "areas/inbox/tasks"),
    ("semantic", None, ["t"], ["person:sanju"], "resources/people"),
    ("episodic", "Mobile App", [], [], "projects/mobile-app"),
    ("procedural", None, ["  ", "Postgres Ops"], [], "resources/postgres-ops"),
    ("episodic", None, ["postgres"], [], "areas/inbox"),
    ("verdict", None, [], [], "areas/inbox"),
])  # fmt: skip
def test_directory_for(kind, ws, tags, entities, folder) -> None:
    assert directory_for(kind, workspace=ws, tags=tags, entities=entities) == folder


def test_collision_ordinals_stay_within_80_characters() -> None:
    slug = "a" * 79 + "-b"  # 81 > 80 already cut by slugify; here the ordinal must cut again
    assert with_collision_ordinal("x", 1) == "x"
    assert with_collision_ordinal("x", 2) == "x-2"
    long = ("word-" * 20)[:80]
    assert len(with_collision_ordinal(long, 12)) <= 80 and with_collision_ordinal(long, 12).endswith("-12")
    assert not with_collision_ordinal("a" * 77 + "-bb", 2).startswith("-")
    assert slug


def test_episodic_files_start_with_the_utc_date() -> None:
    local = NOW.astimezone(_dt.timezone(_dt.timedelta(hours=5)))
    assert (
        candidate_path("Canary 502s — café!", "episodic", "areas/inbox", local, 2)
        == "areas/inbox/20261201-canary-502s-cafe-2.html"
    )


@pytest.mark.parametrize(("path", "ok"), [
    ("/areas/x/y.html", True), ("areas/y.html", True), ("y.html", False), ("notes/y.html", False),
    ("areas/../y.html", False), ("areas//y.html", False), ("areas/y.htm", False),
])  # fmt: skip
def test_valid_memory_paths(path, ok) -> None:
    assert is_valid_memory_path(path) is ok


# -- numbers as the JavaScript CLI parses and prints them -------------------------------------------


@pytest.mark.parametrize(("value", "text"), [(0.85, "0.85"), (1.5, "1.50"), (0.125, "0.13"), (0.005, "0.01"),
                                             (1.005, "1.00"), (-0.0, "0.00"), (-0.001, "-0.00"), (2.675, "2.67")])  # fmt: skip
def test_to_fixed_rounds_the_binary_value_half_up(value, text) -> None:
    assert js_to_fixed_2(value) == text


def test_parse_int_and_float_take_a_prefix() -> None:
    assert js_parse_int("11.9") == 11 and js_parse_int(" 0x1A") == 26 and js_parse_int("-3px") == -3
    assert js_parse_int("abc") != js_parse_int("abc")  # NaN
    assert js_parse_float("1.5abc") == 1.5 and js_parse_float(".5") == 0.5 and js_parse_float("1e2") == 100
    assert js_parse_float("x") != js_parse_float("x")


# -- the article ------------------------------------------------------------------------------------


def test_a_fence_needs_a_closing_run_at_least_as_long() -> None:
    assert fenced_block("```py\ncode\n```") == ("py", "code")
    assert fenced_block("````\na\n\n  b\n````") == (None, "a\n\n  b")
    assert fenced_block("````\ncode\n```") is None
    assert fenced_block("```\none line```") is None
    assert fenced_block("``` TS  title=x\nlet a\n```") == ("ts", "let a")


def test_prose_article_escapes_and_places_the_claim() -> None:
    article = prose_article(" A <b> & c. ", ["", "```\nx < y\n```", "tail & more"])
    assert article == ("<p><mark>A &lt;b&gt; &amp; c.</mark></p>\n<figure><pre><code>x &lt; y</code></pre></figure>\n"
                       "<p>tail &amp; more</p>")  # fmt: skip


def test_markup_is_canonicalised_like_parse5() -> None:
    assert canonical_article('<P B="2" a=1>x<br/>y<IMG src=a></p>  ') == '<p a="1" b="2">x<br>y<img src="a"></p>'
    assert canonical_article("<pre>\n\nkeep</pre>") == "<pre>\n\nkeep</pre>"
    assert canonical_article("<ul><li>a<li>b</ul></article><p>after</p>") == "<ul><li>a</li><li>b</li></ul><p>after</p>"
    assert (
        canonical_article('<p title="a&quot;b\u00a0c">x\u00a0&lt;</p>') == '<p title="a&quot;b&nbsp;c">x&nbsp;&lt;</p>'
    )


def test_prose_split_keeps_a_fence_whole() -> None:
    claim, rest = split_prose(
        "WAL admits one writer. Readers never block.\n\n```sql\nSELECT 1;\n\nSELECT 2;\n```\n\nEnd."
    )
    assert claim == "WAL admits one writer."
    assert rest == ["Readers never block.", "```sql\nSELECT 1;\n\nSELECT 2;\n```", "End."]
    assert split_prose("No sentence end") == ("No sentence end", [])


def test_commit_subjects_fold_whitespace_and_cut_at_72_units() -> None:
    assert commit_subject("write", "  a \n\t b ") == "memhtml(write): a b"
    assert commit_subject("write", "") == "memhtml(write): (untitled)"
    cut = commit_subject("link", "x" * 100)
    assert cut == "memhtml(link): " + "x" * 71 + "\u2026"
    emoji = commit_subject("write", "😀" * 40)  # 2 UTF-16 units each
    assert emoji == "memhtml(write): " + "😀" * 35 + "\u2026"


# -- head edits --------------------------------------------------------------------------------------

HEAD = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>T</title>
<meta name="memhtml-type" content="semantic">
<meta name="memhtml-status" content="active">
<meta name="memhtml-created" content="c">
<meta name="memhtml-updated" content="u">
<meta name="memhtml-tag" content="t">
<link rel="memhtml-relates-to" href="/areas/a.html"> <link rel="memhtml-supports" href="/areas/b.html">
</head>
<body>
<article>
<p><mark>A claim.</mark> <meta name="memhtml-tag" content="in-body"></p>
</article>
</body>
</html>
"""


def test_set_meta_replaces_or_inserts_in_meta_order() -> None:
    text = head_edit.set_meta(HEAD, "memhtml-updated", "now")
    assert '<meta name="memhtml-updated" content="now">' in text and 'content="u"' not in text
    text = head_edit.set_meta(text, "memhtml-archived", "now")
    assert text.index("memhtml-archived") < text.index('memhtml-tag" content="t"')
    assert text.split("<article>")[1] == HEAD.split("<article>")[1]  # the article is never touched


def test_remove_link_keeps_a_neighbour_on_the_same_line() -> None:
    text = head_edit.remove_link(HEAD, "relates_to", "areas/a.html")
    assert '<link rel="memhtml-supports" href="/areas/b.html">' in text
    assert "memhtml-relates-to" not in text
    gone = head_edit.remove_link(text, "supports", "areas/b.html")
    assert "memhtml-supports" not in gone and "\n\n</head>" not in gone  # the emptied line goes too


def test_add_link_is_idempotent_and_goes_after_the_last_link() -> None:
    assert head_edit.add_link(HEAD, "relates_to", "/areas/a.html") == HEAD
    text = head_edit.add_link(HEAD, "part_of", "/areas/arcs/x.html")
    assert (
        '<link rel="memhtml-supports" href="/areas/b.html">\n<link rel="memhtml-part-of" href="/areas/arcs/x.html">\n</head>'
        in text
    )


def test_a_crlf_file_keeps_its_line_ends_and_new_lines_end_in_lf() -> None:
    crlf = HEAD.replace("\n", "\r\n")
    text = head_edit.set_meta(crlf, "memhtml-archived", "now")
    assert '<meta name="memhtml-archived" content="now">\n' in text
    assert text.replace('<meta name="memhtml-archived" content="now">\n', "") == crlf


def test_an_ambiguous_head_is_not_edited() -> None:
    tricky = HEAD.replace("<title>T</title>", "<title>T</title><div></div>")  # the parser moves the metas to <body>
    with pytest.raises(head_edit.HeadNotEditable):
        head_edit.set_meta(tricky, "memhtml-updated", "now")


# -- memhtml's argv grammar -------------------------------------------------------------------------


def test_argv_last_value_wins_lists_keep_order_and_equals_form() -> None:
    parsed = parse(["--repo", "/s", "write", "--title", "a", "--title=b", "--type", "semantic", "--claim=--dash",
                    "--tag", "x", "--tag", "", "--tag", "y", "extra", "--force", "--no-force", "--json"])  # fmt: skip
    assert parsed.get("title") == "b" and parsed.get("claim") == "--dash"
    assert parsed.get("tag") == ["x", "y"] and parsed.get("force") is False
    assert parsed.globals == {"store": "/s", "json": True}


def test_argv_a_string_flag_needs_a_value() -> None:
    with pytest.raises(UsageError, match="--title needs a value"):
        parse(["write", "--type", "semantic", "--claim", "c", "--title", "--json"])


def test_argv_a_boolean_flag_never_eats_a_positional() -> None:
    parsed = parse(["apply", "--continue-on-error", "-"])
    assert parsed.get("continue-on-error") is True and parsed.positionals == ["-"]


def test_a_folder_outside_any_repository_is_said_without_a_warning(tmp_path, caplog) -> None:
    """A store without git shows curation off; asking it for its git directory (the window's engine
    does at every open) logged git's "fatal: not a git repository" as a warning, twice an open."""
    import logging

    from memhtml_desktop.write.git import Git, GitError

    folder = tmp_path / "no-repository"
    folder.mkdir()
    repository = tmp_path / "repository"
    repository.mkdir()
    Git(repository).run("init", "-q")
    with caplog.at_level(logging.INFO, logger="memhtml_desktop.write.git"):
        with pytest.raises(GitError, match="not a git repository"):
            Git(folder).git_dir()
        with pytest.raises(GitError):  # a real failure in a real repository is still a warning
            Git(repository).run("rev-parse", "--verify", "no-such-revision")
    levels = {r.getMessage().split(":")[0]: r.levelno for r in caplog.records}
    assert levels["git rev-parse --absolute-git-dir failed (exit 128)"] == logging.INFO
    assert levels["git rev-parse --verify no-such-revision failed (exit 128)"] == logging.WARNING
