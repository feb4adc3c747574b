"""Whether a folder is a memhtml store, checked before anything is opened or written there.

A Store over any folder would work: its index lives in the user cache, and the first read creates
`.memhtml/state.db` inside the folder. So a mistyped `--store` (an empty folder, a home directory,
a code repository) used to answer "0 hits" and leave a state plane behind. Both front ends (the CLI's
`open_store`, the window's first store and File → Open store) call `check_store` first and refuse,
with what would make the folder a store, before a Store exists. Nothing here writes, and nothing
here runs git: a stat of a few names (docs/architecture.md, "What counts as a store").

What counts (store-format.md §1: "A store is a git repo", the PARA buckets, `.memhtml/`):

- a folder holding one of memhtml's own folders: a PARA bucket (`projects/`, `areas/`,
  `resources/`, `archive/`) or `.memhtml/`. Every store `memhtml init` laid out has them all, and a
  clone of a store has at least the buckets its memories are in;
- or the top of a git repository holding nothing else yet (dot-files and memhtml's scaffold
  `README.html` aside): a store someone is starting with `git init`. memhtml's own `write` makes the
  folders a first memory needs, and so does this app's.

Anything else is refused: a missing path, a file, an empty folder, a folder of other things, a git
repository of other things (a code repository: opening it would put `.memhtml/` into someone's
project). A store without `.git` of its own (a copy, an unpacked archive, a folder inside another
repository) opens for reading, and curation says why it is off (`StoreCheck.git_problem`): every
write goes through the store's own git.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memhtml_desktop.domain.paths import BUCKETS

MARKERS = (*BUCKETS, ".memhtml")
SCAFFOLD = frozenset({"README.html"})
CURATION_OFF_NOTE = "Curation is off: this store has no git repository of its own (`git init` there turns it on)"
"""The status bar's line for such a store; the greyed actions' tips carry `StoreCheck.git_problem`."""
INIT_HINT = "`memhtml --repo {path} init` lays one out (a git repository with memhtml's folders)"


@dataclass(frozen=True)
class StoreCheck:
    """What `check_store` found. `problem`: why this is not a store (None when it is one);
    `git_problem`: why curation cannot commit there (None when the folder is a git repository's top)."""

    path: Path
    problem: str | None = None
    git_problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    @property
    def can_curate(self) -> bool:
        return self.ok and self.git_problem is None


def _entries(path: Path) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def check_store(path: str | os.PathLike[str]) -> StoreCheck:
    """Whether `path` is a memhtml store (see the module docstring). Reads names only."""
    shown = Path(path).expanduser()
    if not shown.exists():
        return StoreCheck(shown, f"store not found: {shown} does not exist")
    if not shown.is_dir():
        return StoreCheck(shown, f"not a memhtml store: {shown} is a file, not a folder")
    if not os.access(shown, os.R_OK | os.X_OK):
        return StoreCheck(shown, f"cannot open {shown}: permission denied")
    names = _entries(shown)
    has_git = ".git" in names
    git_problem = (
        None
        if has_git
        else (
            f"{shown} is not a git repository of its own (no .git in it): memhtml-desktop commits every change "
            "through the store's git, so curation is off here; `git init` there turns it on"
        )
    )
    if any((shown / name).is_dir() for name in MARKERS if name in names):
        return StoreCheck(shown, None, git_problem)
    hint = INIT_HINT.format(path=shown)
    if has_git and all(name.startswith(".") or name in SCAFFOLD for name in names):
        return StoreCheck(shown)  # a store being started: a git repository with nothing in it yet
    if not names:
        return StoreCheck(
            shown,
            f"not a memhtml store: {shown} is an empty folder. To start a store there, "
            f"`git init` it (the first memory written makes the folders), or {hint}",
        )
    what = "is a git repository of other things" if has_git else "is not a git repository"
    return StoreCheck(
        shown,
        f"not a memhtml store: {shown} {what} and holds none of memhtml's folders "
        f"({', '.join(m + '/' for m in MARKERS)}); {hint}",
    )
