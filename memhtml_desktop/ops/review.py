"""The review inbox's background work: the range, its pages, one change's detail, accept, done, the
count, a memory's provenance, the activity chart's data. Qt-free, over `history/` (docs/review.md).

Every job reads git (and, for the chart, the index) on a pool thread; none holds anything but
plain values, so each is picklable and moves to the engine process unchanged. The window reads a
long history page by page (`ReviewPageJob`, a few hundred commits each), so the list grows while
the rest is read and no turn of the GUI thread waits for the whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from memhtml_desktop.history import (
    Git,
    HeadState,
    accept,
    change_detail,
    commits_after,
    head_state,
    provenance_of,
    read_changes,
    review_done,
    review_range,
    store_activity,
)
from memhtml_desktop.index.doors import ReadDoor, SqlDoor, StoreFacts
from memhtml_desktop.ops.jobs import Cancelled_, Job, Progress, check

PAGE = 200
"""Commits a page of the window's listing reads: its rows are one turn of the GUI thread (~10 ms)."""


def _git(store: Any) -> Git:
    return Git(store.root)


@dataclass(kw_only=True)
class ReviewRangeJob(Job[Any]):
    """Which commits the inbox lists now, and what to say about it (`history.ReviewRange`)."""

    kind: ClassVar[str] = "review-range"

    def run(self, store: StoreFacts, cancelled: Cancelled_, progress: Progress) -> Any:
        check(cancelled)
        return review_range(_git(store))


@dataclass(kw_only=True)
class ReviewPageJob(Job[list]):
    """The events of a page of commits (oldest first), without those accepted ahead of the mark."""

    kind: ClassVar[str] = "review-page"
    shas: tuple[str, ...]
    shallow: frozenset = frozenset()
    accepted: frozenset = frozenset()

    def run(self, store: StoreFacts, cancelled: Cancelled_, progress: Progress) -> list:
        check(cancelled)
        return read_changes(_git(store), self.shas, shallow=self.shallow, accepted=self.accepted)


UNAVAILABLE = "unavailable"
BIG = 300
"""Commits past which a count is left to a child process (`FullCountJob`): classifying a long
history holds the GIL in bursts the GUI thread would wait behind (docs/architecture.md)."""


def count_range(git: Git, rng: Any, cancelled=lambda: False) -> int:
    count = 0
    for start in range(0, len(rng.shas), 1000):
        check(cancelled)
        count += len(read_changes(git, rng.shas[start : start + 1000], shallow=rng.shallow, accepted=rng.accepted))
    return count


@dataclass(kw_only=True)
class ReviewCountJob(Job[Any]):
    """How many changes are to review, or None when nothing it depends on moved since `known`
    (HEAD, the mark, the accepted file): a cheap look every few seconds. Answers (state, count),
    or (state, None) when the range is long: the caller counts it with a `FullCountJob`."""

    kind: ClassVar[str] = "review-count"
    known: HeadState | None = None
    known_count: int = 0

    def run(self, store: StoreFacts, cancelled: Cancelled_, progress: Progress) -> Any:
        git = _git(store)
        if git.executable is None:
            return UNAVAILABLE, "git was not found on PATH"
        top, why = git.toplevel()
        if top is None:  # not a repository (or git is missing): nothing to count, said once
            return UNAVAILABLE, (why.strip().splitlines() or ["not a git repository"])[-1]
        state = head_state(git)
        if state == self.known:
            return None
        known = self.known
        if (
            known is not None
            and known.head
            and state.head
            and (known.mark, known.accepted) == (state.mark, state.accepted)
        ):
            added = commits_after(git, known.head, state.head)
            if added is not None and len(added) <= BIG:  # HEAD moved on: count only what it added
                return state, self.known_count + len(read_changes(git, added))
        rng = review_range(git)
        if len(rng.shas) > BIG:
            return state, None
        return state, count_range(git, rng, cancelled)


@dataclass(kw_only=True)
class FullCountJob(Job[Any]):
    """The count of a long range, in a child process (see BIG): (state, count)."""

    kind: ClassVar[str] = "review-full-count"
    process: ClassVar[bool] = True

    def run(self, store: StoreFacts, cancelled: Cancelled_, progress: Progress) -> Any:
        git = _git(store)
        state = head_state(git)
        return state, count_range(git, review_range(git), cancelled)


@dataclass(kw_only=True)
class NewCommitsJob(Job[Any]):
    """The commits HEAD added since `old` (None: it does not descend from it), for an open inbox."""

    kind: ClassVar[str] = "review-new"
    old: str

    def run(self, store: StoreFacts, cancelled: Cancelled_, progress: Progress) -> Any:
        git = _git(store)
        head = git.head()
        return head, (commits_after(git, self.old, head) if head else None)


@dataclass(kw_only=True)
class ChangeDetailJob(Job[Any]):
    """The diff that matters for one change: both versions read and compared."""

    kind: ClassVar[str] = "review-detail"
    change: Any

    def run(self, store: StoreFacts, cancelled: Cancelled_, progress: Progress) -> Any:
        check(cancelled)
        return change_detail(_git(store), self.change)


@dataclass(kw_only=True)
class AcceptJob(Job[Any]):
    """Mark changes reviewed; the mark moves past every commit whose changes are all accepted.

    `also`: commits this app just made from the inbox (a revert, a correction): their changes are
    the curator's own and are accepted with the item."""

    kind: ClassVar[str] = "review-accept"
    writer: ClassVar[bool] = False
    replace: ClassVar[bool] = False
    keys: tuple[str, ...]
    order: tuple[str, ...]
    pending: dict
    mark: str | None
    also: tuple[str, ...] = ()

    def run(self, store: StoreFacts, cancelled: Cancelled_, progress: Progress) -> Any:
        git = _git(store)
        keys, order, pending = list(self.keys), list(self.order), {k: set(v) for k, v in self.pending.items()}
        if self.also:
            for change in read_changes(git, self.also):
                keys.append(change.key)
                pending.setdefault(change.commit, set()).add(change.key)
            order += [sha for sha in self.also if sha not in order]
        mark = accept(git, keys, order=order, pending=pending, mark=self.mark)
        return mark, tuple(keys), head_state(git)


@dataclass(kw_only=True)
class ReviewDoneJob(Job[Any]):
    """Everything up to `upto` (the HEAD listed) reviewed: the mark moves there."""

    kind: ClassVar[str] = "review-done"
    replace: ClassVar[bool] = False
    upto: str

    def run(self, store: StoreFacts, cancelled: Cancelled_, progress: Progress) -> Any:
        return review_done(_git(store), upto=self.upto)


@dataclass(kw_only=True)
class ProvenanceJob(Job[Any]):
    """Who wrote the memory at `path` and when, the commits that changed it since, its session."""

    kind: ClassVar[str] = "provenance"
    path: str

    def run(self, store: ReadDoor, cancelled: Cancelled_, progress: Progress) -> Any:
        check(cancelled)
        return provenance_of(_git(store), self.path, store.file_bytes(self.path))


@dataclass(kw_only=True)
class ActivityJob(Job[Any]):
    """The history chart's data: writes per day or week by kind and author, reads, unread memories."""

    kind: ClassVar[str] = "activity"
    process: ClassVar[bool] = True  # classifies up to 26 weeks of history: a child's work
    unit: str = "week"

    def run(self, store: SqlDoor, cancelled: Cancelled_, progress: Progress) -> Any:
        return store_activity(_git(store), store.reader(), unit=self.unit, cancelled=cancelled)
