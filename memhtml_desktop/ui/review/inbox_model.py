"""The inbox's list: a group's row (a commit, or a memory), then one row per change of it.

A flat table on purpose. A tree view lays out every expanded row again after each insertion,
calling the model per row; at 3,000 changes read in 15 pages that was half a million calls into
Python and gaps of a second on the GUI thread. A table view asks only for the rows it paints, so
appending a page costs the rows appended.

Plain values in (`history.Change`), grown page by page as the history is read (`add`: with
commits as groups, a page's rows are appended, never reset, so the list is usable while the rest
arrives; with memories as groups a page may join earlier groups, so the rows are laid out again
and reset once), shrunk as changes are accepted (`remove`). Grouping and the filters (author,
kind, folder) lay the rows out again from the changes held. A memory is followed through its moves:
a change whose `old_path` is a group's path joins that group, which takes the new path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFont

from memhtml_desktop.domain.plural import counted

Index = QModelIndex | QPersistentModelIndex
CHANGE_ROLE = Qt.ItemDataRole.UserRole + 1  # the Change of a change row (None on a group row)
GROUP_ROLE = Qt.ItemDataRole.UserRole + 2  # the Group of a row (its own, or its change's)
COLUMNS = ("Change", "Author", "When")
_TEXT = (int(Qt.ItemDataRole.DisplayRole), int(Qt.ItemDataRole.AccessibleTextRole))


@dataclass
class Group:
    key: str
    changes: list = field(default_factory=list)

    @property
    def first(self) -> Any:
        return self.changes[0]

    @property
    def last(self) -> Any:
        return self.changes[-1]


def when(at: str) -> str:
    """`2026-12-06T03:16:09Z` as `2026-12-06 03:16`."""
    return at[:16].replace("T", " ") if len(at) >= 16 else at


class InboxModel(QAbstractTableModel):
    rows_added = Signal(int, int)  # rows first..last appended (the view chooses a first row)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.changes: list = []  # every change held, in listing order (filtered or not)
        self.groups: list[Group] = []
        self.rows: list[tuple[Group, Any]] = []  # (group, None) for a group's row, (group, change) else
        self.by = "commit"
        self.author = self.kind = self.folder = ""
        self._where: dict[str, Group] = {}  # a memory's current path (or a commit) -> its group
        self._row_of: dict[str, int] = {}  # a change's key -> its row
        self._authors: set[str] = set()  # of every change held (the filters' choices), kept as pages arrive
        self._folders: set[str] = set()
        self._bold = QFont()
        self._bold.setBold(True)

    # -- what is shown -------------------------------------------------------------------------

    def passes(self, change: Any) -> bool:
        return ((not self.author or change.author == self.author) and (not self.kind or change.kind == self.kind)
                and (not self.folder or change.folder == self.folder or change.folder.startswith(self.folder + "/")))  # fmt: skip

    def _place(self, change: Any) -> tuple[Group, bool]:
        """Put `change` in its group (made if new); (the group, whether it was made)."""
        if self.by == "commit":
            key, moved_from = change.commit, None
        elif change.old_path and change.old_path in self._where:
            key, moved_from = change.old_path, change.old_path
        else:
            key, moved_from = change.path, None
        group = self._where.get(key)
        made = group is None
        if made:
            group = Group(key)
            self.groups.append(group)
        if moved_from is not None:
            del self._where[moved_from]
        self._where[change.path if self.by == "memory" else key] = group
        group.changes.append(change)
        return group, made

    def _lay_out(self) -> None:
        self.groups, self._where = [], {}
        for change in self.changes:
            if self.passes(change):
                self._place(change)
        self.rows = [(g, c) for g in self.groups for c in (None, *g.changes)]
        self._row_of = {c.key: i for i, (_, c) in enumerate(self.rows) if c is not None}

    def set_view(self, *, by: str | None = None, author: str | None = None, kind: str | None = None,
                 folder: str | None = None) -> None:  # fmt: skip
        self.beginResetModel()
        self.by = by if by is not None else self.by
        self.author = author if author is not None else self.author
        self.kind = kind if kind is not None else self.kind
        self.folder = folder if folder is not None else self.folder
        self._lay_out()
        self.endResetModel()

    def clear(self) -> None:
        self.beginResetModel()
        self.changes, self.groups, self.rows, self._where, self._row_of = [], [], [], {}, {}
        self._authors, self._folders = set(), set()
        self.endResetModel()

    def add(self, changes: list) -> None:
        """Append a page (see the module docstring)."""
        self.changes += changes
        self._authors.update(c.author for c in changes)
        self._folders.update(f for f in (c.folder for c in changes) if f)
        if self.by == "memory":
            self.set_view()
            return
        start = len(self.rows)
        for change in changes:
            if self.passes(change):
                group, made = self._place(change)
                if made:
                    self.rows.append((group, None))
                self._row_of[change.key] = len(self.rows)
                self.rows.append((group, change))
        if len(self.rows) > start:
            self.beginInsertRows(QModelIndex(), start, len(self.rows) - 1)
            self.endInsertRows()
            self.rows_added.emit(start, len(self.rows) - 1)

    def remove(self, keys: set[str]) -> None:
        """Drop these changes (accepted): laid out again, one reset; the view restores its place."""
        if not keys:
            return
        self.beginResetModel()
        self.changes = [c for c in self.changes if c.key not in keys]
        self._authors = {c.author for c in self.changes}
        self._folders = {f for f in (c.folder for c in self.changes) if f}
        self._lay_out()
        self.endResetModel()

    # -- lookups -------------------------------------------------------------------------------

    def shown_changes(self) -> list:
        return [c for _, c in self.rows if c is not None]

    def authors(self) -> list[str]:
        return sorted(self._authors)

    def folders(self) -> list[str]:
        return sorted(self._folders)

    def change_at(self, index: Index) -> Any:
        return self.rows[index.row()][1] if index.isValid() and index.row() < len(self.rows) else None

    def group_at(self, index: Index) -> Group | None:
        return self.rows[index.row()][0] if index.isValid() and index.row() < len(self.rows) else None

    def index_of(self, key: str) -> QModelIndex:
        row = self._row_of.get(key)
        return self.index(row, 0) if row is not None else QModelIndex()

    def group_row(self, group: Group) -> QModelIndex:
        first = self._row_of.get(group.first.key) if group.changes else None
        return self.index(first - 1, 0) if first else QModelIndex()

    # -- the Qt model ----------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        group, change = self.rows[index.row()]
        if role == CHANGE_ROLE:
            return change
        if role == GROUP_ROLE:
            return group
        if change is None:
            return self._group_data(group, index.column(), role)
        if role in _TEXT:
            col = index.column()
            if col == 0:
                return f"      {change.kind} \u00b7 {change.title if self.by == 'commit' else change.subject}"
            if self.by == "commit":  # the group's row says who and when
                return ""
            return change.author_name if col == 1 else when(change.at)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{change.kind}: {change.title}\n{change.path}\n{change.author} \u00b7 {change.at}\n{change.subject}"
        return None

    def _group_data(self, group: Group, col: int, role: int) -> Any:
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if col == 0 else None
        if role not in (*_TEXT, int(Qt.ItemDataRole.ToolTipRole)):
            return None
        first, n = group.first, len(group.changes)
        if self.by == "commit":
            texts = (first.subject, first.author_name, when(first.at))
            tip = f"commit {first.commit[:12]} \u00b7 {counted(n, 'change')}\n{first.subject}\n{first.author}"
        else:
            last = group.last
            texts = (last.title, counted(n, "change"), when(last.at))
            tip = f"{last.title}\n{last.path}\n{counted(n, 'change')}"
        return texts[col] if role != Qt.ItemDataRole.ToolTipRole else tip
