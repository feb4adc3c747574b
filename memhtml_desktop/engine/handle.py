"""What the window holds of an open store: its names and what it said, never a connection.

A `StoreHandle` is made from the `StoreSpec` the engine is started with (or from an open `Store`,
whose spec it takes), so the window can title itself, name the store in the status bar and reveal
files before the engine has answered; `opened(facts)` fills in what the engine found (the resolved
root, the embedder's space), `heard(texts)` keeps the store's notices (a damaged index rebuilt, a
locked state plane), `failed(reason)` says why the engine could not open it or stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memhtml_desktop.engine.protocol import StoreFacts
from memhtml_desktop.ops.spec import StoreSpec


@dataclass
class StoreHandle:
    root: Path
    index_path: Path
    embedder: str = ""
    notices: list[str] = field(default_factory=list)
    problem: str = ""
    """Why the engine could not open the store, or why it stopped ("" while it serves)."""
    is_open: bool = False
    reopened: int = 0
    """How many times the engine moved a damaged index aside and rebuilt it (caches of it are stale)."""
    curation_off: str | None = None
    """Why the store cannot be curated (no git of its own), or None."""

    @classmethod
    def of(cls, store: Any) -> StoreHandle:
        """The handle of a `StoreSpec`, or of an open `Store` (its own notices kept)."""
        if isinstance(store, StoreSpec):  # resolved as the Store resolves it (a few readlinks)
            return cls(Path(store.root).expanduser().resolve(), Path(store.index_path), curation_off=store.curation_off)
        handle = cls(
            Path(store.root),
            Path(store.index_path),
            embedder=getattr(store.embedder, "space", ""),
            curation_off=getattr(store, "curation_off", None),
        )
        handle.notices.extend(getattr(store, "notices", ()))
        return handle

    @property
    def name(self) -> str:
        return self.root.name

    def opened(self, facts: StoreFacts) -> None:
        self.root, self.index_path, self.embedder = Path(facts.root), Path(facts.index_path), facts.embedder
        self.is_open, self.problem = True, ""

    def failed(self, reason: str) -> None:
        self.is_open, self.problem = False, reason

    def heard(self, texts: tuple[str, ...] | list[str], reopened: bool = False) -> None:
        for text in texts:
            if text not in self.notices:
                self.notices.append(text)
        if reopened:
            self.reopened += 1
