"""Opening a folder that is not a store, in the real window (issue 41, items 2 and 3).

A mistyped `--store` (missing, empty, a folder of other things) used to quit the window on OK, or
open it silently and create `.memhtml/state.db` there; a store without git of its own opened and
refused curation only after a Correct form was filled. Now the store chooser says why and offers
another folder, a recent store or the demo; nothing is created in a refused folder; and where
there is no git, curation is greyed out with the reason before any form.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from memhtml_desktop.settings import Settings
from memhtml_desktop.ui import app
from memhtml_desktop.ui.shell.store_problem import StoreProblemDialog
from tests.ui.conftest import PROCEDURAL, write_golden_store


def snapshot(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else ["<missing>"]


def when_chooser(qtbot, *steps):
    """Run each step on the chooser the next time it shows (it is modal: exec() waits)."""
    seen: list[str] = []
    pending = list(steps)

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, StoreProblemDialog) and dialog.isVisible() and id(dialog) not in seen:
            seen.append(id(dialog))
            pending.pop(0)(dialog)
        if pending:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(0, poll)
    return seen


def type_path(dialog: StoreProblemDialog, path: Path) -> None:
    field = dialog.findChild(type(dialog.path_edit), "storePath")
    QTest.keyClicks(field, str(path))
    QTest.keyClick(field, Qt.Key.Key_Return)


def quit_chooser(dialog: StoreProblemDialog) -> None:
    QTest.mouseClick(dialog.findChild(type(dialog.open_button), "quitButton"), Qt.MouseButton.LeftButton)


@pytest.fixture
def build(qtbot):
    """`build(settings)`: the window `app.build_window` makes for a `--store`, shown; None after Quit."""
    made = []

    def make(settings: Settings):
        window = app.build_window(settings, explicit_store=True, watch=False)
        if window is not None:
            qtbot.addWidget(window)
            window.show()
            made.append(window)
        return window

    yield make
    for window in made:
        window.shutdown()


@pytest.mark.parametrize("kind", ["missing", "empty", "not-git-other-things", "git-of-other-things", "a-file"])
def test_a_bad_store_offers_the_chooser_and_a_store_typed_there_opens(qtbot, build, tmp_path, kind):
    bad = tmp_path / "bad"
    if kind == "empty":
        bad.mkdir()
    elif kind == "not-git-other-things":
        bad.mkdir()
        (bad / "notes.txt").write_text("hello\n")
    elif kind == "git-of-other-things":
        bad.mkdir()
        (bad / ".git").mkdir()
        (bad / "setup.py").write_text("")
    elif kind == "a-file":
        bad.write_text("x")
    before = snapshot(bad)
    good = write_golden_store(tmp_path / "good")
    problems: list[str] = []

    def answer(dialog: StoreProblemDialog) -> None:
        problems.append(dialog.problem_label.text())
        type_path(dialog, good)

    when_chooser(qtbot, answer)
    window = build(Settings(store=str(bad), debounce_ms=0))
    assert problems and (
        ("does not exist" in problems[0]) if kind == "missing" else problems[0].startswith("not a memhtml store")
    )
    assert window.store.root == good.resolve()
    qtbot.waitUntil(lambda: window.results.model.result() is not None and not window.runner.is_busy(), timeout=15000)
    assert snapshot(bad) == before  # nothing made in the refused folder


def test_quit_in_the_chooser_builds_no_window_and_creates_nothing(qtbot, build, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    when_chooser(qtbot, quit_chooser)
    assert build(Settings(store=str(empty), debounce_ms=0)) is None
    assert snapshot(empty) == []


def test_a_folder_chosen_that_is_no_store_either_brings_the_chooser_back_with_its_reason(qtbot, build, tmp_path):
    missing, empty = tmp_path / "missing", tmp_path / "empty"
    empty.mkdir()
    seen: list[str] = []

    def first(dialog):
        seen.append(dialog.problem_label.text())
        type_path(dialog, empty)

    def second(dialog):
        seen.append(dialog.problem_label.text())
        quit_chooser(dialog)

    when_chooser(qtbot, first, second)
    assert build(Settings(store=str(missing), debounce_ms=0)) is None
    assert "does not exist" in seen[0] and f"{empty} is an empty folder" in seen[1]
    assert snapshot(empty) == [] and not missing.exists()


def test_the_chooser_opens_the_demo(qtbot, build, tmp_path):
    when_chooser(qtbot, lambda dialog: QTest.mouseClick(dialog.demo_button, Qt.MouseButton.LeftButton))
    window = build(Settings(store=str(tmp_path / "nowhere"), debounce_ms=0))
    assert window.store.root.name == "demo-store"
    qtbot.waitUntil(lambda: window.results.model.rowCount() > 0 and not window.runner.is_busy(), timeout=20000)


def test_file_open_store_refuses_an_empty_folder_and_creates_nothing(window, tmp_path):
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    told: list[str] = []
    window.notify = lambda title, text, *a, **k: told.append(text)
    root = window.store.root
    assert window.stores.open_path(empty) is False
    assert window.store.root == root and told and told[0].startswith("not a memhtml store")
    assert snapshot(empty) == []


@pytest.fixture
def plain_copy(tmp_path) -> Path:
    """A store with memhtml's folders but no git of its own (a copy, an unpacked archive)."""
    root = write_golden_store(tmp_path / "plain")
    assert not (root / ".git").exists()
    return root


