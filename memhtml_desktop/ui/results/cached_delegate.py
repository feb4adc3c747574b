"""A delegate that paints each distinct cell once into a picture and blits it after (CachedDelegate)."""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem


def background(painter: QPainter, option: QStyleOptionViewItem, index) -> QStyleOptionViewItem:
    """Paint the cell's panel (selection, hover, alternate row) and return the prepared option."""
    opt = QStyleOptionViewItem(option)
    opt.text = ""
    opt.features &= ~QStyleOptionViewItem.ViewItemFeature.HasDisplay
    style = opt.widget.style() if opt.widget is not None else QApplication.style()
    style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, opt, painter, opt.widget)
    return opt


class CachedDelegate(QStyledItemDelegate):
    """A delegate that paints each distinct cell once, into a pixmap, and blits it after.

    A results table repaints whenever anything moves (a new answer, the pool behind it, a row
    chosen, the window exposed), and painting ~250 cells through Python took the GUI thread tens
    of milliseconds, hundreds on a loaded machine, while typing. A cell's look depends only on
    what `content_key` says it shows, its size, its state (selected, focused, alternate row) and
    the palette, so that is the cache key; many cells share one (an arm's rank 1, a dash).

    A new answer misses the cache in every cell at once; the results table draws its rows as
    pictures of their own (`row_pictures.RowPictures`), outside its paint events when a paint has
    spent its budget, so a delegate only draws what it is asked to, when it is asked.

    `cell_content` is `content_key` asked once per cell while a model's `stamp` (moved whenever
    what a cell shows may have changed) stays.
    """

    CACHE_BYTES = 3 * 1024 * 1024
    """Cell pictures kept per delegate, by their size in memory. It was 1,500 pictures whatever their
    size (57 MB of title cells at 1400 pixels), and the window's memory climbed until they were all
    drawn; the rows' own pictures (row_pictures) are what a repaint blits, so a few pages of cells
    is what pays."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._pixmaps: OrderedDict[tuple, QPixmap] = OrderedDict()
        self._keys: dict[tuple[int, int], tuple | None] = {}  # (row, column) -> content_key, for one model stamp
        self._stamp: object = None
        self._bytes = 0

    def held_bytes(self) -> int:
        """What the kept cell pictures take (tests read it)."""
        return self._bytes

    def forget_pictures(self) -> None:
        self._pixmaps.clear()
        self._bytes = 0

    def content_key(self, index) -> tuple | None:
        """What the cell shows (None: paint it directly, uncached)."""
        return None

    def draw(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        raise NotImplementedError

    def cell_content(self, index) -> tuple | None:
        """`content_key`, asked once per cell while the model's `stamp` stays."""
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
        content = self.cell_content(index)
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
        if pixmap is None:
            pixmap = self._render(key, option, index)
        else:
            self._pixmaps.move_to_end(key)
        painter.drawPixmap(option.rect.topLeft(), pixmap)

    def _render(self, key: tuple, option: QStyleOptionViewItem, index) -> QPixmap:
        """Draw the cell into a new picture cached under `key`."""
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
        self._bytes += pixmap.width() * pixmap.height() * 4
        while self._bytes > self.CACHE_BYTES and len(self._pixmaps) > 1:
            _, old = self._pixmaps.popitem(last=False)
            self._bytes -= old.width() * old.height() * 4
        return pixmap
