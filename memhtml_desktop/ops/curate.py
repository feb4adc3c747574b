"""The curation dialogs' background work: read a draft, plan a write, apply it, undo, recover.

Every step runs on a pool thread through the write core's one front door (`Curator`), never on
the GUI thread: planning runs git and reads files, applying commits. A refusal is an answer, not
a failure: `Attempt.error` carries the write core's message (and `stale` when the file changed on
disk since the dialog read it), so a dialog shows it in place and the log gets no traceback.
Unexpected exceptions still fail the job, and the dialog shows their message too.

A write that committed announces the `StoreChange` the write core computed from the paths its
commit carried (`Applied.change`): the list, the reader, the filters and the conflicts view follow
through the one store-changed signal, as they do after a watcher batch.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from memhtml_desktop.index.doors import CuratorStore, IndexDoor, ReadDoor
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.curators import curator_for
from memhtml_desktop.ops.jobs import Cancelled, Cancelled_, Job, Progress, check
from memhtml_desktop.write.errors import Stale, WriteError

if TYPE_CHECKING:  # made in the engine; the window's process never imports them
    from memhtml_desktop.write.conflicts import ConflictReport
    from memhtml_desktop.write.history import SupersessionChain

T = TypeVar("T")
MAX_DIFF_LINES = 4000
CURATE_POOL = "curate"
"""The writes' own one-thread pool: they take turns, and never wait behind index maintenance."""


@dataclass(frozen=True)
class Attempt(Generic[T]):
    """A write step's outcome: its value, or the refusal the write core gave."""

    value: T | None = None
    error: str = ""
    code: str = ""
    stale: bool = False  # Conflict: the file changed on disk since it was read

    @property
    def ok(self) -> bool:
        return not self.error

    @classmethod
    def refused(cls, exc: WriteError) -> Attempt:
        return cls(error=exc.message, code=exc.code, stale=isinstance(exc, Stale))


def attempt(work) -> Attempt:
    try:
        return Attempt(work())
    except WriteError as exc:
        return Attempt.refused(exc)


def warm_after_write(store: IndexDoor) -> None:
    """Bring the vector snapshot up to the write before the change is announced.

    A write moves the index's vector version, and the next search rebuilds the snapshot (about
    0.2–0.9 s at 20,000 files on this machine). Done here, on the write's own thread while the
    read pool is still idle, the search the StoreChange triggers finds it current instead of
    rebuilding it beside the counts, the stats and the reader's re-read.
    """
    try:
        store.warm()
    except Exception:  # noqa: BLE001 - a cache; the search builds it anyway
        pass


@dataclass(frozen=True)
class FileDiff:
    """One file of a plan as a reviewer reads it: what happens to it and its unified diff."""

    action: str
    path: str
    source: str | None
    diff: str
    added: int
    removed: int

    @property
    def label(self) -> str:
        """`create  +31 −0  path`, `move  +3 −1  new path ← old path`: what lands where, first."""
        counts = f"+{self.added:<3} \u2212{self.removed:<3}"
        target = f"{self.path} \u2190 {self.source}" if self.action == "move" else self.path
        return f"{self.action:<6} {counts} {target}"


@dataclass(frozen=True)
class Preview:
    """A plan and the diffs of its files, computed off the GUI thread."""

    plan: Any
    files: tuple[FileDiff, ...] = ()


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", errors="replace").splitlines(keepends=True)


def file_diff(change: Any) -> FileDiff:
    """The unified diff of one FileChange (three lines of context), with its line counts."""
    before, after = _lines(change.before), _lines(change.after)
    old = f"a/{change.source or change.path}" if change.before is not None else "/dev/null"
    new = f"b/{change.path}" if change.after is not None else "/dev/null"
    lines = list(difflib.unified_diff(before, after, old, new, n=3))
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    if len(lines) > MAX_DIFF_LINES:
        lines = lines[:MAX_DIFF_LINES] + [f"\u2026 {len(lines) - MAX_DIFF_LINES} more lines\n"]
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    if change.action == "move" and change.before == change.after:
        text = f"(moved unchanged: {change.source} \u2192 {change.path})\n"
    return FileDiff(change.action, change.path, change.source, text, added, removed)


def preview_of(plan: Any) -> Preview:
    return Preview(plan, tuple(file_diff(change) for change in plan.changes))


@dataclass(kw_only=True)
class DraftJob(Job[Attempt]):
    """Read a memory into a form's draft (write/drafts.py), with the blob id it was read at."""

    kind: str = "draft"  # type: ignore[misc] - per dialog: each has its own generation line
    path: str
    graph: bool = False  # with its place in the graph (Curator.graph): what a correction would lose

    def run(self, store: CuratorStore, cancelled: Cancelled_, progress: Progress) -> Attempt:
        from dataclasses import replace

        from memhtml_desktop.write.drafts import memory_draft

        check(cancelled)

        def draft():
            made = memory_draft(store, self.path)
            return replace(made, graph=curator_for(store).graph(self.path)) if self.graph else made

        return attempt(draft)


