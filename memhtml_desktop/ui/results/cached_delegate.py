"""A delegate that paints each distinct cell once into a picture and blits it after (CachedDelegate)."""

from __future__ import annotations

import time
from collections import OrderedDict

from PySide6.QtCore import QPersistentModelIndex, QPoint, QRect, Qt
from PySide6.QtGui import QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem


def background(painter: QPainter, option: QStyleOptionViewItem, index) -> QStyleOptionViewItem:
    """Paint the cell's panel (selection, hover, alternate row) and return the prepared option."""
    opt = QStyleOptionViewItem(option)
    opt.text = ""
    opt.features &= ~QStyleOptionViewItem.ViewItemFeature.HasDisplay
    style = opt.widget.style() if opt.widget is not None else QApplication.style()
    style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, opt, painter, opt.widget)
    return opt


def placeholder(painter: QPainter, option: QStyleOptionViewItem) -> None:
    """A deferred cell's background until its picture comes: the row's colour, filled (the style's
    panel, with a copy of the option, cost ten times as much for a cell drawn a turn later)."""
    if option.state & QStyle.StateFlag.State_Selected:
        painter.fillRect(option.rect, option.palette.brush(QPalette.ColorRole.Highlight))
    elif option.features & QStyleOptionViewItem.ViewItemFeature.Alternate:
        painter.fillRect(option.rect, option.palette.brush(QPalette.ColorRole.AlternateBase))


class CachedDelegate(QStyledItemDelegate):
    """A delegate that paints each distinct cell once, into a pixmap, and blits it after.

    A results table repaints whenever anything moves (a new answer, the pool behind it, a row
    chosen, the window exposed), and painting ~250 cells through Python took the GUI thread tens
    of milliseconds, hundreds on a loaded machine, while typing. A cell's look depends only on
    what `content_key` says it shows, its size, its state (selected, focused, alternate row) and
    the palette, so that is the cache key; many cells share one (an arm's rank 1, a dash).

    A new answer misses the cache in every cell at once: 250 cells drawn in one paint event were
    40-110 ms of the GUI thread on a loaded machine while the store was being indexed, the longest
    stall the window had. So a view may give a paint event a time budget (`paint_deadline`, a
    `time.perf_counter()` instant): past it, a cell that is not cached yet gets only its background
    and is handed to the view's `defer_cell` with a function that draws its picture, which the
    view calls between paint events, and then repaints the cells' area once, from the cache. (Left
    to later paint events, the cells came back in five to seven paints of the whole visible table,
    8-12 ms each even when every picture was cached.) At least `MIN_DRAWN` cells are drawn per
    event; a paint outside such a view (a test, a grab without a deadline) draws everything at once.

    A paint asks `content_key` of every cell; a model with a `stamp` (moved whenever what a cell
    shows may have changed) has each cell's key computed once per stamp.
    """

    CACHE = 1500
    MIN_DRAWN = 3

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._pixmaps: OrderedDict[tuple, QPixmap] = OrderedDict()
        self._keys: dict[tuple[int, int], tuple | None] = {}  # (row, column) -> content_key, for one model stamp
        self._stamp: object = None

    def content_key(self, index) -> tuple | None:
        """What the cell shows (None: paint it directly, uncached)."""
        return None

    def draw(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        raise NotImplementedError

    def _content(self, index) -> tuple | None:
        """`content_key`, asked once per cell while the model's `stamp` stays (a paint asks every cell)."""
        stamp = getattr(index.model(), "stamp", None)
        if stamp is None:
            return self.content_key(index)
        if stamp != self._stamp:
            self._keys.clear()
            self._stamp = stamp
        cell = (index.row(), index.column())
        if cell not in self._keys:
            self._keys[cell] = self.content_key(index)
        return self._keys[cell]

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        content = self._content(index)
        size = option.rect.size()
        if content is None or size.isEmpty():
            painter.save()
            painter.setClipRect(option.rect)
            self.draw(painter, option, index)
            painter.restore()
            return
        view = option.widget
        epoch = getattr(view, "paint_epoch", None)  # the view's palette/font/ratio, once per paint event
        if epoch is None:
            device = painter.device()
            epoch = (option.palette.cacheKey(), option.font.key(), device.devicePixelRatioF() if device else 1.0)
        key = (content, size.width(), size.height(), option.state.value, option.features.value, epoch)
        pixmap = self._pixmaps.get(key)
        if pixmap is None and self._over_budget(view):
            placeholder(painter, option)
            later = QStyleOptionViewItem(option)  # the paint's own option lives only as long as the paint
            view.defer_cell(option.rect, lambda at=QPersistentModelIndex(index): self._render(key, later, at))
            return
        if pixmap is None:
            pixmap = self._render(key, option, index)
        else:
            self._pixmaps.move_to_end(key)
        painter.drawPixmap(option.rect.topLeft(), pixmap)

    def _render(self, key: tuple, option: QStyleOptionViewItem, index) -> QPixmap | None:
        """Draw the cell into a new picture cached under `key` (nothing for a row gone since)."""
        if not index.isValid():
            return None
        if key in self._pixmaps:
            return self._pixmaps[key]
        size, ratio = option.rect.size(), key[-1][2]
        pixmap = QPixmap(round(size.width() * ratio), round(size.height() * ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        local = QStyleOptionViewItem(option)
        local.rect = QRect(QPoint(0, 0), size)
        inner = QPainter(pixmap)
        self.draw(inner, local, index)
        inner.end()
        self._pixmaps[key] = pixmap
        if len(self._pixmaps) > self.CACHE:
            self._pixmaps.popitem(last=False)
        return pixmap

    def _over_budget(self, view) -> bool:
        """Whether this paint event of `view` has spent its budget (see the class docstring)."""
        deadline = getattr(view, "paint_deadline", None)
        if deadline is None or not hasattr(view, "defer_cell"):
            return False
        view.paint_drawn = getattr(view, "paint_drawn", 0) + 1
        return view.paint_drawn > self.MIN_DRAWN and time.perf_counter() > deadline
