"""The reconcile queue from the keyboard (issue 39, step 3): the conflicts view lists the pairs newest
change first; N, O, B and D on the pair shown open the dialog that previews the one commit, and
Enter writes it. "Not a conflict" is remembered across a restart of the window.

The golden base store holds two pairs the scan finds: the pgbouncer pool (60 connections, written
2026-06-25, against 40, written 2026-03-02: open) and the compactor (merges against does not merge,
already linked `contradicts`: known). Real git repositories, the real MainWindow offscreen.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store
from memhtml_desktop.write.context import commit_subject
from write.support import git, pin_git, seed, status

WAIT = 20000
POOL_60 = "projects/billing-service/pgbouncer-pool-size-for-billing.html"
POOL_40 = "resources/postgres/billing-pgbouncer-pool-holds-40-server-connections.html"
MERGES = "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html"
DOES_NOT = "projects/billing-service/compactor-leaves-overlapping-usage-rows-alone.html"
ARC = "areas/arcs/postgres-under-invoice-load.html"
REF = "refs/memhtml-desktop/conflicts-dismissed"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    pin_git(monkeypatch, tmp_path)
    return seed(tmp_path)


def open_queue(qtbot, win):
    """View → Conflicts… by its key, the scan waited for, the table focused."""
    conflicts = win.controllers["conflicts"]
    with qtbot.waitSignal(conflicts.scanned, timeout=WAIT):
        qtbot.keyClick(win, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    window = conflicts.window
    window.activateWindow()
    window.table.setFocus()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=WAIT)
    return conflicts, window


def rows(window) -> list[tuple[str, str]]:
    return [(window.model.pair(r).a.path, window.model.pair(r).b.path) for r in range(window.model.rowCount())]


def press(qtbot, win, window, key):
    """A key on the queue: the dialog it opens."""
    with qtbot.waitSignal(win.controllers["curate"].dialog_opened, timeout=WAIT) as opened:
        qtbot.keyClick(window.table, key)
    return opened.args[0]


def enter(qtbot, win, dialog, conflicts):
    """Wait for the preview, then Enter: the write, and the queue's rescan after it."""
    qtbot.waitUntil(lambda: not dialog.planning() and dialog.confirm_button.isEnabled(), timeout=WAIT)
    assert dialog.preview.preview() is not None and dialog.preview.files.count() >= 1
    assert dialog.preview.commit_label.text(), "the commit is shown before it is made"
    focus = getattr(dialog, "reason", None) or getattr(dialog, "note", None) or dialog.target
    focus.setFocus()
    with qtbot.waitSignal(conflicts.scanned, timeout=WAIT):
        with qtbot.waitSignal(win.controllers["curate"].written, timeout=WAIT) as written:
            qtbot.keyClick(focus, Qt.Key.Key_Return)
    return written.args[0]


def test_the_queue_lists_the_newest_change_first_and_n_supersedes_the_older_keeping_its_place(qtbot, win, repo):
    conflicts, window = open_queue(qtbot, win)
    assert rows(window) == [(POOL_60, POOL_40), (DOES_NOT, MERGES)], "open first, then the known pair"
    assert window.current_pair().newer == POOL_60 and window.queue.keys.text() == "Keys: N, O, B, D"
    head = git(repo, "rev-parse", "HEAD").strip()
    dialog = press(qtbot, win, window, Qt.Key.Key_N)
    assert (dialog.winner, dialog.loser) == (POOL_60, POOL_40)
    assert (
        "person:jonas" in dialog.graph.added_entities()
        and ("max_connections", "200", "200") in dialog.graph.added_facets()
    )
    applied = enter(qtbot, win, dialog, conflicts)
    archived = applied.result["superseded_path"]
    assert git(repo, "rev-list", "--count", f"{head}..HEAD").strip() == "1" and status(repo) == ""
    assert git(repo, "log", "-1", "--format=%s").startswith("memhtml(consolidate): ")
    text = (repo / POOL_60).read_text(encoding="utf-8")
    assert f'<link rel="memhtml-supersedes" href="/{archived}">' in text
    assert '<meta name="memhtml-entity" content="person:jonas">' in text and "<dt>max_connections</dt>" in text
    assert not (repo / POOL_40).exists() and (repo / archived).exists()
    # the queue moved on: the next pair is the one shown
    assert rows(window) == [(DOES_NOT, MERGES)] and window.current_pair().a.path == DOES_NOT


