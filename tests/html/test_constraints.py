"""Violations and warnings: memhtml's strings, its order, and `constraints.test.ts` facts."""

from __future__ import annotations

import pytest
from html_support import file_with

from memhtml_desktop.html.project import project

EMPTY_MARK = "empty <mark>: the claim span must say something"
NOT_FIRST_P = "<mark> not in the first <p>: the claim must lead the article"


def check(source: str) -> tuple[list[str], list[str]]:
    projection = project("areas/t/x.html", source.encode(), "T")
    assert projection.ok is (not projection.violations)
    return projection.violations, projection.warnings


@pytest.mark.parametrize(
    "mark", ["<mark><code>drain --vip</code></mark>", "<mark>&nbsp;</mark>", "<mark></mark>",
             "<mark><pre>x</pre></mark>"]
)  # fmt: skip
def test_empty_marks(mark: str) -> None:
    violations, _ = check(file_with(f"<p>{mark} prose</p>"))
    assert EMPTY_MARK in violations


def test_mark_with_nested_strong_is_not_empty() -> None:
    assert check(file_with("<p><mark><strong>x</strong></mark></p>")) == ([], [])


def test_mark_in_li_after_p_is_refused_but_first_li_without_p_is_fine() -> None:
    violations, _ = check(file_with("<p>Lead.</p><ul><li><mark>Claim.</mark></li></ul>"))
    assert violations == [NOT_FIRST_P]
    assert check(file_with("<ul><li><mark>Claim.</mark></li></ul><p>Later.</p>")) == ([], [])


def test_mark_position_names_the_first_block_tag() -> None:
    violations, _ = check(file_with("<ul><li>Lead.</li><li><mark>Claim.</mark></li></ul>"))
    assert violations == ["<mark> not in the first <li>: the claim must lead the article"]


def test_mark_outside_any_block() -> None:
    violations, _ = check(file_with("<section><mark>Claim.</mark></section>"))
    assert violations == ["<mark> outside any <p> or <li>: the claim must lead a paragraph or list item"]


def test_fold_violations_suppress_position_but_not_emptiness() -> None:
    violations, _ = check(file_with("<p>Lead.</p><details><summary><mark></mark></summary></details>"))
    assert violations == [EMPTY_MARK, "<mark> inside <details>: the claim is never behind a fold"]
    violations, _ = check(file_with("<aside><details><p><mark>x</mark></p></details></aside>"))
    assert violations == [
        "<mark> inside <aside>: the claim is never a caveat",
        "<mark> inside <details>: the claim is never behind a fold",
    ]


def test_mark_count_is_scoped_to_the_article() -> None:
    source = file_with("<p><mark>A claim.</mark></p>").replace("<body>\n", "<body>\n<p><mark>x</mark></p>\n")
    assert check(source) == ([], [])
    violations, _ = check(file_with("<p>No claim.</p>"))
    assert violations == ["no <mark>: the claim span is required"]


def test_article_count() -> None:
    two = file_with("<p><mark>A.</mark></p>") + "<article><p>again</p></article>"
    violations, _ = check(two)
    assert violations == ["2 <article> elements: a memory file needs exactly one"]


def test_title_count() -> None:
    violations, _ = check(file_with("<p><mark>A.</mark></p>").replace("<title>A test memory</title>", ""))
    assert violations == ["0 <title> elements: a memory file needs exactly one"]
    violations, _ = check(file_with("<p><mark>A.</mark></p>", head="<title>two</title>\n"))
    assert violations == ["2 <title> elements: a memory file needs exactly one"]
    violations, _ = check(file_with("<p><mark>A.</mark></p>").replace("A test memory", "&nbsp;"))
    assert violations == ["empty <title>"]


def test_time_rules_cover_the_whole_document() -> None:
    offset_time = '<time datetime="2026-07-28T14:03+02:00">x</time>'
    violations, _ = check(file_with(f"<p><mark>A.</mark> {offset_time}</p>"))
    assert violations == []
    late_time = '<p><time datetime="2026">y</time></p></body>'
    source = file_with("<p><mark>A.</mark></p>").replace("</body>", late_time)
    assert check(source)[0] == ['<time datetime="2026"> is not an ISO date or datetime']
    long_text = "word " * 20
    violations, _ = check(file_with(f"<p><mark>A.</mark> <time>  {long_text}</time></p>"))
    assert violations == [f'<time> without datetime: "{long_text.strip()[:40]}"']


def test_presentation_and_script_anywhere() -> None:
    source = file_with('<p><mark>A.</mark></p><p STYLE="x" OnMouseOver="y" on="z">t</p>')
    assert check(source)[0] == [
        "style attribute on <p>: presentation is not memory",
        "onmouseover handler on <p>: a memory file does not execute",
    ]
    source = file_with("<p><mark>A.</mark></p>", head="<style>p{}</style>\n")
    assert check(source) == (["<style> is forbidden: a memory file does not execute or style"],
                             ["<style> is outside the closed vocabulary"])  # fmt: skip


