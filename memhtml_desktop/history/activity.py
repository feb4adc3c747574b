"""The store's history drawn: what was written per day or week, by kind and by author, and what is read.

Writes come from git (the same events as the inbox, over the last 30 days or 26 weeks); reads from
the state plane (`index/activity.py`), which keeps each memory's last read, not every read — so
the reads series counts the memories last read in each bucket, and "unread" the active memories
with no read in the last 90 days, per folder too (a folder nobody reads stands out).
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from memhtml_desktop.history.events import Change
from memhtml_desktop.history.review import ReviewRange, _rev_list, list_changes
from memhtml_desktop.write.git import Git

SPANS = {"day": 30, "week": 26}
UNREAD_DAYS = 90


@dataclass(frozen=True)
class Bucket:
    start: str  # YYYY-MM-DD: the day, or the Monday of the week (UTC)
    end: str  # the day after the bucket (exclusive)
    by_kind: dict[str, int]
    by_author: dict[str, int]
    reads: int = 0

    @property
    def total(self) -> int:
        return sum(self.by_kind.values())


@dataclass(frozen=True)
class FolderReads:
    folder: str
    active: int
    unread: int


@dataclass
class Activity:
    unit: str
    buckets: list[Bucket]
    changes: list[Change] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)  # most active first
    active: int = 0
    unread: int = 0
    unread_days: int = UNREAD_DAYS
    folders: list[FolderReads] = field(default_factory=list)
    state: bool = True
    notes: list[str] = field(default_factory=list)

    def in_bucket(self, bucket: Bucket) -> list[Change]:
        """The changes a bar stands for (a click lists them)."""
        return [c for c in self.changes if bucket.start <= c.at[:10] < bucket.end]

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "buckets": [vars(b) | {"total": b.total} for b in self.buckets],
                "authors": self.authors, "active": self.active, "unread": self.unread,
                "unread_days": self.unread_days, "folders": [vars(f) for f in self.folders], "state": self.state,
                "notes": self.notes}  # fmt: skip


def _start_of(day: _dt.date, unit: str) -> _dt.date:
    return day - _dt.timedelta(days=day.weekday()) if unit == "week" else day


def bucket_days(now: _dt.datetime, unit: str, count: int | None = None) -> list[tuple[_dt.date, _dt.date]]:
    """The buckets' [start, end) days, oldest first, the last one holding `now` (UTC)."""
    step = _dt.timedelta(days=7 if unit == "week" else 1)
    last = _start_of(now.astimezone(_dt.timezone.utc).date(), unit)
    n = count or SPANS[unit]
    return [(last - step * i, last - step * i + step) for i in range(n - 1, -1, -1)]


def folder_of(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def store_activity(git: Git, conn: Any | None, *, unit: str = "week", now: _dt.datetime | None = None,
                   cancelled=lambda: False) -> Activity:  # fmt: skip
    """The chart's data (see the module docstring); `conn` a reader connection of the index (None:
    no reads)."""
    if unit not in SPANS:
        raise ValueError(f"unit must be one of {', '.join(SPANS)}")
    when = now or _dt.datetime.now(_dt.timezone.utc)
    days = bucket_days(when, unit)
    start = days[0][0].isoformat()
    activity = Activity(unit, [])
    changes: list[Change] = []
    if git.head() is not None:
        shas = _rev_list(git, f"--since={start}T00:00:00Z", "HEAD")
        rng = ReviewRange(mark=None, head=None, base=None, shas=shas)
        changes = [c for c in list_changes(git, rng, cancelled=cancelled) if c.at[:10] >= start]
    else:
        activity.notes.append("the branch has no commit yet")
    reads: list[tuple[str, str]] = []
    if conn is not None:
        from memhtml_desktop.index.activity import active_reads, last_reads

        reads = last_reads(conn, start)
        rows, activity.state = active_reads(conn)
        cutoff = (when - _dt.timedelta(days=UNREAD_DAYS)).astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        per_folder: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for path, last, _count in rows:
            cell = per_folder[folder_of(path)]
            cell[0] += 1
            if not last or last < cutoff:
                cell[1] += 1
        activity.active = sum(c[0] for c in per_folder.values())
        activity.unread = sum(c[1] for c in per_folder.values())
        activity.folders = sorted((FolderReads(f, a, u) for f, (a, u) in per_folder.items()),
                                  key=lambda f: (-f.unread / max(f.active, 1), -f.active, f.folder))  # fmt: skip
        if not activity.state:
            activity.notes.append("no state plane (.memhtml/state.db): nothing is known of reads")
    authors = Counter(c.author for c in changes)
    activity.authors = [a for a, _ in authors.most_common()]
    for lo, hi in days:
        a, b = lo.isoformat(), hi.isoformat()
        inside = [c for c in changes if a <= c.at[:10] < b]
        activity.buckets.append(Bucket(a, b, dict(Counter(c.kind for c in inside)),
                                       dict(Counter(c.author for c in inside)),
                                       sum(1 for _, at in reads if a <= at[:10] < b)))  # fmt: skip
    activity.changes = changes
    return activity
