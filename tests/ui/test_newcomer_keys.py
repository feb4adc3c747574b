"""Issue 41, as a newcomer meets the window: the entity field's keys, the status bar, the header while
a first index runs, the pool chart's words, and what the reader shows after a write.

Each test drives the real MainWindow (QTest keys, clicks, resizes) and failed on the code before
its fix; the docstring says what the person saw.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QToolButton

from memhtml_desktop.domain.types import Scope
from tests.ui.test_main_window import WAIT, type_query, wait_for_query

# -- 4. the entity field --------------------------------------------------------------------------


def _entity_names(qtbot, window) -> list[str]:
    qtbot.waitUntil(lambda: window.filters.entity_names.rowCount() > 0, timeout=WAIT)
    return window.filters.entity_names.stringList()


def _popup_up(window) -> bool:
    return window.filters.completer.popup().isVisible()


def test_esc_in_the_entity_field_clears_the_entity_text_and_never_the_query(qtbot, window):
    """Esc in "Filter by entity" wiped the main query (the window's Esc shortcut) and left what was
    typed in the entity field."""
    type_query(qtbot, window, "drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    searches = window.driver.generation
    edit = window.filters.entity_edit
    assert any("connection" in n for n in _entity_names(qtbot, window))
    edit.setFocus()
    qtbot.keyClicks(edit, "conn")
    assert _popup_up(window)  # the completions for "conn"
    qtbot.keyClick(edit, Qt.Key.Key_Escape)  # first: the completions close, the text stays
    assert not _popup_up(window) and edit.text() == "conn"
    qtbot.keyClick(edit, Qt.Key.Key_Escape)  # then: the field empties
    assert edit.text() == ""
    assert window.search_bar.field.text() == "drain the vip"
    assert window.session.query == "drain the vip" and window.driver.generation == searches
    qtbot.keyClick(edit, Qt.Key.Key_Escape)  # on an empty field: back to the query, still untouched
    assert window.search_bar.field.hasFocus()
    assert window.search_bar.field.text() == "drain the vip" and window.driver.generation == searches


def test_a_chosen_entity_empties_the_field_and_clearing_it_pops_nothing_up(qtbot, window, store):
    """After picking an entity its name stayed in the field; emptying the field (its clear button,
    Backspace) must not open a list of every entity that takes the next click or key, and the
    next thing typed in the search field lands there whole."""
    type_query(qtbot, window, "drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    edit = window.filters.entity_edit
    names = _entity_names(qtbot, window)
    wanted = next(n for n in names if n.casefold().startswith("concept:connection"))
    edit.setFocus()
    qtbot.keyClicks(edit, "connection dr")
    popup = window.filters.completer.popup()
    assert _popup_up(window)
    qtbot.keyClick(popup, Qt.Key.Key_Down)
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.session.scope.entity is not None, timeout=WAIT)
    assert window.session.scope.entity.casefold() == wanted.casefold()
    qtbot.waitUntil(lambda: edit.text() == "", timeout=WAIT)
    assert not _popup_up(window)
    # typed again, then emptied by its clear button and by Backspace: no list of everything
    for empty in ("button", "backspace", "select-all"):
        qtbot.keyClicks(edit, "co")
        assert _popup_up(window)
        if empty == "button":
            button = next(b for b in edit.findChildren(QToolButton) if b.isVisible())
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=button.rect().center())
        elif empty == "backspace":
            qtbot.keyClick(edit, Qt.Key.Key_Backspace)
            qtbot.keyClick(edit, Qt.Key.Key_Backspace)
        else:
            edit.selectAll()
            qtbot.keyClick(edit, Qt.Key.Key_Delete)
        qtbot.wait(50)
        assert edit.text() == "" and not _popup_up(window), empty
    # the store's values arriving again (a write, a watcher batch) open nothing either
    window.filters.set_universe(store.counts("", Scope()))
    assert not _popup_up(window)
    qtbot.mouseClick(window.search_bar.field, Qt.MouseButton.LeftButton)
    window.search_bar.field.clear()
    qtbot.keyClicks(window.search_bar.field, "rollback")
    assert window.search_bar.field.text() == "rollback" and edit.text() == ""


def test_enter_in_the_entity_field_takes_a_unique_match_and_refuses_a_name_no_memory_carries(qtbot, window):
    """Enter on a half-typed name made a filter on that text ("concept:conn"), which no memory
    carries: the list went empty for a typo."""
    type_query(qtbot, window, "drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    edit = window.filters.entity_edit
    names = _entity_names(qtbot, window)
    edit.setFocus()
    qtbot.keyClicks(edit, "concept:zzz-nothing")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    QApplication.processEvents()
    assert window.session.scope.entity is None and edit.text() == "concept:zzz-nothing"
    edit.clear()
    unique = next(n for n in names if "sanju" in n.casefold())
    assert sum("sanju" in n.casefold() for n in names) == 1
    qtbot.keyClicks(edit, "SANJU")
    if _popup_up(window):
        window.filters.completer.popup().hide()
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.session.scope.entity == unique, timeout=WAIT)
    qtbot.waitUntil(lambda: edit.text() == "", timeout=WAIT)


def test_resolve_takes_the_name_typed_or_the_one_name_holding_it():
    from memhtml_desktop.ui.filters.entity_field import resolve

    names = ["concept:connection draining", "concept:Connection Draining", "person:sanju", "service:checkout-api"]
    assert resolve("person:SANJU", names) == "person:sanju"
    assert resolve("concept:Connection Draining", names) == "concept:Connection Draining"
    assert resolve("checkout", names) == "service:checkout-api"
    assert resolve("connection", names) is None  # two names hold it
    assert resolve("  ", names) is None and resolve("x", []) is None


# -- 9. the status bar ----------------------------------------------------------------------------


def test_a_transient_message_is_never_drawn_under_a_label_the_watcher_shows(qtbot, window):
    """After a write, "… committed 0123456789ab" was drawn with the watcher's last-batch label on
    top of it: the label was shown again (setVisible) while the message held the bar."""
    from memhtml_desktop.watch.status import BatchSummary, WatchStatus

    bar = window.status
    window.resize(1024, 700)
    normal = [bar.store_label, bar.count_label, bar.watch, bar.queue_label, bar.batch_label]
    window.ctx.status("memhtml(correct): The staging VIP is shared \u2014 committed 0123456789ab", 15000)
    batch = BatchSummary(added=0, changed=2, moved=1, removed=0, failed=0, ms=41.0, finished_at="2026-12-01T11:00:00Z")
    window.bridge.status_changed.emit(WatchStatus(mode="live", last_batch=batch))
    QApplication.processEvents()
    assert "committed" in bar.currentMessage()
    assert [w.objectName() for w in normal if w.isVisible()] == []
    bar.clearMessage()
    QApplication.processEvents()
    assert all(w.isVisible() for w in normal)
    assert "3 files" in bar.batch_label.text()
    window.bridge.status_changed.emit(WatchStatus(mode="live", last_batch=None))  # no batch: blank, not hidden
    window.ctx.status("Undone: Revert \u201cx\u201d \u2014 committed 0123456789ab", 15000)
    window.bridge.status_changed.emit(WatchStatus(mode="live", last_batch=batch))
    QApplication.processEvents()
    assert [w.objectName() for w in normal if w.isVisible()] == []


# -- 11. Why not this one? ------------------------------------------------------------------------------


def _why(qtbot, window, path: str | None = None):
    why = window.controllers["why"]
    if path is None:
        why.choose(None)
        return why.dialog
    with qtbot.waitSignal(window.why_shown, timeout=WAIT):
        why.choose(path)
    return why.dialog


def _rows_all_shown(view) -> bool:
    model = view.model()
    bottom = view.visualRect(model.index(model.rowCount() - 1, 0)).bottom()
    return view.verticalScrollBar().maximum() == 0 and 0 < bottom <= view.viewport().height()


def test_why_not_shows_every_arm_row_and_lets_the_prose_scroll(qtbot, window):
    """The arms table showed 2.5 rows and scrolled while the prose below it took the room."""
    from memhtml_desktop.domain.ranking import profile_named

    window.session.set_ranking(profile_named("memhtml"))  # its differences from default: seven lines of prose
    type_query(qtbot, window, "drain the vip")
    result = wait_for_query(qtbot, window, "drain the vip")
    target = next((h.path for h in result.hits if h.moves), result.hits[-1].path)
    dialog = _why(qtbot, window, target)
    assert dialog.report().path == target and dialog.arms_model.rowCount() == 4
    assert dialog.differs_label.text().count("\n") >= 5
    for size in ((760, 480), (760, 380), (640, 340)):
        dialog.resize(*size)
        qtbot.wait(50)
        QApplication.processEvents()
        assert _rows_all_shown(dialog.arms_view), size
        assert dialog.arms_view.height() >= dialog.arms_view.horizontalHeader().height() + 4 * 16, size
    assert dialog.prose.verticalScrollBar().maximum() > 0, "the prose scrolls in what is left"


def test_why_not_resolves_a_typed_title_pressed_with_enter(qtbot, window, store):
    """Typing a title and pressing Enter without picking a completion said "Not a memory file
    (wrong folder, extension…)"."""
    from tests.ui.conftest import INFRA

    dialog = _why(qtbot, window)
    field = dialog.memory_field
    title = store.read(INFRA, bump=False).title
    assert title
    field.setFocus()
    with qtbot.waitSignal(window.why_shown, timeout=WAIT) as shown:
        qtbot.keyClicks(field, title)
        qtbot.keyClick(field, Qt.Key.Key_Return)  # at once: before the completions arrive
    report = shown.args[0]
    assert report.path == INFRA and report.status == "indexed", report.status
    assert not dialog.choice_note.isVisible()
    # the start of a title, in another case, names it too when no other title starts so
    field.selectAll()
    with qtbot.waitSignal(window.why_shown, timeout=WAIT) as shown:
        qtbot.keyClicks(field, title[:18].upper())
        qtbot.keyClick(field, Qt.Key.Key_Return)
    assert shown.args[0].path == INFRA
    # words several memories hold (two paths here): the dialog says so, and asks for nothing
    field.selectAll()
    reports = []
    window.why_shown.connect(reports.append)
    qtbot.keyClicks(field, "format-md")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.choice_note.isVisible(), timeout=WAIT)
    assert "2 memories hold \u201cformat-md\u201d" in dialog.choice_note.text() and reports == []
    assert dialog.isVisible(), "Enter in the field never closes the dialog"
    field.selectAll()
    qtbot.keyClicks(field, "zzqx no such title")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "No memory" in dialog.choice_note.text(), timeout=WAIT)
    assert reports == []


