"""The problems panel: files that failed to parse, duplicate bodies, and files with warnings.

A tree: one row per problem (kind, path; counts and time in its tooltip), and under it every violation and warning
line verbatim, plus one row per twin for a duplicate. A click or Enter opens the file (a twin row
opens the twin). The kind filter and the path filter hide problem rows, never their lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.palette import muted_color
from memhtml_desktop.ui.kit.two_level_model import TwoLevelModel

if TYPE_CHECKING:
    from memhtml_desktop.domain.results import Problem

KINDS = ("invalid", "unreadable", "duplicate", "warnings")
KIND_LABELS = {"invalid": "Invalid", "unreadable": "Unreadable", "duplicate": "Duplicate", "warnings": "Warnings"}
LINE_LABELS = {"violation": "violation", "warning": "warning", "twin": "same article as"}
KIND_COLORS = {"invalid": "#D55E00", "unreadable": "#D55E00", "duplicate": "#CC79A7", "warnings": "#E69F00"}
_Index = QModelIndex | QPersistentModelIndex


def _summary(problem: "Problem") -> str:
    parts = []
    if problem.violations:
        parts.append(counted(len(problem.violations), "violation"))
    if problem.warnings:
        parts.append(counted(len(problem.warnings), "warning"))
    if problem.duplicates:
        parts.append(counted(len(problem.duplicates), "twin"))
    return " · ".join(parts)


def _lines_of(problem: "Problem") -> list[tuple[str, str, str]]:
    """(line kind, text, path a click opens) for every line under a problem."""
    lines = [("violation", v, problem.path) for v in problem.violations]
    lines += [("warning", w, problem.path) for w in problem.warnings]
    lines += [("twin", twin, twin) for twin in problem.duplicates]
    return lines


class ProblemsModel(TwoLevelModel):
    """Problems as a two-level tree. Internal id 0 is a problem row, n+1 a line under problem n.

    A line row shows its label and text in the first column, which the view spans across the row.
    """

    COLUMNS = ("Kind", "File")
    KIND, FILE = range(2)
    ProblemRole = Qt.ItemDataRole.UserRole + 1
    PathRole = Qt.ItemDataRole.UserRole + 2
    KindRole = Qt.ItemDataRole.UserRole + 3
    LineRole = Qt.ItemDataRole.UserRole + 4  # a line's text without its label
    SummaryRole = Qt.ItemDataRole.UserRole + 5  # "2 violations · 1 warning"

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._problems: list[Problem] = []
        self._lines: list[list[tuple[str, str, str]]] = []

    def set_problems(self, problems: list["Problem"]) -> None:
        self.beginResetModel()
        self._problems = list(problems)
        self._lines = [_lines_of(p) for p in self._problems]
        self.endResetModel()

    def problems(self) -> list["Problem"]:
        return list(self._problems)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        if not parent.isValid():
            return len(self._problems)
        if parent.internalId() == 0 and parent.column() == 0 and parent.row() < len(self._lines):
            return len(self._lines[parent.row()])
        return 0

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return len(self.COLUMNS)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < 2:
            return self.COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if index.internalId() != 0:
            return self._line_data(index, role)
        if index.row() >= len(self._problems):
            return None
        problem = self._problems[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return problem.kind if col == self.KIND else problem.path
        if role == Qt.ItemDataRole.ToolTipRole:
            detected = (problem.detected_at or "").replace("T", " ").removesuffix("Z")
            head = f"{problem.path}\n{_summary(problem)}" + (f" · detected {detected}" if detected else "")
            return tooltip_text("\n".join([head, *(f"• {text}" for _, text, _ in self._lines[index.row()])]))
        if role == self.SummaryRole:
            return _summary(problem)
        if role == Qt.ItemDataRole.DecorationRole and col == self.KIND:
            return QColor(KIND_COLORS.get(problem.kind, "#999999"))
        if role == Qt.ItemDataRole.FontRole and col == self.FILE:
            font = QFont()
            font.setBold(True)
            return font
        if role == self.ProblemRole:
            return problem
        if role == self.PathRole:
            return problem.path
        if role == self.KindRole:
            return problem.kind
        return None

    def _line_data(self, index: _Index, role: int) -> Any:
        row = index.internalId() - 1
        if row >= len(self._lines) or index.row() >= len(self._lines[row]):
            return None
        kind, text, path = self._lines[row][index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole and col == self.KIND:
            return f"{LINE_LABELS.get(kind, kind)}: {text}"
        if role == Qt.ItemDataRole.ToolTipRole and col == self.KIND:
            return tooltip_text(text if kind != "twin" else f"Same article as {text} (click to open it)")
        if role == Qt.ItemDataRole.ForegroundRole and kind == "warning":
            return muted_color()
        if role == self.PathRole:
            return path
        if role == self.KindRole:
            return kind
        if role == self.LineRole:
            return text
        return None


class ProblemsFilter(QSortFilterProxyModel):
    """Keeps problem rows of one kind (or all) whose path holds the text; lines always follow."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._kind = ""
        self._text = ""

    def set_kind(self, kind: str) -> None:
        self._refilter(lambda: setattr(self, "_kind", kind))

    def set_text(self, text: str) -> None:
        self._refilter(lambda: setattr(self, "_text", text.strip().lower()))

    def _refilter(self, change) -> None:
        # Qt 6.10+: invalidateFilter() is deprecated. Qt 6.9 has beginFilterChange() but not yet
        # endFilterChange(): ask for the one that ends the change (the PySide6 6.9.3 run found it).
        if hasattr(self, "endFilterChange"):
            self.beginFilterChange()
            change()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            change()
            self.invalidateFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:  # noqa: N802
        if source_parent.isValid():
            return True
        index = self.sourceModel().index(source_row, 0, source_parent)
        if self._kind and index.data(ProblemsModel.KindRole) != self._kind:
            return False
        return not self._text or self._text in (index.data(ProblemsModel.PathRole) or "").lower()


