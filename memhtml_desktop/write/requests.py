"""What each command is asked to do: one frozen record per command, the input to its planner.

Optional `expected` fields carry the hash of a file as the caller last saw it (the window passes
the one it displayed): either the git blob id of the file's bytes (40 hex, `blob_sha` in the index)
or its content hash (`sha256:…`, the article only). A file that no longer matches is refused as
changed on disk, and nothing is written.

`facets` (new memories and corrections) are `(name, value)` or `(name, value, number)` tuples,
written as one `<dl>` after the claim's paragraph (`<dd><data value="number">value</data></dd>`
when a number is given): memhtml's CLI has no flag for them, so its `correct` drops a memory's
facets; the window passes them explicitly. Without facets the bytes are memhtml's.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WriteRequest:
    title: str
    memory_type: str
    claim: str | None = None
    article_html: str | None = None
    bodies: tuple[str, ...] = ()
    path: str | None = None
    workspace: str | None = None
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    importance: str | None = None
    confidence: str | None = None
    session: str | None = None
    prompt: str | None = None
    turn: str | None = None
    task_status: str | None = None
    due: str | None = None
    force: bool = False  # replace an existing file named by `path` (memhtml does so silently)
    facets: tuple[tuple, ...] = ()  # (name, value[, number]): a `<dl>` in the article; memhtml has no flag for it


@dataclass(frozen=True)
class CorrectRequest:
    target: str
    title: str
    claim: str | None = None
    article_html: str | None = None
    bodies: tuple[str, ...] = ()
    memory_type: str | None = None
    reason: str | None = None
    session: str | None = None
    # memhtml's `correct` carries none of these over; the window passes them explicitly.
    workspace: str | None = None
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    importance: str | None = None
    confidence: str | None = None
    expected: str | None = None
    facets: tuple[tuple, ...] = ()  # (name, value[, number]), as in WriteRequest
    # The folder the new version goes in (the window passes the corrected memory's own, so a
    # correction keeps its place); None: memhtml's placement rule, as its `correct` does.
    folder: str | None = None
    # A task's status on the new version; None: memhtml's default, `todo` (docs/writing.md).
    task_status: str | None = None
    # Keeping the graph (write/graph.py; memhtml's `correct` does none of it): links written on the
    # new version, (rel, path); the memories whose links to the target will name the new version,
    # (path, its blob id as seen or None); whether the target's reads (its state.access row) move
    # to the new version instead of following the archived copy.
    links: tuple[tuple[str, str], ...] = ()
    repoint: tuple[tuple[str, str | None], ...] = ()
    reads_follow: bool = False


@dataclass(frozen=True)
class ArchiveRequest:
    path: str
    reason: str
    expected: str | None = None


@dataclass(frozen=True)
class TaskStatusRequest:
    path: str
    status: str
    reason: str | None = None
    expected: str | None = None


@dataclass(frozen=True)
class LinkRequest:
    src: str
    rel: str
    dst: str
    expected: str | None = None


@dataclass(frozen=True)
class DoctorFixRequest:
    pass


@dataclass(frozen=True)
class StateExportRequest:
    force: bool = False  # replace a sidecar holding rows with an empty export


@dataclass(frozen=True)
class SupersedeRequest:
    """`winner` supersedes `loser`: the conflicts view's "this one is right", one commit.

    memhtml makes this change inside `apply --consolidate` (`memhtml(consolidate): …`); here it is
    also a command of its own, so a pair found by the conflicts scan resolves in one step.
    """

    winner: str
    loser: str
    reason: str | None = None
    expected_winner: str | None = None
    expected_loser: str | None = None
    # Keeping the loser's place in the graph (write/graph.py): its links, entities (`type:name`) and
    # facets written onto the winner, the memories whose links to it will name the winner, and
    # `keep_graph`: the winner's own links to the loser follow it to its archived copy.
    links: tuple[tuple[str, str], ...] = ()
    entities: tuple[str, ...] = ()
    facets: tuple[tuple, ...] = ()
    repoint: tuple[tuple[str, str | None], ...] = ()
    keep_graph: bool = False


@dataclass(frozen=True)
class RevertRequest:
    """Revert one change: commit `commit`'s changes to `paths` only (the review inbox's "Revert
    this change"), by a commit of its own; refused while a later commit touched those paths."""

    commit: str
    paths: tuple[str, ...]
