"""Planning a new memory: `write` and `task add` (write-paths §2, §3).

memhtml's order is kept: render, gate, hash, dedupe, path. Two refusals are this app's own: an
explicit path that already holds a file needs `force` (memhtml overwrites it without a word), and
an explicit path that could never be indexed as an active memory (`…/index.html`, `archive/…`, a
path outside the buckets) is refused instead of being written or silently ignored.
"""

from __future__ import annotations

from memhtml_desktop.domain.paths import TASK_STATUSES, is_archived, is_indexable
from memhtml_desktop.html.datetime_rule import is_valid_datetime
from memhtml_desktop.html.project import Projection, gate_hash, project
from memhtml_desktop.index import curation
from memhtml_desktop.write.context import PlanContext, commit_subject
from memhtml_desktop.write.errors import InvalidMemory, Refused, WriteError
from memhtml_desktop.write.placement import (
    MAX_ORDINAL,
    candidate_path,
    clean_explicit_path,
    directory_for,
    is_valid_memory_path,
)
from memhtml_desktop.write.plan import FileChange, Plan
from memhtml_desktop.write.prose import claim_notes
from memhtml_desktop.write.requests import WriteRequest
from memhtml_desktop.write.template import NewMemory, render
from memhtml_desktop.write.text_rules import check_size, check_texts

#: Types a person (or an agent) may write; `arc` is written only by memhtml's sleep cycle.
WRITABLE_TYPES = (
    "episodic", "semantic", "procedural", "agent_insight", "user_preference", "error_pattern",
    "verdict", "precedent", "task",
)  # fmt: skip
GATE_PATH = "areas/inbox/_gate.html"


def rendered(memory: NewMemory, ctx: PlanContext) -> tuple[str, str, Projection]:
    """The file's text, its content hash and its projection; InvalidMemory on any violation."""
    text, content_hash = drafted(memory, ctx)
    return text, content_hash, gated(GATE_PATH, text, ctx)


def drafted(memory: NewMemory, ctx: PlanContext) -> tuple[str, str]:
    """The file's text and its content hash (the draft checked and hashed, not projected)."""
    draft = render(memory, ctx.now_text, "")
    check_size(draft)  # before parsing 8 MB for nothing
    data = draft.encode("utf-8")
    content_hash = gate_hash(data)
    if content_hash is None:
        raise InvalidMemory(project(GATE_PATH, data, ctx.now_text).reason)
    text = render(memory, ctx.now_text, content_hash)
    check_size(text)
    return text, content_hash


def gated(path: str, text: str, ctx: PlanContext) -> Projection:
    """The final text's projection at `path` (what the reindex after the commit writes)."""
    projection = project(path, text.encode("utf-8"), ctx.now_text)
    if not projection.ok:  # the hash meta cannot break a file; checked all the same
        raise InvalidMemory(projection.reason)
    return projection


def memory_of(req: WriteRequest) -> NewMemory:
    return NewMemory(
        title=req.title, memory_type=req.memory_type, claim=req.claim, article_html=req.article_html,
        bodies=tuple(req.bodies), tags=tuple(req.tags), entities=tuple(req.entities),
        importance=req.importance, confidence=req.confidence, session=req.session or None,
        prompt=req.prompt or None, turn=req.turn or None, task_status=req.task_status, due=req.due,
        facets=tuple(req.facets),
    )  # fmt: skip


def check_facets(facets) -> None:
    from memhtml_desktop.write.template import facet_rows

    try:
        facet_rows(facets)
    except ValueError as exc:
        raise InvalidMemory(str(exc)) from None


def check_request(req: WriteRequest) -> None:
    """What memhtml checks at its door (usage) and at run time, for callers that skip the CLI."""
    check_facets(req.facets)
    check_texts(title=req.title, claim=req.claim, body=req.bodies, article=req.article_html, tags=req.tags,
                entities=req.entities, workspace=req.workspace, path=req.path, session=req.session,
                prompt=req.prompt, turn=req.turn, due=req.due)  # fmt: skip
    if req.memory_type not in WRITABLE_TYPES:
        raise InvalidMemory(f"unknown memory type: {req.memory_type}. One of: {', '.join(WRITABLE_TYPES)}")
    if (req.claim is None) == (req.article_html is None):
        raise InvalidMemory("a memory needs exactly one of a claim or an article")
    if req.memory_type == "task":
        if req.task_status is not None and req.task_status not in TASK_STATUSES:
            raise InvalidMemory(f"unknown task status: {req.task_status}. One of: {', '.join(TASK_STATUSES)}")
        if req.due is not None and not is_valid_datetime(req.due):
            raise InvalidMemory(
                f"due date is not an ISO date or datetime: {req.due}. Expected YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ"
            )


