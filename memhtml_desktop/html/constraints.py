"""Validation: memhtml's violations and warnings, with its exact strings in its exact order.

Order (spec §7, `checkDocument` then `readMetas`): head (title, missing required metas, unknown or
repeated names in first-seen order), article count, the mark, every `<time>`, presentation and
script anywhere, head links, then meta values (type, status, task coupling, due). Nothing
short-circuits: one pass tells an author everything wrong with the file. Warnings never block a
write; they come in document order, deduplicated by key, so forty stray `<div>`s warn once.

The message strings are part of the contract (doctor panels and logs compare them), so they are
written out literally rather than assembled from shared fragments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memhtml_desktop.domain.paths import TASK_STATUSES
from memhtml_desktop.html.canonical import text_excluding_code
from memhtml_desktop.html.datetime_rule import is_valid_datetime
from memhtml_desktop.html.jsnum import js_slice_units, js_trim
from memhtml_desktop.html.tree import IN_ASIDE, IN_DETAILS, IN_FIGURE, Element, Tree
from memhtml_desktop.html.vocabulary import (
    EVENT_HANDLER_PREFIX,
    FIGURE_SCOPED,
    FORBIDDEN_ATTRIBUTES,
    FORBIDDEN_ELEMENTS,
    KNOWN_ELEMENTS,
    MEMORY_TYPE_SET,
    META_NAMES,
    META_PREFIX,
    REPEATABLE_META,
    REQUIRED_META,
    TASK_STATUS_SET,
    rel_for_token,
)

#: `LANG_TOKEN`, tested on the untrimmed value; `fullmatch` because JS `$` never matches before
#: a trailing newline the way Python's does.
LANG_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#.\-]*")


@dataclass(frozen=True, slots=True)
class Head:
    """What the head says: `<meta name>` pairs in order and the `memhtml-` links."""

    metas: list[tuple[str, str]]
    links: list[Element]
    #: name -> content of its first occurrence (a scalar meta reads the first one).
    first: dict[str, str] = field(default_factory=dict)

    def single(self, name: str) -> str | None:
        """The first occurrence of a scalar meta, as memhtml reads it."""
        return self.first.get(name)

    def repeated(self, name: str) -> list[str]:
        """Every non-empty value of a repeatable meta, in document order, untrimmed."""
        return [content for meta_name, content in self.metas if meta_name == name and content != ""]


def read_head(tree: Tree) -> Head:
    """The metas (name present, content defaulting to "") and links under the first `<head>`."""
    head = tree.first("head")
    if head is None:
        return Head([], [], {})
    metas = []
    first: dict[str, str] = {}
    for el in tree.named_within(head, "meta"):
        name = el.attrs.get("name")
        if name is not None:
            content = el.attrs.get("content", "")
            metas.append((name, content))
            first.setdefault(name, content)
    return Head(metas, tree.named_within(head, "link"), first)


def text_for_message(el: Element) -> str:
    """memhtml's `textOf`: direct text children, JS-trimmed, cut to 40 UTF-16 units."""
    return js_slice_units(js_trim(el.direct_text()), 40)


def is_root_relative_href(href: str) -> bool:
    """`/`-rooted, not `//`, and no empty, `.` or `..` segment before any `?` or `#`."""
    if not href.startswith("/") or href.startswith("//"):
        return False
    path = re.split(r"[?#]", href, maxsplit=1)[0]
    return all(segment not in ("", ".", "..") for segment in path[1:].split("/"))


def check_head(tree: Tree, head: Head) -> list[str]:
    violations = []
    titles = tree.named("title")
    if len(titles) != 1:
        violations.append(f"{len(titles)} <title> elements: a memory file needs exactly one")
    elif text_for_message(titles[0]) == "":
        violations.append("empty <title>")
    counts: dict[str, int] = {}
    for name, _ in head.metas:
        counts[name] = counts.get(name, 0) + 1
    for required in REQUIRED_META:
        if required not in counts:
            violations.append(f'missing required <meta name="{required}">')
    for name, count in counts.items():
        if not name.startswith(META_PREFIX):
            continue
        if name not in META_NAMES:
            violations.append(f'<meta name="{name}"> is outside the closed metadata vocabulary')
        elif count > 1 and name not in REPEATABLE_META:
            violations.append(f'<meta name="{name}"> appears {count} times but is not repeatable')
    return violations


def check_article(tree: Tree) -> tuple[Element | None, list[str]]:
    articles = tree.named("article")
    if not articles:
        return None, ["no <article>: a memory file needs exactly one"]
    if len(articles) > 1:
        return None, [f"{len(articles)} <article> elements: a memory file needs exactly one"]
    return articles[0], []


def check_mark(tree: Tree, article: Element) -> list[str]:
    """Exactly one non-empty `<mark>`, not folded away, inside the article's first `<p>`/`<li>`.

    A fold violation (aside/details) suppresses the position check, emptiness does not: an empty
    mark can be well or badly placed, and the author fixing one still has the other.
    """
    marks = tree.named_within(article, "mark")
    if not marks:
        return ["no <mark>: the claim span is required"]
    if len(marks) > 1:
        return [f"{len(marks)} <mark> elements: exactly one span is the claim"]
    mark = marks[0]
    violations = []
    if text_excluding_code(tree, mark) == "":
        violations.append("empty <mark>: the claim span must say something")
    folded = []
    if mark.ancestors & IN_ASIDE:
        folded.append("<mark> inside <aside>: the claim is never a caveat")
    if mark.ancestors & IN_DETAILS:
        folded.append("<mark> inside <details>: the claim is never behind a fold")
    if folded:
        return violations + folded
    blocks = tree.named_within(article, "p", "li")
    if not blocks:
        violations.append("<mark> outside any <p> or <li>: the claim must lead a paragraph or list item")
    elif not blocks[0].contains(mark):
        violations.append(f"<mark> not in the first <{blocks[0].tag}>: the claim must lead the article")
    return violations


