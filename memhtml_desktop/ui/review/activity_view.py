"""The Activity tab: the chart, what is read (and what nobody reads, per folder), and the changes of
the bar clicked. Data in (`set_activity`), signals out (`unit_requested`, `open_requested`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ui.review.activity_chart import ActivityChart
from memhtml_desktop.ui.review.inbox_model import when


def _tree(parent: QWidget, name: str, headers: tuple[str, ...], wide: int = 0) -> QTreeWidget:
    """A plain list: the first column takes the room left; column `wide` (when given) a fixed share."""
    tree = QTreeWidget(parent)
    tree.setObjectName(name)
    tree.setColumnCount(len(headers))
    tree.setHeaderLabels(list(headers))
    tree.setRootIsDecorated(False)
    tree.setUniformRowHeights(True)
    tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    for col in range(1, len(headers)):
        tree.header().setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
    if wide:
        tree.header().setSectionResizeMode(wide, QHeaderView.ResizeMode.Interactive)
        tree.header().resizeSection(wide, 220)
    tree.header().setStretchLastSection(False)
    return tree


class ActivityView(QWidget):
    unit_requested = Signal(str)
    open_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.activity: Any = None
        self.unit = QComboBox(self)
        self.unit.setObjectName("activityUnit")
        self.unit.addItem("Per week", "week")
        self.unit.addItem("Per day", "day")
        self.unit.setAccessibleName("Bars per")
        self.by = QComboBox(self)
        self.by.setObjectName("activityBy")
        self.by.addItem("By kind", "kind")
        self.by.addItem("By author", "author")
        self.by.setAccessibleName("Bars split")
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setObjectName("activitySummary")
        controls = QHBoxLayout()
        controls.addWidget(self.unit)
        controls.addWidget(self.by)
        controls.addWidget(self.summary, 1)
        self.chart = ActivityChart(self)
        self.reads = QLabel(self)
        self.reads.setObjectName("activityReads")
        self.reads.setWordWrap(True)
        self.folders = _tree(self, "activityFolders", ("Folder", "Memories", "Unread 90 days", "Share unread"))
        self.bucket_label = QLabel("Click a bar to list its changes.", self)
        self.bucket_label.setObjectName("activityBucket")
        self.changes = _tree(self, "activityChanges", ("Change", "Author", "When"))
        self.changes.itemActivated.connect(
            lambda item, _: self.open_requested.emit(item.data(0, Qt.ItemDataRole.UserRole))
        )
        lower = QWidget(self)
        lower_layout = QHBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        left = QVBoxLayout()
        left.addWidget(self.reads)
        left.addWidget(self.folders, 1)
        right = QVBoxLayout()
        right.addWidget(self.bucket_label)
        right.addWidget(self.changes, 1)
        lower_layout.addLayout(left, 1)
        lower_layout.addLayout(right, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.chart)
        split.addWidget(lower)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(split, 1)
        self.unit.currentIndexChanged.connect(lambda _: self.unit_requested.emit(self.unit.currentData()))
        self.by.currentIndexChanged.connect(lambda _: self.chart.set_by(self.by.currentData()))
        self.chart.bucket_clicked.connect(self.show_bucket)

    def set_loading(self) -> None:
        self.summary.setText("Reading the store's history\u2026")

    def set_activity(self, activity: Any) -> None:
        self.activity = activity
        self.chart.set_activity(activity, self.by.currentData())
        self.summary.setText(self.chart.summary() + ("  " + " ".join(activity.notes) if activity.notes else ""))
        if activity.state:
            share = f" ({activity.unread * 100 // max(activity.active, 1)}%)" if activity.active else ""
            self.reads.setText(f"Unread for {activity.unread_days} days: {activity.unread:,} of "
                               f"{counted(activity.active, 'active memory', 'active memories')}{share}. "
                               "The state plane keeps each memory's last read: the blue band counts the memories "
                               "last read in each bar's time.")  # fmt: skip
        else:
            self.reads.setText("No state plane (.memhtml/state.db): nothing is known of reads.")
        self.folders.clear()
        for folder in activity.folders:
            share = folder.unread * 100 // max(folder.active, 1)
            item = QTreeWidgetItem([folder.folder or "(top)", f"{folder.active:,}", f"{folder.unread:,}", f"{share}%"])
            for col in (1, 2, 3):
                item.setTextAlignment(col, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.folders.addTopLevelItem(item)
        self.changes.clear()
        self.bucket_label.setText("Click a bar to list its changes.")

    def show_bucket(self, i: int) -> None:
        if self.activity is None or not 0 <= i < len(self.activity.buckets):
            return
        bucket = self.activity.buckets[i]
        changes = self.activity.in_bucket(bucket)
        word = "Week of" if self.activity.unit == "week" else "Day"
        self.bucket_label.setText(f"{word} {bucket.start}: {counted(len(changes), 'change')}")
        self.changes.clear()
        items = []
        for change in changes:
            item = QTreeWidgetItem([f"{change.kind} \u00b7 {change.title}", change.author_name, when(change.at)])
            item.setData(0, Qt.ItemDataRole.UserRole, change.path)
            item.setToolTip(0, f"{change.path}\n{change.subject}")
            items.append(item)
        self.changes.addTopLevelItems(items)
