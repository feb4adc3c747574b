"""A memory file as the reader pane and the `read` command show it, valid or not.

`project()` answers "what goes in the index"; this answers "what does the file say". It reads the
same parse with the same rules, but it is best effort: an invalid file still shows its title, its
metas, its links (each marked valid or not) and whatever the first `<article>` holds, next to the
violations that keep it out of the index. It never raises.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memhtml_desktop.domain.paths import normalize_path
from memhtml_desktop.html.constraints import check, is_root_relative_href, read_head
from memhtml_desktop.html.extract import ArticleFacts, read_article, title_of
from memhtml_desktop.html.jsnum import js_trim
from memhtml_desktop.html.project import decode
from memhtml_desktop.html.rows import KEY_SEP, dedupe, dedupe_by, entity_rows
from memhtml_desktop.html.tree import DocumentTooComplex, parse_html
from memhtml_desktop.html.vocabulary import META_PREFIX, REL_CLASS


@dataclass
class MemoryDocument:
    """What one file says, for display. Empty fields mean "not found", never "not computed"."""

    path: str
    title: str = ""
    gist: str = ""
    #: Every `<meta name="memhtml-*">` under `<head>`, in order, as `(name, content)`.
    metas: list[tuple[str, str]] = field(default_factory=list)
    #: `{rel, href, dst_path, edge_class, valid}` per `<link rel="memhtml-*">`; `rel` is the
    #: underscore form, `edge_class` is None for a rel outside the vocabulary.
    links: list[dict] = field(default_factory=list)
    article_text: str = ""
    violations: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    facets: list[tuple[str, str, float | None]] = field(default_factory=list)
    citations: list[tuple[str, str | None]] = field(default_factory=list)
    entities: list[tuple[str, str]] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


def read_document(path: str, data: bytes) -> MemoryDocument:
    """Everything a reader shows about one file. Facets, citations, entities and tags are the
    deduplicated rows the index would hold. Never raises."""
    doc = MemoryDocument(path=path)
    try:
        _fill(doc, data)
    except DocumentTooComplex as exc:
        doc.violations = [f"unreadable: {exc}"]
    except Exception as exc:  # noqa: BLE001 - a reader pane shows the failure, it never crashes
        doc.violations.append(f"unreadable: {type(exc).__name__}: {str(exc)[:200]}")
    return doc


def _fill(doc: MemoryDocument, data: bytes) -> None:
    tree = parse_html(decode(bytes(data)))
    head = read_head(tree)
    _, doc.violations, doc.warnings = check(tree, head)
    doc.title = title_of(tree)
    doc.metas = [(name, content) for name, content in head.metas if name.startswith(META_PREFIX)]
    doc.links = [_link(el.attrs.get("rel") or "", el.attrs.get("href")) for el in head.links
                 if (el.attrs.get("rel") or "").startswith(META_PREFIX)]  # fmt: skip
    doc.tags = dedupe(t for t in map(js_trim, head.repeated("memhtml-tag")) if t)
    article = tree.first("article")
    if article is None:
        doc.entities = entity_rows(head.repeated("memhtml-entity"), ArticleFacts())
        return
    facts = read_article(tree, article)
    doc.gist = facts.gist
    doc.article_text = facts.body_text
    doc.facets = dedupe_by(facts.facets, lambda f: f[0] + KEY_SEP + f[1])
    doc.citations = dedupe_by(facts.citations, lambda c: c[0])
    doc.entities = entity_rows(head.repeated("memhtml-entity"), facts)


def _link(token: str, href: str | None) -> dict:
    rel = token[len(META_PREFIX) :].replace("-", "_")
    edge_class = REL_CLASS.get(rel)
    return {
        "rel": rel,
        "href": href,
        "dst_path": normalize_path(href) if href else None,
        "edge_class": edge_class,
        "valid": edge_class is not None and bool(href) and is_root_relative_href(href or ""),
    }
