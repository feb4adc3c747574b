"""The filters pane's model: sections of checkable filter values with two counts each.

Values come from the store's `FilterCounts` (empty query, empty scope: every value that exists,
which fixes the order of the rows so they do not jump while typing). Two numbers stand beside
each value, and they describe the two sets a person compares:

- "in scope": the memories the current scope admits that carry the value, counted with the
  value's own axis relaxed (values under one name broaden). The list is drawn from these: recency
  and salience rank every one of them, so ticking a value with N gives hits exactly when N > 0.
  A value at 0 is greyed and cannot be ticked: it could only empty the list.
- "on page": how many of the hits listed now carry it.

The query's words do not change "in scope" (they change the ranking, not what may be ranked); how
many memories hold the words is said above the list ("10 of 1,284 matching").
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QFont, QStandardItem, QStandardItemModel

from memhtml_desktop.domain.types import Scope
from memhtml_desktop.ui.filters.flat_counts import flatten
from memhtml_desktop.ui.filters.listed_values import MAX_ROWS, ListedValues, facet_groups
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.kit.turns import turn_timer
from memhtml_desktop.ui.session.scope_edits import active_filters, is_on, split_facet

AXES = ("type", "workspace", "facet", "tag", "entity")
SECTION_TITLES = {"type": "Types", "workspace": "Workspaces", "tag": "Tags", "entity": "Entities", "facet": "Facets"}
STEP_ROWS = 60
"""Rows whose numbers a turn rewrites (`_refresh`)."""
NOTE = "Numbers: hits in the list \u00b7 memories in scope (what ticking narrows to)."
NOTE_NARROW = "Number: memories in scope (what ticking narrows to). Widen this pane for hits in the list."
NOTE_HELP = (
    "Values under one name broaden (any of them); different names narrow (all must hold).\n"
    "First number: hits in the list now that carry the value.\n"
    "Second: memories in scope that carry it, the set the list is drawn from (recency and "
    "salience rank every one of them), counted with the value's own axis relaxed. Ticking a "
    "value narrows the list to those; a value at 0 cannot be ticked, it could only empty the list."
)
PAGE, SCOPE = 1, 2
FACET_NAMES_A_TURN = 8
"""A rebuild makes the facet section (up to MAX_FACET_NAMES names of up to 12 values) this many
names per event-loop turn: the whole section was 28-35 ms of the GUI thread at 20,000 memories."""
FIRST_BUILD_AT_ONCE = 60
"""A first build of at most this many value rows is made in one go (the panel is whole at its first
paint); a larger one goes section by section like a rebuild: 288 rows at 20,000 memories were 12 ms
of the GUI thread idle and 22 ms of one 50 ms event-loop turn on two loaded cores, in a cold index,
where the first values arrive mid-pass."""
# Flags and alignment made once: an enum OR costs more than the Qt call it feeds (~900 items a rebuild).
PLAIN = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren
VALUE = PLAIN | Qt.ItemFlag.ItemIsUserCheckable
UNTICKABLE = Qt.ItemFlag.ItemNeverHasChildren | Qt.ItemFlag.ItemIsUserCheckable
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


# -- the model ------------------------------------------------------------------------------------


class FiltersModel(QStandardItemModel):
    """Sections (Types, Workspaces, Tags, Entities, Facets → names) over checkable value rows."""

    KeyRole = Qt.ItemDataRole.UserRole + 1  # (axis, value) on a value row
    SectionRole = Qt.ItemDataRole.UserRole + 3  # section key ("type", "facet:doc-type") on a header row

    toggled = Signal(str, str, bool)
    sections_replaced = Signal()  # a rebuild put a new section in (the panel restores expansion)

    def __init__(self, parent=None) -> None:
        super().__init__(0, 3, parent)
        self.setHorizontalHeaderLabels(["Value", "list", "scope"])
        self.setHeaderData(
            PAGE, Qt.Orientation.Horizontal, "Hits in the list now that carry the value", Qt.ItemDataRole.ToolTipRole
        )
        self.setHeaderData(
            SCOPE,
            Qt.Orientation.Horizontal,
            "Memories in scope that carry it: what the list is drawn from",
            Qt.ItemDataRole.ToolTipRole,
        )
        self._universe: Any = None
        self._counts: Any = None
        self._listed: Any = None
        self._flat_counts: dict[tuple[str, str], int] = {}  # (axis, value) -> n: one lookup per row
        self._flat_listed: dict[tuple[str, str], int] = {}
        self._scope = Scope()
        self._listed_values = ListedValues()
        self._rows: dict[tuple[str, str], tuple[QStandardItem, QStandardItem, QStandardItem]] = {}
        self._groups: dict[str, tuple[QStandardItem, QStandardItem, QStandardItem, list[str]]] = {}
        self._shown: dict[Any, tuple[int, int, bool]] = {}  # (on page, in scope, can tick) each row shows now
        self._checked: dict[tuple[str, str], bool] = {}
        self._queue: list[tuple[Any, QStandardItem, QStandardItem, int]] = []
        self._recount = False  # rows' numbers to compare in the next turn (`_refresh`)
        self._pace = turn_timer(self, self._step)
        self._sections_due: list[str] = []  # sections a rebuild has still to replace, one a turn
        self._draft: tuple | None = None  # the facet section being built: (section, rows, groups, names left)
        self._build = turn_timer(self, self._build_step)
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
        """The in-scope counts (`Store.counts("", scope)`)."""
        self._counts = counts
        self._flat_counts = flatten(counts)
        if self._universe is None and any(key not in self._rows for key in self._wanted_keys()):
            self._rebuild()
        else:
            self._refresh()

    def set_listed(self, counts: Any) -> None:
        """The counts over the hits listed (`Store.counts_of(paths)`)."""
        self._listed = counts
        self._flat_listed = flatten(counts)
        self._refresh()

    def set_scope(self, scope: Scope) -> None:
        self._scope = scope
        if any((axis, value) not in self._rows for axis, value, _ in active_filters(scope) if axis in AXES):
            self._rebuild()
        else:
            self._refresh()

    def count(self, axis: str, value: str) -> int:
        """In scope: memories the scope admits with this value (its own axis relaxed)."""
        return self._flat_counts.get((axis, value), 0)

    def listed(self, axis: str, value: str) -> int:
        """On the page: hits listed now with this value."""
        return self._flat_listed.get((axis, value), 0)

    def tickable(self, axis: str, value: str) -> bool:
        """A value can be ticked when it is ticked already, counts are not known yet, or it has some."""
        return self._counts is None or is_on(self._scope, axis, value) or self.count(axis, value) > 0

    def item_for(self, axis: str, value: str) -> QStandardItem | None:
        row = self._rows.get((axis, value))
        return row[0] if row else None

    # -- building ------------------------------------------------------------------------------

    def _values(self, axis: str) -> list[str]:
        """Values to list for `axis` (see listed_values): from the store's counts, else the scope's."""
        source_counts = self._universe if self._universe is not None else self._counts
        return self._listed_values(axis, source_counts, self._scope)

    def _wanted_keys(self) -> list[tuple[str, str]]:
        return [(axis, v) for axis in AXES for v in self._values(axis)]

    def _plain(self, text: str = "", *, key: tuple[str, str] | str = "", section: str = "") -> QStandardItem:
        """An item with BOTH roles set, so reading either never yields an invalid QVariant
        (PySide6 6.12 drops a reference to None on each such read; see ui.pyside_fixes.guard_singleton_refcounts)."""
        item = QStandardItem(text)
        item.setFlags(PLAIN)
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

    def _value_row(self, axis: str, value: str, label: str, rows: dict | None = None) -> list[QStandardItem]:
        item = self._plain(label, key=(axis, value))
        item.setFlags(VALUE)
        item.setCheckable(True)
        if axis == "type" and value == "task":
            item.setToolTip("Tasks are left out unless this is ticked.")
        elif axis == "facet":
            name, val = split_facet(value)
            item.setToolTip(f"{name} = {val}")
        listed = self._plain(key=(axis, value))
        listed.setToolTip("Hits on the page now that carry this value")
        listed.setTextAlignment(RIGHT)
        count = self._plain(key=(axis, value))
        count.setToolTip("Memories in scope that carry this value: ticking it narrows the list to them")
        count.setTextAlignment(RIGHT)
        (self._rows if rows is None else rows)[(axis, value)] = (item, listed, count)
        return [item, listed, count]

    def _rebuild(self) -> None:
        """Rows for the values wanted now. A small first build is made at once; a rebuild (and a
        first build past FIRST_BUILD_AT_ONCE rows) replaces or puts in the sections over several
        event-loop turns (`_build_step`), each old section shown until its new one is in: all five
        in one go were 30-48 ms of the GUI thread at 20,000 memories, 122 ms on two loaded cores,
        the longest stall of a cold index, whose counts change the listed values batch after batch."""
        self._draft = None
        if self.rowCount() == 0 and len(self._wanted_keys()) <= FIRST_BUILD_AT_ONCE:
            for axis in AXES:
                self._swap_section(*self._build_section(axis))
            self._refresh()
            return
        self._sections_due = list(AXES)
        self._build.start()

    def _build_step(self) -> None:
        """One turn of a rebuild: a section, or FACET_NAMES_A_TURN of the facet section's names
        (built detached, then put in place of the old section in a turn of its own)."""
        if not self._sections_due:
            return
        axis = self._sections_due[0]
        if axis != "facet":
            self._sections_due.pop(0)
            self._swap_section(*self._build_section(axis))
        elif self._draft is None or self._draft[3]:
            section, rows, made, left = self._draft or (None, {}, {}, facet_groups(self._values(axis)))
            section = self._build_section(axis, left[:FACET_NAMES_A_TURN], section, rows, made)[0]
            self._draft = (section, rows, made, left[FACET_NAMES_A_TURN:])
        else:
            self._sections_due.pop(0)
            self._swap_section(*self._draft[:3])
            self._draft = None
        if not self._draft:
            self._refresh()
            self.sections_replaced.emit()
        if self._sections_due:
            self._build.start()

    def building(self) -> bool:  # sections still being replaced (`settled` includes it)
        return bool(self._sections_due)

    def _build_section(
        self,
        axis: str,
        groups: list | None = None,
        section: QStandardItem | None = None,
        rows: dict | None = None,
        made: dict | None = None,
    ):
        """`axis`'s section (the facets: `groups` of names, all by default, added under `section`),
        detached from the model: no signal per item. Returns (section, its value rows, its facet groups)."""
        rows = {} if rows is None else rows
        made = {} if made is None else made
        section = section if section is not None else self._section(SECTION_TITLES[axis], axis)
        if axis == "facet":
            for name, members in facet_groups(self._values(axis)) if groups is None else groups:
                head = self._section(name, f"facet:{name}")
                head.setFont(QFont())
                mid = self._plain(key="", section=f"facet:{name}")
                tail = self._plain(key="", section=f"facet:{name}")
                for cell in (mid, tail):
                    cell.setTextAlignment(RIGHT)
                for value in members[: MAX_ROWS["facet"]]:
                    # under its name's row the value alone says it (the tooltip has both)
                    head.appendRow(self._value_row(axis, value, split_facet(value)[1], rows))
                section.appendRow([head, mid, tail])
                made[f"facet:{name}"] = (head, mid, tail, members)
                self.default_open[f"facet:{name}"] = len(members) > 1
        else:
            for value in self._values(axis):
                section.appendRow(self._value_row(axis, value, value, rows))
        return section, rows, made

    def _swap_section(self, section: QStandardItem, rows: dict, made: dict) -> None:
        """Put a built section in place of the old one, at its fixed row (sections stand in AXES
        order), and its rows in place of the old section's."""
        axis = section.data(self.SectionRole)
        gone = {key for key in self._rows if key[0] == axis} | (set(self._groups) if axis == "facet" else set())
        self._queue = [q for q in self._queue if q[0] not in gone]  # their items are about to be deleted
        for key in gone:
            self._rows.pop(key, None)
            self._groups.pop(key, None)
            self._shown.pop(key, None)
            self._checked.pop(key, None)
        self._rows.update(rows)
        self._groups.update(made)
        order = {a: i for i, a in enumerate(AXES)}
        self._rows = dict(sorted(self._rows.items(), key=lambda kv: order[kv[0][0]]))  # stable: AXES order
        position = AXES.index(axis)
        self._updating = True
        try:
            if position < self.rowCount():
                self.removeRow(position)
            self.insertRow(position, [section, self._plain(), self._plain()])  # children first: one insert
        finally:
            self._updating = False

    def _refresh(self) -> None:
        """Check marks now; counts and greying for the rows whose number changed, a slice per turn.

        Every Qt call from Python may give up the GIL, and while indexing threads run each one can
        wait to get it back: rewriting 500 rows in one go stalled the event loop for over 100 ms
        on a busy two-core machine. So only changed rows are touched, STEP_ROWS per turn, a newer
        update replacing what is queued; which rows changed is worked out in the first such turn,
        once for all the updates of the turn before (values and counts arrive together).
        """
        self._updating = True
        try:
            for key, (item, _, _) in self._rows.items():
                checked = is_on(self._scope, *key)
                if self._checked.get(key) != checked:
                    self._checked[key] = checked
                    item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        finally:
            self._updating = False
        self._recount = True
        self._pace.start()

    def _changed_rows(self) -> list:
        queue = []
        for key, (head, mid, tail, members) in self._groups.items():
            shown = (sum(self.listed("facet", v) for v in members), sum(self.count("facet", v) for v in members), True)
            if self._shown.get(key) != shown:
                queue.append((key, head, mid, tail, shown))
        for key, (item, listed_item, count_item) in self._rows.items():
            shown = (self.listed(*key), self.count(*key), self.tickable(*key))
            if self._shown.get(key) != shown:
                queue.append((key, item, listed_item, count_item, shown))
        return queue

    def settled(self) -> bool:
        """Whether every row shows its current count (tests wait on this)."""
        return not self._queue and not self._sections_due and not self._recount

    def _step(self) -> None:
        if self._recount:
            self._recount, self._queue = False, self._changed_rows()
        batch, self._queue = self._queue[:STEP_ROWS], self._queue[STEP_ROWS:]
        muted = QBrush(palette.muted_color())
        self._updating = True
        try:
            for key, item, listed_item, count_item, shown in batch:
                before = self._shown.get(key)
                self._shown[key] = shown
                listed, n, tickable = shown
                for cell, text in ((listed_item, str(listed) if listed else ""), (count_item, str(n))):
                    if cell.text() != text:  # each set is a dataChanged the view reacts to
                        cell.setText(text)
                if before is None or (before[1] == 0) != (n == 0):
                    for target in (item, listed_item, count_item):
                        # a zero greyed; otherwise NO foreground, so the palette's text colour applies
                        target.setData(muted if n == 0 else None, Qt.ItemDataRole.ForegroundRole)
                if isinstance(key, tuple) and (before is None or before[2] != tickable):
                    item.setFlags(VALUE if tickable else UNTICKABLE)
                    base = (
                        "Tasks are left out unless this is ticked."
                        if key == ("type", "task")
                        else " = ".join(split_facet(key[1]))
                        if key[0] == "facet"
                        else ""
                    )
                    item.setToolTip(
                        base
                        if tickable
                        else "No memory in scope carries this value: ticking it could only empty the list."
                    )
        finally:
            self._updating = False
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