class _LineDelegate(QStyledItemDelegate):
    """A line under a problem spans the row: its height is its text wrapped to the row's width."""

    def __init__(self, view: QTreeView) -> None:
        super().__init__(view)
        self.view = view
        self._heights: dict[tuple[str, int, str], int] = {}  # (text, width, font) -> height: measured once

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:  # noqa: N802
        if not index.parent().isValid():  # a problem row: one line, as wide as its column
            return QSize(self.view.header().sectionSize(index.column()), option.fontMetrics.height() + 8)
        if index.column() != 0:
            return QSize(0, 0)  # spanned over by the first column
        width = max(80, self.view.viewport().width() - self.view.indentation() * 2 - 12)
        text = index.data(Qt.ItemDataRole.DisplayRole) or ""
        key = (text, width, option.font.key())
        height = self._heights.get(key)
        if height is None:
            if len(self._heights) > 5000:
                self._heights.clear()
            rect = option.fontMetrics.boundingRect(QRect(0, 0, width, 10_000), int(Qt.TextFlag.TextWordWrap), text)
            height = self._heights[key] = max(rect.height(), option.fontMetrics.height()) + 6
        return QSize(width, height)


class _ProblemsView(QTreeView):
    """Enter opens; every line row spans the whole width so a violation is read, not elided."""

    open_path = Signal(str)

    def setModel(self, model) -> None:  # noqa: N802
        super().setModel(model)
        for signal in (model.modelReset, model.layoutChanged, model.rowsInserted):
            signal.connect(self._span_lines)

    def _span_lines(self, *args: Any) -> None:
        model = self.model()
        self.setUpdatesEnabled(False)  # one layout after every span is set, not one per span
        try:
            for row in range(model.rowCount()):
                parent = model.index(row, 0)
                for line in range(model.rowCount(parent)):
                    self.setFirstColumnSpanned(line, parent, True)
        finally:
            self.setUpdatesEnabled(True)

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self.open_path.emit(self.currentIndex().data(ProblemsModel.PathRole))
            return
        super().keyPressEvent(event)


def stats_line(stats: dict[str, Any]) -> str:
    """ "24 live · 1 archived · 17 failed · 3 with warnings · 26 of 26 chunks embedded"."""
    if not stats:
        return ""
    parts = []
    for key, word in (
        ("active", "live"),
        ("archived", "archived"),
        ("open_tasks", "open tasks"),
        ("failed", "failed"),
        ("with_warnings", "with warnings"),
    ):
        if key in stats and stats[key] is not None:
            parts.append(f"{int(stats[key]):,} {word}")
    if "chunks" in stats:
        parts.append(f"{int(stats.get('embedded') or 0):,} of {int(stats['chunks']):,} chunks embedded")
    return " · ".join(parts)


