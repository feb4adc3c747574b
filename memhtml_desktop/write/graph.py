"""A memory's place in the graph, and keeping it when a correction or a supersession replaces it.

memhtml's `correct` writes the new version from its flags alone: the old memory's links (`part-of`
an arc, `about-person` someone), its `<dfn>` entities and its facets are not in the new file, the
memories that linked to the old path keep linking to a file that moved into `archive/` (memhtml
leaves them dangling; `doctor --fix` later points them at the archived copy), and the old path's
reads follow the archived copy, so the live version reads "Not read yet". Its consolidation
(`supersede`) does the same to the memory it archives.

Here a replacement can keep the memory's place (docs/writing.md, "Keeping the graph"):

- **its links** (`GraphLink`): the old memory's authored links are written on the new one, in
  their order, after memhtml's `supersedes`. Three rels are not carried unless asked:
  `supersedes` (the old version's predecessor has its successor already: the chain runs through
  the old version), `authored_by` and `from_session` (who wrote the old text, and when: the
  correction's own provenance is its commit and its session);
- **its entities**: the meta entities as they are, and each `<dfn>` term as a `concept:` meta
  entity (the index reads both as the same `concept` row; a form cannot hold inline markup);
- **its facets**: a correction's form starts from them; a supersession appends the loser's facets
  the winner lacks to the winner's article, as one `<dl>` before `</article>`;
- **the links to it** (`Inbound`): each active memory linking to the old path is edited in the
  same commit so its link names the new one (in place: the link keeps its place in that head);
- **its reads**: a correction's new version is the same memory reworded, so its `state.access`
  row moves to the new path (unless its outcome is negative: read and found unhelpful, likely
  because it was wrong, a score the correction should not start with) (the one guarded statement every move uses, beside memhtml's CLI writing
  the same file); a supersession's winner is another memory with a history of its own, so the
  loser's row stays with its archived copy (memhtml's move) and the reader says where it is.

Everything is passed explicitly in the request (`CorrectRequest.links`, `.repoint`,
`.reads_follow`; `SupersedeRequest.links`, `.entities`, `.facets`, `.repoint`), so a curator can
remove any of it, and without it the bytes are memhtml's (the golden cases hold).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from memhtml_desktop.html.detail import read_document
from memhtml_desktop.html.project import blob_sha_of, project
from memhtml_desktop.html.vocabulary import MEMORY_RELS, REL_CLASS, TASK_RELS
from memhtml_desktop.index import curation
from memhtml_desktop.index.curation import access_stats
from memhtml_desktop.write import head_edit
from memhtml_desktop.write.context import clean_path
from memhtml_desktop.write.errors import InvalidMemory, PathNotFound, Refused
from memhtml_desktop.write.plan import FileChange

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import CuratorStore

#: Rels a replacement does not take over by default, and why (the dialog shows the reason).
NOT_CARRIED = {
    "supersedes": "the old version's own predecessor: the chain runs through the old version",
    "authored_by": "who wrote the old text, not the correction",
    "from_session": "the session the old text came from, not the correction's",
}
#: Links never repointed: a `supersedes` link to a live memory names that version, not its successor.
NOT_REPOINTED = frozenset({"supersedes"})


@dataclass(frozen=True)
class GraphLink:
    """One authored link of the memory being replaced."""

    rel: str
    path: str
    title: str = ""
    keep: bool = True  # carried over unless the curator removes it
    note: str = ""  # why it is not carried by default


@dataclass(frozen=True)
class Inbound:
    """A memory linking to the one being replaced."""

    src: str
    rel: str
    title: str = ""
    expected: str | None = None  # the git blob id of its bytes as read
    repoint: bool = True  # offered (and ticked) for repointing
    note: str = ""  # why it is not offered


@dataclass(frozen=True)
class MemoryGraph:
    """What a replacement would lose: links out, entities, links in, reads."""

    path: str
    links: tuple[GraphLink, ...] = ()
    entities: tuple[str, ...] = ()  # the head's `memhtml-entity` values, as written
    concepts: tuple[str, ...] = ()  # `<dfn>` terms the head does not name already
    inbound: tuple[Inbound, ...] = ()
    reads: dict[str, Any] | None = None  # its `state.access` row (access_count, outcome_score, …)

    def kept_links(self) -> tuple[tuple[str, str], ...]:
        return tuple((link.rel, link.path) for link in self.links if link.keep)

    def repoints(self) -> tuple[tuple[str, str | None], ...]:
        return tuple(dict.fromkeys((i.src, i.expected) for i in self.inbound if i.repoint))

    def all_entities(self) -> tuple[str, ...]:
        """The meta entities, then each `<dfn>` term as `concept:<term>`."""
        return tuple(dict.fromkeys((*self.entities, *(f"concept:{c}" for c in self.concepts))))

    @property
    def read_count(self) -> int:
        return int((self.reads or {}).get("access_count") or 0)

    @property
    def reads_follow_by_default(self) -> bool:
        """Whether a correction's reads follow it unless the curator says otherwise: yes, except
        when the outcome is negative (read and found unhelpful, likely because it was wrong: moving
        that score would penalise the correction from its first day)."""
        return float((self.reads or {}).get("outcome_score") or 0) >= 0


def memory_graph(store: CuratorStore, path: str) -> MemoryGraph:
    """The graph around the memory at `path`, read from its file and the index (nothing written)."""
    path = clean_path(path)
    data = store.file_bytes(path)
    if data is None:
        raise PathNotFound(path)
    doc = read_document(path, data)
    conn = store.reader()
    metas = [value for name, value in doc.metas if name == "memhtml-entity"]
    named = {(t, n) for t, n in (_split_entity(v) for v in metas)}
    concepts = tuple(n for t, n in doc.entities if t == "concept" and ("concept", n) not in named)
    out = [(link["rel"], link["dst_path"]) for link in doc.links if link.get("valid") and link.get("dst_path")]
    out = [(rel, dst) for rel, dst in dict.fromkeys(out) if dst != path]
    with conn:
        titles = curation.titles_of(conn, [dst for _, dst in out])
        inbound_rows = curation.inbound_links(conn, path)
    kind = next((value for name, value in doc.metas if name == "memhtml-type"), "")
    links = tuple(GraphLink(rel, dst, titles.get(dst, ("", False))[0], keep=not _left(rel, kind),
                            note=_left(rel, kind)) for rel, dst in out)  # fmt: skip
    inbound = []
    for src, rel, title, archived, kind in inbound_rows:
        note = ("archived: its links are history" if archived
                else "a supersedes link names that version" if rel in NOT_REPOINTED else "")  # fmt: skip
        src_data = store.file_bytes(src)
        if src_data is None:
            continue
        inbound.append(Inbound(src, rel, title, blob_sha_of(src_data), repoint=not note, note=note))
    try:
        reads = access_stats(conn, path)
    except Exception:  # noqa: BLE001 - a busy or missing state plane: no reads to show
        reads = None
    return MemoryGraph(path, links, tuple(dict.fromkeys(metas)), tuple(dict.fromkeys(concepts)), tuple(inbound), reads)


def _left(rel: str, kind: str) -> str:
    """Why a link of this memory is not carried by default ("" when it is)."""
    if rel in NOT_CARRIED:
        return NOT_CARRIED[rel]
    if rel in MEMORY_RELS and kind == "task":
        return "a memory rel on a task: a task never enters the memory graph (memhtml's link refuses it)"
    if rel in TASK_RELS and kind != "task":
        return "a task rel on a memory that is not a task (memhtml's link refuses it)"
    return ""


def _split_entity(value: str) -> tuple[str, str]:
    value = value.strip()
    at = value.find(":")
    return ("unknown", value) if at <= 0 or at == len(value) - 1 else (value[:at], value[at + 1 :])


# -- planning ------------------------------------------------------------------------------------


def check_links(links, memory_type: str, *, own: set[str]) -> tuple[tuple[str, str], ...]:
    """The links to write on a memory of `memory_type`, validated: a known rel, a store path, not
    to itself (`own`: its paths, old and new); a memory rel on a task (or a task rel on a memory)
    is refused, as `link` refuses it."""
    out = []
    for rel, dst in links:
        if rel not in REL_CLASS:
            raise InvalidMemory(f"unknown rel: {rel}")
        dst = clean_path(dst)
        if not dst or dst in own:
            continue
        if rel in MEMORY_RELS and memory_type == "task":
            raise InvalidMemory(f"{rel} is a memory rel and the new version is a task: a task never enters the "
                                f"memory graph (remove the {rel} link to {dst})")  # fmt: skip
        if rel in TASK_RELS and memory_type != "task":
            raise InvalidMemory(
                f"{rel} is a task rel and the new version is not a task (remove the {rel} link to {dst})"
            )
        out.append((rel, dst))
    return tuple(dict.fromkeys(out))


def with_links(path: str, text: str, links) -> str:
    try:
        for rel, dst in links:
            text = head_edit.add_link(text, rel, "/" + dst)
    except head_edit.HeadNotEditable as exc:
        raise Refused(f"{path}: {exc}") from exc
    return text


def with_entities(path: str, text: str, entities) -> str:
    try:
        for entity in entities:
            text = head_edit.add_repeated_meta(text, "memhtml-entity", entity)
    except head_edit.HeadNotEditable as exc:
        raise Refused(f"{path}: {exc}") from exc
    return text


_ARTICLE_END = re.compile(r"</article\s*>", re.IGNORECASE)


def with_facets(ctx, path: str, text: str, facets) -> str:
    """`text` with `facets` appended to its article as one `<dl>` before `</article>`; refused when
    that cannot be done so that the file says exactly what it said plus these facets."""
    from memhtml_desktop.write.template import facets_block

    if not facets:
        return text
    match = _ARTICLE_END.search(text)
    if match is None:
        raise Refused(f"{path} has no </article> to add facets before")
    line_start = text.rfind("\n", 0, match.start()) + 1
    at = line_start if text[line_start : match.start()].strip() == "" else match.start()
    edited = text[:at] + facets_block(facets) + "\n" + text[at:]
    before, after = (
        project(path, text.encode("utf-8"), ctx.now_text),
        project(path, edited.encode("utf-8"), ctx.now_text),
    )
    if not after.ok or (before.ok and before.tables["files"][0]["gist"] != after.tables["files"][0]["gist"]):
        raise Refused(f"{path}: its article could not take the facets safely; add them with Correct… instead")
    return edited


def repoint_changes(ctx, old: str, new: str, new_type: str, repoint, *, skip: set[str]) -> list[FileChange]:
    """The edits of the memories in `repoint` ((path, expected blob id)) whose links to `old` will
    name `new`: one "modify" each, the link replaced in place. Refused when one no longer links to
    `old`, changed since it was read, or the link would break a rel's rule at the new type."""
    changes = []
    skip_tokens = frozenset(head_edit.rel_token(rel) for rel in NOT_REPOINTED)
    for src, expected in repoint:
        src = clean_path(src)
        if src in skip or src == old or src == new:
            continue
        data = ctx.read(src)
        ctx.check_expected(src, data, expected)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(
                f"{src} is not valid UTF-8: its link cannot be repointed without changing other bytes"
            ) from None
        doc = read_document(src, data)
        rels = [link["rel"] for link in doc.links if link.get("dst_path") == old and link["rel"] not in NOT_REPOINTED]
        if not rels:
            raise Refused(f"{src} no longer links to {old}: reload to see the links as they are now")
        for rel in rels:
            if rel in MEMORY_RELS and new_type == "task":
                raise InvalidMemory(f"{src} links {rel} to it, a memory rel, and the new version is a task: "
                                    f"leave that link out of the repointing")  # fmt: skip
            if rel in TASK_RELS and new_type != "task":
                raise InvalidMemory(f"{src} links {rel} to it, a task rel, and the new version is not a task: "
                                    f"leave that link out of the repointing")  # fmt: skip
        try:
            edited = head_edit.repoint_links(text, old, "/" + new, skip_rels=skip_tokens)
        except head_edit.HeadNotEditable as exc:
            raise Refused(f"{src}: {exc}") from exc
        if edited != text:
            changes.append(FileChange("modify", src, data, edited.encode("utf-8")))
    return changes


