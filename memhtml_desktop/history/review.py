"""The review inbox: every change since the curator's mark, as memory-level events.

`review_range` decides which commits to list and says why, in words a person reads:

- a mark that HEAD descends from: the commits after it;
- no mark yet: the last 7 days (said);
- a mark that is no longer in the branch's history (a rebase, an amend, a reset rewrote it): the
  commits after the point where the old and the new histories meet (`merge-base`), said — never
  an empty list in silence, never a crash;
- a mark whose commit the repository no longer has: the last 7 days, said;
- `--since REV|DATE`: that commit or that date instead of the mark (nothing is written);
- an unborn branch: nothing to list, said; a detached HEAD: what leads to it, said;
- a shallow clone: the commits at its edge have no parent to compare with, so their changes
  cannot be known: they are left out, said (`git fetch --unshallow` brings them).

Merge commits list nothing of their own: the commits they merge are listed (both sides). Then
`read_changes` turns a page of commits into events (`events.classify`): one `git log` for the
page, one `git cat-file --batch` for the blobs. Nothing here writes; `review_done` moves the mark.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from memhtml_desktop.history import mark as mark_mod
from memhtml_desktop.history.events import Change, blobs_wanted, classify
from memhtml_desktop.history.gitlog import read_blobs, read_commits
from memhtml_desktop.write.git import Git, GitError

DEFAULT_DAYS = 7
PAGE = 1000
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?$")


class ReviewError(Exception):
    """Bad input to the review (a --since that is neither a commit nor a date): one sentence."""


@dataclass
class ReviewRange:
    """Which commits the inbox lists, oldest first, and what to tell about how they were chosen."""

    mark: str | None
    head: str | None
    base: str | None  # listed: what HEAD has and `base` has not (None: by date, or everything)
    shas: list[str] = field(default_factory=list)
    history_rewritten: bool = False
    since: str = ""  # "since the review mark 1a2b3c4d5e6f", "in the last 7 days", …
    notes: list[str] = field(default_factory=list)
    shallow: frozenset[str] = frozenset()
    accepted: frozenset[str] = frozenset()
    ref: str = mark_mod.REF

    def to_json(self, changes: Sequence[Change]) -> dict:
        return {"mark": self.mark, "head": self.head, "history_rewritten": self.history_rewritten,
                "changes": [c.to_json() for c in changes]}  # fmt: skip


def _short(sha: str | None) -> str:
    return (sha or "")[:12]


def _subject(git: Git, sha: str) -> str:
    return git.run("log", "-1", "--format=%s", sha, check=False).out.strip()


def _utc(moment: _dt.datetime) -> str:
    return moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_since(git: Git, text: str) -> tuple[str, str | None]:
    """("rev", sha) for a commit git knows, ("date", ISO instant) for a date; ReviewError else."""
    value = text.strip()
    if not value:
        raise ReviewError("--since needs a commit or a date (2026-12-01)")
    if not value.startswith("-"):
        found = git.run("rev-parse", "-q", "--verify", "--end-of-options", f"{value}^{{commit}}", check=False)
        if found.code == 0 and found.out.strip():
            return "rev", found.out.strip()
    if _DATE.match(value):
        text_ = value.replace(" ", "T").replace("Z", "+00:00")
        try:
            moment = _dt.datetime.fromisoformat(text_)
        except ValueError:
            moment = None
        if moment is not None:
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=_dt.timezone.utc)
            return "date", _utc(moment)
    raise ReviewError(f"--since {value}: neither a commit of this repository nor a date (like 2026-12-01)")


def _shallow(git: Git) -> frozenset[str]:
    """The commits at a shallow clone's edge (`<common git dir>/shallow`); empty in a full clone."""
    try:
        text = (git.common_dir() / "shallow").read_text(encoding="utf-8")
    except (OSError, GitError):
        return frozenset()
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def _rev_list(git: Git, *args: str) -> list[str]:
    out = git.run("rev-list", "--reverse", "--topo-order", "--no-merges", *args, check=False)
    if out.code != 0:
        raise GitError(f"git rev-list failed (exit {out.code}): {out.err.strip()[:200]}")
    return [s for s in out.out.split() if s]


