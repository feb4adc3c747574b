"""A commit's changes as a curator reads them: memory-level events, not files.

Each commit's raw diff (`gitlog.Commit.files`) becomes a few `Change`s, one per memory:

| kind | what happened | how it is told apart |
| --- | --- | --- |
| `new` | a memory file appeared | added (or copied, or moved in from outside the store's memories) |
| `corrected` | a memory and the one it superseded, as ONE item | a file added or edited whose head gains a `supersedes` link to a memory archived in the same commit (memhtml's `correct`, and its consolidation) |
| `archived` | a memory moved under `archive/<year>/` | a rename into `archive/`, or a deletion and an addition at its archive path |
| `task` | a task's status changed | `memhtml-task-status` differs (a task marked `done` and archived is this, not `archived`) |
| `linked` | typed links were added or removed | the head's `memhtml-` links differ; the article and the other metas (`updated` aside) do not |
| `edited` | the file changed in place (or moved between folders) | anything else: the article, a meta, a title |
| `removed` | a memory file was deleted outside memhtml's verbs | a deletion with no archive copy beside it |

Files that are not memories (`README.md`, `.memhtml/state/access.jsonl`, a picture, `index.html`)
are never events. Nothing here runs git: `classify` works on one commit and the blobs read for it.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from dataclasses import dataclass, field

from memhtml_desktop.domain.paths import is_archived, is_indexable, original_path_for
from memhtml_desktop.history.gitlog import Commit, FileDiff
from memhtml_desktop.history.heads import EMPTY, HeadFacts, head_facts

KINDS = ("new", "edited", "corrected", "archived", "linked", "task", "removed")
SUMMARY = {"new": "written", "edited": "edited", "corrected": "corrected", "archived": "archived",
           "linked": "linked", "task": "task status", "removed": "removed"}  # fmt: skip


@dataclass(frozen=True)
class Change:
    """One memory-level event. `paths` are every store path the event changed (what reverting it
    touches: a correction's new file, the old one's path and its archive copy); `moves` the renames
    among them; `old_blob`/`new_blob` the versions before and after (the detail reads them)."""

    kind: str
    path: str
    old_path: str | None
    title: str
    commit: str
    author_name: str
    author_email: str
    at: str
    subject: str
    reason: str | None
    session: str | None
    paths: tuple[str, ...] = ()
    moves: tuple[tuple[str, str], ...] = ()
    old_blob: str | None = None
    new_blob: str | None = None
    old_path_blob_path: str | None = field(default=None, compare=False)  # where old_blob lived

    @property
    def author(self) -> str:
        return f"{self.author_name} <{self.author_email}>"

    @property
    def key(self) -> str:
        """What identifies this event (the accepted set keeps it): its commit and its path."""
        return f"{self.commit}:{self.path}"

    @property
    def folder(self) -> str:
        """The memory's folder, its archive prefix dropped (`areas/oncall`)."""
        path = original_path_for(self.path) or self.path
        return path.rsplit("/", 1)[0] if "/" in path else ""

    def to_json(self) -> dict:
        """The `review --json` shape (exactly these keys)."""
        return {"kind": self.kind, "path": self.path, "old_path": self.old_path, "title": self.title,
                "commit": self.commit, "author": self.author, "at": self.at, "subject": self.subject,
                "session": self.session}  # fmt: skip


def utc_at(text: str) -> str:
    """git's ISO date (`2026-12-01T11:02:31+01:00`) as the store's UTC stamp (`2026-12-01T10:02:31Z`)."""
    if len(text) == 25 and text.endswith("+00:00"):
        return text[:19] + "Z"
    try:
        moment = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    return moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def archive_reason(subject: str) -> str | None:
    """memhtml's archive subject keeps the reason after ` — ` (`memhtml(archive): p — reason`)."""
    if subject.startswith("memhtml(archive): ") and " \u2014 " in subject:
        return subject.split(" \u2014 ", 1)[1].strip() or None
    return None


def blobs_wanted(commit: Commit) -> list[str]:
    """The blob ids `classify` reads for this commit (memory files only)."""
    wanted = []
    for f in commit.files:
        if is_indexable(f.path) or (f.old_path and is_indexable(f.old_path)):
            wanted += [b for b in (f.old_blob, f.new_blob) if b]
    return wanted


def _pair_deletions(files: list[FileDiff]) -> list[FileDiff]:
    """A deletion and an addition at its archive path (a move git did not see as a rename, its
    bytes changed too much) become one rename."""
    deleted = {f.path: f for f in files if f.status == "D"}
    out: list[FileDiff] = []
    used: set[str] = set()
    for f in files:
        origin = original_path_for(f.path) if f.status == "A" else None
        if origin and origin in deleted and origin not in used:
            used.add(origin)
            d = deleted[origin]
            out.append(FileDiff("R", f.path, origin, d.old_blob, f.new_blob))
        elif not (f.status == "D" and f.path in used):
            out.append(f)
    return [f for f in out if not (f.status == "D" and f.path in used)]


