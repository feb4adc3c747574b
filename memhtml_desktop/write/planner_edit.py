"""Planning edits of existing memories: `correct`, `archive`, `task status`, `link` (§5–§8).

memhtml's bytes and subjects, with the refusals memhtml does not make: archiving a non-memory or an
archived file (memhtml nests it under `archive/<Y>/archive/<Y>/`), correcting an archived memory,
a correction whose text duplicates another active memory, and a file changed since the caller saw
it. A correction also keeps its reason (a `Memhtml-Reason` trailer; memhtml drops it).
"""

from __future__ import annotations

from memhtml_desktop.domain.paths import TASK_STATUSES, archive_path_for, is_archived, is_indexable
from memhtml_desktop.html.constraints import read_head
from memhtml_desktop.html.jsnum import JS_SPACE_RUN, js_trim
from memhtml_desktop.html.project import decode, project
from memhtml_desktop.html.tree import parse_html
from memhtml_desktop.html.vocabulary import MEMORY_RELS, TASK_RELS
from memhtml_desktop.index import curation
from memhtml_desktop.write import graph, head_edit
from memhtml_desktop.write.context import PlanContext, clean_path, commit_subject
from memhtml_desktop.write.errors import InvalidMemory, PathNotFound, Refused
from memhtml_desktop.write.plan import FileChange, Plan
from memhtml_desktop.write.planner_new import WRITABLE_TYPES, check_facets, choose_path, rendered
from memhtml_desktop.write.prose import claim_notes
from memhtml_desktop.write.requests import (
    ArchiveRequest,
    CorrectRequest,
    LinkRequest,
    SupersedeRequest,
    TaskStatusRequest,
    WriteRequest,
)
from memhtml_desktop.write.template import NewMemory
from memhtml_desktop.write.text_rules import check_texts

LINK_RELS = (*MEMORY_RELS, *TASK_RELS)


def _edit(path: str, text: str, edits) -> str:
    """Apply head edits; a head that cannot be edited safely is refused with the path named."""
    try:
        for edit in edits:
            text = edit(text)
    except head_edit.HeadNotEditable as exc:
        raise Refused(f"{path}: {exc}") from exc
    return text


def _text(path: str, data: bytes) -> str:
    """The file as text for a splice: strict UTF-8, a BOM kept, so every other byte survives."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{path} is not valid UTF-8: its head cannot be edited without changing other bytes") from None


def _memory_path(path: str) -> str:
    clean = clean_path(path)
    if not is_indexable(clean):
        raise PathNotFound(clean)
    return clean


def archive_stamps(ctx: PlanContext, extra=()) -> list:
    """memhtml's archive stamps, in its order: status, updated, archived (then any extra)."""
    now = ctx.now_text
    return [
        lambda t: head_edit.set_meta(t, "memhtml-status", "archived"),
        lambda t: head_edit.set_meta(t, "memhtml-updated", now),
        lambda t: head_edit.set_meta(t, "memhtml-archived", now),
        *extra,
    ]


def _archive_target(ctx: PlanContext, path: str) -> str:
    target = archive_path_for(path, ctx.year)
    if ctx.exists(target):
        raise Refused(f"{target} already exists: archive it by hand or move that file first")
    return target


def _parsed(path: str, data: bytes, ctx: PlanContext):
    projection = project(path, data, ctx.now_text)
    if not projection.ok:
        raise InvalidMemory(projection.reason)
    return projection.tables["files"][0]


