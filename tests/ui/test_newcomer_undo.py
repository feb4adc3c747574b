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
    qtbot.waitUntil(
        lambda: marked(win) and {w.casefold() for w in marked(win)} <= {"rollback", "revert", "reverted", "reverting"},
        timeout=WAIT,
    )
    assert "vip" not in {w.casefold() for w in marked(win)}
    assert win.reader.current_path() == RUNBOOK and win.reader.state() == "detail"


# -- 6. Undo: a preview, a list of the app's own changes, redo, and the reader following ----------------


def open_undo(qtbot, win, *, redo: bool = False):
    """Ctrl+Z (Ctrl+Shift+Z) in the window: the Undo dialog, its list and first preview arrived."""
    from PySide6.QtWidgets import QApplication

    curate = win.controllers["curate"]
    win.activateWindow()  # a closed dialog leaves no active window offscreen
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=WAIT)
    win.results.table.setFocus()  # in a text field Ctrl+Z is the field's own undo
    ctrl = Qt.KeyboardModifier.ControlModifier
    with qtbot.waitSignal(curate.dialog_opened, timeout=WAIT) as opened:
        qtbot.keyClick(win.results.table, Qt.Key.Key_Z, ctrl | Qt.KeyboardModifier.ShiftModifier if redo else ctrl)
    dialog = opened.args[0]
    qtbot.waitUntil(
        lambda: bool(dialog.choices) and (dialog.confirm_button.isEnabled() or dialog.message_kind() == "error"),
        timeout=WAIT,
    )
    return dialog


def click_confirm(qtbot, win, dialog):
    with qtbot.waitSignal(win.controllers["curate"].written, timeout=WAIT) as written:
        qtbot.mouseClick(dialog.confirm_button, Qt.MouseButton.LeftButton)
    return written.args[0]


def test_undo_previews_the_revert_then_redo_gives_it_back_and_the_reader_follows(qtbot, win, repo):
    """Undo was a plain yes/no box (the README promised the commit and every file's diff); after it
    the reader said "Could not open … (moved or deleted?)"; one level only, and no redo."""
    type_and_wait(qtbot, win, "drain the vip")
    open_in_reader(qtbot, win, RUNBOOK)
    new_path = correct_runbook(qtbot, win)
    correction = log(repo, 1, "%H")[0]
    qtbot.waitUntil(lambda: win.reader.current_path() == new_path and win.reader.state() == "detail", timeout=WAIT)
    dialog = open_undo(qtbot, win)
    ((change, why),) = dialog.choices
    assert change.sha == correction and why is None and dialog.list.topLevelItemCount() == 1
    assert dialog.list.topLevelItem(0).text(2) == "applied" and dialog.confirm_button.text() == "Undo this change"
    preview = dialog.preview.preview()
    archived = "archive/2026/" + RUNBOOK
    changes = {(c.action, c.path, c.source) for c in preview.plan.changes}
    assert {("delete", new_path, None), ("move", RUNBOOK, archived)} <= changes
    # the rest: memories the correction repointed to the new version (issue 39), pointed back
    assert {a for a, _, _ in changes - {("delete", new_path, None), ("move", RUNBOOK, archived)}} <= {"modify"}
    commit = dialog.preview.commit_label.text()
    assert commit.startswith('Revert "memhtml(correct): ') and f"This reverts commit {correction}." in commit
    assert dialog.preview.files.count() == len(changes)
    for row in range(len(changes)):  # every file's diff, as the curation dialogs show it
        dialog.preview.select_file(row)
        assert dialog.preview.diff.toPlainText().strip()
    before = log(repo, 1, "%H")[0]
    assert before == correction, "previewing wrote nothing"
    click_confirm(qtbot, win, dialog)
    assert log(repo)[0].startswith('Revert "memhtml(correct): ') and status_clean(repo)
    assert (repo / RUNBOOK).exists() and not (repo / new_path).exists() and not (repo / archived).exists()
    # the reader follows the memory back to where the undo put it, never "could not open"
    qtbot.waitUntil(lambda: win.reader.current_path() == RUNBOOK and win.reader.state() == "detail", timeout=WAIT)
    qtbot.waitUntil(lambda: RUNBOOK in hits(win) and not win.runner.is_busy(), timeout=WAIT)
    assert win.results.current_path() == RUNBOOK
    # the dialog stays, its list read again: the change is undone and can be redone
    qtbot.waitUntil(
        lambda: bool(dialog.choices) and dialog.choices[0][0].undone and dialog.confirm_button.isEnabled(), timeout=WAIT
    )
    assert dialog.list.topLevelItem(0).text(2) == "undone" and dialog.confirm_button.text() == "Redo this change"
    assert dialog.preview.commit_label.text().startswith('Reapply "memhtml(correct): ')
    click_confirm(qtbot, win, dialog)
    assert log(repo)[0].startswith('Reapply "memhtml(correct): ') and (repo / new_path).exists()
    qtbot.waitUntil(lambda: win.reader.current_path() == new_path and win.reader.state() == "detail", timeout=WAIT)
    dialog.close()
    # Ctrl+Z again: undo the redo (the change's newest commit), more than one level
    dialog = open_undo(qtbot, win)
    assert dialog.confirm_button.text() == "Undo this change"
    click_confirm(qtbot, win, dialog)
    assert (repo / RUNBOOK).exists() and not (repo / new_path).exists()
    qtbot.waitUntil(lambda: win.reader.current_path() == RUNBOOK and win.reader.state() == "detail", timeout=WAIT)


