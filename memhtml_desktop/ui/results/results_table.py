"""The ranked table: keys, the context menu, the column chooser, and columns that fit the width.

Opening a memory is an explicit act: a click, a double-click or Enter on a row. Moving the current
row with the arrow keys only moves it. Ctrl+C copies the current memory's path (not a cell); Tab
and Shift+Tab leave the table (the arrows move inside it); the Menu key or Shift+F10 opens the
row's context menu.

Columns fit the width they get (column_fit.py). The title keeps at least TITLE_MIN pixels: below that the other
columns take their compact widths, then Score, Type and the optional columns step aside (the
person's own choices in the column chooser always win). Wide, the optional columns (Path, Updated,
Fused) come in. A row is two lines (title; badges and snippet), three (and the path) when the view
is tall enough to hold the whole page that way.
"""

from __future__ import annotations

import json
import time
from collections import deque

from PySide6.QtCore import QByteArray, QModelIndex, QPoint, QRect, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeyEvent, QKeySequence, QPainter, QPen
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QTableView, QWidget

from memhtml_desktop.ui.kit.turns import turn_timer
from memhtml_desktop.ui.results.column_fit import CHOOSABLE, OPTIONAL, fit
from memhtml_desktop.ui.results.delegates import ArmRankDelegate, ScoreBarDelegate, TitleDelegate
from memhtml_desktop.ui.results.results_model import (
    AGENT,
    ARM_NAMES,
    BAR_COLUMN,
    COLUMN_TITLES,
    FIRST_ARM_COLUMN,
    Column,
    ResultsModel,
    Role,
)
from memhtml_desktop.ui.results.row_pictures import RowPictures, placeholder

PAINT_BUDGET_S = 0.003
"""How long one paint event may spend drawing row pictures not cached yet (at least one is drawn);
the rest are drawn between events, a slice of RENDER_SLICE_S each, then shown in one more paint
(row_pictures.RowPictures), so a new answer never holds the GUI thread for its whole repaint."""
RENDER_SLICE_S = 0.006


