"""The left pane: every filter value with two counts, on the page and in scope (the model is in
filters_model.py, which says what each counts), the entity field and "include archived".

Ticking a value asks the session (`SearchSession.toggle_filter`); the scope edits themselves are
pure functions in `ui/session/scope_edits.py`, shared with the chips and the reader's links.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHeaderView,
    QLabel,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.ui.filters.entity_field import EntityField
from memhtml_desktop.ui.filters.filters_model import NOTE, NOTE_HELP, NOTE_NARROW, PAGE, SCOPE, FiltersModel
from memhtml_desktop.ui.session.scope_edits import is_on


class _FiltersTree(QTreeView):
    """A tree whose value rows toggle on a click anywhere in the row, once."""

    row_clicked = Signal(object)

    def mouseReleaseEvent(self, event) -> None:
        index = self.indexAt(event.position().toPoint())
        if (
            event.button() == Qt.MouseButton.LeftButton
            and index.isValid()
            and index.siblingAtColumn(0).data(FiltersModel.KeyRole)
        ):
            event.accept()
            self.row_clicked.emit(index)
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        """Space (or Enter) on a value row ticks or unticks it, as a click does."""
        index = self.currentIndex()
        if (
            event.key() in (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and index.isValid()
            and index.siblingAtColumn(0).data(FiltersModel.KeyRole)
        ):
            event.accept()
            self.row_clicked.emit(index)
            return
        super().keyPressEvent(event)


class FiltersPanel(QWidget):
    """The filters pane. The window owns the scope; the panel shows it and asks for changes."""

    filter_toggled = Signal(str, str, bool)  # axis, value, on
    include_archived_toggled = Signal(bool)
    entity_left = Signal()  # Esc on the empty entity field: the focus goes back to the query

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("filtersPanel")
        self.model = FiltersModel(self)
        self.model.toggled.connect(self.filter_toggled)
        title = QLabel("Filters", self)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        self.note = QLabel(NOTE, self)
        self.note.setObjectName("filtersNote")
        self.note.setToolTip(NOTE_HELP)
        self.note.setAccessibleDescription(NOTE_HELP)
        self.note.setWordWrap(True)
        self.note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        small = self.note.font()
        small.setPointSizeF(small.pointSizeF() * 0.9)
        self.note.setFont(small)
        self.entity_edit = EntityField(self)
        self.entity_edit.chosen.connect(lambda name: self.filter_toggled.emit("entity", name, True))
        self.entity_edit.left.connect(self.entity_left)
        self.completer, self.entity_names = self.entity_edit.completer_, self.entity_edit.names
        self.tree = _FiltersTree(self)
        self.tree.setObjectName("filtersTree")
        self.tree.setModel(self.model)
        self.tree.setAccessibleName("Filter values")
        self.tree.setAccessibleDescription(
            "Space ticks or unticks the value; the numbers are hits on the page and memories in scope."
        )
        self.tree.setUniformRowHeights(True)
        self.tree.setIndentation(12)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setAllColumnsShowFocus(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # Fixed number columns, wide enough for "99,999": a column sized to its contents is measured
        # again over every row on each count that changes, which made a 500-row update quadratic.
        digits = self.fontMetrics().horizontalAdvance("99,999") + 10
        for column, heading in ((PAGE, "list"), (SCOPE, "scope")):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
            header.resizeSection(column, max(digits, self.fontMetrics().horizontalAdvance(heading) + 14))
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.tree.row_clicked.connect(self._row_clicked)
        self._archived_count = 0
        self.archived = QCheckBox("Include archived", self)
        self.archived.setObjectName("includeArchived")
        self.archived.toggled.connect(self._archived_toggled)
        self._open_choice: dict[str, bool] = {}  # what the person expanded or collapsed
        self._restoring = False
        self.tree.collapsed.connect(lambda i: self._expansion_chosen(i, False))
        self.tree.expanded.connect(lambda i: self._expansion_chosen(i, True))
        self.model.modelReset.connect(self._restore_expansion)
        self.model.sections_replaced.connect(self._restore_expansion)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 4, 6)
        layout.addWidget(title)
        layout.addWidget(self.note)
        layout.addWidget(self.entity_edit)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.archived)
        self._scope = Scope()
        self._syncing = False

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        # Narrow, the list column gives way to the value's name (its tooltip keeps both numbers),
        # and the note explains the one number left instead of the column that went.
        narrow = self.width() < 230
        self.tree.setColumnHidden(PAGE, narrow)
        self.note.setText(NOTE_NARROW if narrow else NOTE)
        self._fit_archived()

    def _fit_archived(self) -> None:
        """ "Include archived (3 matches)", or "Include archived (3)" where that is cut (at 1024 px)."""
        n = self._archived_count
        full = f"Include archived ({counted(n, 'match')})" if n else "Include archived"
        self.archived.setToolTip(full)
        self.archived.setText(full)
        margins = self.layout().contentsMargins()
        if n and self.archived.sizeHint().width() > self.width() - margins.left() - margins.right():
            self.archived.setText(f"Include archived ({n})")

    def set_universe(self, counts: Any) -> None:
        self.model.set_universe(counts)
        self.entity_edit.set_names(sorted(counts.entities, key=str.casefold) if counts else [])
        self._restore_expansion()

    def set_listed(self, counts: Any) -> None:
        self.model.set_listed(counts)

    def set_counts(self, counts: Any) -> None:
        self.model.set_counts(counts)
        self._archived_count = getattr(counts, "archived", 0)
        self._fit_archived()
        self._restore_expansion()

    def set_scope(self, scope: Scope) -> None:
        self._scope = scope
        self.model.set_scope(scope)
        self._syncing = True
        self.archived.setChecked(scope.include_archived)
        self._syncing = False
        self._restore_expansion()

    def _expansion_chosen(self, index, open_: bool) -> None:
        key = index.data(FiltersModel.SectionRole)
        if key and not self._restoring:
            self._open_choice[key] = open_

    def _is_open(self, key: str) -> bool:
        return self._open_choice.get(key, self.model.default_open.get(key, True))

    def _restore_expansion(self) -> None:
        self._restoring = True
        try:
            for row in range(self.model.rowCount()):
                index = self.model.index(row, 0)
                self.tree.setExpanded(index, self._is_open(index.data(FiltersModel.SectionRole)))
                for sub in range(self.model.rowCount(index)):
                    child = self.model.index(sub, 0, index)
                    child_key = child.data(FiltersModel.SectionRole)
                    if child_key:
                        self.tree.setExpanded(child, self._is_open(child_key))
        finally:
            self._restoring = False

    def _row_clicked(self, index) -> None:
        """A click anywhere on a value row (box or label) toggles it."""
        key = index.siblingAtColumn(0).data(FiltersModel.KeyRole)
        if key:
            axis, value = key
            if not self.model.tickable(axis, value):
                return  # no memory in scope carries it: ticking could only empty the list
            self.filter_toggled.emit(axis, value, not is_on(self._scope, axis, value))

    def _archived_toggled(self, on: bool) -> None:
        if not self._syncing:
            self.include_archived_toggled.emit(on)
