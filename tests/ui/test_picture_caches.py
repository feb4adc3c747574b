"""What the window keeps grows to a bound and stops (issue 40's soak): the results table's row
pictures and its delegates' cell pictures are bounded by their bytes, the row pictures by what
fills the viewport a few times over; the reader frees every layout item it empties."""

from __future__ import annotations

import shiboken6
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget, QWidgetItem

from memhtml_desktop.ui.reader.reader_parts import _clear_layout
from memhtml_desktop.ui.results import row_pictures
from memhtml_desktop.ui.results.cached_delegate import CachedDelegate
from tests.ui.test_main_window import WAIT, wait_for_query


def _held(pixmaps) -> int:
    return sum(p.width() * p.height() * 4 for p in pixmaps.values())


def _answered(qtbot, window, query: str) -> None:
    window.set_query(query)
    wait_for_query(qtbot, window, query)
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=WAIT)


def test_row_pictures_stop_at_a_few_viewports_of_bytes(qtbot, window):
    window.resize(1024, 700)
    _answered(qtbot, window, "rollback")
    table = window.results.table
    qtbot.waitUntil(lambda: table._deferred.isNull() and not table._renders, timeout=WAIT)
    viewport = table.viewport()
    drawn = table.pictures.drawn
    for turn in range(40):  # forty widths of the same rows: forty pages of new pictures
        window.resize(1024 + 2 * (turn % 2) - turn, 700)
        qtbot.waitUntil(lambda: table._deferred.isNull() and not table._renders, timeout=WAIT)
        table.viewport().repaint()
        table.drain_paints()
        ratio = viewport.devicePixelRatioF()
        screen = viewport.width() * viewport.height() * ratio * ratio * 4
        # a few screens of rows, never the 32 MB kept before whatever the window's size
        assert _held(table.pictures._pixmaps) <= max(
            getattr(row_pictures, "CACHE_SCREENS", 3) * screen, 2 * 1024 * 1024
        )
    assert table.pictures.drawn - drawn > 40, "the widths did not make new pictures: the bound was not tried"
    budget = table.pictures.budget()
    assert budget == int(
        min(row_pictures.CACHE_MAX_BYTES, max(row_pictures.CACHE_MIN_BYTES, row_pictures.CACHE_SCREENS * screen))
    )
    assert _held(table.pictures._pixmaps) == table.pictures.held_bytes()
    row_bytes = viewport.width() * ratio * table.rowHeight(0) * ratio * 4
    assert table.pictures.held_bytes() > budget - 2 * row_bytes, "the cache should fill to its bound"


class _Cells(CachedDelegate):
    turn = 0
    CACHE_BYTES = 200 * 30 * 4 * 10  # ten cells of 200x30

    def content_key(self, index) -> tuple:
        return ("cell", self.turn)

    def draw(self, painter, option, index) -> None:
        painter.fillRect(option.rect, option.palette.base())


def test_a_delegate_keeps_cell_pictures_up_to_its_bytes(qtbot):
    from PySide6.QtGui import QPainter, QPixmap, QStandardItemModel
    from PySide6.QtWidgets import QStyleOptionViewItem, QTableView

    view = QTableView()
    qtbot.addWidget(view)
    model = QStandardItemModel(1, 1)
    view.setModel(model)
    delegate = _Cells(view)
    target = QPixmap(200, 30)
    painter = QPainter(target)
    option = QStyleOptionViewItem()
    option.rect = target.rect()
    option.widget = view
    for turn in range(50):  # fifty distinct cells, each 200x30
        delegate.turn = turn
        delegate.paint(painter, option, model.index(0, 0))
        assert _held(delegate._pixmaps) <= _Cells.CACHE_BYTES
    painter.end()
    assert delegate.held_bytes() == _Cells.CACHE_BYTES, "ten cells fit exactly; the rest were let go"
    assert len(delegate._pixmaps) == 10


def test_emptying_a_layout_deletes_its_items(qtbot):
    """`takeAt` hands the item to the caller, and PySide6 never deleted it: a leak at each open."""
    host = QWidget()
    qtbot.addWidget(host)
    grid = QGridLayout(host)
    items = []
    for row in range(6):
        label = QLabel(f"row {row}", host)
        item = QWidgetItem(label)  # made here, so shiboken hears of its deletion
        grid.addItem(item, row, 0)
        items.append(item)
    _clear_layout(grid)
    assert grid.count() == 0
    assert not any(shiboken6.isValid(item) for item in items), "a layout item outlived the layout's emptying"