def test_a_store_without_git_opens_with_curation_greyed_out_and_the_reason_before_any_form(qtbot, build, plain_copy):
    window = build(Settings(store=str(plain_copy), debounce_ms=0))
    qtbot.waitUntil(lambda: window.results.model.result() is not None and not window.runner.is_busy(), timeout=15000)
    window.open_memory(PROCEDURAL, bump=False)
    qtbot.waitUntil(lambda: window.reader.state() == "detail", timeout=10000)
    correct = window.reader.curate_actions["correct"]
    assert not correct.isEnabled() and "not a git repository" in correct.toolTip()
    assert window.reader.curate_actions["timeline"].isEnabled()  # reading the chain needs no git
    told: list[str] = []
    window.controllers["curate"].ctx.notify = lambda title, text, *a, **k: told.append(text)
    window.results.table.setFocus()
    QTest.keyClick(window.results.table, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)  # Edit → Correct…
    qtbot.waitUntil(lambda: len(told) == 1, timeout=5000)
    QTest.keyClick(window.results.table, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # File → New memory…
    qtbot.waitUntil(lambda: len(told) == 2, timeout=5000)
    assert all(t.startswith("Curation is off in this store") and "git init" in t for t in told)
    assert window.controllers["curate"].dialog is None  # no form was opened
    assert not window.controllers["curate"].can("new")
    assert any("Curation is off" in n for n in window.store.notices)  # the status bar says it too
    bar = window.statusBar()
    qtbot.waitUntil(lambda: "Curation is off" in bar.currentMessage(), timeout=5000)
    assert not bar.store_label.isVisible()  # the message is not drawn over the store's path


def test_a_git_store_keeps_curation(qtbot, build, tmp_path):
    root = write_golden_store(tmp_path / "gitstore")
    app.make_demo_repository(root)  # git init + one commit (no identity needed)
    window = build(Settings(store=str(root), debounce_ms=0))
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)
    window.open_memory(PROCEDURAL, bump=False)
    qtbot.waitUntil(lambda: window.reader.state() == "detail", timeout=10000)
    assert window.reader.curate_actions["correct"].isEnabled()
    assert window.controllers["curate"].can("new") and window.store.curation_off is None


def test_an_empty_git_repository_is_a_store_being_started(tmp_path):
    from memhtml_desktop.index.store import check_store

    root = tmp_path / "new"
    root.mkdir()
    (root / ".git").mkdir()
    (root / ".gitignore").write_text(".memhtml/state.db*\n")
    (root / "README.html").write_text("<p>scaffold</p>")
    assert check_store(root).ok and check_store(root).can_curate
    (root / "src").mkdir()  # now a repository of other things
    assert not check_store(root).ok