def test_o_keeps_the_older_and_archives_the_newer(qtbot, win, repo):
    conflicts, window = open_queue(qtbot, win)
    head = git(repo, "rev-parse", "HEAD").strip()
    dialog = press(qtbot, win, window, Qt.Key.Key_O)
    assert (dialog.winner, dialog.loser) == (POOL_40, POOL_60)
    applied = enter(qtbot, win, dialog, conflicts)
    assert git(repo, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    assert applied.result["winner"] == POOL_40 and not (repo / POOL_60).exists() and status(repo) == ""
    assert f'href="/{applied.result["superseded_path"]}"' in (repo / POOL_40).read_text(encoding="utf-8")
    assert rows(window) == [(DOES_NOT, MERGES)]


def test_b_links_both_with_contradicts_and_the_pair_moves_below_the_open_ones(qtbot, win, repo):
    conflicts, window = open_queue(qtbot, win)
    assert window.rel.currentText() == "contradicts"
    head = git(repo, "rev-parse", "HEAD").strip()
    dialog = press(qtbot, win, window, Qt.Key.Key_B)
    assert dialog.rel.currentText() == "contradicts" and dialog.target.text() == POOL_40
    enter(qtbot, win, dialog, conflicts)
    assert git(repo, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    assert git(repo, "log", "-1", "--format=%s").strip() == commit_subject(
        "link", f"contradicts {POOL_60} -> {POOL_40}"
    )
    assert status(repo) == "" and (repo / POOL_40).exists(), "both hold: nothing archived"
    pair = next(p for p in conflicts.report.pairs if p.a.path == POOL_60)
    assert pair.known and not pair.settled and "contradicts" in pair.links
    row = window.model.row_of(POOL_60, POOL_40)
    assert window.model.rowCount() == 2 and window.model.index(row, 2).data() == "number \u00b7 known"


def test_d_dismisses_the_pair_on_the_apps_ref_and_it_stays_dismissed_after_a_restart(
        qtbot, make_window, git_store, repo, tmp_path):  # fmt: skip
    win = make_window(git_store)
    conflicts, window = open_queue(qtbot, win)
    head = git(repo, "rev-parse", "HEAD").strip()
    dialog = press(qtbot, win, window, Qt.Key.Key_D)
    qtbot.keyClicks(dialog.note, "two databases")
    applied = enter(qtbot, win, dialog, conflicts)
    assert git(repo, "rev-parse", "HEAD").strip() == head and status(repo) == "", "nothing on the branch"
    assert git(repo, "rev-parse", REF).strip() == applied.commit_sha
    assert rows(window) == [(DOES_NOT, MERGES)] and "1 dismissed" in window.summary.text()
    win.shutdown()
    win.close()
    # a restart: another window, another Store over the same repository
    store = Store(repo, index_path=tmp_path / "index2" / "index.db", embedder=HashEmbedder())
    store.index()
    again = make_window(store)
    conflicts, window = open_queue(qtbot, again)
    assert rows(window) == [(DOES_NOT, MERGES)], "still dismissed"
    window.dismissed_box.setChecked(True)
    assert rows(window) == [(DOES_NOT, MERGES), (POOL_60, POOL_40)]
    window.select_row(1)
    assert window.queue.keys.text() == "Key: R" and window.queue.restore_button.isVisible()
    dialog = press(qtbot, again, window, Qt.Key.Key_R)
    enter(qtbot, again, dialog, conflicts)
    window.dismissed_box.setChecked(False)
    assert rows(window) == [(POOL_60, POOL_40), (DOES_NOT, MERGES)], "listed again"
    assert git(repo, "rev-list", "--count", REF).strip() == "2"
    store.close_thread_connection()
