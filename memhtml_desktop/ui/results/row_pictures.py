"""The results table's rows as pictures: each visible row drawn once, then blitted (RowPictures).

QTableView paints cell by cell, and in this table every cell is a call into Python (a delegate's
paint, or the model's `data` for the plain columns). A new answer's first paint made ~140 of them
at 1400×900 before it could draw anything new, 20-28 ms on an idle machine, 56-69 ms with the two
cores loaded: the window's longest turn. The table now paints its visible rows itself (see
`ResultsTable.paintEvent`): one picture per row, drawn exactly as QTableView draws the row's cells
(the style's row panel, then the column's delegate, with the option QTableView would give it),
cached under what the row shows, its geometry, its state and the palette. A repaint is one blit a
row; a repeat of the same answer (the store changed, the page did not) draws nothing new; and a
row not drawn yet is a fill until its picture comes, drawn between paint events.

What a row shows is asked once per model `stamp` (cell by cell: a delegate's `content_key`, the
plain columns' text and whether it is muted); the hover state is not part of a row's look (the
app's style, Fusion, draws nothing for it).
"""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QModelIndex, QRect, Qt
from PySide6.QtGui import QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem, QTableView

from memhtml_desktop.ui.results.columns import DISPLAY_ROLE, FOREGROUND_ROLE

CACHE_SCREENS = 3
"""Row pictures kept: what fills the table's viewport this many times over (the page shown, the one
before it and a scroll back). A fixed 32 MB made the window's memory climb for thousands of
actions before the cache was full (the soak: +32 MB from action 1,000 to 4,500), for pictures of
rows nobody would see again."""
CACHE_MIN_BYTES = 2 * 1024 * 1024
CACHE_MAX_BYTES = 32 * 1024 * 1024
SHOWN_ROWS = 120
"""Rows whose last picture is remembered (to show while its new one is drawn): a few pages."""

_ROOT = QModelIndex()


