"""The review inbox in the real window, driven as a person drives it: keys, clicks, the menus.

A real repository with two identities: the person seeds it and sets the review mark; the agent
writes through memhtml's verbs (this app's CLI) and a plain `git commit`. Every assertion on the
store is made on git and the files themselves.
"""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from history.support import (
    AGENT,
    EDITED,
    LINK_SRC,
    PERSON,
    agent_session,
    cli,
    git,
    isolate,
    review,
    seed,
)  # fmt: skip
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store

WAIT = 30000
KINDS = ["new", "new", "corrected", "archived", "linked", "edited"]


@pytest.fixture
def day(tmp_path, monkeypatch, capsys):
    """The agent's day after the person's mark; the person's identity for the window's own writes."""
    isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("MEMHTML_DESKTOP_CACHE", str(tmp_path / "cache"))
    root = seed(tmp_path)
    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    agent_session(root, capsys, monkeypatch)
    for key, value in PERSON.items():
        monkeypatch.setenv(key, value)
    return root


@pytest.fixture
def store(day, tmp_path):
    s = Store(day, index_path=tmp_path / "index" / "index.db", embedder=HashEmbedder())
    s.import_sidecar()
    s.index()
    yield s
    s.close_thread_connection()


@pytest.fixture
def win(make_window, store):
    return make_window(store)