def plan_correct(ctx: PlanContext, req: CorrectRequest) -> Plan:
    target = _memory_path(req.target)
    data = ctx.read(target)
    if is_archived(target):
        raise Refused(f"{target} is already archived: correct the memory that superseded it")
    ctx.check_expected(target, data, req.expected)
    row = _parsed(target, data, ctx)
    memory_type = req.memory_type or row["memory_type"]
    if memory_type not in WRITABLE_TYPES and memory_type != row["memory_type"]:
        # its own type is kept even when a person may not write it new (an arc stays an arc)
        raise InvalidMemory(f"unknown memory type: {req.memory_type}. One of: {', '.join(WRITABLE_TYPES)}")
    if (req.claim is None) == (req.article_html is None):
        raise InvalidMemory("a correction needs exactly one of a claim or an article")
    if req.task_status is not None and req.task_status not in TASK_STATUSES:
        raise InvalidMemory(f"unknown task status: {req.task_status}. One of: {', '.join(TASK_STATUSES)}")
    check_facets(req.facets)
    check_texts(title=req.title, claim=req.claim, body=req.bodies, article=req.article_html, reason=req.reason,
                tags=req.tags, entities=req.entities, workspace=req.workspace, session=req.session)  # fmt: skip
    memory = NewMemory(
        title=req.title, memory_type=memory_type, claim=req.claim, article_html=req.article_html,
        bodies=tuple(req.bodies), tags=tuple(req.tags), entities=tuple(req.entities),
        importance=req.importance, confidence=req.confidence, session=req.session or None,
        task_status=req.task_status if memory_type == "task" else None, facets=tuple(req.facets),
    )  # fmt: skip
    text, content_hash, _ = rendered(memory, ctx)
    twins = [p for p in curation.active_twins_of(ctx.conn, content_hash) if p != target]
    if twins:
        raise Refused(f"the corrected text is the same as {twins[0]}: link to it or archive {target} instead")
    archived = archive_path_for(target, ctx.year)
    as_write = WriteRequest(title=req.title, memory_type=memory_type, workspace=req.workspace,
                            tags=tuple(req.tags), entities=tuple(req.entities))  # fmt: skip
    path, _ = choose_path(ctx, memory, as_write, taken=frozenset({target, archived}), folder=req.folder)
    new_text, moved, archived = supersede_edits(ctx, target, data, path, text)
    own = {target, path, archived}
    links = graph.check_links(req.links, memory_type, own=own)
    new_text = graph.with_links(path, new_text, links)
    repointed = graph.repoint_changes(ctx, target, path, memory_type, req.repoint, skip=own)
    trailers = [("Memhtml-Session", req.session)] if req.session else []
    if req.reason and js_trim(req.reason):
        trailers.append(("Memhtml-Reason", js_trim(req.reason)))
    result = {"path": path, "archived_path": archived, "commit_sha": None, "content_hash": content_hash}
    if links or repointed or req.reads_follow:
        result["kept"] = {"links": [list(link) for link in links], "repointed": [c.path for c in repointed],
                          "reads": path if req.reads_follow else archived}  # fmt: skip
    return Plan(
        op="correct", request=req, now=ctx.now_text,
        changes=(FileChange("create", path, None, new_text.encode("utf-8")),
                 FileChange("move", archived, data, moved.encode("utf-8"), source=target), *repointed),
        subject=commit_subject("correct", req.title), trailers=tuple(trailers), notes=claim_notes(req.claim),
        state_moves=((target, path if req.reads_follow else archived),),
        result=result,
    )  # fmt: skip


def supersede_edits(
    ctx: PlanContext, loser: str, loser_data: bytes, winner: str, winner_text: str
) -> tuple[str, str, str]:
    """memhtml's `supersedeMemories` for one pair: (winner's new text, loser's archived text, its path).

    The winner links `supersedes` to the loser's archive path and gets `valid-from` (its first
    `<time datetime>`, else now) unless it has one; the loser gets the archive stamps, then
    `superseded-by` and `valid-until` = that valid-from, except that an earlier `valid-until` it
    already carries stays (min-wins, G-11).
    """
    archived = _archive_target(ctx, loser)
    projection = project(winner, winner_text.encode("utf-8"), ctx.now_text)
    event_at = projection.tables["files"][0]["event_at"] if projection.ok else None
    try:
        own_from = head_edit.get_meta(winner_text, "memhtml-valid-from")
        valid_from = own_from or event_at or ctx.now_text
        old_text = _text(loser, loser_data)
        until = head_edit.get_meta(old_text, "memhtml-valid-until")
    except head_edit.HeadNotEditable as exc:
        raise Refused(f"{loser}: {exc}") from exc
    edits = [lambda t: head_edit.add_link(t, "supersedes", "/" + archived)]
    if not own_from:
        edits.append(lambda t: head_edit.set_meta(t, "memhtml-valid-from", valid_from))
    new_text = _edit(winner, winner_text, edits)
    stamps = archive_stamps(ctx, [lambda t: head_edit.set_meta(t, "memhtml-superseded-by", "/" + winner)])
    if not (until and until < valid_from):
        stamps.append(lambda t: head_edit.set_meta(t, "memhtml-valid-until", valid_from))
    return new_text, _edit(loser, old_text, stamps), archived


