"""Curating from the real window over real git repositories (issue 15, the window half).

Every test copies the golden seed store (memhtml's demo store snapshot) to a temp dir, `git init`s
and commits it, opens the real MainWindow over it, drives the real dialogs with clicks and typing,
and asserts on the files, `git log` and `git status` as well as on what the window shows. Writes
run through the write core on the window's writer thread; nothing here calls the Curator directly
except to set up a stale preview the way another process would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store
from memhtml_desktop.write.context import commit_subject
from write.support import git, pin_git, seed, snapshot, status, tree_bytes

WAIT = 20000
ROOT = Path(__file__).resolve().parents[2]
MERGES = "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html"
#: the demo store's other contradiction (60 against 40 server connections): the scan finds it by its words
POOL_60 = "projects/billing-service/pgbouncer-pool-size-for-billing.html"
DOES_NOT = "projects/billing-service/compactor-leaves-overlapping-usage-rows-alone.html"
RUNBOOK = "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html"
DELAY = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"
TASK = "projects/checkout-api/tasks/alarm-on-canary-p99-above-800-ms.html"


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    pin_git(monkeypatch, tmp_path)
    return seed(tmp_path)


def log(root: Path, n: int = 1, fmt: str = "%s") -> list[str]:
    return git(root, "log", f"-{n}", f"--format={fmt}").splitlines()


def open_in_reader(qtbot, win, path: str) -> None:
    with qtbot.waitSignal(win.memory_shown, timeout=WAIT, check_params_cb=lambda d: d.path == path):
        win.open_memory(path, bump=False)


def hits(win) -> list[str]:
    result = win.results.model.result()
    return [h.path for h in result.hits] if result is not None else []


def dialog_from(qtbot, win, act) -> object:
    curate = win.controllers["curate"]
    with qtbot.waitSignal(curate.dialog_opened, timeout=WAIT) as opened:
        act()
    return opened.args[0]


def planned(qtbot, dialog) -> None:
    """Wait for the preview (confirm enabled) or a refusal in the dialog, for the fields as they are
    now (a refusal of an earlier plan stays shown while the next one is on its way)."""
    qtbot.waitUntil(lambda: not dialog.planning() and (dialog.confirm_button.isEnabled()
                                                       or dialog.message_kind() in ("error", "stale")),
                    timeout=WAIT)  # fmt: skip


def dismiss(win) -> None:
    """Close the window-modal notice a refusal opened (a person reads it and clicks OK)."""
    box = getattr(win, "_message_box", None)
    if box is not None:
        try:
            box.close()
        except RuntimeError:  # already closed and deleted
            pass


def confirm(qtbot, win, dialog):
    with qtbot.waitSignal(win.controllers["curate"].written, timeout=WAIT) as written:
        qtbot.mouseClick(dialog.confirm_button, Qt.MouseButton.LeftButton)
    return written.args[0]


# -- Correct ------------------------------------------------------------------------------------------


def test_correct_from_the_reader_prefills_writes_and_archives(qtbot, win, repo):
    win.set_query("compactor month-end runs")
    qtbot.waitUntil(lambda: DOES_NOT in hits(win), timeout=WAIT)
    open_in_reader(qtbot, win, MERGES)
    dialog = dialog_from(qtbot, win, win.reader.curate_actions["correct"].trigger)
    fields = dialog.fields
    # pre-filled with what memhtml's correct would drop: title, claim, tags, entities, facets
    assert fields.title.text() == "The nightly compactor merges overlapping intervals"
    assert fields.claim.toPlainText() == "The nightly compactor merges overlapping intervals."
    assert fields.tags.text() == "billing, compactor"
    assert fields.entities.text() == "service:billing-service, component:usage-compactor"
    assert ("doc-type", "reference", None) in fields.facets.facets()
    # unchanged fields: nothing to write yet, and the dialog says so
    qtbot.waitUntil(lambda: dialog.message_kind() == "info", timeout=WAIT)
    assert not dialog.confirm_button.isEnabled() and "Change what was wrong" in dialog.message.text()
    fields.claim.setPlainText("The nightly compactor merges overlapping intervals, except on month-end runs.")
    qtbot.keyClicks(dialog.reason, "month-end runs skip the merge")
    planned(qtbot, dialog)
    preview = dialog.preview.preview()
    # the memory that contradicts it is repointed at the new version, in the same commit (issue 39)
    assert [(c.action, c.path if c.action == "modify" else "") for c in preview.plan.changes] == [
        ("create", ""),
        ("move", ""),
        ("modify", DOES_NOT),
    ]
    assert dialog.preview.files.count() == 3 and dialog.preview.diff.toPlainText().startswith("--- /dev/null")
    assert "memhtml(correct): The nightly compactor merges overlapping intervals" in dialog.preview.commit_label.text()
    head_before = log(repo)[0]
    applied = confirm(qtbot, win, dialog)
    new_path, archived = applied.result["path"], applied.result["archived_path"]
    # the files and the commit
    assert not (repo / MERGES).exists() and (repo / archived).exists()
    data = (repo / new_path).read_text(encoding="utf-8")
    assert "except on month-end runs" in data and '<meta name="memhtml-tag" content="compactor">' in data
    assert '<meta name="memhtml-entity" content="component:usage-compactor">' in data
    assert "<dt>doc-type</dt><dd>reference</dd>" in data
    assert f'<link rel="memhtml-supersedes" href="/{archived}">' in data
    assert log(repo, 2) == ["memhtml(correct): The nightly compactor merges overlapping intervals", head_before]
    assert "Memhtml-Reason: month-end runs skip the merge" in git(repo, "log", "-1", "--format=%B")
    assert status(repo) == ""
    # the window follows: the new memory in the list, the old one gone from it, the reader on the new one
    qtbot.waitUntil(lambda: new_path in hits(win) and MERGES not in hits(win), timeout=WAIT)
    qtbot.waitUntil(lambda: win.reader.current_path() == new_path and win.reader.state() == "detail", timeout=WAIT)


# -- Archive --------------------------------------------------------------------------------------------


def test_archive_needs_a_reason_then_archives_and_the_watcher_updates_the_list(qtbot, make_window, git_store, repo):
    win = make_window(git_store, watch=True)
    win.set_query("deregistration delay")
    qtbot.waitUntil(lambda: DELAY in hits(win), timeout=WAIT)
    open_in_reader(qtbot, win, DELAY)
    dialog = dialog_from(qtbot, win, win.reader.curate_actions["archive"].trigger)
    # without a reason: nothing to confirm, and why
    qtbot.waitUntil(lambda: dialog.message_kind() == "info", timeout=WAIT)
    assert "needs a reason" in dialog.message.text() and not dialog.confirm_button.isEnabled()
    qtbot.keyClicks(dialog.reason, "   ")
    assert dialog.timer.isActive()  # the edit asked for a new plan ...
    qtbot.waitUntil(lambda: not dialog.timer.isActive() and not win.runner.is_busy(), timeout=WAIT)  # ... it ran
    assert not dialog.confirm_button.isEnabled()
    assert dialog.message_kind() == "info" and "needs a reason" in dialog.message.text()
    qtbot.keyClicks(dialog.reason, "retired with the old ALB")
    planned(qtbot, dialog)
    subject = commit_subject("archive", f"{DELAY} \u2014 retired with the old ALB")  # cut at 72, as memhtml does
    assert dialog.preview.preview().plan.subject == subject
    applied = confirm(qtbot, win, dialog)
    target = applied.result["archive_path"]
    assert target.startswith("archive/") and target.endswith(DELAY)
    assert not (repo / DELAY).exists() and 'memhtml-status" content="archived"' in (repo / target).read_text()
    assert log(repo)[0] == subject
    assert status(repo) == ""
    qtbot.waitUntil(lambda: DELAY not in hits(win) and win.reader.current_path() == target, timeout=WAIT)
    qtbot.waitUntil(lambda: win.reader.state() == "detail" and win.reader.archived_badge.isVisible(), timeout=WAIT)
    # salience followed the move (the state row is keyed by the new path)
    rows = git_store.reader().execute("SELECT path FROM state.access WHERE path IN (?, ?)", (DELAY, target)).fetchall()
    assert [r[0] for r in rows] == [target]


# -- Link with completion -------------------------------------------------------------------------------


def test_link_to_a_target_chosen_by_title_completion(qtbot, win, repo):
    open_in_reader(qtbot, win, MERGES)
    dialog = dialog_from(qtbot, win, win.reader.curate_actions["link"].trigger)
    assert dialog.rel.currentText() == "relates_to"
    dialog.target.setFocus()
    qtbot.keyClicks(dialog.target, "leaves overlapping")
    qtbot.waitUntil(lambda: dialog.completions.rowCount() > 0, timeout=WAIT)
    choices = dialog.completions.stringList()
    assert choices[0] == f"The compactor leaves overlapping usage rows alone \u2014 {DOES_NOT}"
    popup = dialog.completer.popup()
    qtbot.waitUntil(popup.isVisible, timeout=WAIT)
    popup.setCurrentIndex(dialog.completer.completionModel().index(0, 0))
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.target.text() == DOES_NOT, timeout=WAIT)
    assert dialog.target_title.text() == "The compactor leaves overlapping usage rows alone"
    dialog.rel.setCurrentText("supports")
    planned(qtbot, dialog)
    assert dialog.preview.preview().plan.subject == commit_subject("link", f"supports {MERGES} -> {DOES_NOT}")
    confirm(qtbot, win, dialog)
    assert f'<link rel="memhtml-supports" href="/{DOES_NOT}">' in (repo / MERGES).read_text(encoding="utf-8")
    assert log(repo)[0] == commit_subject("link", f"supports {MERGES} -> {DOES_NOT}")
    qtbot.waitUntil(lambda: any(link.path == DOES_NOT and link.rel.endswith("supports")
                                for link in win.reader.detail().links) if win.reader.detail() else False,
                    timeout=WAIT)  # fmt: skip


def test_a_refusal_shown_before_a_change_is_not_the_answer_to_the_changed_fields(qtbot, win):
    """The refusal of the last plan stays shown while the next plan is on its way; the dialog says
    it is planning, so nothing (a person's eye, a test) takes the old refusal for the new answer."""
    open_in_reader(qtbot, win, MERGES)
    dialog = dialog_from(qtbot, win, win.reader.curate_actions["link"].trigger)
    qtbot.keyClicks(dialog.target, MERGES)  # itself: refused
    planned(qtbot, dialog)
    assert dialog.message_kind() == "error" and not dialog.planning()
    dialog.target.clear()
    qtbot.keyClicks(dialog.target, DOES_NOT)
    assert dialog.planning() and dialog.message_kind() == "error"  # the old refusal, not yet replaced
    planned(qtbot, dialog)
    assert dialog.preview.preview() is not None and dialog.confirm_button.isEnabled()
    assert dialog.preview.preview().plan.subject == commit_subject("link", f"relates_to {MERGES} -> {DOES_NOT}")


def test_a_refusal_shows_in_the_dialog_and_nothing_is_written(qtbot, win, repo, git_store):
    open_in_reader(qtbot, win, MERGES)
    dialog = dialog_from(qtbot, win, win.reader.curate_actions["link"].trigger)
    before = snapshot(repo, git_store)
    qtbot.keyClicks(dialog.target, MERGES)  # itself
    planned(qtbot, dialog)
    assert dialog.message_kind() == "error" and not dialog.confirm_button.isEnabled()
    assert dialog.message.text() == f"invalid memory: a memory cannot link to itself: {MERGES}"
    assert "Traceback" not in dialog.message.text()
    dialog.target.clear()
    qtbot.keyClicks(dialog.target, "projects/nowhere/none.html")
    qtbot.waitUntil(lambda: dialog.message.text() == "no memory at projects/nowhere/none.html", timeout=WAIT)
    # someone else's staged change to the very file the link would edit (its mode: the bytes the
    # dialog read are unchanged, so this is not a stale preview): refused, named, nothing written
    (repo / MERGES).chmod(0o755)
    git(repo, "add", MERGES)
    staged = snapshot(repo, git_store)
    dialog.target.clear()
    qtbot.keyClicks(dialog.target, DOES_NOT)
    qtbot.waitUntil(lambda: "staged" in dialog.message.text() and MERGES in dialog.message.text(), timeout=WAIT)
    assert dialog.message_kind() == "error" and not dialog.confirm_button.isEnabled()
    assert snapshot(repo, git_store) == staged
    git(repo, "reset", "-q", MERGES)
    (repo / MERGES).chmod(0o644)
    assert snapshot(repo, git_store) == before


def test_a_stale_preview_is_explained_and_reloads(qtbot, win, repo):
    open_in_reader(qtbot, win, DELAY)
    dialog = dialog_from(qtbot, win, win.reader.curate_actions["archive"].trigger)
    qtbot.keyClicks(dialog.reason, "superseded by the NLB")
    planned(qtbot, dialog)
    assert dialog.confirm_button.isEnabled()
    # another process edits the memory and commits, after the dialog read it
    path = repo / DELAY
    path.write_text(path.read_text(encoding="utf-8").replace("</title>", " (edited)</title>", 1), encoding="utf-8")
    git(repo, "commit", "-qam", "an agent's edit")
    qtbot.mouseClick(dialog.confirm_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.message_kind() == "stale", timeout=WAIT)
    assert "changed on disk since it was opened" in dialog.message.text()
    assert dialog.reload_button.isVisible() and not dialog.confirm_button.isEnabled()
    assert log(repo)[0] == "an agent's edit" and path.exists(), "nothing was written"
    qtbot.mouseClick(dialog.reload_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.confirm_button.isEnabled(), timeout=WAIT)
    assert dialog.message_kind() == "info" and "Reloaded" in dialog.message.text()
    assert dialog.reason.text() == "superseded by the NLB", "the entries stay"
    confirm(qtbot, win, dialog)
    assert log(repo, 2) == [commit_subject("archive", f"{DELAY} \u2014 superseded by the NLB"), "an agent's edit"]


# -- Undo -------------------------------------------------------------------------------------------------


def _undo_dialog(qtbot, win):
    """Edit → Undo…: the dialog, its list (and the chosen change's preview or refusal) arrived."""
    curate = win.controllers["curate"]
    with qtbot.waitSignal(curate.dialog_opened, timeout=WAIT) as opened:
        win.menus.curate_actions["undo"].trigger()
    dialog = opened.args[0]
    qtbot.waitUntil(
        lambda: (
            dialog.list.isEnabled()
            and (dialog.confirm_button.isEnabled() or dialog.message_kind() == "error" or not dialog.choices)
        ),
        timeout=WAIT,
    )
    return dialog


def test_undo_reverts_the_apps_change_and_says_why_when_it_cannot(qtbot, win, repo):
    curate = win.controllers["curate"]
    menus = win.menus.curate_actions
    dialog = _undo_dialog(qtbot, win)
    assert dialog.choices == [] and "nothing to undo" in dialog.message.text()
    assert not dialog.confirm_button.isEnabled()
    dialog.close()
    open_in_reader(qtbot, win, DELAY)
    dialog = dialog_from(qtbot, win, lambda: menus["archive"].trigger())  # Edit → Archive…, on the reader's memory
    qtbot.keyClicks(dialog.reason, "retired")
    planned(qtbot, dialog)
    applied = confirm(qtbot, win, dialog)
    archived = applied.result["archive_path"]
    dialog = _undo_dialog(qtbot, win)
    assert "memhtml(archive)" in dialog.preview.commit_label.text() and dialog.confirm_button.isEnabled()
    with qtbot.waitSignal(curate.written, timeout=WAIT):
        qtbot.mouseClick(dialog.confirm_button, Qt.MouseButton.LeftButton)
    assert (repo / DELAY).exists() and not (repo / archived).exists()
    reverted = commit_subject("archive", f"{DELAY} \u2014 retired")
    assert log(repo)[0] == f'Revert "{reverted}"'
    assert status(repo) == ""
    qtbot.waitUntil(lambda: win.reader.current_path() == DELAY and win.reader.state() == "detail", timeout=WAIT)
    dialog.close()
    # and a commit made after the app's own that changes its file: undo refuses, naming it
    dialog = dialog_from(qtbot, win, lambda: menus["archive"].trigger())
    qtbot.keyClicks(dialog.reason, "retired again")
    planned(qtbot, dialog)
    confirm(qtbot, win, dialog)
    (repo / archived).write_text((repo / archived).read_text(encoding="utf-8") + "<!-- someone's note -->\n",
                                 encoding="utf-8")  # fmt: skip
    git(repo, "commit", "-qam", "someone else")
    dialog = _undo_dialog(qtbot, win)
    change, why = dialog.choices[0]
    assert "changed since" in why and archived in why and "someone else" in why
    assert dialog.message_kind() == "error" and "changed since" in dialog.message.text()
    assert not dialog.confirm_button.isEnabled()
    assert log(repo)[0] == "someone else"


# -- Tasks and new memories --------------------------------------------------------------------------------


def test_mark_a_task_doing_then_done(qtbot, win, repo):
    open_in_reader(qtbot, win, TASK)
    assert win.reader.curate_actions["doing"].isVisible() and win.reader.curate_actions["done"].isEnabled()
    dialog = dialog_from(qtbot, win, win.reader.curate_actions["doing"].trigger)
    planned(qtbot, dialog)
    assert dialog.preview.preview().plan.subject == commit_subject("task", f"doing {TASK}")
    confirm(qtbot, win, dialog)
    assert '<meta name="memhtml-task-status" content="doing">' in (repo / TASK).read_text(encoding="utf-8")
    qtbot.waitUntil(lambda: win.reader.current_path() == TASK and win.reader.state() == "detail", timeout=WAIT)
    dialog = dialog_from(qtbot, win, win.reader.curate_actions["done"].trigger)
    planned(qtbot, dialog)
    applied = confirm(qtbot, win, dialog)
    assert applied.result["archived"] and not (repo / TASK).exists()
    assert log(repo, 2) == [
        commit_subject("archive", f"{TASK} \u2014 task done"),
        commit_subject("task", f"doing {TASK}"),
    ]


def test_file_new_memory_writes_it_and_the_list_shows_it(qtbot, win, repo):
    dialog = dialog_from(qtbot, win, win.controllers["curate"].new_memory)
    qtbot.waitUntil(lambda: dialog.message_kind() == "info", timeout=WAIT)
    fields = dialog.fields
    qtbot.keyClicks(fields.title, "Canary p99 alarm threshold is 800 ms")
    fields.claim.setPlainText("The checkout-api canary alarms when p99 latency stays above 800 ms for 5 minutes.")
    qtbot.keyClicks(fields.tags, "alerting, canary")
    qtbot.keyClicks(fields.workspace, "checkout-api")
    fields.facets.set_facets([("threshold", "800 ms", "800")])
    planned(qtbot, dialog)
    (change,) = dialog.preview.preview().plan.changes
    assert change.action == "create" and change.path.startswith("projects/checkout-api/")
    applied = confirm(qtbot, win, dialog)
    data = (repo / applied.result["path"]).read_text(encoding="utf-8")
    assert '<dd><data value="800">800 ms</data></dd>' in data and log(repo)[0].startswith("memhtml(write): Canary p99")
    win.set_query("canary p99 alarm threshold")
    qtbot.waitUntil(lambda: applied.result["path"] in hits(win), timeout=WAIT)


# -- Conflicts ---------------------------------------------------------------------------------------------


def test_conflicts_view_this_one_is_right(qtbot, win, repo):
    conflicts = win.controllers["conflicts"]
    with qtbot.waitSignal(conflicts.scanned, timeout=WAIT) as scanned:
        window = conflicts.show()
    pair, other = sorted(scanned.args[0].pairs, key=lambda p: p.a.path)
    assert (pair.a.path, pair.b.path) == (DOES_NOT, MERGES) and pair.diff.kinds == ("negation",)
    assert other.a.path == POOL_60 and other.reason.reason == "number"
    assert window.model.rowCount() == 2
    window.select_row(window.model.row_of(DOES_NOT, MERGES))
    # side by side, the differing words highlighted
    assert "does not merge</span>" in window.side_a.claim.text()
    assert ">merges</span>" in window.side_b.claim.text()
    with qtbot.waitSignal(win.controllers["curate"].dialog_opened, timeout=WAIT) as opened:
        qtbot.mouseClick(window.side_b.right_button, Qt.MouseButton.LeftButton)  # "merges" is right
    dialog = opened.args[0]
    planned(qtbot, dialog)
    assert dialog.preview.preview().plan.subject == commit_subject("consolidate", f"{MERGES} supersedes {DOES_NOT}")
    with qtbot.waitSignal(conflicts.scanned, timeout=WAIT) as rescanned:
        applied = confirm(qtbot, win, dialog)
    assert [p.a.path for p in rescanned.args[0].pairs] == [POOL_60] and window.model.rowCount() == 1
    loser = applied.result["superseded_path"]
    assert not (repo / DOES_NOT).exists()
    assert f'<meta name="memhtml-superseded-by" content="/{MERGES}">' in (repo / loser).read_text(encoding="utf-8")
    assert f'<link rel="memhtml-supersedes" href="/{loser}">' in (repo / MERGES).read_text(encoding="utf-8")
    assert log(repo)[0] == commit_subject("consolidate", f"{MERGES} supersedes {DOES_NOT}")
    assert status(repo) == ""


def test_conflicts_view_both_hold_links_and_settles_the_pair(qtbot, win, repo):
    conflicts = win.controllers["conflicts"]
    with qtbot.waitSignal(conflicts.scanned, timeout=WAIT):
        window = conflicts.show()
    window.select_row(window.model.row_of(DOES_NOT, MERGES))
    window.rel.setCurrentText("laterally_related")
    with qtbot.waitSignal(win.controllers["curate"].dialog_opened, timeout=WAIT) as opened:
        qtbot.mouseClick(window.link_button, Qt.MouseButton.LeftButton)
    dialog = opened.args[0]
    assert dialog.target.text() == MERGES and dialog.rel.currentText() == "laterally_related"
    planned(qtbot, dialog)
    with qtbot.waitSignal(conflicts.scanned, timeout=WAIT) as rescanned:
        confirm(qtbot, win, dialog)
    pair = next(p for p in rescanned.args[0].pairs if p.a.path == DOES_NOT)
    assert pair.settled and "laterally_related" in pair.links
    assert window.model.rowCount() == 1, "a settled pair is hidden"
    window.settled_box.setChecked(True)
    assert window.model.rowCount() == 2
    assert log(repo)[0] == commit_subject("link", f"laterally_related {DOES_NOT} -> {MERGES}")


def test_the_conflicts_scan_can_be_cancelled_and_the_window_stays_responsive(qtbot, win):
    conflicts = win.controllers["conflicts"]
    window = conflicts.show()
    conflicts.cancel()
    assert "cancelled" in window.summary.text().lower() and window.scan_button.isEnabled()
    with qtbot.waitSignal(conflicts.scanned, timeout=WAIT):
        qtbot.mouseClick(window.scan_button, Qt.MouseButton.LeftButton)
    assert window.model.rowCount() == 2


def test_the_conflicts_view_rescans_named_paths_and_asks_when_any_may_have_changed(qtbot, win):
    """A change says which paths it concerns, or that any may have changed (`paths` None): a watcher's
    pass that moved one memory and edited another names its moves but not its edits, so the view asks
    for a rescan; a change known to concern no path leaves the scan as it is. (An empty set once meant
    "any", and a pass's moves were taken for all it did: only the moved pair was scanned again.)"""
    from memhtml_desktop.index.indexer import IndexReport
    from memhtml_desktop.ops.changes import StoreChange

    conflicts = win.controllers["conflicts"]
    with qtbot.waitSignal(conflicts.scanned, timeout=WAIT):
        window = conflicts.show()
    scanned = window.summary.text()
    win.runner.events.announce(StoreChange(index=True, paths=frozenset()))  # known: no path
    assert window.summary.text() == scanned and not win.runner.is_busy("conflicts-some")
    moved_and_edited = IndexReport(changed=1, moved=1, moves=[(POOL_60, "areas/ops/pool-sixty.html")])
    change = StoreChange.of_report(moved_and_edited)
    assert change.any_path and change.concerns(MERGES) and change.moves
    win.runner.events.announce(change)
    assert "Rescan to be sure" in window.summary.text() and not win.runner.is_busy("conflicts-some")
    assert window.model.rowCount() == 2  # the last scan's pairs stay until the person rescans


# -- Timeline and as-of ------------------------------------------------------------------------------------


def test_timeline_draws_the_chain_opens_a_version_and_searches_as_of_a_day(qtbot, win):
    open_in_reader(qtbot, win, RUNBOOK)
    timeline = win.controllers["timeline"]
    with qtbot.waitSignal(timeline.shown, timeout=WAIT) as shown:
        win.reader.curate_actions["timeline"].trigger()
    chain = shown.args[0]
    assert [v.path for v in chain.versions] == [
        "archive/2025/areas/oncall/rollback-revert-only.html",
        "archive/2026/areas/oncall/rollback-order.html",
        RUNBOOK,
    ]
    window = timeline.window
    assert window.table.topLevelItemCount() == 3
    view = window.view
    view.grab()  # paint
    assert len(view._bars) == 3
    bar, path = view._bars[0]
    assert path == "archive/2025/areas/oncall/rollback-revert-only.html"
    with qtbot.waitSignal(win.memory_shown, timeout=WAIT, check_params_cb=lambda d: d.path == path):
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=bar.center().toPoint())
    # a click on the axis: the search shows what an agent would have recalled that day
    x = int(view._x(datetime(2026, 3, 1, 12, tzinfo=timezone.utc)))
    win.set_query("rollback drain the vip")
    qtbot.waitUntil(lambda: RUNBOOK in hits(win), timeout=WAIT)
    with qtbot.waitSignal(win.search_shown, timeout=WAIT):
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=QPoint(x, int(view._axis_y()) + 10))
    assert win.session.scope.as_of == "2026-03-01T23:59:59.999Z"
    assert win.search_bar.as_of.text() == "2026-03-01"
    qtbot.waitUntil(lambda: "archive/2026/areas/oncall/rollback-order.html" in hits(win) and RUNBOOK not in hits(win),
                    timeout=WAIT)  # fmt: skip


