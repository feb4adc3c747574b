""""Why not this one?": where one memory stood for a query, arm by arm, and what kept it out.

Shows a `WhyNot` report as given: the file's status, the reasons (which scope axis excluded it),
one table row per arm (its rank out of how many it ranked, whether that rank was inside the
candidate window the fusion reads, what it contributed, its raw signal), the fused position and
the position on the result page. It computes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.rrf import DEFAULT_ARM_LIMIT
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.kit.chips import tooltip_text

if TYPE_CHECKING:
    from memhtml_desktop.domain.results import WhyNot

ARM_ORDER = ("fts", "vector", "recency", "salience")
STATUS_TEXT = {
    "indexed": "In the index.",
    "invalid": "Failed to parse, so it is not in the index.",
    "unreadable": "Could not be read, so it is not in the index.",
    "not_indexed": "Not in the index (missing on disk, or not indexed yet).",
    "not_a_memory": "Not a memory file (wrong folder, extension, or a scaffold page).",
}
_Index = QModelIndex | QPersistentModelIndex


def raw_text(arm: str, entry: dict[str, Any]) -> str:
    """An arm's raw signal in words: bm25, cosine distance, the time, or the salience terms."""
    if arm == "vector" and entry.get("distance") is not None:
        return f"cosine distance {float(entry['distance']):.3f}"
    raw = entry.get("raw")
    if raw is None:
        return "—"
    if arm == "fts" and isinstance(raw, (int, float)):
        form = entry.get("form")
        return f"bm25 {float(raw):.3f}" + (f" ({form} terms)" if form in ("all", "any") else "")
    if arm == "recency":
        return f"time {raw}"
    if arm == "salience" and isinstance(raw, (list, tuple)) and len(raw) >= 3:
        text = f"decay {float(raw[0]):.2f} · popularity {float(raw[1]):.2f} · outcome {float(raw[2]):.2f}"
        if len(raw) >= 4 and raw[3] is not None:
            text += f" · {float(raw[3]):,.0f} h since last read"
        return text
    if isinstance(raw, dict):
        return " · ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in raw.items())
    if isinstance(raw, float):
        return f"{raw:.4g}"
    return str(raw)


class ArmsModel(QAbstractTableModel):
    """One row per arm of a WhyNot report."""

    COLUMNS = ("Arm", "Rank", "Window", "Weight", "Contribution", "Raw signal")
    ARM, RANK, WINDOW, WEIGHT, CONTRIBUTION, RAW = range(6)
    ArmRole = Qt.ItemDataRole.UserRole + 1
    EntryRole = Qt.ItemDataRole.UserRole + 2

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, dict[str, Any]]] = []

    def set_arms(self, arms: dict[str, dict[str, Any]]) -> None:
        self.beginResetModel()
        known = [a for a in ARM_ORDER if a in arms]
        self._rows = [(a, arms[a]) for a in known + sorted(set(arms) - set(known))]
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return self.COLUMNS[section]
            if role == Qt.ItemDataRole.ToolTipRole and section == self.WINDOW:
                return f"Whether the rank is inside the {DEFAULT_ARM_LIMIT} candidates each arm hands to the fusion"
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        arm, entry = self._rows[index.row()]
        col = index.column()
        rank = entry.get("rank")
        if role == Qt.ItemDataRole.DisplayRole:
            if col == self.ARM:
                return palette.ARM_TITLES.get(arm, arm)
            if col == self.RANK:
                ranked = entry.get("ranked")
                if rank is None:
                    return f"not ranked (of {ranked:,})" if ranked else "not ranked"
                return f"{int(rank):,} of {int(ranked):,}" if ranked is not None else f"{int(rank):,}"
            if col == self.WINDOW:
                if rank is None:
                    return "—"
                return f"inside the {DEFAULT_ARM_LIMIT}" if entry.get("in_window") else f"outside the {DEFAULT_ARM_LIMIT}"
            if col == self.WEIGHT:
                weight = entry.get("weight")
                return "—" if weight is None else f"{float(weight):g}"
            if col == self.CONTRIBUTION:
                contribution = entry.get("contribution") or 0.0
                return f"{float(contribution):.4f}" if contribution else "—"
            return raw_text(arm, entry)
        if role == Qt.ItemDataRole.DecorationRole and col == self.ARM:
            return palette.arm_color(arm)
        if role == Qt.ItemDataRole.ForegroundRole:
            if col == self.WINDOW and rank is not None and not entry.get("in_window"):
                return QColor("#D55E00")
            if rank is None and col != self.ARM:
                return palette.muted_color()
        if role == Qt.ItemDataRole.ToolTipRole:
            help_text = getattr(palette, "ARM_HELP", {}).get(arm, palette.ARM_TITLES.get(arm, arm))
            return tooltip_text(f"{help_text}\n{raw_text(arm, entry)}")
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (self.RANK, self.WEIGHT, self.CONTRIBUTION):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == self.ArmRole:
            return arm
        if role == self.EntryRole:
            return entry
        return None


