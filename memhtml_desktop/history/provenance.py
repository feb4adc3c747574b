"""Who wrote a memory and when, the commits that changed it since, its session: its provenance.

One `git log` over the memory's path, then over its earlier name for each move: the oldest commit
is who wrote it and when, the rest are what changed it since, newest first. The session is the
memory's own `memhtml-session` meta (else the writing commit's `Memhtml-Session` trailer).

A move is followed only where it is one: the commit that added the file at this path also removed
the file it came from (`git diff-tree -M --diff-filter=R` of that one commit: an archive, a `git
mv`). Not `git log --follow`, which looks for the added file's source among every file of the tree
(`find_copies_harder`): a memory written from a template, or near-copying another one, was traced
into that other memory's history (its author, its date, its commits), and in a store of 20,000
files each such step compared the new file with all of them (1.2-1.8 s an open, after a long
session of an agent writing notes; 0.15 s now).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from memhtml_desktop.history.events import utc_at
from memhtml_desktop.history.gitlog import _run
from memhtml_desktop.history.heads import head_facts
from memhtml_desktop.write.git import Git

SHOWN = 20


@dataclass(frozen=True)
class Touch:
    """One commit that changed the memory."""

    commit: str
    author_name: str
    author_email: str
    at: str
    subject: str
    session: str | None = None

    @property
    def author(self) -> str:
        return f"{self.author_name} <{self.author_email}>"


@dataclass(frozen=True)
class Provenance:
    path: str
    written: Touch | None  # the oldest commit: who wrote it, when (None: never committed)
    since: tuple[Touch, ...] = ()  # the later commits, newest first (at most SHOWN)
    total: int = 0  # every commit that touched it, the writing one included
    session: str | None = None
    uncommitted: bool = False  # the file differs from HEAD or is not tracked
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        def touch(t: Touch | None) -> dict | None:
            return None if t is None else {"commit": t.commit, "author": t.author, "at": t.at, "subject": t.subject,
                                           "session": t.session}  # fmt: skip

        return {"path": self.path, "written": touch(self.written), "since": [touch(t) for t in self.since],
                "total": self.total, "session": self.session, "uncommitted": self.uncommitted,
                "notes": list(self.notes)}  # fmt: skip


def provenance_of(git: Git, path: str, current: bytes | None = None) -> Provenance:
    """The provenance of the memory at `path` (its bytes `current`, when the caller has them)."""
    if git.head() is None:
        return Provenance(path, None, notes=("the branch has no commit yet",))
    touches = _touches(git, path)
    notes = []
    status = git.run("status", "--porcelain=v1", "--", path, check=False).out.strip()
    if not touches:
        notes.append("not committed yet: git has no history for this file")
    shallow = git.run("rev-parse", "--is-shallow-repository", check=False).out.strip() == "true"
    if shallow and touches:
        notes.append("a shallow clone: the oldest commit here may not be the one that wrote it")
    written = touches[-1] if touches else None
    session = head_facts(current).session if current is not None else None
    if session is None and written is not None:
        session = written.session
    return Provenance(path, written, tuple(touches[:-1][:SHOWN]), len(touches),
                      session, bool(status), tuple(notes))  # fmt: skip


#: At most this many moves are followed back (a memory archived, restored and moved again is a few).
MAX_MOVES = 64


def _touches(git: Git, path: str) -> list[Touch]:
    """Every commit that changed the memory, newest first, through its moves (see the module)."""
    token = secrets.token_hex(8)
    fmt = f"%x1e{token}%x1f%H%x1f%an%x1f%ae%x1f%aI%x1f%s%x1f%(trailers:key=Memhtml-Session,valueonly,separator=%x1d)%x1f%P"
    touches: list[Touch] = []
    rev, name, seen = "HEAD", path, set()
    for _ in range(MAX_MOVES + 1):
        out = _run(git, "log", "--no-color", "--no-renames", f"--format={fmt}", rev, "--", name)
        found, first_parent = [], None
        for chunk in out.split(f"\x1e{token}\x1f".encode())[1:]:
            parts = chunk.decode("utf-8", "replace").rstrip("\n").split("\x1f")
            if len(parts) < 7:
                continue
            session = next((v.strip() for v in parts[5].split("\x1d") if v.strip()), None)
            found.append(Touch(parts[0], parts[1], parts[2], utc_at(parts[3]), parts[4], session))
            first_parent = (parts[6].split() or [None])[0]  # the oldest's, once the loop ends
        touches += [t for t in found if t.commit not in seen]
        seen.update(t.commit for t in found)
        if not found or first_parent is None:  # nothing here, or written in a root commit
            break
        source = _moved_from(git, first_parent, found[-1].commit, name)
        if source is None:
            break
        rev, name = first_parent, source
    return touches


def _moved_from(git: Git, parent: str, commit: str, path: str) -> str | None:
    """The path `commit` moved to `path` (it removed that file and added this one, git's rename
    detection over that commit's own changes against its first `parent`), or None: written there."""
    out = _run(git, "diff-tree", "-r", "-M", "--name-status", "-z", "--diff-filter=R", "--no-color",
               parent, commit)  # fmt: skip
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    # -z --name-status: "R<score>", the old path, the new path, for each rename
    for i in range(0, len(fields) - 2, 3):
        if fields[i].startswith("R") and fields[i + 2] == path:
            return fields[i + 1]
    return None