def choose_path(
    ctx: PlanContext,
    memory: NewMemory,
    req: WriteRequest,
    *,
    taken: frozenset[str] = frozenset(),
    folder: str | None = None,
) -> tuple[str, bytes | None]:
    """The path the new file goes to and the bytes it replaces (None for a new path).

    `folder` (a correction made in the window: the corrected memory's own) replaces memhtml's
    placement rule; the name is still the title's slug with memhtml's collision ordinal.
    """
    if req.path is not None:
        path = clean_explicit_path(req.path)
        if not is_valid_memory_path(path) or not is_indexable(path):
            raise Refused(
                f"{req.path} is not a memory path (projects/, areas/ or resources/ …/name.html); "
                "memhtml would ignore it and choose one itself: leave the path out"
            )
        if is_archived(path):
            raise Refused(f"{path} is under archive/: a new memory is active; archive it after writing")
        before = ctx.read_optional(path)
        if before is not None and not req.force:
            raise Refused(
                f"{path} already exists: memhtml would overwrite it without a word; "
                "pass --force to replace it, or correct it instead"
            )
        return path, before
    if folder is not None:
        directory = clean_explicit_path(folder).rstrip("/")
        if not is_valid_memory_path(f"{directory}/x.html") or is_archived(f"{directory}/x.html"):
            raise Refused(f"{folder} is not a folder a memory can be written to (projects/, areas/ or resources/ …)")
    else:
        directory = directory_for(
            memory.memory_type, workspace=req.workspace, tags=list(req.tags), entities=list(req.entities)
        )
    for n in range(1, MAX_ORDINAL + 1):
        path = candidate_path(memory.title, memory.memory_type, directory, ctx.now, n)
        if path not in taken and not ctx.exists(path):
            return path, None
    raise WriteError("storage operation failed: write.pathExhausted")


def plan_write(ctx: PlanContext, req: WriteRequest) -> Plan:
    check_request(req)
    memory = memory_of(req)
    text, content_hash, _ = rendered(memory, ctx)
    is_task = req.memory_type == "task"
    trailers = tuple((k, v) for k, v in (("Memhtml-Session", req.session), ("Memhtml-Prompt", req.prompt)) if v)
    if not is_task:
        twins = curation.active_twins_of(ctx.conn, content_hash)
        if twins:
            return Plan(
                op="write", request=req, now=ctx.now_text,
                result={"path": twins[0], "created": False, "deduped": True, "existing_path": twins[0],
                        "commit_sha": None, "content_hash": content_hash},
                notes=(f"the same text is already stored as {twins[0]}: nothing to write",),
            )  # fmt: skip
    path, before = choose_path(ctx, memory, req)
    change = FileChange("modify" if before is not None else "create", path, before, text.encode("utf-8"))
    if is_task:
        result = {"path": path, "created": True, "deduped": False, "existing_path": None,
                  "task_status": memory.task_status or "todo", "due_at": memory.due, "commit_sha": None}  # fmt: skip
    else:
        result = {"path": path, "created": True, "deduped": False, "commit_sha": None, "content_hash": content_hash}
    notes = _number_notes(req) + claim_notes(req.claim)
    if before is not None:
        notes += (f"replaces the existing file {path} (--force)",)
    return Plan(
        op="task.add" if is_task else "write", request=req, changes=(change,), now=ctx.now_text,
        subject=commit_subject("write", req.title), trailers=trailers, result=result, notes=notes,
    )  # fmt: skip


def _number_notes(req: WriteRequest) -> tuple[str, ...]:
    """memhtml writes importance and confidence unchecked (G-09); the index then ignores them."""
    from memhtml_desktop.write.template import confidence_text, importance_text

    notes = []
    importance = importance_text(req.importance)
    if importance is not None and not 1 <= int(importance) <= 10:
        notes.append(f"importance {importance} is outside 1..10: written as given, the index ignores it")
    confidence = confidence_text(req.confidence)
    if confidence is not None and not 0 <= float(confidence) <= 1:
        notes.append(f"confidence {confidence} is outside 0..1: written as given, the index ignores it")
    return tuple(notes)
