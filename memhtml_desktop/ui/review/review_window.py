"""The review window: the inbox (what changed since you last looked) and the store's activity.

Inbox: the changes grouped by commit or by memory, filtered by author, kind and folder; the chosen
change on the right with the diff that matters and its actions, each on a key (A accept, C correct,
X archive, R revert, O or Enter open in the reader, S or Space skip). When nothing is left: "All
caught up". The window does no I/O: data in, signals out (`action`, `regroup`, `done_requested`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.ui.kit.palette import warning_color
from memhtml_desktop.ui.kit.screen_fit import fit_to_screen
from memhtml_desktop.ui.review.activity_view import ActivityView
from memhtml_desktop.ui.review.detail_panel import ACTIONS, DetailPanel
from memhtml_desktop.ui.review.inbox_model import CHANGE_ROLE, InboxModel

KINDS = ("new", "edited", "corrected", "archived", "linked", "task", "removed")
EXTRA_KEYS = {"open": ("Return", "Enter"), "skip": ("Space",)}


def _combo(parent: QWidget, name: str, label: str) -> QComboBox:
    box = QComboBox(parent)
    box.setObjectName(name)
    box.setAccessibleName(label)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    box.setMaximumWidth(320)
    return box


class ReviewWindow(QDialog):
    action = Signal(str, object)  # action name, the Change (or the Group) it applies to
    current_changed = Signal(object)  # the Change now chosen (None: a group or nothing)
    done_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reviewWindow")
        self.setWindowTitle("Review: what changed since you last looked")
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.heading = QLabel(self)
        self.heading.setObjectName("reviewHeading")
        font = self.heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setWeight(QFont.Weight.DemiBold)
        self.heading.setFont(font)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.notes = QLabel(self)
        self.notes.setObjectName("reviewNotes")
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.hide()
        self.done_button = QPushButton("Mark all reviewed", self)
        self.done_button.setObjectName("reviewDone")
        self.done_button.setToolTip("Move the review mark to the newest commit listed: everything up to it is reviewed")
        self.done_button.clicked.connect(self.done_requested)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.done_button)
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self._inbox_page(), "Inbox")
        # The Activity tab is built when first shown (`ensure_activity`): opening the inbox is one turn less.
        self.activity: ActivityView | None = None
        self.tabs.addTab(QWidget(self), "Activity")
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.notes)
        layout.addWidget(self.tabs, 1)
        fit_to_screen(self, 1100, 700)
        self._sized = False

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._sized:  # the list and the change side by side, the list a little wider (once laid out)
            self._sized = True
            QTimer.singleShot(0, self._size_split)

    def _size_split(self) -> None:
        width = max(600, self.split.width())
        self.split.setSizes([width * 11 // 20, width * 9 // 20])

    def _inbox_page(self) -> QWidget:
        page = QWidget(self)
        self.group_by = _combo(page, "reviewGroupBy", "Group by")
        self.group_by.addItem("Group by commit", "commit")
        self.group_by.addItem("Group by memory", "memory")
        self.author = _combo(page, "reviewAuthor", "Author")
        self.kind = _combo(page, "reviewKind", "Kind")
        self.kind.addItem("Every kind", "")
        for kind in KINDS:
            self.kind.addItem(kind, kind)
        self.folder = _combo(page, "reviewFolder", "Folder")
        filters = QHBoxLayout()
        for box in (self.group_by, self.author, self.kind, self.folder):
            filters.addWidget(box)
        filters.addStretch(1)
        self.model = InboxModel(self)
        self.tree = QTableView(page)
        self.tree.setObjectName("reviewList")
        self.tree.setModel(self.model)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setShowGrid(False)
        self.tree.setWordWrap(False)
        self.tree.setAccessibleName("Changes to review")
        rows = self.tree.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.tree.fontMetrics().height() + 6)
        header = self.tree.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # Fixed widths from the font, never ResizeToContents: that asks every row of a 3,000-change
        # list for its text at each page (half a million calls into the model).
        fm = self.tree.fontMetrics()
        for col, sample in ((1, "memory-agent-xx"), (2, "2026-12-06 03:46")):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(col, fm.horizontalAdvance(sample) + 16)
        self.model.rows_added.connect(self._added)
        self.model.modelAboutToBeReset.connect(self._remember)
        self.model.modelReset.connect(lambda: self.select_key(*self._kept))
        self._kept: tuple[str | None, int] = (None, 0)
        self.tree.selectionModel().currentChanged.connect(self._current)
        self.detail = DetailPanel(page)
        self.detail.action.connect(self.act)
        split = QSplitter(Qt.Orientation.Horizontal, page)
        split.addWidget(self.tree)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        self.split = split
        self.caught_up = QLabel(page)
        self.caught_up.setObjectName("reviewCaughtUp")
        self.caught_up.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.caught_up.setTextFormat(Qt.TextFormat.PlainText)
        big = self.caught_up.font()
        big.setPointSizeF(big.pointSizeF() * 1.6)
        self.caught_up.setFont(big)
        self.stack = QStackedWidget(page)
        self.stack.addWidget(split)
        self.stack.addWidget(self.caught_up)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(filters)
        layout.addWidget(self.stack, 1)
        for name, _text, key in ACTIONS:
            for seq in (key, *EXTRA_KEYS.get(name, ())):
                shortcut = QShortcut(QKeySequence(seq), split, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
                shortcut.activated.connect(lambda n=name: self.act(n))
        for box, what in ((self.author, "author"), (self.kind, "kind"), (self.folder, "folder"),
                          (self.group_by, "by")):  # fmt: skip
            box.currentIndexChanged.connect(lambda _=0, b=box, w=what: self.model.set_view(**{w: b.currentData()}))
        return page

    def ensure_activity(self) -> ActivityView:
        """The Activity tab's view, built the first time it is needed."""
        if self.activity is None:
            self.activity = ActivityView(self)
            self.tabs.blockSignals(True)
            current = self.tabs.currentIndex()
            self.tabs.removeTab(1)
            self.tabs.insertTab(1, self.activity, "Activity")
            self.tabs.setCurrentIndex(current)
            self.tabs.blockSignals(False)
        return self.activity

    # -- what is listed --------------------------------------------------------------------------

    def set_heading(self, text: str, notes: list[str]) -> None:
        if self.heading.text() != text:
            self.heading.setText(text)
        said = "\n".join(notes)
        if said != self.notes.text() or self.notes.isVisible() != bool(notes):  # a style sheet costs a re-polish
            self.notes.setVisible(bool(notes))
            self.notes.setText(said)
            self.notes.setStyleSheet(f"background-color:{warning_color()}; padding:4px" if notes else "")

    def fill_filters(self) -> None:
        """The author and folder choices from the changes held (the current choice kept)."""
        for box, values, every in ((self.author, self.model.authors(), "Every author"),
                                   (self.folder, self.model.folders(), "Every folder")):  # fmt: skip
            current = box.currentData()
            if [box.itemData(i) for i in range(1, box.count())] == values:
                continue
            box.blockSignals(True)
            box.clear()
            box.addItem(every, "")
            for value in values:
                box.addItem(value, value)
            box.setCurrentIndex(max(0, box.findData(current)))
            box.blockSignals(False)

    def show_caught_up(self, caught_up: bool, text: str = "") -> None:
        self.caught_up.setText(text)
        self.stack.setCurrentIndex(1 if caught_up else 0)
        self.done_button.setEnabled(not caught_up)

    def _remember(self) -> None:
        """Before the rows are laid out again: the change chosen and its place, to choose it again."""
        current = self.current_change()
        keys = [c.key for c in self.model.shown_changes()]
        self._kept = (
            (current.key, keys.index(current.key)) if current is not None and current.key in keys else (None, 0)
        )

    def _added(self, first: int, last: int) -> None:
        if not self.tree.currentIndex().isValid():
            self.select_first()

    def select_first(self) -> None:
        shown = self.model.shown_changes()
        self.select(self.model.index_of(shown[0].key) if shown else QModelIndex())

    def select(self, index: QModelIndex) -> None:
        self.tree.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                                   | QItemSelectionModel.SelectionFlag.Rows)  # fmt: skip
        if index.isValid():
            self.tree.scrollTo(index)

    def select_key(self, key: str | None, fallback: int = 0) -> None:
        """Choose the change `key` (after a reset), else the one now at the `fallback`-th place."""
        index = self.model.index_of(key) if key else QModelIndex()
        if not index.isValid():
            shown = self.model.shown_changes()
            if shown:
                index = self.model.index_of(shown[min(fallback, len(shown) - 1)].key)
        self.select(index)
        if not index.isValid():
            self.detail.show_change(None)

    def current_change(self) -> Any:
        return self.model.change_at(self.tree.currentIndex())

    def _current(self, index: QModelIndex, _previous: QModelIndex) -> None:
        change = index.data(CHANGE_ROLE) if index.isValid() else None
        self.detail.clear_refusal()
        self.detail.show_change(change, None if change is not None else self.model.group_at(index))
        self.current_changed.emit(change)

    def next_index(self) -> QModelIndex:
        """The change after the current one (the first of the next group after a group's last)."""
        shown = self.model.shown_changes()
        current = self.current_change()
        if current is None:
            group = self.model.group_at(self.tree.currentIndex())
            return self.model.index_of(group.first.key) if group is not None and group.changes else QModelIndex()
        keys = [c.key for c in shown]
        at = keys.index(current.key) if current.key in keys else -1
        return self.model.index_of(keys[at + 1]) if 0 <= at < len(keys) - 1 else QModelIndex()

    def act(self, name: str) -> None:
        if name == "skip":
            following = self.next_index()
            if following.isValid():
                self.select(following)
            return
        change = self.current_change()
        target = change if change is not None else self.model.group_at(self.tree.currentIndex())
        if target is not None and (name == "accept" or change is not None):
            button = self.detail.buttons.get(name)
            if button is None or button.isEnabled():
                self.action.emit(name, target)
