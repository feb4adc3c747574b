"""A memory as a form can show it: the fields a correction starts from, read from the file's bytes.

memhtml's `correct` writes the new version from its flags alone, so everything the old file said
beyond the title and the claim (tags, entities, facets, workspace, importance, confidence, the
rest of the article) is lost unless the caller passes it again. The window's Correct dialog
pre-fills its fields from a `MemoryDraft` and passes them back explicitly in a `CorrectRequest`.

The draft is read from the file itself (not the index), in one read, and carries the file's git
blob id as `expected`: a write made from the dialog is refused if the file changed on disk since
(`requests.py`). The article's other blocks become plain-text bodies: a paragraph's text, a list
as `- item` lines, a code block as a fenced block with its language. Inline markup (`<time>`,
`<var>`, `<data>`) becomes its text; the old version is archived byte for byte, so nothing is lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from memhtml_desktop.domain.paths import TASK_STATUSES, is_archived, workspace_of
from memhtml_desktop.html.constraints import read_head
from memhtml_desktop.html.extract import title_of
from memhtml_desktop.html.project import blob_sha_of, decode, project
from memhtml_desktop.html.tree import DocumentTooComplex, parse_html
from memhtml_desktop.html.vocabulary import MEMORY_RELS, TASK_RELS
from memhtml_desktop.write.context import clean_path
from memhtml_desktop.write.errors import InvalidMemory, PathNotFound
from memhtml_desktop.write.planner_new import WRITABLE_TYPES
from memhtml_desktop.write.prose import paragraphs

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import CuratorStore

# The vocabularies a form offers (the planners refuse anything else).
FORM_TYPES = WRITABLE_TYPES
FORM_TASK_STATUSES = TASK_STATUSES
MEMORY_RELATIONS = MEMORY_RELS
TASK_RELATIONS = TASK_RELS

_SKIPPED = frozenset({"dl", "script", "style", "template"})


@dataclass(frozen=True)
class MemoryDraft:
    """What a form shows for one memory, and the blob id of the bytes it was read from."""

    path: str
    title: str
    memory_type: str | None
    claim: str
    bodies: tuple[str, ...]
    tags: tuple[str, ...]
    entities: tuple[str, ...]
    facets: tuple[tuple[str, str, str | None], ...]  # (name, value, number as written or None)
    workspace: str | None
    importance: str | None
    confidence: str | None
    task_status: str | None
    archived: bool
    valid: bool
    expected: str  # the git blob id of the bytes read
    graph: Any = None  # its place in the graph (write/graph.MemoryGraph), when asked for


def _text(node: LexborNode) -> str:
    return " ".join((node.text(deep=True, separator="") or "").split())


def _block_text(node: LexborNode) -> str:
    """A block as plain text: lists as `- item` lines, code as a fenced block."""
    tag = node.tag
    if tag in ("ul", "ol"):
        items = [_text(li) for li in node.iter() if li.tag == "li"]
        return "\n".join(f"- {item}" for item in items if item)
    code = node if tag == "pre" else node.css_first("pre")
    if code is not None and tag in ("pre", "figure"):
        inner = code.css_first("code")
        lang = (inner.attributes.get("data-lang") if inner is not None else None) or ""
        body = (code.text(deep=True, separator="") or "").strip("\n")
        return f"```{lang}\n{body}\n```"
    return _text(node)


def article_parts(html_text: str, claim: str) -> tuple[tuple[str, ...], tuple[tuple[str, str, str | None], ...]]:
    """(bodies, facets) of a memory's article: every block but the claim's words and the facets."""
    parser = LexborHTMLParser(html_text)
    article = parser.css_first("article")
    if article is None:
        return (), ()
    facets: list[tuple[str, str, str | None]] = []
    for dl in article.css("dl"):
        name = None
        for child in dl.iter():
            if child.tag == "dt":
                name = _text(child)
            elif child.tag == "dd" and name:
                data = child.css_first("data")
                number = data.attributes.get("value") if data is not None else None
                facets.append((name, _text(child), number))
    bodies: list[str] = []
    claim_taken = False
    for node in article.iter(include_text=True):
        if node.tag == "-text":
            text = " ".join((node.text_content or "").split())
            if text:
                bodies.append(text)
            continue
        if node.tag in _SKIPPED or node.tag.startswith("-"):
            continue
        mark = node if node.tag == "mark" else node.css_first("mark")
        if mark is not None and not claim_taken:
            claim_taken = True
            whole, said = _text(node), _text(mark)
            rest = whole.replace(said, "", 1).strip() if said else whole
            if rest:
                bodies.append(rest)
            continue
        text = _block_text(node)
        if text:
            bodies.append(text)
    if bodies and not claim_taken and claim and bodies[0].startswith(claim):
        bodies[0] = bodies[0][len(claim) :].strip()
        bodies = [b for b in bodies if b]
    return tuple(bodies), tuple(facets)


def memory_draft(store: CuratorStore, path: str) -> MemoryDraft:
    """The draft of the memory at `path` (PathNotFound when there is no such file)."""
    path = clean_path(path)
    data = store.file_bytes(path)
    if data is None:
        raise PathNotFound(path)
    text = decode(data)
    try:
        tree = parse_html(text)
    except DocumentTooComplex as exc:  # past the parse budget: a form cannot be made of it
        raise InvalidMemory(f"{path} cannot be drafted: unreadable: {exc}") from None
    head = read_head(tree)
    projection = project(path, data, "1970-01-01T00:00:00Z")
    row = projection.tables["files"][0] if projection.ok else {}
    claim = row.get("gist") or ""
    bodies, facets = article_parts(text, claim)
    return MemoryDraft(
        path=path,
        title=title_of(tree),
        memory_type=head.single("memhtml-type"),
        claim=claim,
        bodies=bodies,
        tags=tuple(head.repeated("memhtml-tag")),
        entities=tuple(head.repeated("memhtml-entity")),
        facets=facets,
        workspace=workspace_of(path),
        importance=head.single("memhtml-importance"),
        confidence=head.single("memhtml-confidence"),
        task_status=head.single("memhtml-task-status"),
        archived=is_archived(path),
        valid=projection.ok,
        expected=blob_sha_of(data),
    )


def split_bodies(text: str) -> tuple[str, ...]:
    """A form's body text as bodies: blocks between blank lines, a fenced code block kept whole."""
    return tuple(paragraphs(text))


def join_bodies(bodies) -> str:
    """The inverse for showing a draft: one blank line between bodies."""
    return "\n\n".join(bodies)