def _plain(parent: QWidget, *, wrap: bool = True) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class WhyDialog(QDialog):
    """The report for one path and query; `open_requested(path)` opens the memory.

    `why_requested(path)` asks the window for the report on another path typed in the dialog.
    """

    open_requested = Signal(str)
    why_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Why not this one?")
        self.resize(760, 460)
        self._report: WhyNot | None = None
        layout = QVBoxLayout(self)
        layout.setSpacing(6)

        self.path_label = _plain(self)
        font = self.path_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setWeight(QFont.Weight.DemiBold)
        self.path_label.setFont(font)
        self.query_label = _plain(self)
        self.query_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.status_label = _plain(self)
        self.verdict_label = _plain(self)
        bold = self.verdict_label.font()
        bold.setBold(True)
        self.verdict_label.setFont(bold)
        self.reasons_label = _plain(self)
        self.reasons_label.setObjectName("reasons")
        self.relaxed_label = _plain(self)
        self.relaxed_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        for widget in (self.path_label, self.query_label, self.status_label, self.verdict_label,
                       self.reasons_label, self.relaxed_label):
            layout.addWidget(widget)

        self.arms_model = ArmsModel(self)
        self.arms_view = QTableView(self)
        self.arms_view.setModel(self.arms_model)
        self.arms_view.verticalHeader().hide()
        self.arms_view.setShowGrid(False)
        self.arms_view.setAlternatingRowColors(True)
        self.arms_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.arms_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.arms_view.setWordWrap(True)
        header = self.arms_view.horizontalHeader()
        for col in range(len(ArmsModel.COLUMNS) - 1):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(ArmsModel.RAW, QHeaderView.ResizeMode.Stretch)
        header.sectionResized.connect(lambda *_: self.arms_view.resizeRowsToContents())  # wrapped raw signals
        layout.addWidget(self.arms_view, 1)
        self.fused_label = _plain(self)
        layout.addWidget(self.fused_label)

        other = QHBoxLayout()
        self.other_path = QLineEdit(self)
        self.other_path.setPlaceholderText("Ask about another path, e.g. areas/oncall/rollback.html")
        self.other_button = QPushButton("Ask", self)
        self.other_button.setAutoDefault(False)
        self.other_button.clicked.connect(self._ask_other)
        self.other_path.returnPressed.connect(self._ask_other)
        other.addWidget(self.other_path, 1)
        other.addWidget(self.other_button)
        layout.addLayout(other)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.open_button = buttons.addButton("Open memory", QDialogButtonBox.ButtonRole.ActionRole)
        self.open_button.clicked.connect(self._open)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.show_report(None)

    def show_loading(self, path: str) -> None:
        """While the window computes the report."""
        self.path_label.setText(path)
        self.status_label.setText("Working it out…")
        for label in (self.verdict_label, self.reasons_label, self.relaxed_label, self.fused_label):
            label.hide()

    def show_report(self, report: "WhyNot | None") -> None:
        self._report = report
        self.open_button.setEnabled(report is not None)
        if report is None:
            self.path_label.setText("No memory chosen")
            self.query_label.setText("")
            self.status_label.setText("")
            for label in (self.verdict_label, self.reasons_label, self.relaxed_label, self.fused_label):
                label.hide()
            self.arms_model.set_arms({})
            return
        self.path_label.setText(report.path)
        self.query_label.setText(f"for the query “{report.query}”" if report.query else "for an empty query")
        self.status_label.setText(STATUS_TEXT.get(report.status, report.status))
        self.verdict_label.setText(
            f"It is #{report.search_position} on the result page."
            if report.search_position is not None else "It is not on the result page."
        )
        self.verdict_label.show()
        lines = list(report.reasons)
        if report.status != "indexed":
            lines += [p for p in report.problems if not any(p in r for r in report.reasons)]
        self.reasons_label.setText("\n".join(f"• {line}" for line in lines))
        self.reasons_label.setStyleSheet(
            f"QLabel#reasons {{ background: {palette.warning_color()}; border-radius: 4px; padding: 6px 8px; }}"
        )
        self.reasons_label.setVisible(bool(lines))
        if report.excluded_by:
            self.relaxed_label.setText(
                "Excluded by: " + ", ".join(report.excluded_by)
                + (". The ranks below were computed with those filters switched off." if report.ranks_relaxed else ".")
            )
        self.relaxed_label.setVisible(bool(report.excluded_by))
        self.arms_model.set_arms(report.arms)
        self.arms_view.setCurrentIndex(self.arms_model.index(-1, -1))
        self.arms_view.resizeRowsToContents()
        self.arms_view.setVisible(bool(report.arms))
        if report.status == "indexed":
            if report.fused_position is None:
                fused = "Fused position: not in the fused pool"
            else:
                fused = f"Fused position: {report.fused_position}"
                if report.fused_score is not None:
                    fused += f" (score {report.fused_score:.4f})"
            search = f"search position: {report.search_position}" if report.search_position is not None else "search position: —"
            self.fused_label.setText(f"{fused} · {search}")
        self.fused_label.setVisible(report.status == "indexed")

    def showEvent(self, event: Any) -> None:  # noqa: N802
        super().showEvent(event)
        QTimer.singleShot(0, self.arms_view.resizeRowsToContents)  # wrap against the laid-out widths

    def report(self) -> "WhyNot | None":
        return self._report

    def _open(self) -> None:
        if self._report is not None:
            self.open_requested.emit(self._report.path)

    def _ask_other(self) -> None:
        path = self.other_path.text().strip()
        if path:
            self.why_requested.emit(path)