class RowPictures:
    """The row pictures of one table (see the module docstring)."""

    def __init__(self, table: QTableView) -> None:
        self._table = table
        self._pixmaps: OrderedDict[tuple, QPixmap] = OrderedDict()
        self._bytes = 0
        self._contents: dict[int, tuple] = {}  # row -> what it shows, for one model stamp
        self._stamp: object = None
        self._shown: dict[int, QPixmap] = {}  # row -> the picture the last paint showed there
        self.drawn = 0
        """Row pictures drawn so far (tests and benches read it)."""

    # -- keys --------------------------------------------------------------------------------

    def columns(self) -> tuple[tuple[int, int, int], ...]:
        """(column, x, width) of every shown column that reaches into the viewport, left to right."""
        table, width = self._table, self._table.viewport().width()
        header = table.horizontalHeader()
        out = []
        for visual in range(header.count()):
            column = header.logicalIndex(visual)
            if header.isSectionHidden(column):
                continue
            x, w = table.columnViewportPosition(column), table.columnWidth(column)
            if w > 0 and x + w > 0 and x < width:
                out.append((column, x, w))
        return tuple(out)

    def key(self, row: int, columns: tuple, epoch: tuple) -> tuple:
        """Everything row `row`'s picture depends on, in this paint's `columns` and `epoch`."""
        table = self._table
        model, selection = table.model(), table.selectionModel()
        selected = None
        if selection is not None and selection.rowIntersectsSelection(row, _ROOT):
            selected = tuple(selection.isSelected(model.index(row, c)) for c, _, _ in columns)
        current = table.currentIndex()
        focus = current.column() if current.row() == row and (table.hasFocus() or table.viewport().hasFocus()) else None
        alternate = table.alternatingRowColors() and row & 1
        return (
            self._content(row, columns),
            table.rowHeight(row),
            columns,
            selected,
            focus,
            alternate,
            int(table.isEnabled()),
            table.isActiveWindow(),
            epoch,
        )

    def ready(self, row: int, columns: tuple, epoch: tuple) -> QPixmap | None:
        """Row `row`'s picture if it is at hand without asking the model anything (what the row
        shows already known for this stamp, the picture drawn)."""
        known = self._contents.get(row)
        stamp = getattr(self._table.model(), "stamp", None)
        if known is None or stamp is None or stamp != self._stamp or known[0] != tuple(c for c, _, _ in columns):
            return None
        return self.cached(self.key(row, columns, epoch))

    def _content(self, row: int, columns: tuple) -> tuple:
        model = self._table.model()
        stamp = getattr(model, "stamp", None)
        if stamp is None:  # a model that cannot say when its cells change: a picture per paint
            return (object(),)
        if stamp != self._stamp:
            self._contents.clear()
            self._stamp = stamp
        wanted = tuple(c for c, _, _ in columns)
        known = self._contents.get(row)
        if known is not None and known[0] == wanted:
            return known
        cells = []
        for column in wanted:
            index = model.index(row, column)
            delegate = self._table.itemDelegateForIndex(index)
            ask = getattr(delegate, "cell_content", None)
            cell = (
                ask(index)
                if ask is not None
                else (model.data(index, DISPLAY_ROLE), model.data(index, FOREGROUND_ROLE) is not None)
            )
            if cell is None:  # a cell that cannot be keyed: this row is drawn again for every stamp
                cell = (stamp, row)
            cells.append(cell)
        self._contents[row] = known = (wanted, tuple(cells))
        return known

    # -- pictures -------------------------------------------------------------------------------

    def budget(self) -> int:
        """The bytes of pictures kept: CACHE_SCREENS viewports at the screen's pixel ratio, within bounds."""
        viewport = self._table.viewport()
        ratio = viewport.devicePixelRatioF()
        screen = viewport.width() * viewport.height() * ratio * ratio * 4
        return int(min(CACHE_MAX_BYTES, max(CACHE_MIN_BYTES, CACHE_SCREENS * screen)))

    def held_bytes(self) -> int:
        """What the kept pictures take (tests and the soak read it)."""
        return self._bytes

    def cached(self, key: tuple) -> QPixmap | None:
        pixmap = self._pixmaps.get(key)
        if pixmap is not None:
            self._pixmaps.move_to_end(key)
        return pixmap

    def render(self, row: int, key: tuple) -> QPixmap:
        """Draw row `row` into a new picture cached under `key`, cell by cell as QTableView would."""
        table = self._table
        columns, height, ratio = key[2], key[1], key[-1][2]
        width = table.viewport().width()
        pixmap = QPixmap(max(1, round(width * ratio)), max(1, round(height * ratio)))
        pixmap.setDevicePixelRatio(ratio)
        viewport = table.viewport()
        pixmap.fill(viewport.palette().color(viewport.backgroundRole()))  # what the viewport is filled with
        painter = QPainter(pixmap)
        base = QStyleOptionViewItem()
        table.initViewItemOption(base)
        if key[5]:
            base.features |= QStyleOptionViewItem.ViewItemFeature.Alternate
        model, style = table.model(), table.style()
        selected, focus = key[3], key[4]
        for at, (column, x, w) in enumerate(columns):
            index = model.index(row, column)
            option = QStyleOptionViewItem(base)
            option.rect = QRect(x, 0, w, height)
            if selected is not None and selected[at]:
                option.state |= QStyle.StateFlag.State_Selected
            if focus == column:
                option.state |= QStyle.StateFlag.State_HasFocus
            if option.state & QStyle.StateFlag.State_Enabled:
                if model.flags(index) & Qt.ItemFlag.ItemIsEnabled:
                    option.palette.setCurrentColorGroup(QPalette.ColorGroup.Normal)
                else:
                    option.state &= ~QStyle.StateFlag.State_Enabled
                    option.palette.setCurrentColorGroup(QPalette.ColorGroup.Disabled)
            style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewRow, option, painter, table)
            table.itemDelegateForIndex(index).paint(painter, option, index)
        painter.end()
        self._pixmaps[key] = pixmap
        self._bytes += pixmap.width() * pixmap.height() * 4
        budget = self.budget()
        while self._bytes > budget and len(self._pixmaps) > 1:
            _, old = self._pixmaps.popitem(last=False)
            self._bytes -= old.width() * old.height() * 4
        self.drawn += 1
        return pixmap

    def show(self, row: int, pixmap: QPixmap) -> None:
        """Remember `pixmap` as what row `row` shows now."""
        if len(self._shown) > SHOWN_ROWS:
            self._shown.clear()
        self._shown[row] = pixmap

    def shown(self, row: int, size) -> QPixmap | None:
        """The picture row `row` showed last, if it has this size (in device-independent pixels)."""
        pixmap = self._shown.get(row)
        return pixmap if pixmap is not None and pixmap.deviceIndependentSize().toSize() == size else None

    def clear(self) -> None:
        self._pixmaps.clear()
        self._shown.clear()
        self._bytes = 0


def placeholder(painter: QPainter, table: QTableView, rect: QRect, row: int) -> None:
    """A row whose picture is not drawn yet: its colour until the picture comes."""
    palette = table.palette()
    selection = table.selectionModel()
    if selection is not None and selection.rowIntersectsSelection(row, _ROOT):
        painter.fillRect(rect, palette.brush(QPalette.ColorRole.Highlight))
    elif table.alternatingRowColors() and row & 1:
        painter.fillRect(rect, palette.brush(QPalette.ColorRole.AlternateBase))
