"""Which rows the results list shows, and in which order: the listing the model holds, worked out here.

Two orders (see results_model's docstring): AGENT, the agent's page then the rest of the fused list
below it; FUSED, the fused list itself, deep enough to hold every page row. A column sort reorders the
rows listed. Pure functions over one search's result and pool (no Qt model, no painting).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from memhtml_desktop.domain.types import Hit, SearchResult
from memhtml_desktop.ui.results.columns import BAR_COLUMN, Column, arm_for_column

AGENT, FUSED = "agent", "fused"

Row = tuple[Hit, "int | None"]
"""A listed hit and its position on the agent's page (None: not on the page)."""


def list_rows(
    result: SearchResult | None, pool: Any, *, order: str, extra: int, sort: tuple[int, Qt.SortOrder] | None
) -> list[Row]:
    """The rows to list: the page and `extra` rows of the pool, in `order`, then by `sort` if any."""
    if result is None:
        return []
    page = [(hit, hit.position) for hit in result.hits]
    on_page = {hit.path: hit for hit in result.hits}
    entries = list(pool.entries) if pool is not None else []
    if order == FUSED and entries:
        deepest = max([h.fused_position for h in result.hits] + [len(on_page)])
        rows = []
        for entry in entries[: deepest + extra]:
            hit = on_page.get(entry.path)
            rows.append((hit, hit.position) if hit is not None else (entry, None))
    elif order == FUSED:
        rows = sorted(page, key=lambda r: r[0].fused_position)
    else:
        below = [(e, None) for e in entries if e.path not in on_page][:extra]
        rows = page + below
    if sort is not None:
        column, direction = sort
        keyed = [(sort_key(hit, page_pos, column), i) for i, (hit, page_pos) in enumerate(rows)]
        keyed.sort(key=lambda k: k[0], reverse=direction == Qt.SortOrder.DescendingOrder)
        rows = [rows[i] for _, i in keyed]
    return rows


def sort_key(hit: Hit, page: int | None, column: int) -> tuple:
    """What a click on `column`'s header sorts a row by."""
    arm = arm_for_column(column)
    if arm is not None:
        score = hit.arm(arm)
        return (score is None, score.rank if score else 0)
    return {
        Column.Position: (page is None, page or hit.fused_position),
        Column.Fused: (hit.fused_position,),
        Column.Title: ((hit.title or hit.path).casefold(),),
        Column.Type: (hit.memory_type, hit.fused_position),
        Column.Path: (hit.path,),
        Column.Date: (hit.updated_at or "", hit.path),
        Column.Score: (hit.score, -hit.fused_position),
        BAR_COLUMN: (hit.score, -hit.fused_position),
    }.get(column, (hit.fused_position,))


def below_available(result: SearchResult | None, pool: Any, listed: set[str]) -> int:
    """Rows of the fused list (already fetched) that are neither on the page nor listed yet."""
    if pool is None or result is None:
        return 0
    on_page = {h.path for h in result.hits}
    return sum(1 for e in pool.entries if e.path not in on_page and e.path not in listed)
