"""Planning the two repairs: `doctor --fix` (write-paths §9) and `state export` (§10).

`doctor --fix` keeps memhtml's repair (a dangling link is rewritten to its target's archive copy
when one exists within the last ten years, else dropped; each touched file gets `updated`; orphan
`state.access` rows are pruned; one commit `memhtml(link): repair <n> dangling links`) with four
differences: only the link element is removed (memhtml removes its whole line and any neighbour on
it), "dangling" and "orphan" mean "no file there at all" (memhtml also counts a memory that merely
fails to parse at that moment), the index is brought current afterwards, and a row whose memory
moved is never pruned: a row waiting to follow its memory (`journal.PendingMoves`: the state plane
could not be written when the move was made) is kept, and a row whose path git's history shows
renamed to a file that exists follows it there instead (memhtml prunes both: the history of a
memory is lost for good).

`state export` writes memhtml's exact sidecar bytes and commits them, but refuses to replace a
sidecar that holds rows with an empty export (memhtml's fresh-clone wipe, G-28) unless forced.
"""

from __future__ import annotations

from memhtml_desktop.domain.paths import archive_path_for
from memhtml_desktop.html.jsnum import utf16_len
from memhtml_desktop.index import curation
from memhtml_desktop.index.curation import SIDECAR_RELPATH, export_access, state_mode
from memhtml_desktop.write import head_edit
from memhtml_desktop.write.context import PlanContext, commit_subject
from memhtml_desktop.write.errors import Refused
from memhtml_desktop.write.plan import FileChange, Plan
from memhtml_desktop.write.requests import DoctorFixRequest, StateExportRequest

REWRITE_YEARS = 10
SIDECAR = SIDECAR_RELPATH.as_posix()


def plan_doctor_fix(ctx: PlanContext, req: DoctorFixRequest) -> Plan:
    edges = [e for e in curation.dangling_edges(ctx.conn) if not ctx.exists(e.dst)]
    candidates = {e.dst: [archive_path_for(e.dst, ctx.year - k) for k in range(REWRITE_YEARS + 1)] for e in edges}
    present = curation.indexed_paths(ctx.conn, [p for paths in candidates.values() for p in paths])
    findings, by_src, skipped = [], {}, []
    for edge in edges:
        rewrite = next((p for p in candidates[edge.dst] if p in present), None)
        findings.append({"src_path": edge.src, "rel": edge.rel, "dst_path": edge.dst, "rewrite_to": rewrite})
        by_src.setdefault(edge.src, []).append((edge, rewrite))
    changes: list[FileChange] = []
    rewritten = dropped = 0
    for src, repairs in by_src.items():
        data = ctx.read_optional(src)
        if data is None:
            skipped.append(f"{src} is gone; its links were not repaired")
            continue
        try:
            text = data.decode("utf-8")
            for edge, rewrite in repairs:
                text = head_edit.remove_link(text, edge.rel, edge.dst)
                if rewrite is not None:
                    text = head_edit.add_link(text, edge.rel, "/" + rewrite)
            text = head_edit.set_meta(text, "memhtml-updated", ctx.now_text)
        except (UnicodeDecodeError, head_edit.HeadNotEditable) as exc:
            skipped.append(f"{src}: not repaired ({exc}); edit its links by hand")
            continue
        after = text.encode("utf-8")
        if after != data:
            changes.append(FileChange("modify", src, data, after))
            rewritten += sum(1 for _, rewrite in repairs if rewrite is not None)
            dropped += sum(1 for _, rewrite in repairs if rewrite is None)
    candidates = curation.orphan_access_rows(ctx.conn)
    waiting = {m["src"]: m["dst"] for m in pending_moves(ctx)}
    renamed = renamed_to(ctx, [p for p in candidates if p not in waiting]) if candidates else {}
    follows = tuple((src, dst) for src, dst in renamed.items())
    orphans = tuple(p for p in candidates if p not in waiting and p not in renamed)
    kept = [
        f"state row {p}: kept, it is waiting to follow its memory to {waiting[p]}" for p in candidates if p in waiting
    ]
    result = {
        "dangling": findings,
        "orphan_access_rows": list(orphans),
        "repaired": {
            "rewritten": rewritten,
            "dropped": dropped,
            "pruned_access_rows": len(orphans),
            "commit_sha": None,
        },
    }
    if follows:
        result["moved_access_rows"] = [{"src": src, "dst": dst} for src, dst in follows]
    return Plan(
        op="doctor.fix", request=req, now=ctx.now_text, changes=tuple(changes),
        subject=commit_subject("link", f"repair {rewritten + dropped} dangling links"),
        state_deletes=orphans, state_follows=follows, result=result, notes=tuple(skipped + kept),
    )  # fmt: skip


RENAME_HISTORY = 5000


def pending_moves(ctx: PlanContext) -> list[dict]:
    """Rows recorded as waiting to follow their memory (`journal.PendingMoves`)."""
    from memhtml_desktop.write.git import Git, GitError
    from memhtml_desktop.write.journal import PendingMoves

    try:
        return PendingMoves(Git(ctx.root).git_dir()).load()
    except GitError:
        return []


def renamed_to(ctx: PlanContext, paths: list[str]) -> dict[str, str]:
    """Of `paths` (rows without a file), those git's recent history renamed, followed through
    any later renames to a file that exists now: {old path: where its memory is now}."""
    from memhtml_desktop.write.git import Git, GitError

    if not paths:
        return {}
    try:
        out = Git(ctx.root).run("log", "-M", "--diff-filter=R", "--name-status", "-z", "--format=",
                                f"-n{RENAME_HISTORY}", "HEAD", check=False).out  # fmt: skip
    except GitError:
        return {}
    fields = [f.strip("\n") for f in out.split("\0")]
    moves: dict[str, str] = {}
    i = 0
    while i + 2 < len(fields):
        if fields[i].startswith("R"):
            moves.setdefault(fields[i + 1], fields[i + 2])  # newest first: a path's latest rename wins
            i += 3
        else:
            i += 1
    found = {}
    for path in paths:
        seen, current = {path}, moves.get(path)
        while current is not None and current in moves and moves[current] not in seen:
            seen.add(current)
            current = moves[current]
        if current is not None and ctx.exists(current):
            found[path] = current
    return found


def plan_state_export(ctx: PlanContext, req: StateExportRequest) -> Plan:
    if state_mode(ctx.conn) is None:
        raise Refused("this store has no readable state plane (.memhtml/state.db): nothing to export")
    data = export_access(ctx.conn)
    rows = data.count(b"\n")
    existing = ctx.read_optional(SIDECAR)
    result = {"path": SIDECAR, "rows": rows, "bytes": utf16_len(data.decode("utf-8", "surrogatepass")),
              "written": False, "commit_sha": None}  # fmt: skip
    if existing == data:
        return Plan(op="state.export", request=req, now=ctx.now_text, result=result,
                    notes=(f"{SIDECAR} already holds these {rows} rows: nothing to write",))  # fmt: skip
    if not data and existing and existing.strip() and not req.force:
        held = existing.count(b"\n") or 1
        raise Refused(
            f"the state plane is empty but {SIDECAR} holds {held} row(s): exporting would wipe them "
            "(memhtml does, on a fresh clone). Run `memhtml-desktop state import` first, or pass --force"
        )
    change = FileChange("modify" if existing is not None else "create", SIDECAR, existing, data)
    return Plan(
        op="state.export", request=req, now=ctx.now_text, changes=(change,),
        subject=commit_subject("state", f"export {rows} access rows to the committed sidecar"),
        result={**result, "written": True},
    )  # fmt: skip
