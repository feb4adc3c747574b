"""The scope predicate: assembled once, handed to every arm, the listing and the counts.

One string of `AND <condition>` clauses written against the token `{alias}`, plus the values it
binds, numbered from `?6` upward (`?1`–`?5` are the fused statement's fixed prefix). Every arm
substitutes its own alias for its files row, so a scope cannot apply to three arms and miss the
fourth. The default exclusions are inlined literals: binding them would consume placeholder
numbers and shift every scope parameter after them.

Example, for `Scope(memory_types=("semantic",), workspace="w", tags=("deploy", "oncall"),
entity="service:checkout-api", facets=(("doc-type", "runbook"), ("tier", "1")))`::

     AND {alias}.archived = 0
     AND {alias}.memory_type IN (?6)
     AND {alias}.workspace = ?7
     AND {alias}.path IN (SELECT ft.path FROM file_tags ft WHERE ft.tag IN (?8, ?9))
     AND {alias}.path IN (SELECT e.path FROM file_entities e
                          WHERE memhtml_fold(e.entity_type || ':' || e.entity_name) = memhtml_fold(?10))
     AND {alias}.path IN (SELECT ff.path FROM file_facets ff WHERE ff.name = ?11 AND ff.value IN (?12))
     AND {alias}.path IN (SELECT ff.path FROM file_facets ff WHERE ff.name = ?13 AND ff.value IN (?14))

The child-table axes are uncorrelated `IN (SELECT …)` rather than the correlated `EXISTS` memhtml
writes: the meaning is the same (a file with one name under two types still appears once) but
SQLite evaluates the subquery once per statement instead of once per candidate row, which is
what keeps the recency and salience arms (query-blind, they visit the whole scope) fast on a
100,000-file store.
"""

from __future__ import annotations

from dataclasses import dataclass

from memhtml_desktop.domain.instants import as_of_instant
from memhtml_desktop.domain.types import Scope

FIRST_SCOPE_PARAM = 6
_AND = "\n         AND "


@dataclass(frozen=True)
class ScopeSql:
    """A scope filter with `{alias}` placeholders and the values it binds, in `?N` order."""

    filter: str
    params: tuple[object, ...]
    axes: tuple[tuple[str, str], ...]  # (axis name, condition) for "why not this one?"

    def for_alias(self, alias: str) -> str:
        return self.filter.replace("{alias}", alias)


class _Numbering:
    def __init__(self, start: int) -> None:
        self.next = start
        self.params: list[object] = []

    def bind(self, value: object) -> str:
        marker = f"?{self.next}"
        self.next += 1
        self.params.append(value)
        return marker

    def bind_all(self, values: tuple[object, ...] | list[object]) -> str:
        return ", ".join(self.bind(v) for v in values)


def facet_groups(facets: tuple[tuple[str, str], ...]) -> list[tuple[str, list[str]]]:
    """Group `(name, value)` pairs by name, first-seen order, values de-duplicated.

    Values under one name broaden (any-of); distinct names narrow (all-of).
    """
    groups: dict[str, list[str]] = {}
    for name, value in facets:
        name, value = name.strip(), value.strip()
        if not name:
            continue
        values = groups.setdefault(name, [])
        if value not in values:
            values.append(value)
    return list(groups.items())


def assemble_scope(
    scope: Scope,
    *,
    start: int = FIRST_SCOPE_PARAM,
    archived: str = "default",
) -> ScopeSql:
    """Build the scope filter.

    Args:
        scope: the caller's scope.
        start: the first placeholder number to use.
        archived: "default" (live only unless the scope includes archived files), or "flipped"
            (archived only: the same axes re-run to find what an emptied scope used to match).
    """
    numbering = _Numbering(start)
    axes: list[tuple[str, str]] = []

    as_of = (scope.as_of or "").strip()
    if archived == "flipped":
        axes.append(("archived", "{alias}.archived = 1"))
    elif as_of:
        # Instants, not memhtml's text (migration 0007): the same moment written with two offsets
        # lists the same memories. Scope refused unreadable text at the door.
        instant = as_of_instant(as_of)
        first = numbering.bind(instant)
        second = numbering.bind(instant)
        axes.append(("as_of", f"{{alias}}.valid_from_utc <= {first}"))
        axes.append(("as_of", f"({{alias}}.valid_until_utc IS NULL OR {{alias}}.valid_until_utc > {second})"))
    elif not scope.include_archived:
        axes.append(("archived", "{alias}.archived = 0"))

    types = scope.valid_types
    if types:
        axes.append(("types", f"{{alias}}.memory_type IN ({numbering.bind_all(list(dict.fromkeys(types)))})"))
    else:
        axes.append(("tasks", "{alias}.memory_type <> 'task'"))

    workspace = (scope.workspace or "").strip()
    if workspace:
        axes.append(("workspace", f"{{alias}}.workspace = {numbering.bind(workspace)}"))

    para = (scope.para or "").strip()
    if para:
        axes.append(("para", f"{{alias}}.para = {numbering.bind(para)}"))

    tags = list(dict.fromkeys(t.strip() for t in scope.live_tags))
    if tags:
        axes.append(
            (
                "tags",
                f"{{alias}}.path IN (SELECT ft.path FROM file_tags ft WHERE ft.tag IN ({numbering.bind_all(tags)}))",
            )
        )

    entity = (scope.entity or "").strip()
    if entity:
        marker = numbering.bind(entity)
        axes.append(
            (
                "entity",
                "{alias}.path IN (SELECT e.path FROM file_entities e WHERE "
                f"memhtml_fold(e.entity_type || ':' || e.entity_name) = memhtml_fold({marker}))",
            )
        )

    for name, values in facet_groups(scope.live_facets):
        name_marker = numbering.bind(name)
        value_markers = numbering.bind_all(values)
        axes.append(
            (
                f"facet:{name}",
                "{alias}.path IN (SELECT ff.path FROM file_facets ff WHERE "
                f"ff.name = {name_marker} AND ff.value IN ({value_markers}))",
            )
        )

    text = "".join(_AND + condition for _, condition in axes)
    return ScopeSql(filter=text, params=tuple(numbering.params), axes=tuple(axes))
