"""The results table paints a picture a row (ResultsTable.paintEvent, row_pictures.RowPictures),
a new answer's rows past the paint's budget drawn between paint events; and the pool chart draws
a new picture in an event of its own. Every path must end in the very picture QTableView's own
cell-by-cell paint makes, and no row may be left undrawn."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from memhtml_desktop.ui.results import results_table
from memhtml_desktop.ui.results.columns import Column
from tests.ui.test_main_window import WAIT, wait_for_query


def _answered(qtbot, window, query: str) -> None:
    window.set_query(query)
    wait_for_query(qtbot, window, query)
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=WAIT)


def _picture(table, by_rows: bool) -> QImage:
    table.paint_by_rows = by_rows
    try:
        table.drain_paints()
        return table.viewport().grab().toImage()
    finally:
        table.paint_by_rows = True


def _differing_pixels(a: QImage, b: QImage) -> int:
    assert a.size() == b.size()
    return sum(a.pixel(x, y) != b.pixel(x, y) for y in range(0, a.height(), 1) for x in range(0, a.width(), 2))


@pytest.mark.parametrize(
    ("theme", "size", "query", "row"),
    [
        ("light", (1400, 900), "rollback", 1),
        ("dark", (1024, 700), "drain the vip", 0),
    ],
)
def test_rows_painted_from_pictures_are_the_table_painted_cell_by_cell(qtbot, window, theme, size, query, row):
    from memhtml_desktop.ui.shell.theme import apply_theme

    app = QApplication.instance()
    palette, style = app.palette(), app.style().name()
    apply_theme(app, theme)
    try:
        window.resize(*size)
        _answered(qtbot, window, query)
        table = window.results.table
        window.results.set_current_row(row)
        table.setFocus(Qt.FocusReason.OtherFocusReason)
        qtbot.wait(50)
        assert table.model().rowCount() > 3
        by_cells, by_rows = _picture(table, False), _picture(table, True)
        assert _differing_pixels(by_cells, by_rows) == 0
        # And the pictures kept: a state change (another row chosen) is drawn, not a stale picture blitted.
        window.results.set_current_row(row + 2)
        qtbot.wait(50)
        assert _differing_pixels(_picture(table, False), _picture(table, True)) == 0
    finally:
        app.setPalette(palette)
        app.setStyle(style)


def _forget_pictures(qtbot, table) -> None:
    """Every picture forgotten, after the rows still being drawn for the last answer are done."""
    qtbot.waitUntil(lambda: table._deferred.isNull() and not table._renders, timeout=WAIT)
    table.pictures.clear()
    for column in range(table.model().columnCount()):
        delegate = table.itemDelegateForColumn(column)
        if hasattr(delegate, "forget_pictures"):
            delegate.forget_pictures()


def test_a_sliced_repaint_draws_every_row_in_the_events_that_follow(qtbot, window, monkeypatch):
    window.resize(1400, 900)
    _answered(qtbot, window, "rollback")
    table = window.results.table
    monkeypatch.setattr(results_table, "PAINT_BUDGET_S", -1.0)  # every paint event past its budget
    _forget_pictures(qtbot, table)
    before = table.pictures.drawn
    table.viewport().repaint()
    assert table.pictures.drawn - before == 1, "a paint past its budget draws one row, no more"
    assert not table._deferred.isNull(), "the rows past the budget were left for later"
    # The window's own events draw the rest, with nobody asking again.
    qtbot.waitUntil(lambda: table._deferred.isNull() and not table._renders, timeout=WAIT)
    drawn = table.pictures.drawn
    assert drawn - before >= _visible_rows(table) > 3
    table.viewport().repaint()  # a paint now finds every row drawn: nothing is left for later
    assert table._deferred.isNull() and table.pictures.drawn == drawn, "a row was still undrawn"


def _visible_rows(table) -> int:
    bottom = table.rowAt(table.viewport().height() - 1)
    return (table.model().rowCount() if bottom < 0 else bottom + 1) - max(0, table.rowAt(0))


class _Paints(QObject):
    """Counts the paint events a widget receives."""

    def __init__(self, widget) -> None:
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def test_a_new_answer_past_its_budget_is_shown_in_one_more_paint_not_a_paint_per_slice(qtbot, window, monkeypatch):
    """Every paint event costs the whole visible table, so the rows left over are drawn BETWEEN
    paint events and shown in one more paint."""
    window.resize(1400, 900)
    for query in ("rollback", "drain the vip"):  # two answers: two different pages of rows
        _answered(qtbot, window, query)
    table = window.results.table
    monkeypatch.setattr(results_table, "PAINT_BUDGET_S", -1.0)  # a paint draws one row, no more
    monkeypatch.setattr(results_table, "RENDER_SLICE_S", -1.0)  # and a slice between paints one row
    _forget_pictures(qtbot, table)
    before = table.pictures.drawn
    paints = _Paints(table.viewport())
    table.viewport().update()
    qtbot.waitUntil(lambda: paints.count >= 1, timeout=WAIT)
    qtbot.waitUntil(lambda: table._deferred.isNull() and not table._renders, timeout=WAIT)
    qtbot.wait(100)
    rows = table.pictures.drawn - before
    assert rows >= _visible_rows(table) > 3, "one row a slice: many slices ran between the paints"
    assert paints.count <= 3, f"{paints.count} paints for {rows} rows: a paint per slice"
    table.viewport().repaint()  # and that paint left nothing undrawn
    assert table._deferred.isNull() and not table._renders


def test_the_same_answer_again_draws_no_row_and_another_answer_draws_its_rows(qtbot, window):
    """The store changed under the window and the search ran again with the same page: its rows
    are what they were, so no picture is drawn (the model's stamp moved, what the rows show did not)."""
    window.resize(1400, 900)
    _answered(qtbot, window, "rollback")
    table, model = window.results.table, window.results.model
    table.drain_paints()
    drawn, stamp = table.pictures.drawn, model.stamp
    model.set_answer(model.answer())
    assert model.stamp != stamp
    table.drain_paints()
    assert table.pictures.drawn == drawn
    _answered(qtbot, window, "drain the vip")
    table.drain_paints()
    assert table.pictures.drawn > drawn


def test_a_paint_asks_each_cell_what_it_shows_once_per_answer(qtbot, window):
    _answered(qtbot, window, "rollback")
    table = window.results.table
    table.drain_paints()
    delegate = table.itemDelegateForColumn(Column.Title)
    asked: list[int] = []
    original = type(delegate).content_key
    delegate.content_key = lambda index: asked.append(index.row()) or original(delegate, index)
    table.drain_paints()
    table.drain_paints()
    assert asked == [], "a repaint of the same answer asked the cells again"
    _answered(qtbot, window, "drain the vip")
    table.drain_paints()
    table.drain_paints()
    assert asked and len(asked) == len(set(asked)), f"each row's title asked once for the new answer: {asked}"


def test_the_pool_chart_draws_a_new_pool_after_the_paint_that_found_it(qtbot, window):
    chart = window.chart
    window.set_query("rollback")
    wait_for_query(qtbot, window, "rollback")
    qtbot.waitUntil(lambda: chart.pool() is not None and chart.pool().query == "rollback", timeout=WAIT)
    qtbot.waitUntil(lambda: chart._picture is not None and chart._picture[0][0] == id(chart.pool()), timeout=WAIT)
    before = chart._picture
    # No paint may reach the chart while the new pool arrives (the wait spins the event loop, and a
    # paint there would find the picture stale first and render before the one this test makes).
    chart.setUpdatesEnabled(False)
    window.set_query("drain the vip")
    qtbot.waitUntil(lambda: chart.pool().query == "drain the vip", timeout=WAIT)
    chart.setUpdatesEnabled(True)
    chart.repaint()  # the paint that finds the picture stale blits the old one ...
    assert chart._picture is before and chart._render_pending
    qtbot.waitUntil(lambda: chart._picture[0][0] == id(chart.pool()), timeout=WAIT)  # ... the next draws it
    assert not chart._render_pending
