"""A new answer's repaint is drawn in slices (ResultsTable.PAINT_BUDGET_S, CachedDelegate) and the
pool chart's new picture in an event of its own: both must end in the very picture an unsliced
paint makes, and no cell may be left undrawn."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject

from memhtml_desktop.ui.results import results_table
from memhtml_desktop.ui.results.cached_delegate import CachedDelegate
from memhtml_desktop.ui.results.columns import Column
from tests.ui.test_main_window import WAIT, wait_for_query


def _forget_pictures(table) -> None:
    for column in range(table.model().columnCount()):
        delegate = table.itemDelegateForColumn(column)
        if hasattr(delegate, "_pixmaps"):
            delegate._pixmaps.clear()


def test_a_sliced_repaint_draws_every_cell_in_the_events_that_follow(qtbot, window, monkeypatch):
    window.set_query("rollback")
    wait_for_query(qtbot, window, "rollback")
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=WAIT)
    table = window.results.table
    monkeypatch.setattr(results_table, "PAINT_BUDGET_S", -1.0)  # every paint event past its budget
    _forget_pictures(table)
    table.viewport().repaint()
    assert not table._deferred.isNull(), "cells past the budget were left for a later event"
    drawn = _pictures(table)
    assert 0 < drawn < table.model().rowCount() * 4

    # The window's own paint events draw the rest, a few cells each, with nobody asking again.
    counts = []

    def settled() -> bool:  # no new picture for 300 ms
        qtbot.wait(100)
        counts.append(_pictures(table))
        return len(counts) >= 4 and len(set(counts[-4:])) == 1

    qtbot.waitUntil(settled, timeout=WAIT)
    assert _pictures(table) > drawn
    table.viewport().repaint()  # a paint now finds every cell drawn: nothing is left for later
    assert table._deferred.isNull(), "a cell was still undrawn after the window's paint events"


def _pictures(table) -> int:
    return sum(len(getattr(table.itemDelegateForColumn(c), "_pixmaps", {})) for c in range(table.model().columnCount()))


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
    """Every paint event costs the whole visible table (8-12 ms even from cached pictures on this
    machine), so the cells left over are drawn BETWEEN paint events and shown in one more paint."""
    window.resize(1400, 900)
    for query in ("rollback", "drain the vip"):  # two answers: two different pages of rows
        window.set_query(query)
        wait_for_query(qtbot, window, query)
        qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=WAIT)
    table = window.results.table
    monkeypatch.setattr(results_table, "PAINT_BUDGET_S", -1.0)  # a paint draws MIN_DRAWN cells, no more
    monkeypatch.setattr(results_table, "RENDER_SLICE_S", -1.0)  # and a slice between paints one cell
    _forget_pictures(table)
    qtbot.wait(50)
    paints = _Paints(table.viewport())
    table.viewport().update()
    qtbot.waitUntil(lambda: paints.count >= 1, timeout=WAIT)
    qtbot.waitUntil(lambda: table._deferred.isNull() and not table._renders, timeout=WAIT)
    qtbot.wait(100)
    cells = _pictures(table)
    assert cells > 3 * CachedDelegate.MIN_DRAWN, "one cell a slice: many slices ran between the paints"
    assert paints.count <= 3, f"{paints.count} paints for {cells} pictures: a paint per slice"
    table.viewport().repaint()  # and that paint left nothing undrawn
    assert table._deferred.isNull() and not table._renders


def test_a_paint_asks_each_cell_what_it_shows_once_per_answer(qtbot, window):
    window.set_query("rollback")
    wait_for_query(qtbot, window, "rollback")
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=WAIT)
    table = window.results.table
    table.drain_paints()
    delegate = table.itemDelegateForColumn(Column.Title)
    asked: list[int] = []
    original = type(delegate).content_key
    delegate.content_key = lambda index: asked.append(index.row()) or original(delegate, index)
    table.drain_paints()
    table.drain_paints()
    assert asked == [], "a repaint of the same answer asked the cells again"
    window.set_query("drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    table.drain_paints()
    table.drain_paints()
    assert asked and len(asked) == len(set(asked)), f"each row's title asked once for the new answer: {asked}"