class ResultsTable(QTableView):
    """The table over a ResultsModel (see the module docstring)."""

    open_requested = Signal(str)
    menu_requested = Signal(int, QPoint)  # row, global position

    def __init__(self, model: ResultsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resultsTable")
        self._deferred = QRect()  # rows left for a later paint event (defer)
        self._renders: deque = deque()  # their pictures, to draw between paint events
        self.pictures = RowPictures(self)
        self._slices = turn_timer(self, self._paint_deferred)
        self.setAccessibleName("Results")
        self.setAccessibleDescription(
            "The ranked memories for the query: Enter or a click opens one, "
            "the Menu key lists what else can be done with it."
        )
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setTabKeyNavigation(False)  # Tab leaves the table; the arrows move inside it
        self.setShowGrid(False)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.setCornerButtonEnabled(False)
        # A header click asks the model to sort (see ResultsModel.sort); "#" ascending is the agent's
        # order (Qt's default indicator is descending, which would list the page upside down).
        self.horizontalHeader().setSortIndicator(Column.Position, Qt.SortOrder.AscendingOrder)
        self.setSortingEnabled(True)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu_at)
        self.verticalHeader().hide()
        self._title_delegate = TitleDelegate(self)
        self._arm_delegate = ArmRankDelegate(self)
        self._bar_delegate = ScoreBarDelegate(self)
        self.setItemDelegateForColumn(Column.Title, self._title_delegate)
        for offset in range(len(ARM_NAMES)):
            self.setItemDelegateForColumn(FIRST_ARM_COLUMN + offset, self._arm_delegate)
        self.setItemDelegateForColumn(BAR_COLUMN, self._bar_delegate)
        self._lines = 2
        self.verticalHeader().setDefaultSectionSize(self._row_height(2))
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(Column.Title, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(24)
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(lambda pos: self.column_menu().popup(header.mapToGlobal(pos)))
        header.sectionResized.connect(self._section_resized)
        header.sortIndicatorChanged.connect(self._sort_clicked)
        self._chosen: dict[int, bool] = {}  # the person's own column choices (the chooser)
        self._widths: dict[int, int] = {}  # widths the person dragged
        self._fitting = False
        self.paint_epoch = None
        for column in CHOOSABLE:
            header.setSectionHidden(column, column in OPTIONAL)
        self.clicked.connect(self._emit_open)
        self.doubleClicked.connect(self._emit_open)
        model.layoutChanged.connect(self.viewport().update)

    # -- opening and keys ----------------------------------------------------------------------

    def _emit_open(self, index: QModelIndex) -> None:
        path = index.data(Role.Path) if index.isValid() else None
        if path:
            self.open_requested.emit(path)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._emit_open(self.currentIndex())
            event.accept()
            return
        if event.matches(QKeySequence.StandardKey.Copy):
            path = self.currentIndex().data(Role.Path) if self.currentIndex().isValid() else None
            if path:
                QGuiApplication.clipboard().setText(path)
            event.accept()
            return
        if event.key() == Qt.Key.Key_Menu or (
            event.key() == Qt.Key.Key_F10 and event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            row = self.currentIndex().row()
            if row >= 0:
                rect = self.visualRect(self.model().index(row, Column.Title))
                self.menu_requested.emit(row, self.viewport().mapToGlobal(rect.center()))
            event.accept()
            return
        super().keyPressEvent(event)

    def _menu_at(self, pos: QPoint) -> None:
        index = self.indexAt(pos)
        if index.isValid():
            self.menu_requested.emit(index.row(), self.viewport().mapToGlobal(pos))

    def _sort_clicked(self, column: int, order: Qt.SortOrder) -> None:
        if not self._fitting:
            self.fit_columns()

    # -- columns -------------------------------------------------------------------------------

    def column_menu(self) -> QMenu:
        """The column chooser: every column but the title, checkable; "Fit columns" forgets choices."""
        menu = QMenu(self)
        menu.setObjectName("columnMenu")
        header = self.horizontalHeader()
        for column in CHOOSABLE:
            title = COLUMN_TITLES.get(column) or self.model().headerData(column, Qt.Orientation.Horizontal)
            action = QAction(str(title).replace(" \u26a0", ""), menu)
            action.setCheckable(True)
            action.setChecked(not header.isSectionHidden(column))
            action.toggled.connect(lambda on, c=column: self.choose_column(c, on))
            menu.addAction(action)
        menu.addSeparator()
        reset = QAction("Fit columns to the width", menu)
        reset.triggered.connect(self.reset_columns)
        menu.addAction(reset)
        return menu

    def choose_column(self, column: int, shown: bool) -> None:
        self._chosen[column] = shown
        self.fit_columns()

    def reset_columns(self) -> None:
        self._chosen.clear()
        self._widths.clear()
        self.fit_columns()

    def _section_resized(self, column: int, old: int, new: int) -> None:
        if not self._fitting and column != Column.Title and new > 0:
            self._widths[column] = new
            self._chosen.setdefault(column, True)  # a column the person sized stays where they put it

    def fit_columns(self) -> None:
        """Give every column its width for the room there is (see the module docstring)."""
        if self._fitting:
            return
        self._fitting = True
        try:
            header = self.horizontalHeader()
            room = self.viewport().width() or self.width()
            order = self.model().order() if hasattr(self.model(), "order") else AGENT
            shown, chosen = fit(room, order, self._chosen, self._widths)
            for column in CHOOSABLE:
                header.setSectionHidden(column, not shown[column])
                if shown[column]:
                    header.resizeSection(column, chosen[column])
        finally:
            self._fitting = False

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.fit_columns()
        self._fit_rows()

    def _row_height(self, lines: int) -> int:
        return self.fontMetrics().height() * lines + 12

    def _fit_rows(self) -> None:
        """Three lines a row when the page fits that way (a tall window), else two."""
        rows = max(10, self.model().rowCount())
        lines = 3 if self.viewport().height() >= rows * self._row_height(3) else 2
        if lines != self._lines:
            self._lines = lines
            self.verticalHeader().setDefaultSectionSize(self._row_height(lines))

    def save_state(self) -> QByteArray:
        state = {
            "chosen": {str(k): v for k, v in self._chosen.items()},
            "widths": {str(k): v for k, v in self._widths.items()},
        }
        return QByteArray(json.dumps(state).encode("utf-8"))

    def restore_state(self, state) -> None:
        try:
            data = json.loads(bytes(state).decode("utf-8"))
            self._chosen = {int(k): bool(v) for k, v in data.get("chosen", {}).items() if int(k) in CHOOSABLE}
            self._widths = {int(k): int(v) for k, v in data.get("widths", {}).items() if int(k) in CHOOSABLE}
        except (ValueError, TypeError, AttributeError, UnicodeDecodeError):
            self._chosen, self._widths = {}, {}  # an older header state: start from the defaults
        self.fit_columns()

    # -- painting: a picture a row, in slices (see row_pictures) --------------------------------

    budgeted = True
    """Whether paint events keep to PAINT_BUDGET_S (off: every row drawn in the event, as a grab
    for a screenshot wants)."""
    paint_by_rows = True
    """Off: QTableView paints cell by cell (the reference the row pictures are held to in tests)."""

    def defer(self, rect: QRect, render=None) -> None:
        """An area left for later: `render()` draws its picture outside any paint event, in slices
        of RENDER_SLICE_S, and the area is repainted once they are all drawn (one paint of cached
        pictures, not a paint per slice)."""
        if self._deferred.isNull() and not self._renders:
            self._slices.start()
        self._deferred = self._deferred.united(rect)
        if render is not None:
            self._renders.append(render)

    def _paint_deferred(self) -> None:
        deadline = time.perf_counter() + RENDER_SLICE_S
        while self._renders:
            self._renders.popleft()()
            if time.perf_counter() > deadline:
                break
        if self._renders:
            self._slices.start()
            return
        rect, self._deferred = self._deferred, QRect()
        if not rect.isNull():
            self.viewport().update(rect)

    def drain_paints(self) -> None:
        """Draw every pending row now (a grab or a test that reads pixels wants the whole picture)."""
        budgeted, self.budgeted = self.budgeted, False
        try:
            self.viewport().repaint()
        finally:
            self.budgeted = budgeted
        self._deferred, self._renders = QRect(), deque()

    def paintEvent(self, event) -> None:  # noqa: N802
        self.paint_epoch = self._epoch()
        try:
            if self.paint_by_rows:
                self._paint_rows(event.rect())
            else:
                super().paintEvent(event)
        finally:
            self.paint_epoch = None
        self._paint_page_cut()

    def _paint_rows(self, rect: QRect) -> None:
        """The rows that meet `rect`, each from its picture. Past the budget (at least one row is
        drawn), a row whose picture is not at hand is left for later (defer) without even asking
        what it shows, and keeps the picture it had in the last paint (a fill if it had none of its
        size) until its own comes. A row already drawn is always shown: a repaint converges."""
        top = self.rowAt(rect.top())
        if top < 0:
            return  # the area is below the last row (or the table is empty)
        bottom = self.rowAt(rect.bottom())
        bottom = self.model().rowCount() - 1 if bottom < 0 else bottom
        deadline = time.perf_counter() + PAINT_BUDGET_S if self.budgeted else None
        columns, epoch, width = self.pictures.columns(), self.paint_epoch, self.viewport().width()
        painter = QPainter(self.viewport())
        for row in range(top, bottom + 1):
            y, height = self.rowViewportPosition(row), self.rowHeight(row)
            if height <= 0:
                continue
            pixmap = self.pictures.ready(row, columns, epoch)
            if pixmap is None and deadline is not None and row > top and time.perf_counter() > deadline:
                area = QRect(0, y, width, height)
                shown = self.pictures.shown(row, area.size())
                if shown is None:
                    placeholder(painter, self, area, row)
                else:
                    painter.drawPixmap(0, y, shown)
                self.defer(area, lambda r=row: self._draw_row(r))
                continue
            if pixmap is None:
                key = self.pictures.key(row, columns, epoch)
                pixmap = self.pictures.cached(key) or self.pictures.render(row, key)
            self.pictures.show(row, pixmap)
            painter.drawPixmap(0, y, pixmap)
        painter.end()

    def _epoch(self) -> tuple:
        """What every cached picture depends on besides its content (CachedDelegate, RowPictures)."""
        return (self.palette().cacheKey(), self.font().key(), self.devicePixelRatioF())

    def _draw_row(self, row: int) -> None:
        """A deferred row's picture, for the table as it is now (the row may have changed or gone)."""
        if not 0 <= row < self.model().rowCount():
            return
        self.paint_epoch = self._epoch()
        try:
            key = self.pictures.key(row, self.pictures.columns(), self.paint_epoch)
            if self.pictures.cached(key) is None:
                self.pictures.render(row, key)
        finally:
            self.paint_epoch = None

    # -- the page cut --------------------------------------------------------------------------

    def _paint_page_cut(self) -> None:
        model = self.model()
        if model.order() != AGENT or model.sorted_by() is not None or not model.extra():
            return
        last = max((r for r in range(model.rowCount()) if model.page_position(r) is not None), default=-1)
        if last < 0 or last + 1 >= model.rowCount():
            return
        y = self.rowViewportPosition(last) + self.rowHeight(last)
        painter = QPainter(self.viewport())
        pen = QPen(self.palette().color(self.palette().ColorRole.Highlight))
        pen.setWidth(2)
        pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.drawLine(0, y - 1, self.viewport().width(), y - 1)
        painter.end()
