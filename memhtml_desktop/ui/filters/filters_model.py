"""The filters pane's model: sections of checkable filter values with their counts.

Values come from two `FilterCounts`: the store's (empty query, empty scope: every value that
exists, which fixes the order of the rows so they do not jump while typing) and the current
query's (the counts shown). A value the current query does not reach shows 0, greyed, not hidden.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QFont, QStandardItem, QStandardItemModel

from memhtml_desktop.domain.paths import MEMORY_TYPES
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.session.scope_edits import active_filters, is_on, split_facet

AXES = ("type", "workspace", "facet", "tag", "entity")
SECTION_TITLES = {"type": "Types", "workspace": "Workspaces", "tag": "Tags", "entity": "Entities", "facet": "Facets"}
MAX_ROWS = {"type": 50, "workspace": 30, "tag": 40, "entity": 12, "facet": 12}
MAX_FACET_NAMES = 40
STEP_ROWS = 60
"""Caps on listed values (the most common first; a selected value is always listed). A store of
thousands of memories has hundreds of tags and facet values: listing them all would bury the
panel and cost the GUI thread a rebuild it cannot afford while typing."""
NOTE = ("Values under one name broaden (any of them); different names narrow (all must hold). "
        "Counts: memories whose words match the query (all of them, when it has none).")


def _axis_counts(counts: Any, axis: str) -> dict:
    if counts is None:
        return {}
    return {"type": counts.types, "workspace": counts.workspaces, "tag": counts.tags,
            "entity": counts.entities, "facet": counts.facets}[axis]


# -- the model ------------------------------------------------------------------------------------


class FiltersModel(QStandardItemModel):
    """Sections (Types, Workspaces, Tags, Entities, Facets → names) over checkable value rows."""

    KeyRole = Qt.ItemDataRole.UserRole + 1  # (axis, value) on a value row
    SectionRole = Qt.ItemDataRole.UserRole + 3  # section key ("type", "facet:doc-type") on a header row

    toggled = Signal(str, str, bool)

    def __init__(self, parent=None) -> None:
        super().__init__(0, 2, parent)
        self._universe: Any = None
        self._counts: Any = None
        self._scope = Scope()
        self._values_memo: dict[tuple, tuple[Any, list[str]]] = {}
        self._rows: dict[tuple[str, str], tuple[QStandardItem, QStandardItem]] = {}
        self._groups: dict[str, tuple[QStandardItem, QStandardItem, list[str]]] = {}
        self._shown: dict[Any, int] = {}  # the count each row shows now
        self._checked: dict[tuple[str, str], bool] = {}
        self._queue: list[tuple[Any, QStandardItem, QStandardItem, int]] = []
        self._pace = QTimer(self)
        self._pace.setSingleShot(True)
        self._pace.setInterval(0)
        self._pace.timeout.connect(self._step)
        self.default_open: dict[str, bool] = {"entity": False}
        """Whether a section or facet name starts expanded (a one-value facet name starts closed)."""
        self._updating = False
        self.itemChanged.connect(self._changed)

    def set_universe(self, counts: Any) -> None:
        """The store's values; rows are rebuilt only when the listed values (or their order) change."""
        self._universe = counts
        if self._wanted_keys() != list(self._rows):
            self._rebuild()
        else:
            self._refresh()

    def set_counts(self, counts: Any) -> None:
        self._counts = counts
        if self._universe is None and any(key not in self._rows for key in self._wanted_keys()):
            self._rebuild()
        else:
            self._refresh()

    def set_scope(self, scope: Scope) -> None:
        self._scope = scope
        if any((axis, value) not in self._rows for axis, value, _ in active_filters(scope) if axis in AXES):
            self._rebuild()
        else:
            self._refresh()

    def count(self, axis: str, value: str) -> int:
        if axis == "facet":
            name, val = split_facet(value)
            return int(_axis_counts(self._counts, "facet").get(name, {}).get(val, 0))
        return int(_axis_counts(self._counts, axis).get(value, 0))

    def item_for(self, axis: str, value: str) -> QStandardItem | None:
        row = self._rows.get((axis, value))
        return row[0] if row else None

    # -- building ------------------------------------------------------------------------------

    def _values(self, axis: str) -> list[str]:
        """Values to list for `axis`: the store's most common (capped), plus any selected one.

        The list comes from the store's counts, not the query's, so rows do not come and go while
        typing; the query only changes the numbers (0 shows greyed). Memoised per (source, scope):
        sorting every facet value of a 100,000-file store on each keystroke cost the GUI thread
        tens of milliseconds.
        """
        source_counts = self._universe if self._universe is not None else self._counts
        key = (axis, id(source_counts), self._scope)
        cached = self._values_memo.get(key)
        if cached is not None and cached[0] is source_counts:
            return cached[1]
        values = self._compute_values(axis, source_counts)
        if len(self._values_memo) > 64:
            self._values_memo.clear()
        self._values_memo[key] = (source_counts, values)
        return values

    def _compute_values(self, axis: str, source_counts: Any) -> list[str]:
        source = _axis_counts(source_counts, axis)
        selected = [v for a, v, _ in active_filters(self._scope) if a == axis]
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

    def _wanted_keys(self) -> list[tuple[str, str]]:
        return [(axis, v) for axis in AXES for v in self._values(axis)]

    def _plain(self, text: str = "", *, key: tuple[str, str] | str = "", section: str = "") -> QStandardItem:
        """An item with BOTH roles set, so reading either never yields an invalid QVariant
        (PySide6 6.12 drops a reference to None on each such read; see ui.pyside_fixes.guard_none_refcount)."""
        item = QStandardItem(text)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren)
        item.setData(key, self.KeyRole)
        item.setData(section, self.SectionRole)
        return item

    def _section(self, title: str, key: str) -> QStandardItem:
        item = self._plain(title, section=key)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        font = QFont()
        font.setBold(True)
        item.setFont(font)
        return item

    def _value_row(self, axis: str, value: str, label: str) -> list[QStandardItem]:
        item = self._plain(label, key=(axis, value))
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemNeverHasChildren)
        item.setCheckable(True)
        if axis == "type" and value == "task":
            item.setToolTip("Tasks are left out unless this is ticked.")
        count = self._plain(key=(axis, value))
        count.setToolTip("Memories in this scope whose words match the query (every memory when the query has no words)")
        count.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self._rows[(axis, value)] = (item, count)
        return [item, count]

    def _rebuild(self) -> None:
        self._updating = True
        try:
            self.removeRows(0, self.rowCount())
            self._rows.clear()
            self._groups.clear()
            self._shown.clear()
            self._checked.clear()
            self._queue = []
            for axis in AXES:
                values = self._values(axis)
                section = self._section(SECTION_TITLES[axis], axis)
                if axis == "facet":
                    for name, members in self._facet_groups(values):
                        head = self._section(name, f"facet:{name}")
                        head.setFont(QFont())
                        tail = self._plain(key="", section=f"facet:{name}")
                        tail.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                        for value in members[: MAX_ROWS["facet"]]:
                            head.appendRow(self._value_row(axis, value, f"{name} = {split_facet(value)[1]}"))
                        section.appendRow([head, tail])
                        self._groups[f"facet:{name}"] = (head, tail, members)
                        self.default_open[f"facet:{name}"] = len(members) > 1
                else:
                    for value in values:
                        section.appendRow(self._value_row(axis, value, value))
                self.appendRow([section, self._plain()])  # children first: one insert signal per section
            self._refresh(locked=True)
        finally:
            self._updating = False

    @staticmethod
    def _facet_groups(values: list[str]) -> list[tuple[str, list[str]]]:
        """`name=value` strings grouped by name, in the order `_values` chose."""
        groups: dict[str, list[str]] = {}
        for value in values:
            groups.setdefault(split_facet(value)[0], []).append(value)
        return list(groups.items())

    def _refresh(self, locked: bool = False) -> None:
        """Check marks now; counts and greying for the rows whose number changed, a slice per turn.

        Every Qt call from Python may give up the GIL, and while indexing threads run each one can
        wait to get it back: rewriting 500 rows in one go stalled the event loop for over 100 ms
        on a busy two-core machine. So only changed rows are touched, STEP_ROWS per event-loop
        turn, and a newer update simply replaces what is still queued.
        """
        self._updating = True
        try:
            for key, (item, _) in self._rows.items():
                checked = is_on(self._scope, *key)
                if self._checked.get(key) != checked:
                    self._checked[key] = checked
                    item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        finally:
            self._updating = locked
        queue = []
        for key, (head, tail, members) in self._groups.items():
            n = sum(self.count("facet", v) for v in members)
            if self._shown.get(key) != n:
                queue.append((key, head, tail, n))
        for key, (item, count_item) in self._rows.items():
            n = self.count(*key)
            if self._shown.get(key) != n:
                queue.append((key, item, count_item, n))
        self._queue = queue
        self._step()

    def settled(self) -> bool:
        """Whether every row shows its current count (tests wait on this)."""
        return not self._queue

    def _step(self) -> None:
        batch, self._queue = self._queue[:STEP_ROWS], self._queue[STEP_ROWS:]
        muted = QBrush(palette.muted_color())
        for key, item, count_item, n in batch:
            before = self._shown.get(key)
            self._shown[key] = n
            count_item.setText(str(n))
            if before is None or (before == 0) != (n == 0):
                for target in (item, count_item):
                    # a zero greyed; otherwise NO foreground, so the palette's text colour applies
                    target.setData(muted if n == 0 else None, Qt.ItemDataRole.ForegroundRole)
        if self._queue:
            self._pace.start()

    def _changed(self, item: QStandardItem) -> None:
        if self._updating:
            return
        key = item.data(self.KeyRole)
        if not key or item.column() != 0:
            return
        axis, value = key
        on = item.checkState() == Qt.CheckState.Checked
        if on != is_on(self._scope, axis, value):
            self.toggled.emit(axis, value, on)


# -- the panel -----------------------------------------------------------------------------------