def review_range(git: Git, *, since: str | None = None, now: _dt.datetime | None = None,
                 days: int = DEFAULT_DAYS) -> ReviewRange:  # fmt: skip
    """What the inbox lists now (see the module docstring). Reads only."""
    top, why = git.toplevel()
    if top is None:
        raise ReviewError(f"not a git repository: {git.root} ({why.strip() or 'git says no'})")
    if os.path.realpath(top) != os.path.realpath(git.root):
        raise ReviewError(f"{git.root} is inside the git repository {top}, not its root: its history is that "
                          "repository's, where these memories have other paths")  # fmt: skip
    state = mark_mod.read_mark(git)
    head = git.head()
    rng = ReviewRange(mark=state.sha, head=head, base=None, ref=state.ref)
    if head is None:
        rng.since = "yet"
        rng.notes.append("the branch has no commit yet: nothing to review")
        return rng
    rng.shallow = _shallow(git)
    rng.accepted = frozenset(mark_mod.read_accepted(git))
    if git.branch() is None:
        rng.notes.append(f"HEAD is detached (at {_short(head)}): listing what leads to it")
    when = now or _dt.datetime.now(_dt.timezone.utc)
    if since is not None:
        kind, value = parse_since(git, since)
        if kind == "date":
            return _by_date(git, rng, value, f"since {value}")
        return _from(git, rng, value, f"since commit {_short(value)}", "the commit given")
    if state.sha is None:
        start = _utc(when - _dt.timedelta(days=days))
        rng.notes.append(f"no review mark yet: showing the last {days} days (since {start}); "
                         "“review done” sets the mark")  # fmt: skip
        return _by_date(git, rng, start, f"in the last {days} days")
    if not state.exists:
        start = _utc(when - _dt.timedelta(days=days))
        rng.notes.append(f"the review mark points to a commit this repository no longer has ({_short(state.sha)}): "
                         f"showing the last {days} days (since {start})")  # fmt: skip
        return _by_date(git, rng, start, f"in the last {days} days")
    return _from(git, rng, state.sha, f"since the review mark {_short(state.sha)}", "the review mark")


def _by_date(git: Git, rng: ReviewRange, start: str, label: str) -> ReviewRange:
    rng.since = label
    rng.shas = _rev_list(git, f"--since={start}", "HEAD")
    _say_shallow(rng)
    return rng


def _from(git: Git, rng: ReviewRange, base: str, label: str, what: str) -> ReviewRange:
    head = rng.head or "HEAD"
    rng.since = label
    if git.is_ancestor(base, head):
        rng.base = base
        rng.shas = _rev_list(git, head, f"^{base}")
        _say_shallow(rng)
        return rng
    meet = git.run("merge-base", base, head, check=False).out.strip() or None
    rng.history_rewritten = True
    if meet is None:
        rng.notes.append(f"the history under {what} ({_short(base)}) was rewritten and shares no commit with "
                         "this branch: listing everything this branch holds")  # fmt: skip
        rng.shas = _rev_list(git, head)
    elif meet == rng.head:
        rng.base = meet
        rng.notes.append(f"this branch is behind {what} ({_short(base)}): it was reset to an older commit, "
                         f"{_short(meet)}; nothing new to review since")  # fmt: skip
    else:
        rng.base = meet
        rng.notes.append(f"the history under {what} ({_short(base)}) was rewritten (a rebase, an amend or a "
                         f"reset): listing from where the old and new histories meet, {_short(meet)} "
                         f"“{_subject(git, meet)}”")  # fmt: skip
        rng.shas = _rev_list(git, head, f"^{meet}")
    _say_shallow(rng)
    return rng


def _say_shallow(rng: ReviewRange) -> None:
    edge = [s for s in rng.shas if s in rng.shallow]
    if edge:
        rng.notes.append(f"this is a shallow clone: {len(edge)} commit(s) at its edge have no parent here, so "
                         "their changes cannot be known and are left out (`git fetch --unshallow` brings them)")  # fmt: skip


def read_changes(git: Git, shas: Sequence[str], *, shallow: frozenset[str] = frozenset(),
                 accepted: frozenset[str] | set[str] = frozenset()) -> list[Change]:  # fmt: skip
    """The events of these commits (one page), oldest first, without those already accepted."""
    commits = [c for c in read_commits(git, shas) if c.sha not in shallow]
    wanted = [b for c in commits for b in blobs_wanted(c)]
    blobs = read_blobs(git, wanted)
    out = []
    for commit in commits:
        out += [e for e in classify(commit, blobs) if e.key not in accepted]
    return out


def author_filter(pattern: str | None) -> Callable[[Change], bool]:
    """`--author PATTERN`: a case-insensitive regular expression (or, if it is not one, plain text)
    matched against `Name <email>`, as git's --author is."""
    if not pattern:
        return lambda change: True
    try:
        rx = re.compile(pattern, re.IGNORECASE)
        return lambda change: rx.search(change.author) is not None
    except re.error:
        needle = pattern.lower()
        return lambda change: needle in change.author.lower()


