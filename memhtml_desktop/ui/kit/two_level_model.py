"""A tree of top rows, each with child rows one level down: the shape of the recall and problem lists.

The parent of a child is encoded in its internal id (`parent row + 1`; 0 marks a top row), so no
Python object has to stay alive per index. Subclasses say how many children a top row has.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex

Index = QModelIndex | QPersistentModelIndex


class TwoLevelModel(QAbstractItemModel):
    """index() and parent() for a two-level tree; subclasses implement rowCount and columnCount."""

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0)
        return self.createIndex(row, column, parent.row() + 1)

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, 0)
