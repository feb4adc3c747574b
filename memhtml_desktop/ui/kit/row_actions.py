"""What a right-click on a memory offers: a small registry of row actions any pane can add to.

A memory listed anywhere (a result row, a pool bar) gets one context menu built from this
registry, so the panes never know each other's actions: the results pane adds "Open" and "Why
not?", the reader adds "Helpful" / "Not helpful", "Open in editor", "Reveal in file manager",
"Copy path", and a later pane (curation: Correct, Archive, Link; the relevance workbench:
"expect this memory for this query") adds its own with one `add` call on `ctx.row_actions`:

    ctx.row_actions.add(RowAction("correct", "Correct\u2026", run=lambda row: ..., group="curate"))

Actions are grouped (a separator between groups, in the order groups first appear) and ordered
by `order` within a group. `enabled(row)` greys one out for a row it cannot act on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

GROUPS = ("open", "judge", "file", "curate")
"""The usual groups, in menu order; an unknown group goes after them."""


@dataclass(frozen=True)
class Row:
    """The memory a menu is for: its path, and the hit when it came from a result list."""

    path: str
    title: str = ""
    hit: Any = None


def _always(row: Row) -> bool:
    return True


@dataclass(frozen=True)
class RowAction:
    key: str
    text: str
    run: Callable[[Row], Any]
    group: str = "open"
    order: int = 100
    enabled: Callable[[Row], bool] = field(default=_always, compare=False)
    shortcut: str = ""  # shown beside the text (the key itself is bound where the row lives)
    tip: str = ""


class RowActions:
    """The registry: `add`, `remove`, and the actions for a row in menu order."""

    def __init__(self) -> None:
        self._actions: dict[str, RowAction] = {}

    def add(self, action: RowAction) -> None:
        """Add (or replace, by key) an action."""
        self._actions[action.key] = action

    def remove(self, key: str) -> None:
        self._actions.pop(key, None)

    def get(self, key: str) -> RowAction | None:
        return self._actions.get(key)

    def keys(self) -> list[str]:
        return [a.key for a in self.ordered()]

    def ordered(self) -> list[RowAction]:
        def rank(action: RowAction) -> tuple[int, int, str]:
            group = GROUPS.index(action.group) if action.group in GROUPS else len(GROUPS)
            return group, action.order, action.key

        return sorted(self._actions.values(), key=rank)

    def trigger(self, key: str, row: Row) -> bool:
        """Run one action for `row` (False when unknown or not enabled for it)."""
        action = self._actions.get(key)
        if action is None or not action.enabled(row):
            return False
        action.run(row)
        return True


def build_menu(actions: RowActions, row: Row, parent: Any) -> Any:
    """A QMenu for `row` (Qt imported here so the registry itself stays Qt-free)."""
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QMenu

    menu = QMenu(parent)
    menu.setObjectName("rowMenu")
    menu.setAccessibleName(f"Actions for {row.title or row.path}")
    group = None
    for action in actions.ordered():
        if group is not None and action.group != group:
            menu.addSeparator()
        group = action.group
        made = QAction(action.text + (f"\t{action.shortcut}" if action.shortcut else ""), menu)
        made.setObjectName(f"row_{action.key}")
        made.setEnabled(bool(action.enabled(row)))
        if action.tip:
            made.setStatusTip(action.tip)
            made.setToolTip(action.tip)
        made.triggered.connect(lambda _=False, a=action: a.run(row))
        menu.addAction(made)
    return menu
