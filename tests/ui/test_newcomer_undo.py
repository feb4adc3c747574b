"""Issue 41, writing from the window as a newcomer does: after a write the list and the reader show
the same memory (and the reader marks the listed answer's words); Undo previews the commit and every
file's diff, lists the app's own recent commits, redoes what it undid, and the reader follows the
memory through all of it.

Each test copies the golden seed store into a real git repository (its own identity), opens the real
MainWindow over it and drives it with keys and clicks; every test failed on the code before its fix.
"""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt

from memhtml_desktop.html.render import HIGHLIGHT_STYLE
from tests.ui.test_curation_window import RUNBOOK, WAIT, confirm, dialog_from, hits, log, open_in_reader, planned
from tests.ui.test_main_window import click_row
from write.support import git, pin_git, seed

NEW_CLAIM = "If a prod rollback is issued, drain the VIP first and only then revert; never the other way round."


@pytest.fixture
def repo(tmp_path, monkeypatch):
    pin_git(monkeypatch, tmp_path)
    return seed(tmp_path)


def marked(win) -> list[str]:
    """The words the reader's article marks for the query."""
    return re.findall(r'<span style="%s">(.*?)</span>' % re.escape(HIGHLIGHT_STYLE), win.reader._safe_html or "")


def type_and_wait(qtbot, win, text: str) -> None:
    field = win.search_bar.field
    field.setFocus()
    field.selectAll()
    with qtbot.waitSignal(win.search_shown, timeout=WAIT, check_params_cb=lambda a: a.query == text):
        qtbot.keyClicks(field, text)
        qtbot.keyClick(field, Qt.Key.Key_Return)


def correct_runbook(qtbot, win) -> str:
    """Correct… from the reader's Curate menu on RUNBOOK (in the reader); the new version's path."""
    dialog = dialog_from(qtbot, win, win.reader.curate_actions["correct"].trigger)
    dialog.fields.claim.setPlainText(NEW_CLAIM)
    planned(qtbot, dialog)
    applied = confirm(qtbot, win, dialog)
    return applied.result["path"]


# -- 14. after a write --------------------------------------------------------------------------------


def test_after_a_write_the_chosen_row_is_the_memory_the_reader_shows(qtbot, win, repo):
    """After Correct… the reader showed the new version while the list's chosen row was another
    memory (or none, the corrected one having left the list)."""
    type_and_wait(qtbot, win, "drain the vip")
    row = win.results.model.row_of(RUNBOOK)
    assert row >= 0
    with qtbot.waitSignal(win.memory_shown, timeout=WAIT):
        click_row(qtbot, win, row)
        qtbot.keyClick(win.results.table, Qt.Key.Key_Return)
    assert win.results.current_path() == win.reader.current_path() == RUNBOOK
    new_path = correct_runbook(qtbot, win)
    qtbot.waitUntil(lambda: win.reader.current_path() == new_path and win.reader.state() == "detail", timeout=WAIT)
    qtbot.waitUntil(lambda: new_path in hits(win) and not win.runner.is_busy(), timeout=WAIT)
    assert win.results.current_path() == new_path == win.reader.current_path()
    # the person moves to another row: a re-run of the search keeps THEIR row
    qtbot.keyClick(win.results.table, Qt.Key.Key_Down)
    theirs = win.results.current_path()
    assert theirs != new_path
    with qtbot.waitSignal(win.search_shown, timeout=WAIT):
        win.driver.refresh()
    assert win.results.current_path() == theirs


def test_the_reader_marks_the_words_of_the_list_it_sits_beside(qtbot, win, repo):
    """The reader kept marking the previous query's words after a new search listed other ones."""
    type_and_wait(qtbot, win, "drain the vip")
    open_in_reader(qtbot, win, RUNBOOK)
    assert {w.casefold() for w in marked(win)} >= {"drain", "vip"}
    type_and_wait(qtbot, win, "rollback revert")
    qtbot.waitUntil(lambda: marked(win) and {w.casefold() for w in marked(win)} <= {"rollback", "revert",
                                                                                   "reverted", "reverting"},
                    timeout=WAIT)
    assert "vip" not in {w.casefold() for w in marked(win)}
    assert win.reader.current_path() == RUNBOOK and win.reader.state() == "detail"
