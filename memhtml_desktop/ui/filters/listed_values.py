"""Which values the filters pane lists, per axis: the store's most common ones (capped), plus any ticked.

The list comes from the store's counts (empty query, empty scope), not the query's, so rows do not come
and go while typing; the query only changes the numbers beside them (0 shows greyed). Pure choices over
`FilterCounts` and a `Scope`: no Qt.
"""

from __future__ import annotations

from typing import Any

from memhtml_desktop.domain.paths import MEMORY_TYPES
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.ui.filters.flat_counts import axis_counts
from memhtml_desktop.ui.session.scope_edits import active_filters, split_facet

MAX_ROWS = {"type": 50, "workspace": 30, "tag": 40, "entity": 12, "facet": 12}
MAX_FACET_NAMES = 40
"""Caps on listed values (the most common first; a selected value is always listed). A store of
thousands of memories has hundreds of tags and facet values: listing them all would bury the
panel and cost the GUI thread a rebuild it cannot afford while typing."""


def values_to_list(axis: str, source_counts: Any, scope: Scope) -> list[str]:
    """`axis`'s values to list: the most common in `source_counts` (capped), then any ticked in `scope`."""
    source = axis_counts(source_counts, axis)
    selected = [v for a, v, _ in active_filters(scope) if a == axis]
    if axis == "type":
        order = [t for t in MEMORY_TYPES if t in source]
    elif axis == "facet":
        names = sorted(source, key=lambda n: (-len(source[n]), -sum(source[n].values()), n.casefold()))
        order = []
        for name in names[:MAX_FACET_NAMES]:
            values = sorted(source[name], key=lambda v: (-source[name][v], v.casefold()))
            order += [f"{name}={v}" for v in values[: MAX_ROWS["facet"]]]
    else:
        order = sorted(source, key=lambda v: (-source[v], v))[: MAX_ROWS[axis]]
    return order + [v for v in selected if v not in order]


class ListedValues:
    """`values_to_list`, memoised per (axis, source, scope): sorting every facet value of a 100,000-file
    store on each keystroke cost the GUI thread tens of milliseconds."""

    def __init__(self) -> None:
        self._memo: dict[tuple, tuple[Any, list[str]]] = {}

    def __call__(self, axis: str, source_counts: Any, scope: Scope) -> list[str]:
        key = (axis, id(source_counts), scope)
        cached = self._memo.get(key)
        if cached is not None and cached[0] is source_counts:
            return cached[1]
        values = values_to_list(axis, source_counts, scope)
        if len(self._memo) > 64:
            self._memo.clear()
        self._memo[key] = (source_counts, values)
        return values


def facet_groups(values: list[str]) -> list[tuple[str, list[str]]]:
    """`name=value` strings grouped by name, in the order they were chosen."""
    groups: dict[str, list[str]] = {}
    for value in values:
        groups.setdefault(split_facet(value)[0], []).append(value)
    return list(groups.items())
