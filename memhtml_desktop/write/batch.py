"""Planning `apply`: a JSONL batch of writes in one commit, then an optional consolidation commit.

memhtml's batch algorithm (write-paths §4), one clock instant for every op:

1. frame keys of the op claims: `--detect-conflicts` reports, for each op, the stored memory (or
   else the earlier op) stating the same frame; `--consolidate last-wins` lets a later op with the
   same key replace the earlier op's whole content in its slot;
2. each op decoded (type, task status, due); atomic mode stops at the first failure and skips
   every other op, `continue_on_error` reports failures in place;
3. the fold: render gate, dedupe against earlier ops of the batch and then the index, free path
   (paths claimed by earlier ops count as taken);
4. one commit `memhtml(batch): <title>` or `<n> memories`, provenance trailers from the first
   written op that carries any;
5. consolidation: for each slot whose frame key a stored active memory holds, the stored memory is
   archived as superseded by the slot's new file, all pairs in one second commit.

Validation all happens here, before anything is written; an op naming an existing path is refused
(memhtml would overwrite it). An atomic abort still reports every op and exits 0, as memhtml does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memhtml_desktop.html.frame import frame_key_of
from memhtml_desktop.index import curation
from memhtml_desktop.write.context import PlanContext, commit_subject
from memhtml_desktop.write.errors import INVALID_MEMORY, WriteError
from memhtml_desktop.write.plan import FileChange, Plan
from memhtml_desktop.write.planner_edit import supersede_edits
from memhtml_desktop.write.planner_new import check_request, choose_path, drafted, gated, memory_of
from memhtml_desktop.write.requests import WriteRequest

RESULT_KEYS = ("index", "ok", "path", "deduped", "existing_path", "code", "error", "skipped", "conflict",
               "consolidated_into", "superseded_path")  # fmt: skip


@dataclass(frozen=True)
class BatchOp:
    """One line of the batch, decoded: the write it asks for and the claim its frame key is read from."""

    request: WriteRequest
    claim: str


@dataclass(frozen=True)
class ApplyRequest:
    ops: tuple[BatchOp, ...]
    continue_on_error: bool = False
    detect_conflicts: bool = False
    consolidate: str | None = None  # "last-wins"


def _result(index: int, **values: Any) -> dict[str, Any]:
    base = {key: None for key in RESULT_KEYS}
    base.update(index=index, ok=False, deduped=False, skipped=False)
    base.update(values)
    return base


@dataclass
class _Slot:
    index: int
    op: BatchOp
    key: str | None
    path: str | None = None
    text: str = ""
    failed: bool = False
    stored: str | None = None  # the stored memory holding this frame key (consolidation)
    replaced_by: list[int] = field(default_factory=list)


def plan_apply(ctx: PlanContext, req: ApplyRequest) -> Plan:
    keys = [frame_key_of(op.claim) if op.claim else None for op in req.ops]
    stored = curation.frame_key_holders(ctx.conn, [k for k in keys if k])
    results = [_result(i) for i in range(len(req.ops))]
    if req.detect_conflicts:
        for i, key in enumerate(keys):
            if not key:
                continue
            if stored.get(key):
                path, gist = stored[key][0]
                results[i]["conflict"] = {"path": path, "batch_index": None, "claim": gist}
            else:
                earlier = next((j for j in range(i) if keys[j] == key), None)
                if earlier is not None:
                    results[i]["conflict"] = {"path": None, "batch_index": earlier, "claim": req.ops[earlier].claim}
    slots: list[_Slot] = []
    owner: dict[str, _Slot] = {}
    consolidated: dict[int, int] = {}
    for i, op in enumerate(req.ops):
        key = keys[i]
        if req.consolidate == "last-wins" and key and key in owner:
            slot = owner[key]
            slot.op = op
            slot.replaced_by.append(i)
            consolidated[i] = slot.index
            continue
        slot = _Slot(i, op, key)
        slots.append(slot)
        if key:
            owner.setdefault(key, slot)
    texts: list[tuple[_Slot, bytes]] = []
    claimed: set[str] = set()
    hashes: dict[str, str] = {}
    projections: dict[str, Any] = {}
    failure: int | None = None
    for slot in slots:
        try:
            check_request(slot.op.request)
            memory = memory_of(slot.op.request)
            text, content_hash = drafted(memory, ctx)
            if slot.op.request.memory_type != "task":
                twin = hashes.get(content_hash) or next(iter(curation.active_twins_of(ctx.conn, content_hash)), None)
                if twin is not None:
                    results[slot.index].update(ok=True, path=twin, deduped=True, existing_path=twin)
                    continue
            path, before = choose_path(ctx, memory, slot.op.request, taken=frozenset(claimed))
            if before is not None:
                raise WriteError(f"{path} already exists: a batch never replaces a file", INVALID_MEMORY)
            projections[path] = gated(path, text, ctx)  # projected once: the reindex writes these rows
        except WriteError as exc:
            slot.failed = True
            results[slot.index].update(code=exc.code, error=str(exc))
            if not req.continue_on_error:
                failure = slot.index
                break
            continue
        claimed.add(path)
        if slot.op.request.memory_type != "task":
            hashes[content_hash] = path
        slot.path, slot.text = path, text
        results[slot.index].update(ok=True, path=path)
        texts.append((slot, text.encode("utf-8")))
    if failure is not None:
        for i, result in enumerate(results):
            if i != failure:
                result.update(ok=False, path=None, deduped=False, existing_path=None, skipped=True)
        texts = []
    for i, slot_index in consolidated.items():
        landed = results[slot_index]["ok"] and failure is None
        results[i].update(ok=landed, consolidated_into=slot_index, skipped=not landed)
    written = [slot for slot, _ in texts]
    changes = tuple(FileChange("create", slot.path, None, data) for slot, data in texts)
    followup = None
    if req.consolidate == "last-wins" and written:
        followup = _consolidation(ctx, req, written, stored, results)
    summary = {
        "total": len(req.ops),
        "written": len(written),
        "deduped": sum(1 for r in results if r["deduped"]),
        "failed": sum(1 for r in results if r["error"] is not None),
        "skipped": sum(1 for r in results if r["skipped"]),
        "consolidated": sum(1 for i in consolidated if results[i]["ok"]),
    }
    subject = ""
    if written:
        s = written[0].op.request.title if len(written) == 1 else f"{len(written)} memories"
        subject = commit_subject("batch", s)
    provenance = next((s.op.request for s in written if s.op.request.session or s.op.request.prompt), None)
    trailers = ()
    if provenance is not None:
        trailers = tuple(
            (k, v) for k, v in (("Memhtml-Session", provenance.session), ("Memhtml-Prompt", provenance.prompt)) if v
        )
    return Plan(
        op="apply", request=req, now=ctx.now_text, changes=changes, subject=subject, trailers=trailers,
        result={"results": results, "summary": summary, "commit_sha": None}, followup=followup,
        projections={slot.path: projections[slot.path] for slot in written},
    )  # fmt: skip


def _consolidation(ctx: PlanContext, req: ApplyRequest, written: list[_Slot], stored, results) -> Plan | None:
    """The second commit: each stored memory whose frame a new file restates is superseded by it."""
    pairs = []
    for slot in written:
        holders = stored.get(slot.key) if slot.key else None
        if not holders or holders[0][0] == slot.path:
            continue
        pairs.append((slot, holders[0][0]))
    if not pairs:
        return None
    changes: list[FileChange] = []
    state_moves = []
    for slot, loser in pairs:
        try:
            data = ctx.read(loser)
            new_text, moved, archived = supersede_edits(ctx, loser, data, slot.path, slot.text)
        except WriteError:
            continue  # memhtml logs a failed supersede and only drops superseded_path
        changes.append(FileChange("move", archived, data, moved.encode("utf-8"), source=loser))
        changes.append(FileChange("modify", slot.path, slot.text.encode("utf-8"), new_text.encode("utf-8")))
        state_moves.append((loser, archived))
        results[slot.index]["superseded_path"] = archived
    if not changes:
        return None
    if len(state_moves) == 1:
        subject = commit_subject("consolidate", f"{pairs[0][0].path} supersedes {pairs[0][1]}")
    else:
        subject = commit_subject("consolidate", f"{len(state_moves)} memories superseded")
    return Plan(op="consolidate", request=req, now=ctx.now_text, changes=tuple(changes), subject=subject,
                state_moves=tuple(state_moves))  # fmt: skip
