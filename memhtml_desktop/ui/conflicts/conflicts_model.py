"""The conflicting pairs as a table: memory A, memory B, what differs, which is newer, how alike.

A model over the write core's `ConflictPair`s (write/conflicts.py), in the reconcile queue's order:
the open pairs first, the newest change first (the newer side's time), then the known ones (linked
`contradicts`: both kept, the disagreement recorded). Pairs a person settled (linked by another
relation) or dismissed (not a conflict) are hidden unless asked for. Titles come from memory
files, so every cell is plain text; tooltips are escaped.
"""

from __future__ import annotations

from typing import Any

from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.palette import muted_color
from memhtml_desktop.ui.kit.rows_model import ROW_ROLE, Col, RowsModel


def merge_pairs(pairs: list, fresh: list, paths: set[str]) -> list:
    """`pairs` with every pair touching `paths` replaced by `fresh` (a partial rescan's answer)."""
    kept = [p for p in pairs if not ({p.a.path, p.b.path} & paths)]
    seen = {(p.a.path, p.b.path) for p in kept}
    kept += [p for p in fresh if (p.a.path, p.b.path) not in seen]
    return sorted(kept, key=lambda p: (p.a.path, p.b.path))


def queue_order(pairs: list) -> list:
    """The queue's order: open pairs, then known, settled and dismissed ones; in each, the newest
    change first (ties by path, so the order is stable)."""
    by_path = sorted(pairs, key=lambda p: (p.a.path, p.b.path))
    newest = sorted(by_path, key=lambda p: p.when, reverse=True)
    return sorted(newest, key=lambda p: (p.dismissed, p.settled, p.known))


def _state(pair) -> str:
    return (
        " \u00b7 dismissed"
        if pair.dismissed
        else " \u00b7 settled"
        if pair.settled
        else (" \u00b7 known" if pair.known else "")
    )


def _newer(pair) -> str:
    if pair.newer is None:
        return "neither"
    return ("A" if pair.newer == pair.a.path else "B") + f" \u00b7 {pair.when[:10]}"


class ConflictsModel(RowsModel):
    """The shown pairs as rows (ui/kit/rows_model.py); the settled ones muted, hidden unless asked."""

    PairRole = ROW_ROLE

    def __init__(self, parent: Any = None) -> None:
        self._all: list = []
        self._cells: dict[int, tuple[str, ...]] = {}
        self.show_settled = False
        self.show_dismissed = False
        cell = self._cell
        muted = lambda p: muted_color() if p.settled or p.dismissed or p.known else None  # noqa: E731
        super().__init__(
            (
                Col(
                    "Memory A",
                    lambda p: cell(p, 0),
                    tip=lambda p: tooltip_text(f"{p.a.path}\n{p.a.claim}"),
                    color=muted,
                ),
                Col(
                    "Memory B",
                    lambda p: cell(p, 1),
                    tip=lambda p: tooltip_text(f"{p.b.path}\n{p.b.claim}"),
                    color=muted,
                ),
                Col(
                    "Differs in",
                    lambda p: cell(p, 2),
                    color=muted,
                    tip=lambda p: tooltip_text("linked: " + ", ".join(p.links)) if p.links else "",
                ),
                Col(
                    "Newer",
                    lambda p: cell(p, 4),
                    color=muted,
                    tip=lambda p: tooltip_text(
                        f"newer: {p.newer} ({p.when})"
                        if p.newer
                        else "neither is newer: the same event and written time"
                    ),
                ),
                Col(
                    "Alike",
                    lambda p: cell(p, 3),
                    color=muted,
                    numeric=True,
                    tip=lambda p: tooltip_text("cosine similarity of the two memories' vectors (a near-twin from 0.9)"),
                ),
            ),
            parent,
        )

    def set_pairs(self, pairs: list) -> None:
        self._all = queue_order(pairs)
        shown = [p for p in self._all if (self.show_settled or not p.settled)
                 and (self.show_dismissed or not p.dismissed)]  # fmt: skip
        # the cells as shown, made once: a view asks for them thousands of times (size hints, paints)
        self._cells = {id(p): (p.a.title or p.a.path, p.b.title or p.b.path,
                               ", ".join(p.diff.kinds) + _state(p),
                               "\u2014" if p.cosine is None else f"{p.cosine:.3f}", _newer(p))
                       for p in shown}  # fmt: skip
        self.set_rows(shown)

    def _cell(self, pair: Any, col: int) -> str:
        return self._cells[id(pair)][col]

    def set_show_settled(self, on: bool) -> None:
        self.show_settled = bool(on)
        self.set_pairs(self._all)

    def set_show_dismissed(self, on: bool) -> None:
        self.show_dismissed = bool(on)
        self.set_pairs(self._all)

    def pairs(self) -> list:
        return list(self._all)

    def pair(self, row: int) -> Any:
        return self.row(row)

    def row_of(self, a: str, b: str) -> int:
        for i, pair in enumerate(self.rows):
            if {pair.a.path, pair.b.path} == {a, b}:
                return i
        return -1

    def settled_count(self) -> int:
        return sum(1 for p in self._all if p.settled and not p.dismissed)

    def dismissed_count(self) -> int:
        return sum(1 for p in self._all if p.dismissed)