def open_inbox(qtbot, win):
    review = win.controllers["review"]
    with qtbot.waitSignal(review.loaded, timeout=WAIT):
        QTest.keyClick(win, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    window = review.window
    assert window.isVisible()
    return review, window


def kinds(window) -> list[str]:
    return [c.kind for c in window.model.shown_changes()]


def press(qtbot, window, key, signal=None):
    """A key on the list, as typed into the review window (made the active window first: a closed
    message box leaves the main window active, and a key goes where the focus is)."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT)
    window.tree.setFocus()
    if signal is None:
        QTest.keyClick(window.tree, key)
        return
    with qtbot.waitSignal(signal, timeout=WAIT):
        QTest.keyClick(window.tree, key)


def test_the_count_then_accept_every_change_from_the_keyboard_until_all_caught_up(qtbot, win, day, capsys,
                                                                                  monkeypatch) -> None:  # fmt: skip
    review = win.controllers["review"]
    qtbot.waitUntil(lambda: review.button.text() == "6 to review", timeout=WAIT)
    assert review.button.isVisible()
    review, window = open_inbox(qtbot, win)
    assert kinds(window) == KINDS
    assert window.heading.text().startswith("6 changes to review since the review mark")
    first = window.current_change()
    assert first.kind == "new" and first.session == "sess-0042"
    qtbot.waitUntil(lambda: window.detail.detail is not None, timeout=WAIT)
    assert "The checkout-api p99 latency budget is 800 ms." in window.detail.claims.text()
    marks = []
    for left in range(5, -1, -1):
        press(qtbot, window, Qt.Key.Key_A, review.accepted)
        qtbot.waitUntil(lambda n=left: len(window.model.changes) == n, timeout=WAIT)
        assert review.button.text() == (f"{left} to review" if left else "Nothing to review")
        marks.append(git(day, "rev-parse", "refs/memhtml-desktop/review-mark").strip())
    # each accept moved the mark one commit on (the changes were accepted oldest first)
    assert marks == git(day, "rev-list", "--reverse", "HEAD").split()[1:]
    assert window.stack.currentWidget() is window.caught_up and window.caught_up.text().startswith("All caught up")
    code, listed, _ = review_json(day, capsys, monkeypatch)
    assert code == 0 and listed["changes"] == []


def review_json(root, capsys, monkeypatch):
    return review(root, capsys, monkeypatch)


def test_skip_then_accept_remembers_the_change_ahead_of_the_mark(qtbot, win, day, capsys, monkeypatch) -> None:
    review, window = open_inbox(qtbot, win)
    seed_mark = git(day, "rev-parse", "refs/memhtml-desktop/review-mark").strip()
    press(qtbot, window, Qt.Key.Key_S)
    press(qtbot, window, Qt.Key.Key_Space)
    assert window.current_change().kind == "corrected"
    press(qtbot, window, Qt.Key.Key_A, review.accepted)
    qtbot.waitUntil(lambda: len(window.model.changes) == 5, timeout=WAIT)
    assert git(day, "rev-parse", "refs/memhtml-desktop/review-mark").strip() == seed_mark  # two before it wait
    assert window.current_change().kind == "archived"  # the next one is chosen
    _, listed, _ = review_json(day, capsys, monkeypatch)
    assert [c["kind"] for c in listed["changes"]] == ["new", "new", "archived", "linked", "edited"]
    accepted = json.loads((day / ".git" / "memhtml-desktop" / "review-accepted.json").read_text())
    assert (
        len(accepted["accepted"]) == 1 and accepted["accepted"][0].endswith(":" + window.model.changes[0].path) is False
    )


def test_open_in_the_reader_is_not_a_read_and_shows_the_provenance(qtbot, win, store, day) -> None:
    review, window = open_inbox(qtbot, win)
    # `store`: the test's own Store over the same files (the window's is in its engine)
    path = window.current_change().path
    before = store.reader().execute("SELECT count(*) FROM state.access WHERE path = ?", (path,)).fetchone()[0]
    panel = review.provenance.panel
    with qtbot.waitSignal(win.memory_shown, timeout=WAIT, check_params_cb=lambda d: d.path == path):
        press(qtbot, window, Qt.Key.Key_O)
    qtbot.waitUntil(lambda: panel.provenance is not None and panel.provenance.path == path, timeout=WAIT)
    assert store.reader().execute("SELECT count(*) FROM state.access WHERE path = ?", (path,)).fetchone()[0] == before
    assert panel.isVisible()
    assert panel.written.text().startswith("Written by memory-agent <agent@bots.example.invalid> on ")
    assert panel.session.text() == "Session sess-0042"
    assert panel.commits.text() == "No commit has changed it since."


def test_provenance_lists_the_commits_that_changed_a_memory_since(qtbot, win, day) -> None:
    path = day / LINK_SRC
    path.write_bytes(path.read_bytes().replace(b"one state file per service", b"one state file a service", 1))
    git(day, "commit", "-q", "-am", "wording", who=PERSON)
    panel = win.controllers["review"].provenance.panel
    win.open_memory(LINK_SRC, bump=False)
    qtbot.waitUntil(lambda: panel.provenance is not None and panel.provenance.path == LINK_SRC, timeout=WAIT)
    lines = panel.commits.text().splitlines()
    assert lines[0] == "Changed since by 2 commits:"
    assert "Robin Curator \u00b7 wording" in lines[1] and "memory-agent \u00b7 memhtml(link): relates_to" in lines[2]
    assert "Robin Curator" in panel.written.text() and "seed: demo store" in panel.written.text()


def test_revert_a_change_from_the_inbox_then_a_refusal_named(qtbot, win, day) -> None:
    review, window = open_inbox(qtbot, win)
    seed_sha = git(day, "rev-list", "--max-parents=0", "HEAD").strip()
    window.select(window.model.index_of(next(c.key for c in window.model.changes if c.kind == "linked")))
    press(qtbot, window, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: getattr(review, "revert_box", None) is not None and review.revert_box.isVisible(),
                    timeout=WAIT)  # fmt: skip
    box = review.revert_box
    assert 'Revert "memhtml(link): relates_to' in box.text() and LINK_SRC in box.text()
    with qtbot.waitSignal(review.accepted, timeout=WAIT):
        qtbot.mouseClick(box.findChild(type(box.defaultButton()), "revertButton"), Qt.MouseButton.LeftButton)
    assert git(day, "show", f"{seed_sha}:{LINK_SRC}").encode() == (day / LINK_SRC).read_bytes()
    assert git(day, "log", "-1", "--format=%an %s").startswith('Robin Curator Revert "memhtml(link)')
    qtbot.waitUntil(lambda: "linked" not in kinds(window), timeout=WAIT)
    assert kinds(window) == ["new", "new", "corrected", "archived", "edited"]  # the revert itself is not listed
    # a later commit on the edited memory: its revert is refused, the reason named, nothing written
    path = day / EDITED
    path.write_bytes(path.read_bytes().replace(b"and retry", b"then retry", 1))
    git(day, "commit", "-q", "-am", "retune again", who=AGENT)
    head = git(day, "rev-parse", "HEAD").strip()
    window.select(window.model.index_of(next(c.key for c in window.model.changes if c.kind == "edited")))
    press(qtbot, window, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: "Not reverted" in window.detail.notes.text(), timeout=WAIT)
    assert "retune again" in window.detail.notes.text() and EDITED in window.detail.notes.text()
    assert git(day, "rev-parse", "HEAD").strip() == head


def test_group_by_memory_and_the_filters(qtbot, win, day) -> None:
    path = day / LINK_SRC
    path.write_bytes(path.read_bytes().replace(b"one state file per service", b"one state file a service", 1))
    git(day, "commit", "-q", "-am", "the person's wording", who=PERSON)
    review, window = open_inbox(qtbot, win)
    assert len(window.model.groups) == 7  # one per commit
    window.group_by.setCurrentIndex(window.group_by.findData("memory"))
    assert len(window.model.groups) == 6  # the linked memory's two changes are one group
    group = next(g for g in window.model.groups if len(g.changes) == 2)
    assert [c.kind for c in group.changes] == ["linked", "edited"]
    window.author.setCurrentIndex(window.author.findData("Robin Curator <robin@example.invalid>"))
    assert [c.subject for c in window.model.shown_changes()] == ["the person's wording"]
    window.author.setCurrentIndex(0)
    window.kind.setCurrentIndex(window.kind.findData("corrected"))
    assert kinds(window) == ["corrected"]
    window.kind.setCurrentIndex(0)
    window.folder.setCurrentIndex(window.folder.findData("resources/infra"))
    assert {c.path for c in window.model.shown_changes()} == {LINK_SRC}


def test_the_count_follows_new_commits_while_the_inbox_is_open(qtbot, win, day) -> None:
    review, window = open_inbox(qtbot, win)
    review.poll.setInterval(150)
    path = day / EDITED
    path.write_bytes(path.read_bytes().replace(b"and retry", b"and then retry", 1))
    git(day, "commit", "-q", "-am", "one more edit", who=AGENT)
    qtbot.waitUntil(lambda: len(window.model.changes) == 7, timeout=WAIT)
    qtbot.waitUntil(lambda: review.button.text() == "7 to review", timeout=WAIT)
    assert window.model.changes[-1].subject == "one more edit"


def test_correct_from_the_inbox_accepts_the_change_and_its_commit(qtbot, win, day) -> None:
    review, window = open_inbox(qtbot, win)
    curate = win.controllers["curate"]
    window.select(window.model.index_of(next(c.key for c in window.model.changes if c.kind == "edited")))
    with qtbot.waitSignal(curate.dialog_opened, timeout=WAIT) as opened:
        press(qtbot, window, Qt.Key.Key_C)
    dialog = opened.args[0]
    dialog.fields.claim.setPlainText("Run schema migrations with a 4-second lock timeout and retry, never wait.")
    qtbot.waitUntil(lambda: dialog.confirm_button.isEnabled(), timeout=WAIT)
    with qtbot.waitSignal(review.accepted, timeout=WAIT):
        qtbot.mouseClick(dialog.confirm_button, Qt.MouseButton.LeftButton)
    assert git(day, "log", "-1", "--format=%an|%s").startswith("Robin Curator|memhtml(correct): ")
    qtbot.waitUntil(lambda: "edited" not in kinds(window), timeout=WAIT)
    assert kinds(window) == KINDS[:5]


def test_the_activity_chart_and_a_click_on_a_bar(qtbot, win, day) -> None:
    review, window = open_inbox(qtbot, win)
    window.tabs.setCurrentIndex(1)
    view = window.activity
    qtbot.waitUntil(lambda: view.activity is not None, timeout=WAIT)
    activity = view.activity
    assert sum(b.total for b in activity.buckets) >= 6
    assert "memory-agent <agent@bots.example.invalid>" in activity.authors
    chart = view.chart
    last = len(activity.buckets) - 1
    writes, _ = chart._plot()
    x = int(writes.left() + (last + 0.5) * writes.width() / len(activity.buckets))
    QTest.mouseClick(chart, Qt.MouseButton.LeftButton, pos=writes.center().__class__(x, writes.center().y()))
    assert chart.selected == last
    assert view.changes.topLevelItemCount() == activity.buckets[last].total
    assert view.bucket_label.text().startswith("Week of ")
    view.by.setCurrentIndex(view.by.findData("author"))
    assert [name for name, _ in chart.series()][0] in activity.authors
    with qtbot.waitSignal(view.chart.bucket_clicked, timeout=WAIT):
        QTest.keyClick(chart, Qt.Key.Key_Left)


def test_a_store_without_history_says_so(qtbot, make_window, tmp_path, monkeypatch) -> None:
    """A store that is not a repository: the inbox says why; an unborn branch: nothing to review."""
    from ui.conftest import write_golden_store

    isolate(monkeypatch, tmp_path)
    plain = write_golden_store(tmp_path / "plain")
    store = Store(plain, index_path=tmp_path / "i1.db", embedder=HashEmbedder())
    store.index()
    win = make_window(store)
    review = win.controllers["review"]
    review.show()
    qtbot.waitUntil(lambda: review.window is not None and review.window.heading.text() ==
                    "The history could not be read", timeout=WAIT)  # fmt: skip
    assert "not a git repository" in review.window.notes.text()
    assert not review.button.isVisible()
    win.shutdown()
    unborn = write_golden_store(tmp_path / "unborn")
    git(unborn, "init", "-q", "-b", "main")
    store2 = Store(unborn, index_path=tmp_path / "i2.db", embedder=HashEmbedder())
    store2.index()
    win2 = make_window(store2)
    review2 = win2.controllers["review"]
    qtbot.waitUntil(lambda: review2.button.text() == "Nothing to review", timeout=WAIT)
    with qtbot.waitSignal(review2.loaded, timeout=WAIT):
        review2.show()
    window = review2.window
    assert window.stack.currentWidget() is window.caught_up
    assert "no commit yet" in window.notes.text()


def test_the_count_follows_the_watcher(qtbot, make_window, store, day, capsys, monkeypatch) -> None:
    """With the look every few seconds out of the way, the watcher's batch for the agent's write is
    what brings the count up."""
    win = make_window(store, watch=True)
    review = win.controllers["review"]
    review.poll.stop()
    qtbot.waitUntil(lambda: review.button.text() == "6 to review", timeout=WAIT)
    code, _, err = cli(
        [
            "--repo",
            str(day),
            "write",
            "--title",
            "Queue depth alarms at 500",
            "--type",
            "semantic",
            "--claim",
            "The checkout queue depth alarm fires at 500 messages.",
        ],
        capsys,
        monkeypatch,
        AGENT,
    )
    assert code == 0, err
    qtbot.waitUntil(lambda: review.button.text() == "7 to review", timeout=WAIT)
    assert not review.poll.isActive()