def reason_trailers(subject: str, reason: str | None) -> tuple[tuple[str, str], ...]:
    """A `Memhtml-Reason` trailer when the subject had to cut the reason (memhtml keeps only the
    cut subject, so "… — sup…" would be all that is left of it); none when the subject holds it whole."""
    folded = js_trim(JS_SPACE_RUN.sub(" ", reason or ""))
    if not folded or subject.endswith(folded):
        return ()
    return (("Memhtml-Reason", folded),)


def plan_archive(ctx: PlanContext, req: ArchiveRequest) -> Plan:
    if not req.reason or not js_trim(req.reason):
        raise Refused("an archive needs a reason (it is the commit's subject)")
    check_texts(reason=req.reason)
    path = clean_path(req.path)
    if not is_indexable(path):
        if ctx.exists(path):
            raise Refused(f"{path} is not a memory: only memory files are archived")
        raise PathNotFound(path)
    data = ctx.read(path)
    if is_archived(path):
        raise Refused(f"{path} is already archived (memhtml would nest it under archive/{ctx.year}/archive/)")
    ctx.check_expected(path, data, req.expected)
    target = _archive_target(ctx, path)
    moved = _edit(path, _text(path, data), archive_stamps(ctx))
    subject = commit_subject("archive", f"{path} \u2014 {req.reason}")
    return Plan(
        op="archive", request=req, now=ctx.now_text,
        changes=(FileChange("move", target, data, moved.encode("utf-8"), source=path),),
        subject=subject, trailers=reason_trailers(subject, req.reason),
        state_moves=((path, target),),
        result={"path": path, "archive_path": target, "commit_sha": None},
    )  # fmt: skip


def plan_task_status(ctx: PlanContext, req: TaskStatusRequest) -> Plan:
    if req.status not in TASK_STATUSES:
        raise InvalidMemory(f"unknown task status: {req.status}. One of: {', '.join(TASK_STATUSES)}")
    check_texts(reason=req.reason)
    path = _memory_path(req.path)
    data = ctx.read(path)
    row = _parsed(path, data, ctx)
    if row["memory_type"] != "task":
        raise InvalidMemory(
            f"{path} is a {row['memory_type']} memory, not a task: only a task carries memhtml-task-status"
        )
    if is_archived(path):
        raise Refused(f"{path} is archived: a finished task stays finished")
    ctx.check_expected(path, data, req.expected)
    result = {"path": path, "task_status": req.status, "archived": False, "commit_sha": None,
              "unchanged": False, "archive_path": None}  # fmt: skip
    if row["task_status"] == req.status:
        return Plan(op="task.status", request=req, now=ctx.now_text, result={**result, "unchanged": True},
                    notes=(f"{path} is already {req.status}: nothing to write",))  # fmt: skip
    edited = _edit(path, _text(path, data), [
        lambda t: head_edit.set_meta(t, "memhtml-task-status", req.status),
        lambda t: head_edit.set_meta(t, "memhtml-updated", ctx.now_text),
    ])  # fmt: skip
    if req.status != "done":
        return Plan(
            op="task.status", request=req, now=ctx.now_text,
            changes=(FileChange("modify", path, data, edited.encode("utf-8")),),
            subject=commit_subject("task", f"{req.status} {path}"), result=result,
        )  # fmt: skip
    target = _archive_target(ctx, path)
    moved = _edit(path, edited, archive_stamps(ctx))
    reason = req.reason if req.reason and js_trim(req.reason) else "task done"
    subject = commit_subject("archive", f"{path} \u2014 {reason}")
    return Plan(
        op="task.status", request=req, now=ctx.now_text,
        changes=(FileChange("move", target, data, moved.encode("utf-8"), source=path),),
        subject=subject, trailers=reason_trailers(subject, req.reason),
        state_moves=((path, target),),
        result={**result, "archived": True, "archive_path": target},
    )  # fmt: skip


def _type_of(ctx: PlanContext, path: str) -> tuple[bytes, str | None]:
    """memhtml's `readMeta`: the file's first `memhtml-type`, without validating the file."""
    return _type_of_data(ctx.read(path))


def _type_of_data(data: bytes) -> tuple[bytes, str | None]:
    head = read_head(parse_html(decode(data)))
    return data, head.single("memhtml-type")