class ProblemsPane(QWidget):
    """Problems in, `open_requested(path)` out."""

    open_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(6)
        self.summary_label = QLabel(self)
        self.summary_label.setTextFormat(Qt.TextFormat.PlainText)
        self.summary_label.setWordWrap(True)
        layout.addWidget(self.summary_label)

        filters = QHBoxLayout()
        self.kind_combo = QComboBox(self)
        self.kind_combo.setToolTip("Show one kind of problem")
        self.kind_combo.setAccessibleName("Kind of problem")
        self.path_filter = QLineEdit(self)
        self.path_filter.setPlaceholderText("Filter by path")
        self.path_filter.setAccessibleName("Filter problems by path")
        self.path_filter.setClearButtonEnabled(True)
        filters.addWidget(self.kind_combo)
        filters.addWidget(self.path_filter, 1)
        layout.addLayout(filters)

        self.model = ProblemsModel(self)
        self.proxy = ProblemsFilter(self)
        self.proxy.setSourceModel(self.model)
        self.view = _ProblemsView(self)
        self.view.setModel(self.proxy)
        # Violation lines wrap (a cut "…" hid the part that says what to fix): rows take the height
        # their text needs, and every line also carries its whole text as a tooltip.
        self.view.setUniformRowHeights(False)
        self.view.setWordWrap(True)
        self.view.setAllColumnsShowFocus(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.view.setAccessibleName("Problems")
        self.view.setItemDelegate(_LineDelegate(self.view))
        self.view.header().sectionResized.connect(lambda *_: self.view.scheduleDelayedItemsLayout())
        header = self.view.header()
        header.setStretchLastSection(False)
        # Fixed, not sized to its contents: that would measure every row on every update.
        header.setSectionResizeMode(ProblemsModel.KIND, QHeaderView.ResizeMode.Fixed)
        header.resizeSection(ProblemsModel.KIND, self.fontMetrics().horizontalAdvance("unreadable") + 56)
        header.setSectionResizeMode(ProblemsModel.FILE, QHeaderView.ResizeMode.Stretch)
        self.view.clicked.connect(self._open_index)
        self.view.open_path.connect(self.open_requested)
        layout.addWidget(self.view, 1)
        self.empty_label = QLabel("No problems: every file parsed cleanly.", self)
        self.empty_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.empty_label, 1)

        self.kind_combo.currentIndexChanged.connect(lambda _: self.proxy.set_kind(self.kind_combo.currentData() or ""))
        self.path_filter.textChanged.connect(self._path_filter_changed)
        self.proxy.layoutChanged.connect(self.view.expandAll)
        self.show_problems([], {})

    def show_problems(self, problems: list["Problem"], stats: dict) -> None:
        self.model.set_problems(problems)
        self.summary_label.setText(stats_line(stats) or counted(len(problems), "problem"))
        counts = {kind: sum(1 for p in problems if p.kind == kind) for kind in KINDS}
        current = self.kind_combo.currentData() or ""
        self.kind_combo.blockSignals(True)
        self.kind_combo.clear()
        self.kind_combo.addItem(f"All kinds ({len(problems)})", "")
        for kind in KINDS:
            self.kind_combo.addItem(f"{KIND_LABELS[kind]} ({counts[kind]})", kind)
        self.kind_combo.setCurrentIndex(max(self.kind_combo.findData(current), 0))
        self.kind_combo.blockSignals(False)
        self.proxy.set_kind(self.kind_combo.currentData() or "")
        self.view.expandAll()
        self.view.setVisible(bool(problems))
        self.empty_label.setVisible(not problems)

    def set_kind_filter(self, kind: str) -> None:
        """Show only `kind` ('' for all)."""
        self.kind_combo.setCurrentIndex(max(self.kind_combo.findData(kind), 0))

    def _path_filter_changed(self, text: str) -> None:
        self.proxy.set_text(text)
        self.view.expandAll()

    def _open_index(self, index: QModelIndex) -> None:
        path = index.data(ProblemsModel.PathRole)
        if path:
            self.open_requested.emit(path)
