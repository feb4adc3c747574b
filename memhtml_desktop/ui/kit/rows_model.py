"""One small table model for every plain table of the window: rows are plain values, columns are
functions of a row (`Col`). A model reset over 500 references costs the GUI thread next to nothing:
a cell is computed when it is painted, through one dict dispatch on the role.

The workbench's lists, the recall page's catalogue and the conflicts table are each a `RowsModel`
over their own `Col`s; a subclass adds what its pane needs (its rows' own lookups).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

Index = QModelIndex | QPersistentModelIndex
ROW_ROLE = Qt.ItemDataRole.UserRole + 1  # the row value itself
PATH_ROLE = Qt.ItemDataRole.UserRole + 2  # the memory a row is about (double-click opens it)


@dataclass(frozen=True)
class Col:
    """A column: its header, the cell's text, and optionally its tooltip, colour and alignment."""

    header: str
    text: Callable[[Any], Any]
    tip: Callable[[Any], str] | None = None
    color: Callable[[Any], str | QColor | None] | None = None
    background: Callable[[Any], QColor | None] | None = None
    numeric: bool = False
    width: int = 0


class RowsModel(QAbstractTableModel):
    """Rows of any value, shown through `Col`s; `path` says which memory a row is about."""

    def __init__(self, columns: Sequence[Col], parent=None, *, path: Callable[[Any], str | None] | None = None) -> None:
        super().__init__(parent)
        self.columns = tuple(columns)
        self.rows: list[Any] = []
        self.path_of = path

    def set_rows(self, rows: Sequence[Any]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def row(self, index: int) -> Any:
        return self.rows[index] if 0 <= index < len(self.rows) else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section].header
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Called for every role of every visible cell at each paint (~8 a cell): plain ints rather
        # than enum members (0.3 us a lookup) and one dict dispatch keep a 500-row table's paint cheap.
        kind = _ROLES.get(role)
        if kind is None or not index.isValid():
            return None
        row, col = self.rows[index.row()], self.columns[index.column()]
        if kind == _TEXT:
            value = col.text(row)
            return "" if value is None else str(value)
        if kind == _TIP:
            return col.tip(row) or None if col.tip is not None else None
        if kind == _FOREGROUND:
            color = col.color(row) if col.color is not None else None
            return QBrush(QColor(color)) if color else None
        if kind == _BACKGROUND:
            color = col.background(row) if col.background is not None else None
            return QBrush(color) if color is not None else None
        if kind == _ALIGN:
            return _RIGHT if col.numeric else None
        if kind == _ROW:
            return row
        return self.path_of(row) if self.path_of is not None else None


_TEXT, _TIP, _FOREGROUND, _BACKGROUND, _ALIGN, _ROW, _PATH = range(7)
_ROLES = {
    int(Qt.ItemDataRole.DisplayRole): _TEXT,
    int(Qt.ItemDataRole.AccessibleTextRole): _TEXT,
    int(Qt.ItemDataRole.ToolTipRole): _TIP,
    int(Qt.ItemDataRole.ForegroundRole): _FOREGROUND,
    int(Qt.ItemDataRole.BackgroundRole): _BACKGROUND,
    int(Qt.ItemDataRole.TextAlignmentRole): _ALIGN,
    int(ROW_ROLE): _ROW,
    int(PATH_ROLE): _PATH,
}
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
