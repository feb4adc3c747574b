"""Writing real memory files for tests: valid memhtml HTML built from a few keyword arguments."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Iterable


def memory_html(
    *,
    title: str,
    claim: str,
    body: str = "",
    memory_type: str = "semantic",
    status: str = "active",
    created: str = "2026-08-02T00:00:00Z",
    updated: str | None = None,
    entities: Iterable[str] = (),
    tags: Iterable[str] = (),
    links: Iterable[tuple[str, str]] = (),
    facets: Iterable[tuple[str, str]] = (),
    extra_metas: Iterable[tuple[str, str]] = (),
    event: str | None = None,
    article_extra: str = "",
) -> str:
    """A valid memory: the claim in <mark> inside the first <p>, optional facets as a <dl>."""
    esc = html.escape
    head = [
        "<!doctype html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{esc(title)}</title>",
        f'<meta name="memhtml-type" content="{memory_type}">',
        f'<meta name="memhtml-status" content="{status}">',
        f'<meta name="memhtml-created" content="{created}">',
        f'<meta name="memhtml-updated" content="{updated or created}">',
    ]
    for name, value in extra_metas:
        head.append(f'<meta name="{name}" content="{esc(value)}">')
    for entity in entities:
        head.append(f'<meta name="memhtml-entity" content="{esc(entity)}">')
    for tag in tags:
        head.append(f'<meta name="memhtml-tag" content="{esc(tag)}">')
    for rel, href in links:
        head.append(f'<link rel="memhtml-{rel}" href="{esc(href)}">')
    head.append("</head>")
    when = f' <time datetime="{event}">then</time>.' if event else ""
    article = [f"<p><mark>{esc(claim)}</mark> {esc(body)}{when}</p>"]
    if facets:
        article.append("<dl>" + "".join(f"<dt>{esc(n)}</dt><dd>{esc(v)}</dd>" for n, v in facets) + "</dl>")
    if article_extra:
        article.append(article_extra)
    return "\n".join(head + ["<body>", "<article>", *article, "</article>", "</body>", "</html>", ""])


def write_memory(root: Path, path: str, **kwargs) -> Path:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(memory_html(**kwargs), encoding="utf-8")
    return target


CHANGED_OLD = "resources/geo/capital-of-australia.html"
CHANGED_NEW = "resources/geo/australia-capital.html"


def write_changed_fact(root: Path) -> tuple[str, str]:
    """A fact that changed: one slot written twice, the later memory with another value, and a
    memory about another slot of the same subject. Returns (older, newer) paths."""
    write_memory(
        root,
        CHANGED_OLD,
        title="Capital of Australia",
        claim="The capital of Australia is Sydney.",
        created="2024-01-05T10:00:00Z",
    )
    write_memory(
        root,
        CHANGED_NEW,
        title="Capital of Australia",
        claim="The capital of Australia is Canberra.",
        created="2024-06-02T10:00:00Z",
    )
    write_memory(
        root,
        "resources/geo/currency.html",
        title="Currency of Australia",
        claim="The currency of Australia is the Dollar.",
        created="2024-03-01T10:00:00Z",
    )
    return CHANGED_OLD, CHANGED_NEW
