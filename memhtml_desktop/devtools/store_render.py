"""Render a generated memory spec to the bytes of a memhtml file, valid or deliberately broken.

The head follows memhtml's serializer order (`META_ORDER`, `html/src/vocabulary.ts`) with one
`<meta>` per line and the `<link>` edges after the metas, like the upstream `docs/format.md` example.
The article leads with `<p><mark>claim</mark> lead sentence</p>`, then the remaining paragraphs and
the element kits. No content-hash meta is written: it is advisory and the index computes its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

#: Scalar metas in serializer order, as (meta name, Spec attribute).
_SCALARS = (
    ("memhtml-type", "type"),
    ("memhtml-status", "status"),
    ("memhtml-created", "created"),
    ("memhtml-updated", "updated"),
    ("memhtml-confidence", "confidence"),
    ("memhtml-importance", "importance"),
    ("memhtml-author", "author"),
    ("memhtml-session", "session"),
    ("memhtml-prompt", "prompt"),
    ("memhtml-turn", "turn"),
    ("memhtml-valid-from", "valid_from"),
    ("memhtml-valid-until", "valid_until"),
    ("memhtml-reprieves", "reprieves"),
    ("memhtml-archived", "archived_at"),
    ("memhtml-superseded-by", "superseded_by"),
    ("memhtml-needs-revision", "needs_revision"),
    ("memhtml-task-status", "task_status"),
    ("memhtml-due", "due"),
)


@dataclass(slots=True)
class Spec:
    """One memory before it becomes HTML. `role` says why the generator wrote it."""

    path: str
    title: str
    type: str
    claim: str
    lead: str
    body: list[str]
    extras: list[str]
    created: str
    updated: str
    role: str = "base"
    topic: int = 0
    when: int = 0
    status: str = "active"
    confidence: str | None = None
    importance: str | None = None
    author: str | None = None
    session: str | None = None
    prompt: str | None = None
    turn: str | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    reprieves: str | None = None
    archived_at: str | None = None
    superseded_by: str | None = None
    needs_revision: str | None = None
    task_status: str | None = None
    due: str | None = None
    entities: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)


def _head(spec: Spec, title: str, skip: str = "", extra: tuple[str, ...] = ()) -> list[str]:
    lines = [
        "<!doctype html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{escape(title, quote=False)}</title>",
    ]
    for name, attr in _SCALARS:
        value = getattr(spec, attr)
        if value is not None and name != skip:
            lines.append(f'<meta name="{name}" content="{escape(value)}">')
    lines.extend(extra)
    lines.extend(f'<meta name="memhtml-entity" content="{escape(v)}">' for v in spec.entities)
    lines.extend(f'<meta name="memhtml-tag" content="{escape(v)}">' for v in spec.tags)
    lines.extend(f'<meta name="memhtml-alias" content="{escape(v)}">' for v in spec.aliases)
    lines.extend(f'<link rel="memhtml-{rel.replace("_", "-")}" href="{escape(href)}">' for rel, href in spec.links)
    lines.append("</head>")
    return lines


def _lead_paragraph(spec: Spec) -> str:
    claim = escape(spec.claim, quote=False)
    return f"<p><mark>{claim}</mark> {spec.lead}</p>" if spec.lead else f"<p><mark>{claim}</mark></p>"


def render(spec: Spec) -> bytes:
    lines = _head(spec, spec.title)
    lines += ["<body>", "<article>", _lead_paragraph(spec)]
    lines += [f"<p>{p}</p>" for p in spec.body]
    lines += spec.extras
    lines += ["</article>", "</body>", "</html>", ""]
    return "\n".join(lines).encode("utf-8")


# -- deliberately invalid files ----------------------------------------------------------------
# Each family breaks exactly one rule, and its message list is what memhtml's checkMemory reports
# (strings from store-format-golden/cases.expected.jsonl). `type` is the memory type it needs.

INVALID_FAMILIES: tuple[tuple[str, str | None], ...] = (
    ("two-marks", None),
    ("time-without-datetime", None),
    ("mark-not-in-first-p", None),
    ("missing-required-meta", None),
    ("no-article", None),
    ("bad-type", "semantic"),
    ("task-without-status", "task"),
    ("class-attribute", None),
    ("bad-link-href", None),
    ("bad-due", "task"),
    ("mark-in-aside", None),
    ("empty-mark", None),
    ("unknown-meta", None),
    ("duplicate-meta", None),
    ("bad-time", None),
    ("task-status-on-non-task", "semantic"),
    ("bad-status", None),
    ("empty-title", None),
)


def render_invalid(spec: Spec, family: str) -> tuple[bytes, tuple[str, ...]]:
    """The bytes of `spec` broken by `family`, and the exact violation list a checker reports."""
    title, skip, extra = spec.title, "", ()
    article_tag = "article"
    lead = _lead_paragraph(spec)
    body = [f"<p>{p}</p>" for p in spec.body] + list(spec.extras)
    claim = escape(spec.claim, quote=False)
    if family == "two-marks":
        lead = f"<p><mark>{claim}</mark> <mark>{spec.lead}</mark></p>"
        expected = "2 <mark> elements: exactly one span is the claim"
    elif family == "time-without-datetime":
        body.insert(0, "<p>Seen again on <time>the Tuesday after</time> during the rotation.</p>")
        expected = '<time> without datetime: "the Tuesday after"'
    elif family == "mark-not-in-first-p":
        lead = f"<p>{spec.lead}</p>\n<p><mark>{claim}</mark></p>"
        expected = "<mark> not in the first <p>: the claim must lead the article"
    elif family == "missing-required-meta":
        skip = "memhtml-updated"
        expected = 'missing required <meta name="memhtml-updated">'
    elif family == "no-article":
        article_tag = "section"
        expected = "no <article>: a memory file needs exactly one"
    elif family == "bad-type":
        spec.type = spec.type.capitalize()
        expected = f'<meta name="memhtml-type" content="{spec.type}"> is outside the type vocabulary'
    elif family == "task-without-status":
        spec.task_status = None
        expected = 'a task requires <meta name="memhtml-task-status">'
    elif family == "class-attribute":
        lead = lead.replace("<p>", '<p class="lead">', 1)
        expected = "class attribute on <p>: presentation is not memory"
    elif family == "bad-link-href":
        href = spec.path
        spec.links = [("supports", href)]
        expected = f'<link rel="memhtml-supports" href="{href}"> is not repo-root-relative'
    elif family == "bad-due":
        spec.due = "2026-8-9"
        expected = '<meta name="memhtml-due" content="2026-8-9"> is not an ISO date or datetime'
    elif family == "mark-in-aside":
        lead = f"<p>{spec.lead}</p>"
        body.append(f"<aside>\n<p><mark>{claim}</mark></p>\n</aside>")
        expected = "<mark> inside <aside>: the claim is never a caveat"
    elif family == "empty-mark":
        lead = f"<p><mark><code>drain --vip</code></mark> {claim}</p>"
        expected = "empty <mark>: the claim span must say something"
    elif family == "unknown-meta":
        extra = ('<meta name="memhtml-vibe" content="confident">',)
        expected = '<meta name="memhtml-vibe"> is outside the closed metadata vocabulary'
    elif family == "duplicate-meta":
        extra = (f'<meta name="memhtml-type" content="{spec.type}">',)
        expected = '<meta name="memhtml-type"> appears 2 times but is not repeatable'
    elif family == "bad-time":
        body.insert(0, '<p>Logged on <time datetime="2026-13-45">the thirteenth month</time>.</p>')
        expected = '<time datetime="2026-13-45"> is not an ISO date or datetime'
    elif family == "task-status-on-non-task":
        spec.task_status = "doing"
        expected = f'<meta name="memhtml-task-status"> on a {spec.type} memory: only a task carries one'
    elif family == "bad-status":
        spec.status = "live"
        expected = '<meta name="memhtml-status" content="live"> is neither active nor archived'
    elif family == "empty-title":
        title = ""
        expected = "empty <title>"
    else:  # pragma: no cover - guarded by INVALID_FAMILIES
        raise ValueError(f"unknown invalid family {family!r}")
    lines = _head(spec, title, skip, extra)
    lines += ["<body>", f"<{article_tag}>", lead, *body, f"</{article_tag}>", "</body>", "</html>", ""]
    return "\n".join(lines).encode("utf-8"), (expected,)


MINIMAL_MEMORY = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<meta name="memhtml-type" content="semantic">
<meta name="memhtml-status" content="active">
<meta name="memhtml-created" content="2026-08-02T00:00:00Z">
<meta name="memhtml-updated" content="2026-08-02T00:00:00Z">
</head>
<body>
<article>
<p><mark>{claim}</mark></p>
</article>
</body>
</html>
"""


def minimal_memory(title: str, claim: str) -> str:
    """The smallest valid memory (golden case `areas__edge__minimal` with a title and a claim):
    what benches and tests write when the content does not matter, only that it changed."""
    import html

    return MINIMAL_MEMORY.format(title=html.escape(title), claim=html.escape(claim))