def list_changes(git: Git, rng: ReviewRange, *, author: str | None = None, page: int = PAGE,
                 cancelled: Callable[[], bool] = lambda: False) -> list[Change]:  # fmt: skip
    """Every event of the range, page by page (see `read_changes`), filtered by author."""
    keep = author_filter(author)
    out: list[Change] = []
    for start in range(0, len(rng.shas), page):
        if cancelled():
            break
        out += [c for c in read_changes(git, rng.shas[start:start + page], shallow=rng.shallow,
                                        accepted=rng.accepted) if keep(c)]  # fmt: skip
    return out


@dataclass(frozen=True)
class Done:
    """What `review_done` did: the mark before and after."""

    previous: str | None
    mark: str | None
    moved: bool
    note: str = ""

    def to_json(self) -> dict:
        return {"mark": self.mark, "previous": self.previous, "moved": self.moved}


def review_done(git: Git, *, upto: str | None = None, expected: str | None | bool = False) -> Done:
    """Move the mark to `upto` (default HEAD): everything up to it is reviewed. `expected`: the
    mark the caller saw (False: whatever it is). Accepted items the mark now covers are forgotten."""
    state = mark_mod.read_mark(git)
    head = git.head()
    if head is None:
        return Done(state.sha, state.sha, False, "the branch has no commit yet: nothing to mark reviewed")
    target = head
    if upto:
        found = git.run("rev-parse", "-q", "--verify", "--end-of-options", f"{upto.strip()}^{{commit}}", check=False)
        if found.code != 0 or not found.out.strip():
            raise ReviewError(f"--upto {upto}: not a commit of this repository")
        target = found.out.strip()
        if not git.is_ancestor(target, head):
            raise ReviewError(f"--upto {upto}: {_short(target)} is not in this branch's history")
    if state.sha == target and state.exists:
        _forget_covered(git, target)
        return Done(state.sha, target, False, f"the review mark is already at {_short(target)}")
    mark_mod.move_mark(git, target, state.sha if expected is False else expected or None)
    _forget_covered(git, target)
    return Done(state.sha, target, True)


def _forget_covered(git: Git, mark: str) -> None:
    """Accepted keys whose commit the mark now covers (or that left the branch) are dropped."""
    keys = mark_mod.read_accepted(git)
    if not keys:
        return
    pending = set(_rev_list(git, "HEAD", f"^{mark}"))
    kept = {k for k in keys if k.split(":", 1)[0] in pending}
    if kept != keys:
        mark_mod.write_accepted(git, kept)


def accept(git: Git, keys: Sequence[str], *, order: Sequence[str], pending: dict[str, set[str]],
           mark: str | None) -> str | None:  # fmt: skip
    """Mark these changes (`commit:path`) reviewed; returns the mark after (moved or not).

    `order`: the commits listed, oldest first (parents before children); `pending`: each listed
    commit's keys still to review, before this call; `mark`: the mark the caller listed from. The
    mark moves to the last commit of the longest prefix of `order` with nothing left to review
    (a prefix holds every listed ancestor of its commits); the keys beyond it are remembered."""
    done = set(keys)
    last = None
    for sha in order:
        if pending.get(sha, set()) - done:
            break
        last = sha
    accepted = mark_mod.read_accepted(git) | done
    if last is not None and last != mark:
        mark_mod.move_mark(git, last, mark)
        mark = last
        covered = set(order[: order.index(last) + 1])
        accepted = {k for k in accepted if k.split(":", 1)[0] not in covered}
    mark_mod.write_accepted(git, accepted)
    return mark


@dataclass(frozen=True)
class HeadState:
    """What the number to review depends on: HEAD, the mark, the accepted file (its stat)."""

    head: str | None
    mark: str | None
    accepted: tuple = ()


def head_state(git: Git) -> HeadState:
    """HEAD (from git's files), the mark (one `rev-parse`), the accepted file's stat: cheap enough
    to ask every few seconds."""
    try:
        st = mark_mod.accepted_file(git).stat()
        accepted: tuple = (st.st_mtime_ns, st.st_size)
    except (OSError, GitError):
        accepted = ()
    ref = git.run("rev-parse", "-q", "--verify", mark_mod.mark_ref(git), check=False)
    return HeadState(git.head(), ref.out.strip() or None if ref.code == 0 else None, accepted)


def commits_after(git: Git, old: str, new: str) -> list[str] | None:
    """The commits `new` adds to `old`, oldest first (parents first), or None when `new` does not
    descend from `old` (the branch was rewritten or switched: list again from the mark)."""
    if old == new:
        return []
    if not git.is_ancestor(old, new):
        return None
    return _rev_list(git, new, f"^{old}")