def check_times(tree: Tree) -> list[str]:
    violations = []
    for el in tree.named("time"):
        value = el.attrs.get("datetime")
        if value is None:
            violations.append(f'<time> without datetime: "{text_for_message(el)}"')
        elif not is_valid_datetime(value):
            violations.append(f'<time datetime="{value}"> is not an ISO date or datetime')
    return violations


def scan_elements(tree: Tree) -> tuple[list[str], list[str]]:
    """One pass over every element: presentation/script violations, and the vocabulary warnings.

    Violations: no `<script>`/`<style>`, no `class`/`style`, no `on*` handler, on any element.
    Warnings: an element outside the vocabulary, a `div`/`span` outside a `<figure>`, and a
    `data-lang` failing the token grammar (tested untrimmed), each key reported once.
    """
    violations: list[str] = []
    warnings: list[str] = []
    seen: set[str] = set()
    known = KNOWN_ELEMENTS
    for el in tree.elements:
        tag = el.tag
        if tag in FORBIDDEN_ELEMENTS:
            violations.append(f"<{tag}> is forbidden: a memory file does not execute or style")
        attrs = el.attrs
        if attrs:
            for name in attrs:
                lowered = name.lower()
                if lowered in FORBIDDEN_ATTRIBUTES:
                    violations.append(f"{lowered} attribute on <{tag}>: presentation is not memory")
                elif lowered.startswith(EVENT_HANDLER_PREFIX) and len(lowered) > 2:
                    violations.append(f"{lowered} handler on <{tag}>: a memory file does not execute")
            lang = attrs.get("data-lang")
            if lang is not None and LANG_TOKEN.fullmatch(lang) is None and "lang:" + lang not in seen:
                seen.add("lang:" + lang)
                warnings.append(f'data-lang="{lang}" is not a language token')
        if tag in known and tag not in FIGURE_SCOPED:
            continue
        if tag in FIGURE_SCOPED:
            key = "scoped:" + tag
            if not el.ancestors & IN_FIGURE and key not in seen:
                seen.add(key)
                warnings.append(f"<{tag}> outside a <figure>: use a semantic element instead")
        elif "unknown:" + tag not in seen:
            seen.add("unknown:" + tag)
            warnings.append(f"<{tag}> is outside the closed vocabulary")
    return violations, warnings


def check_links(head: Head) -> list[str]:
    violations = []
    for el in head.links:
        rel = el.attrs.get("rel")
        if rel is None or not rel.startswith(META_PREFIX):
            continue
        href = el.attrs.get("href")
        if rel_for_token(rel) is None:
            violations.append(f'<link rel="{rel}"> is outside the closed edge vocabulary')
        if not href:
            violations.append(f'<link rel="{rel}"> without href')
        elif not is_root_relative_href(href):
            violations.append(f'<link rel="{rel}" href="{href}"> is not repo-root-relative')
    return violations


def check_meta_values(head: Head) -> list[str]:
    """`readMetas`: type and status vocabularies, task coupling, and the due datetime."""
    violations = []
    raw_type = head.single("memhtml-type")
    memory_type = raw_type if raw_type in MEMORY_TYPE_SET else None
    raw_status = head.single("memhtml-status")
    if raw_type is not None and memory_type is None:
        violations.append(f'<meta name="memhtml-type" content="{raw_type}"> is outside the type vocabulary')
    if raw_status is not None and raw_status not in ("active", "archived"):
        violations.append(f'<meta name="memhtml-status" content="{raw_status}"> is neither active nor archived')
    task_status = head.single("memhtml-task-status")
    is_task = memory_type == "task"
    if task_status is not None and not is_task:
        violations.append(
            f'<meta name="memhtml-task-status"> on a {memory_type or "typeless"} memory: only a task carries one'
        )
    if task_status is not None and task_status not in TASK_STATUS_SET:
        violations.append(
            f'<meta name="memhtml-task-status" content="{task_status}"> is outside the vocabulary: '
            + ", ".join(TASK_STATUSES)
        )
    if is_task and task_status is None:
        violations.append('a task requires <meta name="memhtml-task-status">')
    due = head.single("memhtml-due")
    if due is not None and not is_valid_datetime(due):
        violations.append(f'<meta name="memhtml-due" content="{due}"> is not an ISO date or datetime')
    return violations


def check(tree: Tree, head: Head) -> tuple[Element | None, list[str], list[str]]:
    """The article (when exactly one), every violation in memhtml's order, and the warnings."""
    article, article_violations = check_article(tree)
    violations = check_head(tree, head)
    violations += article_violations
    if article is not None:
        violations += check_mark(tree, article)
    violations += check_times(tree)
    presentation, warnings = scan_elements(tree)
    violations += presentation
    violations += check_links(head)
    violations += check_meta_values(head)
    return article, violations, warnings