def status_clean(repo) -> bool:
    return git(repo, "status", "--porcelain").strip() == ""


def test_undoing_a_new_memory_says_it_is_gone_and_redo_brings_it_back(qtbot, win, repo):
    """After undoing a write the reader showed "⚠ Could not open … (moved or deleted?)"."""
    dialog = dialog_from(qtbot, win, win.controllers["curate"].new_memory)
    qtbot.waitUntil(lambda: dialog.message_kind() == "info", timeout=WAIT)
    qtbot.keyClicks(dialog.fields.title, "Canary p99 alarm threshold is 800 ms")
    dialog.fields.claim.setPlainText("The checkout-api canary alarms when p99 latency stays above 800 ms.")
    planned(qtbot, dialog)
    path = confirm(qtbot, win, dialog).result["path"]
    qtbot.waitUntil(lambda: win.reader.current_path() == path and win.reader.state() == "detail", timeout=WAIT)
    undo = open_undo(qtbot, win)
    assert [(c.action, c.path) for c in undo.preview.preview().plan.changes] == [("delete", path)]
    click_confirm(qtbot, win, undo)
    assert not (repo / path).exists()
    qtbot.waitUntil(lambda: not win.runner.is_busy(), timeout=WAIT)
    assert win.reader.state() == "empty", win.reader.state()
    shown = win.reader.empty_label.text()
    assert path in shown and "no longer in the store" in shown and "Redo" in shown
    assert "Could not open" not in win.reader.error_strip.heading.text()
    undo.close()
    redo = open_undo(qtbot, win, redo=True)
    assert redo.confirm_button.text() == "Redo this change"
    click_confirm(qtbot, win, redo)
    assert (repo / path).exists()
    qtbot.waitUntil(lambda: win.reader.current_path() == path and win.reader.state() == "detail", timeout=WAIT)


AGENT = {
    "GIT_AUTHOR_NAME": "Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.invalid",
    "GIT_COMMITTER_NAME": "Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.invalid",
}


def test_the_list_holds_only_the_apps_own_changes_and_greys_out_one_committed_over(qtbot, win, repo):
    """Undo offered "this app's last commit" only: no list of the app's own recent commits, and no
    word on which of them another writer's later commit has made unsafe to revert."""
    import os

    from tests.ui.test_curation_window import DELAY, MERGES

    for path, reason in ((DELAY, "superseded by the NLB"), (MERGES, "merged elsewhere now")):
        open_in_reader(qtbot, win, path)
        dialog = dialog_from(qtbot, win, lambda: win.menus.curate_actions["archive"].trigger())
        qtbot.keyClicks(dialog.reason, reason)
        planned(qtbot, dialog)
        confirm(qtbot, win, dialog)
    ours = log(repo, 2, "%H")
    # an agent's plain commits: one of another file, one over the app's archived DELAY
    env = {**os.environ, **AGENT}
    other = repo / RUNBOOK
    other.write_text(other.read_text(encoding="utf-8") + "<!-- agent -->\n", encoding="utf-8")
    git(repo, "commit", "-qam", "agent: its own note", env=env)
    archived = repo / ("archive/2026/" + DELAY)
    archived.write_text(archived.read_text(encoding="utf-8") + "<!-- agent -->\n", encoding="utf-8")
    git(repo, "commit", "-qam", "agent: touched the archived delay", env=env)
    theirs = git(repo, "rev-parse", "--short", "HEAD").strip()
    dialog = open_undo(qtbot, win)
    assert [c.sha for c, _ in dialog.choices] == ours, "the app's two changes, newest first; no agent commit"
    (merges, ok), (delay, why) = dialog.choices
    assert ok is None and why and "agent: touched the archived delay" in why and theirs in why
    item = dialog.list.topLevelItem(1)
    assert item.foreground(0).color() != dialog.list.topLevelItem(0).foreground(0).color(), "greyed out"
    assert "Cannot undo now" in item.toolTip(0)
    assert dialog.current_sha() == merges.sha and dialog.confirm_button.isEnabled()  # the newest it can undo
    dialog.list.setFocus()
    qtbot.keyClick(dialog.list, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: dialog.message_kind() == "error", timeout=WAIT)
    assert not dialog.confirm_button.isEnabled() and theirs in dialog.message.text()
    head = git(repo, "rev-parse", "HEAD").strip()
    qtbot.keyClick(dialog.list, Qt.Key.Key_Up)
    qtbot.waitUntil(lambda: dialog.confirm_button.isEnabled(), timeout=WAIT)
    assert git(repo, "rev-parse", "HEAD").strip() == head, "choosing, planning: nothing written"
