"""A write, worked out in full before anything is touched: what the preview shows, what apply does.

Every command is split in two. `plan_*` (in `planner.py`) reads the store, validates everything,
and returns a `Plan`: each file it will create, modify, move or delete with its bytes before and
after, the commit subject and trailers, the state rows that will follow a move, and what the
command will report. Nothing on disk, in git or in `state.db` changes. The window shows a plan in
its dialogs; the CLI applies it at once. `Curator.apply` then re-plans the same request under the
write lock with a fresh clock and refuses if anything the preview depended on has moved since.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Action = Literal["create", "modify", "move", "delete"]


@dataclass(frozen=True)
class FileChange:
    """One file. `path` is where the bytes end up; a move also names its `source`.

    `before` is what the planner read (None for a file that does not exist yet); `after` is what
    will be written (None for a deletion). A move may change bytes too (archive stamps its head).
    """

    action: Action
    path: str
    before: bytes | None
    after: bytes | None
    source: str | None = None

    @property
    def touched(self) -> tuple[str, ...]:
        """Every store path this change writes, removes or stages."""
        return (self.source, self.path) if self.source else (self.path,)

    def describe(self) -> str:
        if self.action == "move":
            edit = " (head edited)" if self.before != self.after else ""
            return f"move   {self.source} -> {self.path}{edit}"
        return f"{self.action:<6} {self.path}"

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "path": self.path, "source": self.source}


@dataclass(frozen=True)
class Plan:
    """Everything one command will do. `changes` empty means a no-op (`result` says why)."""

    op: str
    request: Any
    changes: tuple[FileChange, ...] = ()
    subject: str = ""
    trailers: tuple[tuple[str, str], ...] = ()
    state_moves: tuple[tuple[str, str], ...] = ()
    state_deletes: tuple[str, ...] = ()
    result: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    now: str = ""
    #: A second commit made after this one (apply's consolidation); it may fail on its own.
    followup: "Plan | None" = None
    #: The message's body, between the subject and the trailers (undo's "This reverts commit …").
    body: str = ""
    #: Rows to move after the commit (or with none) because their memory already moved in git
    #: (`doctor --fix`'s finds); `state_moves` are the rows of the moves this plan makes itself.
    state_follows: tuple[tuple[str, str], ...] = ()
    #: The projections planning made of the files it writes, by path (apply's batch): the reindex
    #: after the commit writes them instead of reading and parsing the files again.
    projections: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    #: `(HEAD,)` the plan was made and checked on (set by `Curator.plan`; None: never previewed).
    #: Applying it re-checks only what can have moved since: HEAD, git's index lock, and (as every
    #: write does) the bytes each change expects.
    checked_on: tuple[str | None] | None = field(default=None, compare=False, repr=False)

    @property
    def noop(self) -> bool:
        return not self.changes

    @property
    def paths(self) -> tuple[str, ...]:
        """Every store path the commit will carry, in plan order, each once."""
        seen: dict[str, None] = {}
        for change in self.changes:
            for path in change.touched:
                seen.setdefault(path, None)
        return tuple(seen)

    @property
    def message(self) -> str:
        """The commit message: the subject, the body (undo's), then a trailer block when there are trailers."""
        text = self.subject + (f"\n\n{self.body}" if self.body else "")
        if not self.trailers:
            return text
        return text + "\n\n" + "\n".join(f"{k}: {v}" for k, v in self.trailers)

    def shape(self) -> tuple:
        """What must not change between the preview and the write (bytes read, paths, subject).

        The write re-plans at the preview's own instant (`Curator.apply`), so its stamps are the
        ones the preview showed; what the files held before is what must still hold.
        """
        return (
            self.op,
            tuple((c.action, c.path, c.source, c.before) for c in self.changes),
            self.state_moves,
            self.state_follows,
            self.state_deletes,
            self.followup.shape() if self.followup is not None else None,
        )

    def describe(self) -> list[str]:
        lines = [change.describe() for change in self.changes]
        if self.subject and self.changes:
            lines.append(f"commit {self.subject}")
        lines += [f"state  {src} -> {dst}" for src, dst in self.state_moves]
        lines += [f"state  {src} -> {dst} (moved earlier)" for src, dst in self.state_follows]
        lines += [f"state  prune {path}" for path in self.state_deletes]
        if self.followup is not None:
            lines += ["then:"] + ["  " + line for line in self.followup.describe()]
        return lines + list(self.notes)

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "changes": [c.to_json() for c in self.changes],
            "subject": self.subject if self.changes else None,
            "trailers": [list(t) for t in self.trailers],
            "state_moves": [list(m) for m in self.state_moves],
            "state_deletes": list(self.state_deletes),
            "result": self.result,
            "notes": list(self.notes),
            "followup": self.followup.to_json() if self.followup is not None else None,
        }
