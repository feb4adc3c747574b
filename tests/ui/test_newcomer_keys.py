"""Issue 41, as a newcomer meets the window: the entity field's keys, the status bar, the header while
a first index runs, the pool chart's words, and what the reader shows after a write.

Each test drives the real MainWindow (QTest keys, clicks, resizes) and failed on the code before
its fix; the docstring says what the person saw.
"""

from __future__ import annotations

from types import SimpleNamespace

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