@dataclass(kw_only=True)
class SupersedeDraftJob(Job[Attempt]):
    """What "this one is right" keeps (write/graph.py): the supersession with the loser's place
    carried onto the winner, the loser's graph to show, and both files' blob ids as read."""

    kind: ClassVar[str] = "supersede-draft"
    winner: str
    loser: str

    def run(self, store: CuratorStore, cancelled: Cancelled_, progress: Progress) -> Attempt:
        from memhtml_desktop.html.project import blob_sha_of
        from memhtml_desktop.write.requests import SupersedeRequest

        check(cancelled)

        def draft():
            curator = curator_for(store)
            hashes = {p: blob_sha_of(store.file_bytes(p) or b"") for p in (self.winner, self.loser)}
            request = curator.keeping_graph(SupersedeRequest(self.winner, self.loser, expected_winner=hashes[self.winner],
                                                             expected_loser=hashes[self.loser]))  # fmt: skip
            return request, curator.graph(self.loser)

        return attempt(draft)


@dataclass(kw_only=True)
class PlanJob(Job[Attempt]):
    """Plan a request (touches nothing) and diff its files: what a dialog previews."""

    kind: str = "plan"  # type: ignore[misc]
    request: Any
    refresh_index: bool = False

    def run(self, store: CuratorStore, cancelled: Cancelled_, progress: Progress) -> Attempt:
        check(cancelled)
        curator = curator_for(store, refresh_index=self.refresh_index)
        return attempt(lambda: preview_of(curator.plan(self.request)))


@dataclass(kw_only=True)
class ApplyJob(Job[Attempt]):
    """Carry out a previewed plan on the writer pool (Conflict when the store moved since)."""

    kind: ClassVar[str] = "apply"
    pool: ClassVar[str] = CURATE_POOL
    replace: ClassVar[bool] = False  # a confirmed write is never dropped
    plan: Any

    def run(self, store: CuratorStore, cancelled: Cancelled_, progress: Progress) -> Attempt:
        result = attempt(lambda: curator_for(store).apply(self.plan))
        if result.ok and result.value.commit_sha:
            warm_after_write(store)
        return result

    def changes(self, value: Attempt) -> StoreChange | None:
        """The change the write core computed from what it committed (None: nothing committed)."""
        return value.value.change if value.ok and value.value is not None else None


@dataclass(kw_only=True)
class UndoStatusJob(Job[tuple]):
    """Whether Undo can run now, and what it would revert or why not."""

    kind: ClassVar[str] = "undo-status"

    def run(self, store: CuratorStore, cancelled: Cancelled_, progress: Progress) -> tuple[bool, str]:
        return curator_for(store).undo_status()


@dataclass(kw_only=True)
class UndoChoicesJob(Job[list]):
    """The app's own recent changes, newest first, each with why Undo (Redo) is refused now (None:
    it would run): what Edit → Undo… lists. Each is planned (git reads, nothing touched)."""

    kind: ClassVar[str] = "undo-choices"
    limit: int = 20

    def run(self, store: CuratorStore, cancelled: Cancelled_, progress: Progress) -> list:
        check(cancelled)
        return curator_for(store).undo_choices(self.limit)


@dataclass(kw_only=True)
class UndoPlanJob(Job[Attempt]):
    """What undoing (redoing) one change would commit, and every file's diff: the Undo preview."""

    kind: ClassVar[str] = "undo-plan"
    sha: str | None = None
    redo: bool = False

    def run(self, store: CuratorStore, cancelled: Cancelled_, progress: Progress) -> Attempt:
        check(cancelled)
        return attempt(lambda: preview_of(curator_for(store).plan_undo(self.sha, redo=self.redo)))


@dataclass(kw_only=True)
class UndoJob(Job[Attempt]):
    """Undo (or redo) one of the app's own changes by a commit of its own, the previewed plan
    (`expect`) or nothing (Stale when the store moved so the revert would differ)."""

    kind: ClassVar[str] = "undo"
    pool: ClassVar[str] = CURATE_POOL
    replace: ClassVar[bool] = False
    sha: str | None = None
    redo: bool = False
    expect: Any = None

    def run(self, store: CuratorStore, cancelled: Cancelled_, progress: Progress) -> Attempt:
        """Attempt[Applied]."""

        def work():
            applied = curator_for(store).undo(self.sha, redo=self.redo, expect=self.expect)
            warm_after_write(store)
            return applied

        return attempt(work)

    def changes(self, value: Attempt) -> StoreChange | None:
        return value.value.change if value.ok and value.value is not None else None