def plan_link(ctx: PlanContext, req: LinkRequest) -> Plan:
    if req.rel not in LINK_RELS:
        raise InvalidMemory(f"unknown rel: {req.rel}. One of: {', '.join(LINK_RELS)}")
    src, dst = clean_path(req.src), clean_path(req.dst)
    if src == dst:
        raise InvalidMemory(f"a memory cannot link to itself: {src}")
    for path in (src, dst):
        if not is_indexable(path):
            raise PathNotFound(path)
    src_data, src_type = _type_of(ctx, src)
    _, dst_type = _type_of(ctx, dst)
    if req.rel in MEMORY_RELS:
        for path, kind in ((src, src_type), (dst, dst_type)):
            if kind == "task":
                raise InvalidMemory(
                    f"{req.rel} is a memory rel and {path} is a task: a task never enters the memory graph"
                )
    else:
        for path, kind in ((src, src_type), (dst, dst_type)):
            if kind != "task":
                raise InvalidMemory(f"{req.rel} is a task rel and {path} is not a task: both endpoints must be tasks")
    ctx.check_expected(src, src_data, req.expected)
    linked = _edit(src, _text(src, src_data), [lambda t: head_edit.add_link(t, req.rel, "/" + dst)])
    result = {"commit_sha": None, "src_path": src, "dst_path": dst, "rel": req.rel}
    if linked.encode("utf-8") == src_data:
        return Plan(op="link", request=req, now=ctx.now_text, result=result,
                    notes=(f"{src} already links {req.rel} to {dst}: nothing to write",))  # fmt: skip
    return Plan(
        op="link", request=req, now=ctx.now_text,
        changes=(FileChange("modify", src, src_data, linked.encode("utf-8")),),
        subject=commit_subject("link", f"{req.rel} {src} -> {dst}"), result=result,
    )  # fmt: skip


def plan_supersede(ctx: PlanContext, req: SupersedeRequest) -> Plan:
    """`winner` supersedes `loser` in one commit: memhtml's consolidation edits for one pair."""
    check_texts(reason=req.reason)
    winner, loser = _memory_path(req.winner), _memory_path(req.loser)
    if winner == loser:
        raise InvalidMemory(f"a memory cannot supersede itself: {winner}")
    winner_data, loser_data = ctx.read(winner), ctx.read(loser)
    for path in (winner, loser):
        if is_archived(path):
            raise Refused(f"{path} is already archived")
    ctx.check_expected(winner, winner_data, req.expected_winner)
    ctx.check_expected(loser, loser_data, req.expected_loser)
    for path, data in ((winner, winner_data), (loser, loser_data)):
        _, kind = _type_of_data(data)
        if kind == "task":
            raise InvalidMemory(
                f"supersedes is a memory rel and {path} is a task: a task never enters the memory graph"
            )
    new_text, moved, archived = supersede_edits(ctx, loser, loser_data, winner, _text(winner, winner_data))
    own = {winner, loser, archived}
    winner_type = _type_of_data(winner_data)[1] or ""
    if req.keep_graph:  # the winner's own links to the loser follow it into archive/
        try:
            new_text = head_edit.repoint_links(new_text, loser, "/" + archived,
                                               skip_rels=frozenset({head_edit.rel_token("supersedes")}))  # fmt: skip
        except head_edit.HeadNotEditable as exc:
            raise Refused(f"{winner}: {exc}") from exc
    links = graph.check_links(req.links, winner_type, own=own)
    check_texts(entities=req.entities)
    check_facets(req.facets)
    new_text = graph.with_links(winner, new_text, links)
    new_text = graph.with_entities(winner, new_text, req.entities)
    new_text = graph.with_facets(ctx, winner, new_text, req.facets)
    repointed = graph.repoint_changes(ctx, loser, winner, winner_type, req.repoint, skip=own)
    trailers = (("Memhtml-Reason", js_trim(req.reason)),) if req.reason and js_trim(req.reason) else ()
    result = {"winner": winner, "loser": loser, "superseded_path": archived, "commit_sha": None}
    if req.keep_graph or links or req.entities or req.facets or repointed:
        result["kept"] = {
            "links": [list(link) for link in links],
            "entities": list(req.entities),
            "facets": len(req.facets),
            "repointed": [c.path for c in repointed],
            "reads": archived,
        }
    return Plan(
        op="supersede", request=req, now=ctx.now_text,
        changes=(FileChange("modify", winner, winner_data, new_text.encode("utf-8")),
                 FileChange("move", archived, loser_data, moved.encode("utf-8"), source=loser), *repointed),
        subject=commit_subject("consolidate", f"{winner} supersedes {loser}"), trailers=trailers,
        state_moves=((loser, archived),),
        result=result,
    )  # fmt: skip
