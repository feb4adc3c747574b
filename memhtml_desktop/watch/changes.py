"""Merging a burst of raw changes into one index pass: paths to re-examine and explicit moves.

Runs on the watcher's worker thread (it stats, walks and asks the index what it knows). The
result is what `Store.update_paths(paths, moves)` takes. The rules, and why:

* A file path is re-examined, never "applied": created, modified and deleted all become "look at
  this path", and the indexer reads the disk as it is when the pass runs. So a burst of writes
  to one file is one parse, and the order of creates and deletes does not matter.
* Moves are the one thing whose order matters. A move onto the source of a pending move chains
  (a→b then b→c is a→c; a→b then b→a is just "look at a"). A directory move rewrites pending
  moves and paths below it, then adds one move per path the index knows under the old name
  (`Store.paths_under`), so a folder moved twice within one burst still moves its files.
* A directory deleted or moved out arrives as ONE event with nothing for its files: every path
  the index knows below it is re-examined, which removes them.
* A directory created or moved in is walked for memory files (inotify may report its files
  too; the duplicates merge).
* At the end a move is kept only when its source is gone and its destination exists. Anything
  else (a→b and a new a written since; a→b and b deleted since) is re-examined as two paths,
  which the indexer gets right on its own (a vanished file and a new one with the same article
  are still matched by content hash).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memhtml_desktop.domain.paths import is_indexable
from memhtml_desktop.index.scanner import stat_one
from memhtml_desktop.watch.events import (
    DIR_GONE,
    DIR_MOVE,
    DIR_NEW,
    MOVE,
    UPDATE,
    RawChange,
)

KnownUnder = Callable[[str], list[str]]  # Store.paths_under


def _under(path: str, directory: str) -> bool:
    return path.startswith(directory.rstrip("/") + "/")


def _rebase(path: str, src_dir: str, dst_dir: str) -> str:
    return dst_dir.rstrip("/") + path[len(src_dir.rstrip("/")) :]


def walk_dir(root: Path, rel_dir: str) -> Iterator[str]:
    """Every memory path below a store directory, symlinked directories not followed."""
    top = os.path.join(root, *rel_dir.split("/"))
    for directory, dirnames, filenames in os.walk(top, followlinks=False):
        rel = rel_dir if directory == top else rel_dir + "/" + os.path.relpath(directory, top).replace(os.sep, "/")
        dirnames.sort()
        for name in sorted(filenames):
            path = f"{rel}/{name}"
            if is_indexable(path):
                yield path


@dataclass
class Pass:
    """One call of `Store.update_paths`: paths to re-examine and (src, dst) moves."""

    paths: list[str] = field(default_factory=list)
    moves: list[tuple[str, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.paths) + len(self.moves)


class ChangeSet:
    """Raw changes merged in arrival order; `passes()` turns them into index passes."""

    def __init__(self, root: Path, known_under: KnownUnder) -> None:
        self.root = Path(root)
        self.known_under = known_under
        self.paths: dict[str, None] = {}  # an ordered set
        self.moves: dict[str, str] = {}  # dst -> src

    def __len__(self) -> int:
        return len(self.paths) + len(self.moves)

    def add(self, change: RawChange) -> None:
        if change.kind == UPDATE:
            self.add_path(change.path)
        elif change.kind == MOVE:
            self.add_move(change.path, change.dest)
        elif change.kind == DIR_GONE:
            self.add_dir_gone(change.path)
        elif change.kind == DIR_NEW:
            self.add_dir_new(change.path)
        elif change.kind == DIR_MOVE:
            self.add_dir_move(change.path, change.dest)

    def extend(self, changes: Iterable[RawChange]) -> None:
        for change in changes:
            self.add(change)

    def add_path(self, path: str) -> None:
        if is_indexable(path):
            self.paths[path] = None

    def add_move(self, src: str, dst: str) -> None:
        if not is_indexable(dst):
            self.add_path(src)
            return
        if not is_indexable(src):
            self.add_path(dst)
            return
        origin = self.moves.pop(src, src)  # chain a pending move onto src
        if origin == dst:  # moved back where it was
            self.add_path(dst)
            return
        self.moves[dst] = origin

    def add_dir_gone(self, directory: str) -> None:
        for path in self.known_under(directory):
            self.add_path(path)
        for dst in [d for d in self.moves if _under(d, directory)]:
            self.add_path(dst)  # moved in, then gone: the final check turns this into two paths

    def add_dir_new(self, directory: str) -> None:
        for path in walk_dir(self.root, directory):
            self.add_path(path)

    def add_dir_move(self, src_dir: str, dst_dir: str) -> None:
        for dst in [d for d in self.moves if _under(d, src_dir)]:
            self.moves[_rebase(dst, src_dir, dst_dir)] = self.moves.pop(dst)
        for path in [p for p in self.paths if _under(p, src_dir)]:
            self.add_path(_rebase(path, src_dir, dst_dir))
        for path in self.known_under(src_dir):
            self.add_move(path, _rebase(path, src_dir, dst_dir))
        self.add_dir_new(dst_dir)

    def passes(self, max_size: int) -> list[Pass]:
        """Split into passes of at most `max_size` items; a move and its two paths stay together."""
        moves: list[tuple[str, str]] = []
        paths: dict[str, None] = dict(self.paths)
        for dst, src in self.moves.items():
            if stat_one(self.root, src) is None and stat_one(self.root, dst) is not None:
                moves.append((src, dst))
            else:
                paths[src] = None
                paths[dst] = None
        moved = {p for move in moves for p in move}
        rest = [p for p in paths if p not in moved]
        out: list[Pass] = []
        current = Pass()
        for move in moves:
            if len(current) >= max_size:
                out.append(current)
                current = Pass()
            current.moves.append(move)
        for path in rest:
            if len(current) >= max_size:
                out.append(current)
                current = Pass()
            current.paths.append(path)
        if len(current):
            out.append(current)
        return out