def test_the_as_of_field_checks_its_date(qtbot, win):
    bar = win.search_bar
    win.set_query("rollback")
    qtbot.waitUntil(lambda: bool(hits(win)), timeout=WAIT)
    bar.as_of.setFocus()
    qtbot.keyClicks(bar.as_of, "next tuesday")
    qtbot.keyClick(bar.as_of, Qt.Key.Key_Return)
    assert bar.as_of_error() and win.session.scope.as_of is None
    assert "expected YYYY-MM-DD" in bar.as_of.toolTip()
    bar.as_of.clear()
    with qtbot.waitSignal(win.search_shown, timeout=WAIT):
        qtbot.keyClicks(bar.as_of, "2025-11-01")
        qtbot.keyClick(bar.as_of, Qt.Key.Key_Return)
    assert not bar.as_of_error() and win.session.scope.as_of == "2025-11-01T23:59:59.999Z"
    assert ("as_of", "2025-11-01T23:59:59.999Z") in bar.chips.keys()
    qtbot.waitUntil(lambda: "archive/2025/areas/oncall/rollback-revert-only.html" in hits(win), timeout=WAIT)
    with qtbot.waitSignal(win.search_shown, timeout=WAIT):
        bar.chips.chip_removed.emit("as_of", "2025-11-01T23:59:59.999Z")
    assert win.session.scope.as_of is None and bar.as_of.text() == ""


