"""A memory's supersession chain: what it superseded, what superseded it, when each held.

Built from the authored `supersedes` links in the index (a correction writes one on the new file,
pointing at the old one's archive path), followed both ways and transitively, so a timeline can
show the whole lineage around one memory: each version with its dates (`created`, `valid-from`,
`valid-until`, `archived`) and which version replaced which. A link to a file the index does not
know (deleted, or never indexed) still appears, as a version with no dates.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memhtml_desktop.index import curation

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import CuratorStore

MAX_VERSIONS = 200


@dataclass(frozen=True)
class Version:
    path: str
    title: str | None
    claim: str | None
    created: str | None
    valid_from: str | None
    valid_until: str | None
    archived_at: str | None
    archived: bool
    known: bool  # False: a link names it but the index has no such memory

    @property
    def start(self) -> str | None:
        """When this version began to hold: its valid-from, else its creation."""
        return self.valid_from or self.created


@dataclass
class SupersessionChain:
    """Every version linked to `focus` by `supersedes`, oldest first, and the links between them.

    `edges` are `(newer, older)`: `newer` supersedes `older`. `older_than_focus` and
    `newer_than_focus` are the paths reachable from the focus in each direction.
    """

    focus: str
    versions: list[Version] = field(default_factory=list)
    edges: list[tuple[str, str]] = field(default_factory=list)
    older_than_focus: list[str] = field(default_factory=list)
    newer_than_focus: list[str] = field(default_factory=list)
    truncated: bool = False

    def to_json(self) -> dict:
        return {
            "focus": self.focus,
            "versions": [vars(v) | {"start": v.start} for v in self.versions],
            "edges": [{"newer": n, "older": o} for n, o in self.edges],
            "older_than_focus": self.older_than_focus,
            "newer_than_focus": self.newer_than_focus,
            "truncated": self.truncated,
        }


def _reach(conn, start: str, towards: str, limit: int) -> list[str]:
    """Paths reachable from `start` following `supersedes` only older-wards or only newer-wards."""
    found: list[str] = []
    seen = {start}
    queue = deque([start])
    while queue and len(found) < limit:
        older, newer = curation.supersedes_edges(conn, queue.popleft())
        for other in older if towards == "older" else newer:
            if other not in seen:
                seen.add(other)
                found.append(other)
                queue.append(other)
    return found


def supersession_chain(store: CuratorStore, path: str) -> SupersessionChain:
    """The lineage around `path`: every version connected to it by `supersedes`, either way."""
    conn = store.reader()
    chain = SupersessionChain(focus=path)
    seen = {path}
    edges: set[tuple[str, str]] = set()
    queue = deque([path])
    while queue:
        node = queue.popleft()
        older, newer = curation.supersedes_edges(conn, node)
        for edge in [*((node, o) for o in older), *((n, node) for n in newer)]:
            edges.add(edge)
            for other in edge:
                if other in seen:
                    continue
                if len(seen) >= MAX_VERSIONS:
                    chain.truncated = True
                    continue
                seen.add(other)
                queue.append(other)
    facts = curation.files_facts(conn, seen)
    for p in seen:
        row = facts.get(p)
        chain.versions.append(Version(
            path=p, title=row and row["title"], claim=row and row["gist"], created=row and row["created_at"],
            valid_from=row and row["valid_from"], valid_until=row and row["valid_until"],
            archived_at=row and row["archived_at"], archived=bool(row and row["archived"]) or p.startswith("archive/"),
            known=row is not None,
        ))  # fmt: skip
    chain.versions.sort(key=lambda v: (v.start or "", v.path))
    order = {v.path: i for i, v in enumerate(chain.versions)}
    chain.edges = sorted((e for e in edges if e[0] in seen and e[1] in seen), key=lambda e: (order[e[1]], order[e[0]]))
    older = set(_reach(conn, path, "older", MAX_VERSIONS))
    newer = set(_reach(conn, path, "newer", MAX_VERSIONS))
    chain.older_than_focus = [v.path for v in chain.versions if v.path in older]
    chain.newer_than_focus = [v.path for v in chain.versions if v.path in newer]
    return chain
