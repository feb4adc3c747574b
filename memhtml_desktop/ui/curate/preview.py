"""What a write will do, shown before it is done: the commit, its files, and each file's diff.

Data in (`show_preview` with a `Preview` the plan job computed), nothing out: the dialog around it
decides. File contents come from memory files, which agents write, so every text here is plain
text (a `QPlainTextEdit`, plain-text labels); nothing is interpreted as markup.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QSyntaxHighlighter, QTextCharFormat
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ops.curate import Preview
from memhtml_desktop.ui.kit.palette import is_dark


class DiffHighlighter(QSyntaxHighlighter):
    """Added lines green, removed lines red, hunk headers blue; tints that read in both themes."""

    def __init__(self, document) -> None:
        super().__init__(document)
        self.formats = {}
        for prefix, light, dark in (
            ("+", "#d7f5dd", "#1f4a2a"),
            ("-", "#fbdada", "#5a2326"),
            ("@", "#e3ecfb", "#22365a"),
        ):
            fmt = QTextCharFormat()
            fmt.setBackground(QColor(dark if is_dark() else light))
            self.formats[prefix] = fmt

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt override
        if text.startswith(("+++", "---")):
            fmt = QTextCharFormat()
            fmt.setFontWeight(QFont.Weight.Bold)
            self.setFormat(0, len(text), fmt)
            return
        fmt = self.formats.get(text[:1])
        if fmt is not None:
            self.setFormat(0, len(text), fmt)


def _plain(parent: QWidget, *, wrap: bool = True, selectable: bool = True) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class PlanPreview(QWidget):
    """The commit line, the trailers and notes, the list of files, and the chosen file's diff."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("planPreview")
        self._preview: Preview | None = None
        self.heading = _plain(self)
        font = self.heading.font()
        font.setWeight(QFont.Weight.DemiBold)
        self.heading.setFont(font)
        self.commit_label = _plain(self)
        self.commit_label.setObjectName("commitLine")
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.commit_label.setFont(mono)
        self.notes_label = _plain(self)
        self.notes_label.setForegroundRole(self.notes_label.foregroundRole())
        self.files = QListWidget(self)
        self.files.setObjectName("planFiles")
        self.files.setFont(mono)
        self.files.setAlternatingRowColors(True)
        self.files.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.files.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.files.currentRowChanged.connect(self._show_file)
        self.files.setAccessibleName("Files this write changes")
        self.diff = QPlainTextEdit(self)
        self.diff.setObjectName("planDiff")
        self.diff.setReadOnly(True)
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.diff.setFont(mono)
        self.diff.setAccessibleName("The chosen file's changes")
        self.highlighter = DiffHighlighter(self.diff.document())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.heading)
        layout.addWidget(self.commit_label)
        layout.addWidget(self.notes_label)
        layout.addWidget(self.files)
        layout.addWidget(self.diff, 1)
        self.clear("The preview appears here once the form says what to write.")

    def clear(self, message: str = "") -> None:
        self._preview = None
        self.heading.setText(message)
        self.commit_label.setText("")
        self.commit_label.hide()
        self.notes_label.hide()
        self.files.clear()
        self.diff.setPlainText("")

    def preview(self) -> Preview | None:
        return self._preview

    def show_preview(self, preview: Preview) -> None:
        self._preview = preview
        plan = preview.plan
        n = len(preview.files)
        if plan.noop:
            self.heading.setText("Nothing to write.")
        else:
            self.heading.setText(f"This makes one commit changing {counted(n, 'file')}:")
        commit = plan.message if plan.changes else ""
        self.commit_label.setText(commit)
        self.commit_label.setVisible(bool(commit))
        notes = list(plan.notes)
        moved_to = {c.path for c in plan.changes if c.action == "move"}
        for src, dst in plan.state_moves:
            notes.append("Salience (reads and outcomes) follows the moved file." if dst in moved_to else
                         f"Its reads and outcome move from {src} to the new version, {dst}.")  # fmt: skip
        notes = list(dict.fromkeys(notes))
        self.notes_label.setText("\n".join(notes))
        self.notes_label.setVisible(bool(notes))
        current = self.files.currentRow()
        self.files.blockSignals(True)
        self.files.clear()
        for item in preview.files:
            row = QListWidgetItem(item.label)
            row.setData(Qt.ItemDataRole.UserRole, item.path)
            row.setToolTip(item.path)
            self.files.addItem(row)
        self.files.blockSignals(False)
        rows = max(1, min(n, 6))
        self.files.setMinimumHeight(self.files.sizeHintForRow(0) * rows + 2 * self.files.frameWidth() + 2 if n else 24)
        self.files.setMaximumHeight(self.files.minimumHeight())
        if n:
            self.files.setCurrentRow(current if 0 <= current < n else 0)
            self._show_file(self.files.currentRow())
        else:
            self.diff.setPlainText("")

    def select_file(self, row: int) -> None:
        self.files.setCurrentRow(row)

    def _show_file(self, row: int) -> None:
        if self._preview is None or not 0 <= row < len(self._preview.files):
            return
        self.diff.setPlainText(self._preview.files[row].diff)
