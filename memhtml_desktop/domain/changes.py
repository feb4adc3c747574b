"""What changed in the store: the one message every pane listens to instead of being refreshed.

In the spirit of Anki's `OpChanges`: a job that wrote, the watcher's batch, a recovered index and
a store switch each produce one `StoreChange`, and `StoreEvents.changed` carries it to every pane.
Each pane decides from the flags whether it cares (the reader re-reads its memory when the index
moved, the Problems tab re-lists when problems may differ, the status bar recounts always), so a
new pane subscribes and no one edits a list of hand-written refreshes. No Qt here.

A write computes its own in the write core (`write/curator.py`: `Applied.change`, from the paths
the commit actually carried), so no front end rebuilds it from what it asked for. It lives in
domain/ for that reason: write/ sits below ops/ and ui/.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class StoreChange:
    """One change of the store, as the panes need to know it.

    index: rows of the index changed (a batch, a reconciliation, a rebuild): searches, counts,
        the open memory and the filter values may all differ.
    problems: the set of broken files may differ.
    state: paths whose state-plane row moved (a read, a reinforce): salience and the reader's
        access line, nothing else.
    reopened: another Store (or the same one reopened): every pane starts over.
    paths: every path the change concerns, when that is known (a commit's paths, a pass that only
        moved or failed files); None when it is not (an edit the watcher saw, a reconciliation, a
        rebuild): any path may have changed. An empty set is a change known to concern no path.
        `any_path` says which; never read an empty set as "any".
    moves: (old path, new path) for each file the change moved (a `git mv`, an archive by an agent),
        so a pane showing the old path can follow it instead of losing it.
    """

    index: bool = False
    problems: bool = False
    state: frozenset[str] = field(default_factory=frozenset)
    reopened: bool = False
    paths: frozenset[str] | None = None
    moves: tuple[tuple[str, str], ...] = ()
    store: Any = field(default=None, compare=False, repr=False)

    @property
    def content(self) -> bool:
        """Whether what a search can see may differ (not just salience)."""
        return self.index or self.reopened

    @property
    def any_path(self) -> bool:
        """Whether the change's extent is unknown: any path may have changed (`paths` is None)."""
        return self.paths is None

    def concerns(self, path: str) -> bool:
        """Whether `path` may be among what changed (always, when the extent is unknown)."""
        return self.paths is None or path in self.paths

    @classmethod
    def of_commit(cls, paths: Iterable[str], moves: Iterable[tuple[str, str]] = ()) -> StoreChange:
        """The change a commit made: the store paths it carried (a move's old and new path both)
        and the moves among them."""
        moves = tuple((src, dst) for src, dst in moves)
        touched = set(paths) | {p for move in moves for p in move}
        return cls(index=True, problems=True, paths=frozenset(touched), moves=moves)

    @classmethod
    def of_report(cls, report: Any) -> StoreChange | None:
        """The change an index pass made (an IndexReport), or None when it touched nothing. A
        report counts what it added, changed, removed and embedded but does not name them: its
        paths are known only when it did nothing but move files and fail some (the paths of both),
        else any path may have changed (`paths` None), its moves still said."""
        if report is None or not report.touched:
            return None
        moves = tuple(report.moves)
        if report.added or report.changed or report.removed or report.embedded or report.moved != len(moves):
            return cls(index=True, problems=True, paths=None, moves=moves)
        paths = {dst for _, dst in moves} | {src for src, _ in moves} | {p for p, _ in report.failures}
        return cls(index=True, problems=True, paths=frozenset(paths), moves=moves)

    @classmethod
    def of_batch(cls, summary: Any) -> StoreChange | None:
        """The change a watcher batch (BatchSummary) made, or None when it touched nothing."""
        if summary.report is not None:
            return cls.of_report(summary.report)
        if any((summary.added, summary.changed, summary.moved, summary.removed, summary.failed)):
            return cls(index=True, problems=True, paths=None)  # counted, not named: any path
        return None