@dataclass(kw_only=True)
class RecoverJob(Job[Attempt]):
    """On opening a store: finish or roll back a write a crash interrupted (None: there was none)."""

    kind: ClassVar[str] = "recover"
    pool: ClassVar[str] = CURATE_POOL

    def run(self, store: CuratorStore, cancelled: Cancelled_, progress: Progress) -> Attempt:
        return attempt(lambda: curator_for(store).recover())

    def changes(self, value: Attempt) -> StoreChange | None:
        return StoreChange(index=True, problems=True) if value.ok and value.value else None


@dataclass(kw_only=True)
class FindJob(Job[list]):
    """Memories whose title or path holds the text: a link target's completions."""

    kind: str = "find"  # type: ignore[misc]
    text: str
    limit: int = 12

    def run(self, store: ReadDoor, cancelled: Cancelled_, progress: Progress) -> list:
        check(cancelled)
        return store.find_memories(self.text, limit=self.limit)


@dataclass(kw_only=True)
class HashesJob(Job[dict]):
    """The git blob id of each file as it is now (None: no such file): a dialog's "reload"."""

    kind: str = "hashes"  # type: ignore[misc]
    paths: tuple[str, ...]

    def run(self, store: ReadDoor, cancelled: Cancelled_, progress: Progress) -> dict:
        from memhtml_desktop.html.project import blob_sha_of

        out = {}
        for path in self.paths:
            data = store.file_bytes(path)
            out[path] = None if data is None else blob_sha_of(data)
        return out


@dataclass(kw_only=True)
class ConflictsJob(Job[Any]):
    """The conflicts scan (write/conflicts.py, through the Curator) of the whole store, or of the
    pairs of `paths`: the window's and the CLI's one route."""

    kind: ClassVar[str] = "conflicts"
    process: ClassVar[bool] = True  # compares every pair: the window runs it in a child process
    paths: tuple[str, ...] | None = None

    def run(self, store: CuratorStore, cancelled: Cancelled_, progress: Progress) -> ConflictReport:
        paths = list(self.paths) if self.paths is not None else None
        report = curator_for(store).conflicts(cancelled=cancelled, progress=progress, paths=paths)
        if report.cancelled:
            raise Cancelled()
        return report


@dataclass(kw_only=True)
class SomeConflictsJob(ConflictsJob):
    kind: ClassVar[str] = "conflicts-some"


# -- the conflicts view's two sides, and the timeline's chain -------------------------------------

ARTICLE_CHARS = 700
#: meta, label, whether it is a stamp (shown as its day)
_META_LABELS = (("memhtml-created", "created", True), ("memhtml-updated", "updated", True),
                ("memhtml-confidence", "confidence", False), ("memhtml-author", "by", False))  # fmt: skip


def side_details(detail: Any) -> tuple[str, str]:
    """(a facts line, the article's text without its claim, cut to ARTICLE_CHARS) for a side card."""
    metas = dict(detail.metas)
    facts = [detail.memory_type or "?"]
    for name, label, stamp in _META_LABELS:
        value = metas.get(name)
        if value:
            facts.append(f"{label} {value[:10] if stamp else value}")
    text = " ".join(detail.text.split())
    if detail.gist and text.startswith(detail.gist):
        text = text[len(detail.gist) :].lstrip()
    if len(text) > ARTICLE_CHARS:
        text = text[:ARTICLE_CHARS].rsplit(" ", 1)[0] + " \u2026"
    return " \u00b7 ".join(facts), text


@dataclass(kw_only=True)
class SidesJob(Job[dict]):
    """Both memories of the pair shown, read without counting a read: facts and article text."""

    kind: ClassVar[str] = "conflict-sides"
    paths: tuple[str, ...]

    def run(self, store: ReadDoor, cancelled: Cancelled_, progress: Progress) -> dict:
        out = {}
        for path in self.paths:
            check(cancelled)
            try:
                out[path] = side_details(store.read(path, bump=False))
            except Exception as exc:  # noqa: BLE001 - a side that cannot be read says so in its card
                out[path] = ("", f"(could not read it: {exc})")
        return out


@dataclass(kw_only=True)
class HistoryJob(Job[Any]):
    """The supersession chain around one memory (write/history.py), read from the index."""

    kind: ClassVar[str] = "history"
    path: str

    def run(self, store: CuratorStore, cancelled: Cancelled_, progress: Progress) -> SupersessionChain:
        check(cancelled)
        return curator_for(store).history(self.path)
