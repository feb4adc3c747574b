"""`FilterCounts` read the way the filters model looks values up: per axis, or flat by row key."""

from __future__ import annotations

from typing import Any


def axis_counts(counts: Any, axis: str) -> dict:
    if counts is None:
        return {}
    return {
        "type": counts.types,
        "workspace": counts.workspaces,
        "tag": counts.tags,
        "entity": counts.entities,
        "facet": counts.facets,
    }[axis]


def flatten(counts: Any) -> dict[tuple[str, str], int]:
    """`FilterCounts` as one dict keyed like the rows, `("facet", "name=value")` for a facet value."""
    flat: dict[tuple[str, str], int] = {}
    if counts is None:
        return flat
    for axis in ("type", "workspace", "tag", "entity"):
        for value, n in axis_counts(counts, axis).items():
            flat[(axis, value)] = int(n)
    for name, values in counts.facets.items():
        for value, n in values.items():
            flat[("facet", f"{name}={value}")] = int(n)
    return flat
