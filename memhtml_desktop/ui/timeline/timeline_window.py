"""The timeline window: the painted chain, and the same versions as a table (for reading and for
the keyboard), with what each superseded and what superseded it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFrame,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.ui.timeline.timeline_view import TimelineView, lanes_of


def _label(parent: QWidget, *, muted: bool = False) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if muted:
        label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


class TimelineWindow(QDialog):
    open_requested = Signal(str)
    as_of_requested = Signal(str)

    COLUMNS = ("Version", "From", "Until", "Supersedes", "Superseded by")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timelineWindow")
        self.setWindowTitle("Supersession timeline")
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.heading = _label(self)
        font = self.heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setWeight(QFont.Weight.DemiBold)
        self.heading.setFont(font)
        self.subheading = _label(self, muted=True)
        self.view = TimelineView(self)
        self.view.open_requested.connect(self.open_requested)
        self.view.as_of_requested.connect(self.as_of_requested)
        scroll = self.scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.view)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table = QTreeWidget(self)
        self.table.setObjectName("timelineTable")
        self.table.setColumnCount(len(self.COLUMNS))
        self.table.setHeaderLabels(list(self.COLUMNS))
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.table.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        for col in (3, 4):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(col, 220)
        self.table.itemActivated.connect(
            lambda item, _: self.open_requested.emit(item.data(0, Qt.ItemDataRole.UserRole))
        )
        self.hint = _label(self, muted=True)
        self.hint.setText("Click a version to open it in the reader; click the time axis to search as of that day.")
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(scroll)
        split.addWidget(self.table)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        split.setSizes([330, 130])
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.subheading)
        layout.addWidget(split, 1)
        layout.addWidget(self.hint)
        self.resize(1000, 560)
        self.chain = None

    def show_loading(self, path: str) -> None:
        self.heading.setText(path)
        self.subheading.setText("Reading its supersession chain\u2026")

    def show_error(self, path: str, message: str) -> None:
        self.heading.setText(path)
        self.subheading.setText(f"No timeline: {message}")
        self.view.set_chain(None)
        self.table.clear()

    def show_chain(self, chain) -> None:
        self.chain = chain
        focus = next((v for v in chain.versions if v.path == chain.focus), None)
        self.heading.setText((focus.title if focus is not None and focus.title else None) or chain.focus)
        n = len(chain.versions)
        older, newer = len(chain.older_than_focus), len(chain.newer_than_focus)
        if n <= 1:
            text = f"{chain.focus} \u00b7 nothing superseded it and it superseded nothing"
        else:
            text = (f"{chain.focus} \u00b7 {n} versions: it superseded {older}, {newer} superseded it"
                    + (" (the chain is longer than shown)" if chain.truncated else ""))  # fmt: skip
        self.subheading.setText(text)
        self.view.set_chain(chain)
        self.scroll.setMaximumHeight(self.view.sizeHint().height() + 2 * self.scroll.frameWidth() + 2)
        self._fill_table(chain)

    def _fill_table(self, chain) -> None:
        self.table.clear()
        supersedes: dict[str, list[str]] = {}
        superseded_by: dict[str, list[str]] = {}
        for newer, older in chain.edges:
            supersedes.setdefault(newer, []).append(older)
            superseded_by.setdefault(older, []).append(newer)
        titles = {v.path: v.title or v.path for v in chain.versions}
        for lane in lanes_of(chain, self.view.now):
            v = lane.version
            item = QTreeWidgetItem([
                (v.title or v.path) + ("  (archived)" if v.archived else "") + ("" if v.known else "  (missing)"),
                lane.start.date().isoformat() if lane.start else "?",
                "now" if lane.open_ended else (lane.end.date().isoformat() if lane.end else "?"),
                ", ".join(titles.get(p, p) for p in supersedes.get(v.path, ())),
                ", ".join(titles.get(p, p) for p in superseded_by.get(v.path, ())),
            ])  # fmt: skip
            item.setData(0, Qt.ItemDataRole.UserRole, v.path)
            item.setToolTip(0, v.path)
            if v.path == chain.focus:
                font = item.font(0)
                font.setBold(True)
                item.setFont(0, font)
            self.table.addTopLevelItem(item)
