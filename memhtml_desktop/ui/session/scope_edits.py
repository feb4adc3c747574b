"""Scope edits: pure functions from a Scope and one filter switch to the next Scope.

Shared by the filters panel, the chips in the search bar, the reader's "filter by this" links and
the View menu, through `SearchSession.toggle_filter`, so every one of them changes the scope the
same way. No Qt.
"""

from __future__ import annotations

from memhtml_desktop.domain.as_of import as_of_label, parse_as_of
from memhtml_desktop.domain.types import Scope


def split_facet(value: str) -> tuple[str, str]:
    name, _, val = value.partition("=")
    return name.strip(), val.strip()


def set_filter(scope: Scope, axis: str, value: str, on: bool) -> Scope:
    """`scope` with one filter value switched on or off. `facet` values are `name=value`."""
    if axis == "type":
        types = [t for t in scope.memory_types if t != value]
        return scope.with_(memory_types=types + [value] if on else types)
    if axis == "workspace":
        return scope.with_(workspace=value if on else (None if scope.workspace == value else scope.workspace))
    if axis == "tag":
        tags = [t for t in scope.tags if t != value]
        return scope.with_(tags=tags + [value] if on else tags)
    if axis == "entity":
        if on:
            return scope.with_(entity=value)
        return scope.with_(entity=None) if (scope.entity or "").casefold() == value.casefold() else scope
    if axis == "facet":
        pair = split_facet(value)
        facets = [f for f in scope.facets if tuple(f) != pair]
        return scope.with_(facets=facets + [pair] if on else facets)
    if axis == "archived":
        return scope.with_(include_archived=on)
    if axis == "as_of":
        return scope.with_(as_of=parse_as_of(value) if on else None)
    raise ValueError(f"unknown filter axis {axis!r}")


def is_on(scope: Scope, axis: str, value: str) -> bool:
    if axis == "type":
        return value in scope.memory_types
    if axis == "workspace":
        return scope.workspace == value
    if axis == "tag":
        return value in scope.tags
    if axis == "entity":
        return (scope.entity or "").casefold() == value.casefold()
    if axis == "facet":
        return split_facet(value) in [tuple(f) for f in scope.facets]
    return False


def active_filters(scope: Scope) -> list[tuple[str, str, str]]:
    """`(axis, value, label)` for every filter in `scope`, in panel order (for the chips)."""
    out = [("type", t, f"type: {t}") for t in scope.memory_types]
    if scope.workspace:
        out.append(("workspace", scope.workspace, f"workspace: {scope.workspace}"))
    out += [("tag", t, f"tag: {t}") for t in scope.tags]
    if scope.entity:
        out.append(("entity", scope.entity, f"entity: {scope.entity}"))
    out += [("facet", f"{n}={v}", f"{n} = {v}") for n, v in scope.facets]
    if scope.include_archived:
        out.append(("archived", "", "including archived"))
    if scope.as_of:
        out.append(("as_of", scope.as_of, f"as of {as_of_label(scope.as_of)}"))
    return out