def test_links() -> None:
    head = (
        '<link rel="memhtml-supports stylesheet" href="/a.html">\n'
        '<link rel="memhtml-supports" href="">\n'
        '<link rel="memhtml-supports" href="/a//b.html">\n'
        '<link rel="memhtml-supports" href="/a/./b.html?x#y">\n'
        '<link rel="memhtml-supports" href="/a/b.html?q=..#..">\n'
        '<link rel="stylesheet" href="x.css">\n'
        '<link rel="Memhtml-supports" href="x">\n'
    )
    violations, _ = check(file_with("<p><mark>A.</mark></p>", head=head))
    assert violations == [
        '<link rel="memhtml-supports stylesheet"> is outside the closed edge vocabulary',
        '<link rel="memhtml-supports"> without href',
        '<link rel="memhtml-supports" href="/a//b.html"> is not repo-root-relative',
        '<link rel="memhtml-supports" href="/a/./b.html?x#y"> is not repo-root-relative',
    ]


def test_meta_names_are_case_sensitive_and_first_seen_order() -> None:
    head = (
        '<meta name="Memhtml-Type" content="x">\n'
        '<meta name="memhtml-zeta" content="x">\n'
        '<meta name="memhtml-tag" content="a">\n<meta name="memhtml-tag" content="b">\n'
        '<meta name="memhtml-status" content="active">\n'
    )
    violations, _ = check(file_with("<p><mark>A.</mark></p>", head=head))
    assert violations == [
        '<meta name="memhtml-status"> appears 2 times but is not repeatable',
        '<meta name="memhtml-zeta"> is outside the closed metadata vocabulary',
    ]


@pytest.mark.parametrize(
    ("memory_type", "head", "violations"),
    [
        ("task", "", ['a task requires <meta name="memhtml-task-status">']),
        ("semantic", '<meta name="memhtml-task-status" content="todo">\n',
         ['<meta name="memhtml-task-status"> on a semantic memory: only a task carries one']),
        ("Task", '<meta name="memhtml-task-status" content="todo">\n',
         ['<meta name="memhtml-type" content="Task"> is outside the type vocabulary',
          '<meta name="memhtml-task-status"> on a typeless memory: only a task carries one']),
        ("task", '<meta name="memhtml-task-status" content="Done">\n',
         ['<meta name="memhtml-task-status" content="Done"> is outside the vocabulary: '
          "todo, doing, blocked, done"]),
        ("semantic", '<meta name="memhtml-due" content="2026-8-9">\n',
         ['<meta name="memhtml-due" content="2026-8-9"> is not an ISO date or datetime']),
        ("episodic", '<meta name="memhtml-due" content="2026-08-09">\n', []),
    ],
)  # fmt: skip
def test_task_rules(memory_type: str, head: str, violations: list[str]) -> None:
    assert check(file_with("<p><mark>A.</mark></p>", head=head, memory_type=memory_type))[0] == violations


def test_warnings_are_document_order_and_deduplicated() -> None:
    article = (
        "<p><mark>A.</mark> <i>x</i></p><div>a</div><div>b</div><h2>t</h2><i>y</i>"
        '<figure><div>ok</div><span>ok</span></figure><code data-lang="ts\n">z</code>'
        '<code data-lang="c++">z</code><address>a</address>'
    )
    assert check(file_with(article)) == ([], [
        "<i> is outside the closed vocabulary",
        "<div> outside a <figure>: use a semantic element instead",
        "<h2> is outside the closed vocabulary",
        'data-lang="ts\n" is not a language token',
    ])  # fmt: skip


def test_violations_come_in_memhtml_order() -> None:
    source = (
        "<!doctype html><html><head><title></title>"
        '<meta name="memhtml-type" content="vibes"><meta name="memhtml-status" content="active">'
        '<meta name="memhtml-created" content=""><meta name="memhtml-updated" content="">'
        '<link rel="memhtml-nope" href="/a.html"></head><body><article class="c">'
        "<p>x</p><p><mark>y</mark> <time>t</time></p></article></body></html>"
    )
    assert check(source)[0] == [
        "empty <title>",
        "<mark> not in the first <p>: the claim must lead the article",
        '<time> without datetime: "t"',
        "class attribute on <article>: presentation is not memory",
        '<link rel="memhtml-nope"> is outside the closed edge vocabulary',
        '<meta name="memhtml-type" content="vibes"> is outside the type vocabulary',
    ]


def test_bom_kept_by_a_utf8_reader_breaks_the_head() -> None:
    # readFile(...,"utf8") keeps the BOM; parse5 then moves every meta into the body.
    from memhtml_desktop.html.constraints import check as check_tree
    from memhtml_desktop.html.constraints import read_head
    from memhtml_desktop.html.tree import parse_html

    tree = parse_html("\ufeff" + file_with("<p><mark>A.</mark></p>"))
    _, violations, _ = check_tree(tree, read_head(tree))
    assert 'missing required <meta name="memhtml-type">' in violations