# -- Recovery on opening a store ------------------------------------------------------------------------


KILLER = """#!/bin/sh
python_pid=$(awk '{print $4}' /proc/$PPID/stat)
kill -9 "$python_pid"
sleep 0.2
exit 1
"""


def test_opening_a_store_rolls_back_an_interrupted_write(qtbot, make_window, repo, tmp_path):
    before = tree_bytes(repo)
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(KILLER)
    hook.chmod(0o755)
    proc = subprocess.run([sys.executable, "-m", "memhtml_desktop", "--repo", str(repo), "archive", DELAY,
                           "--reason", "killed"], env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == -9, proc.stderr
    hook.unlink()
    assert git(repo, "diff", "--cached", "--name-only") == "", "killed mid-write: moved, but nothing staged"
    assert not (repo / DELAY).exists(), "killed mid-write: the memory was moved into archive/"
    store = Store(repo, index_path=tmp_path / "index2" / "index.db", embedder=HashEmbedder())
    store.index()
    try:
        win = make_window(store, settle=False)
        said: list[str] = []
        win.controllers["curate"].recovered.connect(said.append)
        qtbot.waitUntil(lambda: bool(said), timeout=WAIT)
        assert said[0].startswith("rolled back an interrupted write")
        assert status(repo) == "" and (repo / DELAY).exists()
        assert tree_bytes(repo) == before
    finally:
        store.close_thread_connection()


def test_a_store_that_is_not_a_repository_says_so_in_the_dialog(qtbot, make_window, store):
    win = make_window(store)  # the plain golden store: no git
    path = "areas/oncall/format-md-procedural.html"
    open_in_reader(qtbot, win, path)
    dialog = dialog_from(qtbot, win, win.reader.curate_actions["archive"].trigger)
    qtbot.keyClicks(dialog.reason, "old")
    planned(qtbot, dialog)
    assert dialog.message_kind() == "error" and "git" in dialog.message.text().lower()
    assert not (Path(store.root) / ".git").exists()
    dialog.reject()
