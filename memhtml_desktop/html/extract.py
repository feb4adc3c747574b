"""What the indexer reads out of a valid memory: article facts and typed head values.

This is `readArticle` and `readMetas` of memhtml's `html/src/parse.ts`. Each extracted text is
`collapse(canonical(el))` (see `canonical.py`), so the same words come out whichever field they
land in. Extraction never validates: it runs after `constraints.check` has passed, and for the
reader pane (`detail.py`) on invalid files too, where it must simply not fail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from memhtml_desktop.html.canonical import text_excluding_code, text_of
from memhtml_desktop.html.constraints import Head
from memhtml_desktop.html.jsnum import js_number, js_trim
from memhtml_desktop.html.tree import Element, Tree
from memhtml_desktop.html.vocabulary import TASK_STATUS_SET

MAX_SAFE_INTEGER = 2**53 - 1


@dataclass(slots=True)
class ArticleFacts:
    """Everything memhtml extracts from `<article>`, before deduplication."""

    body_text: str = ""
    gist: str = ""
    event_at: str | None = None
    facets: list[tuple[str, str, float | None]] = field(default_factory=list)
    citations: list[tuple[str, str | None]] = field(default_factory=list)
    defined_terms: list[str] = field(default_factory=list)
    summary_texts: list[str] = field(default_factory=list)
    code_langs: list[str] = field(default_factory=list)


def read_article(tree: Tree, article: Element, body_text: str | None = None) -> ArticleFacts:
    """The article's facts; pass `body_text` when it is already known (see `body_and_hash`)."""
    facts = ArticleFacts(body_text=text_of(tree, article) if body_text is None else body_text)
    marks = tree.named_within(article, "mark")
    if marks:
        facts.gist = text_excluding_code(tree, marks[0])
    times = tree.named_within(article, "time")
    if times:
        facts.event_at = times[0].attrs.get("datetime")
    facts.facets = read_facets(tree, article)
    facts.citations = read_citations(tree, article)
    facts.defined_terms = _texts(tree, article, "dfn")
    facts.summary_texts = _texts(tree, article, "summary")
    for code in tree.named_within(article, "code"):
        lang = code.attrs.get("data-lang")
        if lang is not None and js_trim(lang) != "":
            facts.code_langs.append(js_trim(lang).lower())
    return facts


def _texts(tree: Tree, root: Element, tag: str) -> list[str]:
    texts = (text_of(tree, el) for el in tree.named_within(root, tag))
    return [text for text in texts if text != ""]


def read_facets(tree: Tree, article: Element) -> list[tuple[str, str, float | None]]:
    """`(name, value, numeric_value)` per `<dd>` under the latest `<dt>` of its `<dl>`.

    Only *direct* element children of each `<dl>` count, so `<div>`-wrapped pairs yield nothing,
    and a `<dd>` before any `<dt>` is skipped. One `<dt>` may govern several `<dd>`s.
    """
    facets = []
    for dl in tree.named_within(article, "dl"):
        name: str | None = None
        for child in dl.children or ():
            if child.tag == "dt":
                name = text_of(tree, child)
            elif child.tag == "dd" and name is not None:
                facets.append((name, text_of(tree, child), data_value(tree, child)))
    return facets


def data_value(tree: Tree, dd: Element) -> float | None:
    """The first descendant `<data value>` that is finite under JS `Number()`; `""` gives 0."""
    for data in tree.named_within(dd, "data"):
        raw = data.attrs.get("value")
        if raw is None:
            continue
        number = js_number(raw)
        if math.isfinite(number):
            return number
    return None


def read_citations(tree: Tree, article: Element) -> list[tuple[str, str | None]]:
    """Every non-empty `<cite>` and `<q>` in document order; only a `<q>` carries an href."""
    citations = []
    for el in tree.named_within(article, "cite", "q"):
        text = text_of(tree, el)
        if text != "":
            citations.append((text, el.attrs.get("cite") if el.tag == "q" else None))
    return citations


def title_of(tree: Tree) -> str:
    """`collapse(canonical(first <title>))`, or "" when there is none."""
    title = tree.first("title")
    return "" if title is None else text_of(tree, title)


def bounded_number(raw: str | None, low: float, high: float, integral: bool) -> float | None:
    """JS `Number(raw)` when finite and in `[low, high]` (and integral if asked), else None.

    None means "dropped": the column default applies, exactly as for an absent meta.
    """
    if raw is None:
        return None
    number = js_number(raw)
    if not math.isfinite(number) or number < low or number > high:
        return None
    if integral and not number.is_integer():
        return None
    return number


@dataclass(frozen=True, slots=True)
class MetaColumns:
    """The head's contribution to the `files` row, defaults already applied."""

    memory_type: str
    created_at: str
    updated_at: str
    confidence: float
    importance: int
    reprieves: int
    needs_revision: int
    author: str
    session_id: str | None
    prompt_id: str | None
    turn_uuid: str | None
    valid_from: str | None
    valid_until: str | None
    archived_at: str | None
    task_status: str | None
    due_at: str | None


def read_meta_columns(head: Head) -> MetaColumns:
    """Typed optionals (malformed ones dropped to the default) for a file that passed `check`."""
    single = head.single
    confidence = bounded_number(single("memhtml-confidence"), 0, 1, False)
    importance = bounded_number(single("memhtml-importance"), 1, 10, True)
    reprieves = bounded_number(single("memhtml-reprieves"), 0, MAX_SAFE_INTEGER, True)
    needs_revision = single("memhtml-needs-revision")
    task_status = single("memhtml-task-status")
    return MetaColumns(
        memory_type=single("memhtml-type") or "",
        created_at=single("memhtml-created") or "",
        updated_at=single("memhtml-updated") or "",
        confidence=1.0 if confidence is None else confidence,
        importance=5 if importance is None else int(importance),
        reprieves=0 if reprieves is None else int(reprieves),
        needs_revision=int(needs_revision is not None and needs_revision.lower() in ("true", "1", "yes")),
        author=_or(single("memhtml-author"), "agent"),
        session_id=single("memhtml-session"),
        prompt_id=single("memhtml-prompt"),
        turn_uuid=single("memhtml-turn"),
        valid_from=single("memhtml-valid-from"),
        valid_until=single("memhtml-valid-until"),
        archived_at=single("memhtml-archived"),
        task_status=task_status if task_status in TASK_STATUS_SET else None,
        due_at=single("memhtml-due"),
    )


def _or(value: str | None, default: str) -> str:
    """`value ?? default`: an empty string is a value, only absence takes the default."""
    return default if value is None else value