def test_resolve_typed_prefers_the_title_then_its_start_then_the_live_one():
    from memhtml_desktop.domain.results import MemoryRef
    from memhtml_desktop.ui.reader.why_choice import resolve_typed

    refs = [
        MemoryRef("a/drain.html", "Drain the VIP", "procedural"),
        MemoryRef("archive/2026/a/drain.html", "Drain the VIP", "procedural", archived=True),
        MemoryRef("a/drain-more.html", "Drain the VIP before a rollback", "procedural"),
        MemoryRef("b/vip.html", "The VIP pool", "semantic"),
    ]
    assert resolve_typed("drain the vip", refs) == ("a/drain.html", "")
    assert resolve_typed("Drain the VIP before", refs) == ("a/drain-more.html", "")
    assert resolve_typed("the vip pool", refs) == ("b/vip.html", "")
    path, note = resolve_typed("drain", refs)
    assert path is None and "2 memories hold" in note
    assert resolve_typed("zz", []) == (None, "No memory's title or path holds \u201czz\u201d.")


# -- 10. a first index's figures in the header ----------------------------------------------------------


def test_the_header_follows_a_first_index_between_searches(qtbot, window):
    """The header stayed at "(1,500 of 20,000 files)" while the status bar said 15,500."""
    from dataclasses import replace

    from memhtml_desktop.domain.signals import IndexStatus
    from memhtml_desktop.watch.status import WatchStatus

    type_query(qtbot, window, "drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    answer = window.driver.answer
    index = IndexStatus(complete=False, files=1500, seen=20000)
    result = replace(answer.result, index=index, degraded_reasons=(index.reason(),))
    window.driver.show(replace(answer, result=result))  # the answer a search made at 1,500 files
    assert "(1,500 of 20,000 files)" in window.results.summary.text()
    assert "1500 of 20000 files so far" in window.results.degraded.text()
    window.bridge.status_changed.emit(WatchStatus(mode="starting", busy=True, progress=("index", 15500, 20000)))
    QApplication.processEvents()
    assert window.status.progress.text() == "indexing 15500/20000"
    summary = window.results.summary.text()
    assert "(15,500 of 20,000 files)" in summary and "listed at 1,500" in summary, summary
    assert "15500 of 20000 files so far; listed at 1,500" in window.results.degraded.text()
    assert window.results.model.answer().result.hits == answer.result.hits, "the list itself waits for the pass"
    window.bridge.status_changed.emit(WatchStatus(mode="starting", busy=True, progress=("index", 19000, 20000)))
    assert "(19,000 of 20,000 files)" in window.results.summary.text()


# -- 13. the count line and the pool chart's words, narrow ----------------------------------------------


def test_the_count_line_drops_whole_parts_and_is_never_cut_inside_a_parenthesis(qtbot, window):
    """At 1024 px the count line beside the order toggles was cut to "10 of 47 in scope (…"."""
    window.resize(1024, 700)
    window.set_query("")
    qtbot.waitUntil(lambda: window.results.model.result() is not None and not window.driver.pending(), timeout=WAIT)
    summary = window.results.summary
    full = summary.text()
    assert "no words" in full and " \u00b7 " in full
    for width in range(90, 700, 23):
        summary.setFixedWidth(width)
        shown = summary.elided()
        assert shown.count("(") == shown.count(")"), (width, shown)
        if "\u2026" not in shown:
            assert full.startswith(shown), (width, shown)
        else:  # only the first part, when even it does not fit
            assert " \u00b7 " not in shown, (width, shown)
    summary.setMinimumWidth(80)
    summary.setMaximumWidth(16777215)


def test_the_pool_charts_cut_label_stays_in_the_plot_and_off_the_legend(qtbot, window):
    """ "top 10 by fused score" ran over the legend when the cut sat near the plot's right edge."""
    from memhtml_desktop.ui.pool.pool_chart import LEGEND_WIDTH, PoolChart

    type_query(qtbot, window, "drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    pool = window.chart.pool()
    # The window's own chart sits in a layout that may set its size again between two pictures (a
    # late answer or a status line relaid): the same pool on a chart of its own keeps the size asked.
    chart = PoolChart()
    qtbot.addWidget(chart)
    chart.set_pool(pool)
    assert pool is not None and len(chart.entries()) > pool.limit
    from dataclasses import replace

    few = replace(pool, pool_size=pool.limit + 2)  # the cut near the right edge
    for shown in (pool, few):
        uncut = replace(shown, limit=len(shown.entries))  # the same pool with no cut, so no words at it
        for width in range(300, 1000, 37):
            chart.resize(width, 160)
            legend = width - LEGEND_WIDTH
            images = []
            for drawn in (shown, uncut):
                chart.set_pool(drawn)
                chart.grab()  # a stale picture is blitted, and the new one drawn in a turn of its own
                qtbot.waitUntil(lambda: chart._picture is not None and chart._picture[0] == chart._key(), timeout=WAIT)
                images.append(chart.grab().toImage())
            changed = sum(
                1
                for x in range(legend, width)
                for y in range(0, 80)
                if images[0].pixelColor(x, y) != images[1].pixelColor(x, y)
            )
            assert changed == 0, (width, "the cut's words drawn over the legend")
            chart.set_pool(shown)
            placed = chart.cut_label()
            if placed is not None:
                rect, text = placed
                assert rect.right() <= legend - 8 and rect.left() >= 8, (width, text, rect)