def _edit_kind(old: HeadFacts, new: HeadFacts) -> str:
    if old.task_status != new.task_status and (old.task_status or new.task_status):
        return "task"
    if old.article != new.article or old.title != new.title:
        return "edited"
    if old.links != new.links and old.metas_but("memhtml-updated") == new.metas_but("memhtml-updated"):
        return "linked"
    return "edited"


def classify(commit: Commit, blobs: dict[str, bytes], *, heads: Callable[[bytes | None], HeadFacts] = head_facts
             ) -> list[Change]:  # fmt: skip
    """The memory-level events of one commit (see the module docstring), in git's path order."""
    files = _pair_deletions(list(commit.files))
    at = utc_at(commit.at)
    reason = commit.reason or archive_reason(commit.subject)
    events: list[Change] = []
    facts: dict[str, HeadFacts] = {}

    def head(blob: str | None) -> HeadFacts:
        if not blob:
            return EMPTY
        if blob not in facts:
            facts[blob] = heads(blobs.get(blob))
        return facts[blob]

    def make(kind: str, f: FileDiff, path: str, old_path: str | None, facts_of: HeadFacts,
             paths: tuple[str, ...], moves: tuple[tuple[str, str], ...] = ()) -> Change:  # fmt: skip
        title = facts_of.title or path.rsplit("/", 1)[-1].removesuffix(".html")
        return Change(kind, path, old_path, title, commit.sha, commit.author_name, commit.author_email, at,
                      commit.subject, reason, facts_of.session or commit.session, paths, moves, f.old_blob,
                      f.new_blob, f.old_path or f.path if f.old_blob else None)  # fmt: skip

    for f in files:
        new_mem = is_indexable(f.path) and f.status != "D"
        old_path = f.old_path if f.status in ("R", "C") else (f.path if f.status != "A" else None)
        old_mem = old_path is not None and is_indexable(old_path) and f.status != "C"
        if not new_mem and not old_mem:
            continue
        if f.status == "D":
            events.append(make("removed", f, f.path, None, head(f.old_blob), (f.path,)))
        elif not old_mem:  # added, copied, or moved in from a path that is not a memory
            events.append(make("new", f, f.path, None, head(f.new_blob), (f.path,)))
        elif not new_mem:  # moved out of the memories: gone from the store's point of view
            events.append(make("removed", f, old_path, None, head(f.old_blob), (old_path, f.path)))
        elif f.status == "R" and old_path != f.path:
            into_archive = is_archived(f.path) and not is_archived(old_path)
            old_h, new_h = head(f.old_blob), head(f.new_blob)
            moved = ((old_path, f.path),)
            if old_h.task_status != new_h.task_status and new_h.task_status:
                kind = "task"
            else:
                kind = "archived" if into_archive else "edited"
            events.append(make(kind, f, f.path, old_path, new_h, (old_path, f.path), moved))
        else:
            events.append(make(_edit_kind(head(f.old_blob), head(f.new_blob)), f, f.path, None,
                               head(f.new_blob), (f.path,)))  # fmt: skip
    return _pair_corrections(events, head)


def _pair_corrections(events: list[Change], head: Callable[[str | None], HeadFacts]) -> list[Change]:
    """A new (or edited) memory whose head gains `supersedes` → a memory archived in this commit:
    the two are one `corrected` item, at the new memory's place in the list."""
    archived = {e.path: e for e in events if e.kind == "archived"}
    if not archived:
        return events
    merged: dict[str, Change] = {}
    for e in events:
        if e.kind not in ("new", "edited", "linked") or e.old_path:
            continue
        gained = head(e.new_blob).supersedes() - head(e.old_blob).supersedes()
        for target in sorted(gained):
            loser = archived.get(target)
            if loser is not None and loser.path not in merged.values():
                merged[e.path] = loser.path
                break
    if not merged:
        return events
    out = []
    losers = set(merged.values())
    for e in events:
        if e.path in losers and e.kind == "archived":
            continue
        if e.path in merged:
            loser = archived[merged[e.path]]
            e = Change("corrected", e.path, loser.old_path, e.title, e.commit, e.author_name, e.author_email, e.at,
                       e.subject, e.reason, e.session, (*e.paths, *loser.paths), loser.moves, loser.old_blob,
                       e.new_blob, loser.old_path)  # fmt: skip
        out.append(e)
    return out