def keeping_correct(store: CuratorStore, request):
    """A `CorrectRequest` that keeps the graph (the CLI's `correct --keep-graph`): the target's
    carried links, its entities (`<dfn>` terms as `concept:`) added to those given, its facets when
    none are given, every active memory linking to it repointed, its reads following it, and its
    folder while its type and workspace stay (as the window's Correct… keeps it)."""
    from memhtml_desktop.write.drafts import memory_draft

    graph = memory_graph(store, request.target)
    draft = memory_draft(store, request.target)
    same_kind = request.memory_type in (None, draft.memory_type)
    same_place = request.workspace in (None, draft.workspace)
    return replace(
        request,
        folder=request.folder
        or (graph.path.rsplit("/", 1)[0] if same_kind and same_place and "/" in graph.path else None),
        links=graph.kept_links(),
        entities=tuple(dict.fromkeys((*request.entities, *graph.all_entities()))),
        facets=request.facets or tuple(draft.facets),
        repoint=graph.repoints(),
        reads_follow=graph.reads_follow_by_default,
    )


def keeping_supersede(store: CuratorStore, request):
    """A `SupersedeRequest` that keeps the loser's place (the CLI's `supersede --keep-graph`): its
    carried links, entities and facets the winner lacks, and every memory linking to it repointed."""
    from memhtml_desktop.write.drafts import memory_draft

    graph = memory_graph(store, request.loser)
    winner = memory_graph(store, request.winner)
    loser_draft, winner_draft = memory_draft(store, request.loser), memory_draft(store, request.winner)
    has = {name for name, _, _ in winner_draft.facets}
    return replace(
        request,
        links=graph.kept_links(),
        entities=tuple(e for e in graph.all_entities() if e not in winner.all_entities()),
        facets=tuple(f for f in loser_draft.facets if f[0] not in has),
        repoint=tuple((src, exp) for src, exp in graph.repoints() if src != request.winner),
        keep_graph=True,
    )
