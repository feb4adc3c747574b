"""What an open `Store` keeps between calls, as its own state: one `StoreCaches` per Store.

Every cache here is keyed by the index file and checked against the index's change log (and the
state plane's mark) on each use, so keeping it on the Store rather than in the module changes no
answer; it changes who owns it. A process that opens one store (the engine, a command) has one set;
a test or a bench that opens two Stores over one index has two, each as right as the other, and
nothing one of them does (a damaged index moved aside, a `heard(reopened=True)`) clears the other's.

| cache | what it keeps | module |
| --- | --- | --- |
| `vectors` | the embedder's vectors of every memory, patched through the change log | index/vectors.py |
| `salience` | the salience arm's bound list | index/salience.py |
| `scope_rows` | the rowids a scope keeps, for the arms' in-scope masks | index/scope_rows.py |
| `resident` | the quota shape's resident ledgers per index version | index/shape_reads.py |

They are made on first use (`Store.caches`): a command that never ranks imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memhtml_desktop.index.salience import SalienceCache
from memhtml_desktop.index.scope_rows import ScopeRows
from memhtml_desktop.index.vectors import VectorCache

if TYPE_CHECKING:
    from memhtml_desktop.index.shape_reads import ResidentCache


@dataclass
class StoreCaches:
    """One Store's caches (see the module's table); `clear` forgets them all."""

    vectors: VectorCache = field(default_factory=VectorCache)
    scope_rows: ScopeRows = field(default_factory=ScopeRows)
    salience: SalienceCache = field(default=None)  # type: ignore[assignment]  # made over scope_rows
    #: Made when the quota shape first asks (`resident`): shape_reads brings the catalogue, the quotas
    #: and the results types, which a search (every `memhtml-desktop search`) does not need.
    _resident: ResidentCache | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.salience is None:
            self.salience = SalienceCache(scope_rows=self.scope_rows)

    @property
    def resident(self) -> ResidentCache:
        if self._resident is None:
            from memhtml_desktop.index.shape_reads import ResidentCache

            self._resident = ResidentCache()
        return self._resident

    def clear(self) -> None:
        """Forget everything (the index was replaced: a damaged one moved aside, another process's rebuild)."""
        self.vectors.clear()
        self.salience.clear()
        self.scope_rows.clear()
        if self._resident is not None:
            self._resident.clear()
