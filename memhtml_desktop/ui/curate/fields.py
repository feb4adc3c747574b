"""The fields of a memory in a form: title, type, claim, body, tags, entities, facets, workspace,
importance, confidence. Shared by New memory and Correct (which pre-fills them from a draft).

Values are read back as the write core takes them (`values()`), with lists split on commas and
the body split into blocks on blank lines (`write/drafts.split_bodies`, which keeps a fenced code
block whole). Validation beyond "is it empty" is the write core's: the preview shows its words.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.write.drafts import FORM_TYPES, MemoryDraft, join_bodies, split_bodies


def split_list(text: str) -> tuple[str, ...]:
    """`a, b ,c` → ("a", "b", "c"); empty items dropped, order and duplicates as typed."""
    return tuple(item.strip() for item in text.split(",") if item.strip())


def _text_box(parent: QWidget, lines: int, placeholder: str) -> QPlainTextEdit:
    box = QPlainTextEdit(parent)
    box.setPlaceholderText(placeholder)
    box.setTabChangesFocus(True)
    height = box.fontMetrics().lineSpacing() * lines + 2 * box.frameWidth() + 10
    box.setFixedHeight(height) if lines <= 3 else box.setMinimumHeight(height)
    return box


class FacetTable(QWidget):
    """Facets as rows of name, value and an optional number, with add and remove buttons."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = QTableWidget(0, 3, self)
        self.table.setObjectName("facetTable")
        self.table.setHorizontalHeaderLabels(["Name", "Value", "Number"])
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setMinimumHeight(self.table.verticalHeader().defaultSectionSize() * 3 + 30)
        self.table.itemChanged.connect(lambda *_: self.changed.emit())
        self.add_button = QPushButton("Add facet", self)
        self.add_button.clicked.connect(self.add_row)
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.clicked.connect(self.remove_current)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addLayout(buttons)

    def set_facets(self, facets) -> None:
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for facet in facets:
            self._append(*(list(facet) + [None, None])[:3])
        self.table.blockSignals(False)
        self.changed.emit()

    def _append(self, name: str, value: str, number: str | None) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        for col, text in enumerate((name, value, number or "")):
            self.table.setItem(row, col, QTableWidgetItem(str(text or "")))

    def add_row(self) -> None:
        self._append("", "", None)
        self.table.setCurrentCell(self.table.rowCount() - 1, 0)
        self.table.editItem(self.table.item(self.table.rowCount() - 1, 0))

    def remove_current(self) -> None:
        row = self.table.currentRow()
        if row >= 0:
            self.table.removeRow(row)
            self.changed.emit()

    def facets(self) -> tuple[tuple[str, str, str | None], ...]:
        """Rows with a name or a value (a half-filled row goes to the write core, which says why)."""
        out = []
        for row in range(self.table.rowCount()):
            cells = [
                (self.table.item(row, col).text().strip() if self.table.item(row, col) else "") for col in range(3)
            ]
            if cells[0] or cells[1]:
                out.append((cells[0], cells[1], cells[2] or None))
        return tuple(out)


class MemoryFields(QObject):
    """Adds a memory's rows to a QFormLayout and reads them back; `changed` on every edit."""

    changed = Signal()

    def __init__(self, form: QFormLayout, parent: QWidget, *, task_type: bool = True) -> None:
        super().__init__(parent)
        self.title = QLineEdit(parent)
        self.title.setObjectName("titleField")
        self.memory_type = QComboBox(parent)
        self.memory_type.setObjectName("typeField")
        self.memory_type.addItems([t for t in FORM_TYPES if task_type or t != "task"])
        self.memory_type.setCurrentText("semantic")
        self.claim = _text_box(parent, 3, "One sentence the agent can act on.")
        self.claim.setObjectName("claimField")
        self.body = _text_box(parent, 6, "More paragraphs, separated by blank lines (a ``` fenced block stays whole).")
        self.body.setObjectName("bodyField")
        self.tags = QLineEdit(parent)
        self.tags.setObjectName("tagsField")
        self.tags.setPlaceholderText("comma-separated: deploy, oncall")
        self.entities = QLineEdit(parent)
        self.entities.setObjectName("entitiesField")
        self.entities.setPlaceholderText("comma-separated type:name: service:checkout-api, person:sanju")
        self.facets = FacetTable(parent)
        self.workspace = QLineEdit(parent)
        self.workspace.setObjectName("workspaceField")
        self.workspace.setPlaceholderText("a project under projects/ (optional)")
        self.importance = QLineEdit(parent)
        self.importance.setObjectName("importanceField")
        self.importance.setPlaceholderText("1–10 (optional)")
        self.confidence = QLineEdit(parent)
        self.confidence.setObjectName("confidenceField")
        self.confidence.setPlaceholderText("0–1 (optional)")
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.body.setFont(mono)
        numbers = QHBoxLayout()
        numbers.addWidget(self.importance)
        numbers.addWidget(self.confidence)
        for label, widget in (("&Title", self.title), ("T&ype", self.memory_type), ("&Claim", self.claim),
                              ("&Body", self.body), ("Ta&gs", self.tags), ("&Entities", self.entities),
                              ("&Facets", self.facets), ("&Workspace", self.workspace)):  # fmt: skip
            form.addRow(label, widget)
        form.addRow("Importance, confidence", numbers)
        for line in (self.title, self.tags, self.entities, self.workspace, self.importance, self.confidence):
            line.textChanged.connect(self.changed)
        for box in (self.claim, self.body):
            box.textChanged.connect(self.changed)
        self.memory_type.currentTextChanged.connect(self.changed)
        self.facets.changed.connect(self.changed)

    def fill(self, draft: MemoryDraft) -> None:
        """Pre-fill from a draft (the memory being corrected)."""
        self.blockSignals(True)
        self.title.setText(draft.title)
        if draft.memory_type and self.memory_type.findText(draft.memory_type) < 0:
            # a type nobody writes new (an arc, from memhtml's sleep cycle): a correction keeps it
            self.memory_type.addItem(draft.memory_type)
        if draft.memory_type:
            self.memory_type.setCurrentText(draft.memory_type)
        self.claim.setPlainText(draft.claim)
        self.body.setPlainText(join_bodies(draft.bodies))
        self.tags.setText(", ".join(draft.tags))
        self.entities.setText(", ".join(draft.entities))
        self.facets.set_facets(draft.facets)
        self.workspace.setText(draft.workspace or "")
        self.importance.setText(draft.importance or "")
        self.confidence.setText(draft.confidence or "")
        self.blockSignals(False)
        self.changed.emit()

    def values(self) -> dict[str, Any]:
        """The fields as request arguments; ValueError when the title or the claim is empty."""
        title, claim = self.title.text().strip(), self.claim.toPlainText().strip()
        if not title:
            raise ValueError("A memory needs a title.")
        if not claim:
            raise ValueError("A memory needs a claim: the one sentence an agent reads first.")
        return {
            "title": title,
            "memory_type": self.memory_type.currentText(),
            "claim": claim,
            "bodies": split_bodies(self.body.toPlainText()),
            "tags": split_list(self.tags.text()),
            "entities": split_list(self.entities.text()),
            "facets": self.facets.facets(),
            "workspace": self.workspace.text().strip() or None,
            "importance": self.importance.text().strip() or None,
            "confidence": self.confidence.text().strip() or None,
        }
