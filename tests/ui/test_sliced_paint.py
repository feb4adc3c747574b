"""A new answer's repaint is drawn in slices (ResultsTable.PAINT_BUDGET_S, CachedDelegate) and the
pool chart's new picture in an event of its own: both must end in the very picture an unsliced
paint makes, and no cell may be left undrawn."""

from __future__ import annotations

from memhtml_desktop.ui.results import results_table
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
