"""The closed vocabulary of a memory file: elements, metas, link rels.

Everything here is data copied from memhtml's `html/src/vocabulary.ts` and `contracts/src/edges.ts`
(release 0.4.0). The vocabulary *is* the policy: a name added here changes which files index, which
warn, and which text counts as a block boundary, so every set is a frozenset and nothing mutates it.

Names are compared case-sensitively everywhere. The WHATWG parser already lowercases tag and
attribute names, but attribute *values* (meta names, rel tokens) reach us as the author typed them,
so `Memhtml-Type` is simply not a memhtml meta.
"""

from __future__ import annotations

from memhtml_desktop.domain.paths import MEMORY_TYPES, TASK_STATUSES

META_PREFIX = "memhtml-"

#: The 22 meta names in serializer order (`META_ORDER`). Only these may follow `memhtml-`.
META_ORDER: tuple[str, ...] = (
    "memhtml-type",
    "memhtml-status",
    "memhtml-created",
    "memhtml-updated",
    "memhtml-confidence",
    "memhtml-importance",
    "memhtml-content-hash",
    "memhtml-author",
    "memhtml-session",
    "memhtml-prompt",
    "memhtml-turn",
    "memhtml-valid-from",
    "memhtml-valid-until",
    "memhtml-reprieves",
    "memhtml-archived",
    "memhtml-superseded-by",
    "memhtml-needs-revision",
    "memhtml-task-status",
    "memhtml-due",
    "memhtml-entity",
    "memhtml-tag",
    "memhtml-alias",
)
META_NAMES = frozenset(META_ORDER)

#: Checked in this order, so "missing required" violations come out in this order too.
REQUIRED_META: tuple[str, ...] = ("memhtml-type", "memhtml-status", "memhtml-created", "memhtml-updated")

#: Each value is its own `<meta>`, so these may repeat; any other name repeated is a violation.
REPEATABLE_META = frozenset({"memhtml-entity", "memhtml-tag", "memhtml-alias"})

MEMORY_TYPE_SET = frozenset(MEMORY_TYPES)
TASK_STATUS_SET = frozenset(TASK_STATUSES)

DOCUMENT_ELEMENTS = ("html", "head", "body", "title", "meta", "link")
ARTICLE_ELEMENTS = (
    "article", "mark", "time", "dl", "dt", "dd", "data", "cite", "q", "dfn", "figure",
    "figcaption", "details", "summary", "aside", "section", "abbr", "pre", "code", "kbd", "samp",
    "var", "table", "caption", "thead", "tbody", "tr", "th", "td", "p", "ul", "ol", "li", "a",
    "strong", "em",
)  # fmt: skip

#: `div`/`span` are allowed only under a `<figure>`, where pasted code carries its own containers.
FIGURE_SCOPED = frozenset({"div", "span"})

#: Every element name the vocabulary knows at any position; anything else warns.
KNOWN_ELEMENTS = frozenset((*DOCUMENT_ELEMENTS, *ARTICLE_ELEMENTS, "address", *FIGURE_SCOPED))

#: Phrasing elements: no word boundary at their edges. Every other element, *including unknown
#: ones*, is a block and contributes a collapsible space at each edge of its text.
INLINE_ELEMENTS = frozenset(
    {"mark", "time", "data", "cite", "q", "dfn", "abbr", "code", "kbd", "samp", "var", "a",
     "strong", "em", "span"}
)  # fmt: skip

#: Subtrees the gist skips: a command line is body text, never the claim.
GIST_EXCLUDED = frozenset({"pre", "code"})

FORBIDDEN_ELEMENTS = frozenset({"script", "style"})
FORBIDDEN_ATTRIBUTES = frozenset({"class", "style"})
EVENT_HANDLER_PREFIX = "on"

MEMORY_RELS = (
    "supersedes", "contradicts", "caused_by", "leads_to", "part_of", "relates_to", "example_of",
    "supports", "laterally_related",
)  # fmt: skip
PERSON_RELS = ("about_person", "authored_by")
PROVENANCE_RELS = ("from_session",)
TASK_RELS = ("blocks", "subtask_of")

#: rel -> edge class. The class is derived from the rel, never carried beside it.
REL_CLASS: dict[str, str] = {
    **{rel: "memory" for rel in MEMORY_RELS},
    **{rel: "person" for rel in PERSON_RELS},
    **{rel: "provenance" for rel in PROVENANCE_RELS},
    **{rel: "task" for rel in TASK_RELS},
}


def rel_for_token(token: str) -> str | None:
    """The rel behind a `<link rel>` token, or None outside the vocabulary.

    The token is the whole attribute value, so `rel="memhtml-supports other"` is not a rel.
    Every `-` becomes `_`, which is why `memhtml-laterally_related` is accepted as well.
    """
    if not token.startswith(META_PREFIX):
        return None
    rel = token[len(META_PREFIX) :].replace("-", "_")
    return rel if rel in REL_CLASS else None
