"""The conflicting pairs as a table: memory A, memory B, what differs, how alike they are.

A model over the write core's `ConflictPair`s (write/conflicts.py). Pairs a person settled (linked
by a relation other than `contradicts`) are hidden unless asked for. Titles come from memory
files, so every cell is plain text; tooltips are escaped.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.palette import muted_color

_Index = QModelIndex | QPersistentModelIndex


def merge_pairs(pairs: list, fresh: list, paths: set[str]) -> list:
    """`pairs` with every pair touching `paths` replaced by `fresh` (a partial rescan's answer)."""
    kept = [p for p in pairs if not ({p.a.path, p.b.path} & paths)]
    seen = {(p.a.path, p.b.path) for p in kept}
    kept += [p for p in fresh if (p.a.path, p.b.path) not in seen]
    return sorted(kept, key=lambda p: (p.a.path, p.b.path))


class ConflictsModel(QAbstractTableModel):
    COLUMNS = ("Memory A", "Memory B", "Differs in", "Alike")
    PairRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._all: list = []
        self._rows: list = []
        self._cells: list[tuple[str, str, str, str]] = []
        self.show_settled = False

    def set_pairs(self, pairs: list) -> None:
        self.beginResetModel()
        self._all = list(pairs)
        self._rows = [p for p in self._all if self.show_settled or not p.settled]
        # the cells as shown, made once: a view asks for them thousands of times (size hints, paints)
        self._cells = [(p.a.title or p.a.path, p.b.title or p.b.path,
                        ", ".join(p.diff.kinds) + (" \u00b7 settled" if p.settled else ""), f"{p.cosine:.3f}")
                       for p in self._rows]  # fmt: skip
        self.endResetModel()

    def set_show_settled(self, on: bool) -> None:
        self.show_settled = bool(on)
        self.set_pairs(self._all)

    def pairs(self) -> list:
        return list(self._all)

    def pair(self, row: int) -> Any:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, a: str, b: str) -> int:
        for i, pair in enumerate(self._rows):
            if {pair.a.path, pair.b.path} == {a, b}:
                return i
        return -1

    def settled_count(self) -> int:
        return sum(1 for p in self._all if p.settled)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < 4:
            return self.COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        pair = self.pair(index.row()) if index.isValid() else None
        if pair is None:
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cells[index.row()][col]
        if role == Qt.ItemDataRole.ToolTipRole:
            side = pair.a if col == 0 else pair.b if col == 1 else None
            if side is not None:
                return tooltip_text(f"{side.path}\n{side.claim}")
            if col == 2 and pair.links:
                return tooltip_text("linked: " + ", ".join(pair.links))
            if col == 3:
                return tooltip_text("cosine similarity of the two memories' vectors (a near-twin from 0.9)")
        if role == Qt.ItemDataRole.TextAlignmentRole and col == 3:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and pair.settled:
            return muted_color()
        if role == self.PairRole:
            return pair
        return None
