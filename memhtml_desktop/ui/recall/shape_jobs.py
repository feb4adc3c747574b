"""The recall pane's jobs: every shape for the query in the box, and one expansion.

Both read the index only (no salience bump) and run on the read pool; the shapes job replaces the
plain recall job for the pane, since the costs side by side need every shape anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from memhtml_desktop.domain.catalogue import Expansion
from memhtml_desktop.domain.results import Answer
from memhtml_desktop.domain.shapes import ShapeComparison
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.ops.jobs import Job, check

CATALOGUE_K = 10


@dataclass
class ShapesJob(Job[ShapeComparison]):
    """memhtml's pack, the quota ledgers (the store's ledger map, else the seed's) and the catalogue.
    `answer`: the search of this query and scope the list shows (its parse and page are reused)."""

    kind: ClassVar[str] = "recall"
    query: str
    scope: Scope
    budget: int
    limit: int
    k: int = CATALOGUE_K
    answer: Answer | None = field(default=None, repr=False)

    def run(self, store, cancelled, progress) -> ShapeComparison:
        check(cancelled)
        ledgers = store.ledger_map(lenient=True)  # a bad file is a notice, and the seed's map is used
        return store.shapes(self.query, self.scope, budget=self.budget, limit=self.limit, k=self.k, ledgers=ledgers,
                            answer=self.answer)


@dataclass
class ExpandJob(Job[Expansion]):
    kind: ClassVar[str] = "expand"
    path: str

    def run(self, store, cancelled, progress) -> Expansion:
        check(cancelled)
        return store.expand(self.path)
