"""The relevance workbench from the real window (issue 16, the window half).

Every test copies the golden seed store (memhtml's demo store snapshot) to a temp dir, `git init`s
and commits it, opens the real MainWindow over it and drives the workbench with clicks, keys and
the results' context menu; it asserts on the store's files and `git log`/`git status` as well as
on what the window shows. The core (`memhtml_desktop/workbench/`) runs on the window's workers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QWidget

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.probes import EvalProbe
from memhtml_desktop.domain.ranking import PROFILES
from memhtml_desktop.index.arm_lists import live_claims
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.results.results_model import Column
from memhtml_desktop.workbench.store_files import WorkbenchFiles
from write.support import git, pin_git, seed

WAIT = 30000
MERGES = "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html"
DOES_NOT = "projects/billing-service/compactor-leaves-overlapping-usage-rows-alone.html"
DELAY = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"
ARM_OR_STEP = set(palette.ARM_TITLES) | {"polarity", "twins", "mmr", "steps", "unreached", "tie"}


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    pin_git(monkeypatch, tmp_path)
    monkeypatch.setenv("MEMHTML_DESKTOP_DATA", str(tmp_path / "app-data"))
    return seed(tmp_path)


def committed_set(root: Path, name: str, probes: list[EvalProbe]) -> None:
    """Set-up only: a probe set committed through the core (the window's own gesture is tested apart)."""
    files = WorkbenchFiles(root)
    files.save_probe_set(name, probes)


def search(qtbot, win, text: str) -> list[str]:
    """Type `text` in the search field and press Enter; the hits listed."""
    field = win.search_bar.query_edit if hasattr(win.search_bar, "query_edit") else win.search_bar.field
    field.setFocus()
    field.selectAll()
    with qtbot.waitSignal(win.search_shown, timeout=WAIT, check_params_cb=lambda r: r.query == text):
        qtbot.keyClicks(field, text)
        qtbot.keyClick(field, Qt.Key.Key_Return)
    return [h.path for h in win.results.model.result().hits]


def right_click_row(win, path: str):
    """A real context-menu event on the row of `path`; the menu that pops up."""
    table = win.results.table
    row = win.results.model.row_of(path)
    rect = table.visualRect(win.results.model.index(row, Column.Title))
    assert rect.isValid()
    viewport = table.viewport()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, rect.center(), viewport.mapToGlobal(rect.center()))
    QApplication.sendEvent(viewport, event)
    return win.results._menu


def pin_from_menu(qtbot, win, path: str):
    menu = right_click_row(win, path)
    action = next(a for a in menu.actions() if "Expect this memory" in a.text())
    wb = win.controllers["workbench"]
    with qtbot.waitSignal(wb.pin_dialog_opened, timeout=WAIT) as opened:
        action.trigger()
    menu.close()
    return opened.args[0]


def open_workbench(qtbot, win):
    wb = win.controllers["workbench"]
    with qtbot.waitSignal(wb.listed, timeout=WAIT):
        win.menus  # the View menu's action, by its shortcut
        qtbot.keyClick(win, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert wb.window is not None and wb.window.isVisible()
    return wb, wb.window


def cell(model, row: int, column: str) -> str:
    col = next(i for i, c in enumerate(model.columns) if c.header == column)
    return model.data(model.index(row, col))


def test_pin_a_probe_from_a_search_commits_it(qtbot, win, repo):
    hits = search(qtbot, win, "compactor overlapping intervals")
    assert MERGES in hits and DOES_NOT in hits
    dialog = pin_from_menu(qtbot, win, MERGES)
    assert dialog.query.text() == "compactor overlapping intervals"
    qtbot.waitUntil(
        lambda: "near-twin" in dialog.twins_note.text() and "Looking" not in dialog.twins_note.text(), timeout=WAIT
    )
    # The memories ranked above it are offered, unchecked; its near-twins (if any), checked.
    offered = [dialog.controls.item(i).data(Qt.ItemDataRole.UserRole) for i in range(dialog.controls.count())]
    assert DOES_NOT in offered
    for i in range(dialog.controls.count()):  # choose the twin that beats it as the control
        item = dialog.controls.item(i)
        item.setCheckState(
            Qt.CheckState.Checked if item.data(Qt.ItemDataRole.UserRole) == DOES_NOT else Qt.CheckState.Unchecked
        )
    dialog.set_name.setCurrentText("billing")
    dialog.note.setText("the merge, not the leave-alone")
    wb = win.controllers["workbench"]
    with qtbot.waitSignal(wb.pinned, timeout=WAIT) as pinned:
        qtbot.mouseClick(dialog.pin_button, Qt.MouseButton.LeftButton)
    saved = pinned.args[0]
    assert set(saved.paths) == {".memhtml-desktop/.gitignore", ".memhtml-desktop/probes/billing.jsonl"}
    subject = git(repo, "log", "-1", "--format=%s").strip()
    assert subject.startswith('memhtml-desktop(probes): add "compactor overlapping') and subject.endswith("to billing")
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == sorted(saved.paths)
    assert git(repo, "status", "--porcelain").strip() == ""
    line = json.loads((repo / ".memhtml-desktop/probes/billing.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert line["query"] == "compactor overlapping intervals" and line["target"] == MERGES
    assert line["controls"] == [DOES_NOT] and line["note"] == "the merge, not the leave-alone"
    assert not dialog.isVisible()


def position(store, query: str, path: str, profile: str) -> int:
    hits = store.search(query, None, limit=40, ranking=PROFILES[profile]).hits
    return [h.path for h in hits].index(path) + 1


def test_run_shows_the_failing_probe_its_rank_and_the_arm_that_lost_it(qtbot, win, repo, git_store):
    committed_set(
        repo,
        "gate",
        [
            EvalProbe("compactor overlapping intervals", MERGES, (DOES_NOT,)),
            EvalProbe("deregistration delay", DELAY),
        ],
    )
    wb, w = open_workbench(qtbot, win)
    assert w.sets.currentText() == "gate"
    assert w.config_a.currentText() == "memhtml" and w.config_b.currentText() == "default"
    with qtbot.waitSignal(wb.ran, timeout=WAIT) as ran:
        qtbot.mouseClick(w.run_button, Qt.MouseButton.LeftButton)
    run = ran.args[0]
    assert run.config_name == "memhtml" and run.figures.probes == 2
    model = w.probes.model
    rows = {model.rows[i].target: i for i in range(model.rowCount())}
    merges = run.verdict(next(v.key for v in run.verdicts if v.target == MERGES))
    assert not merges.passed
    row = rows[MERGES]
    assert cell(model, row, "Result").endswith("fail")
    assert cell(model, row, "Rank") == ("\u2013" if merges.rank is None else str(merges.rank))
    assert merges.lost_by in ARM_OR_STEP and cell(model, row, "Lost by") == merges.lost_by
    delay = next(v for v in run.verdicts if v.target == DELAY)
    expected = position(git_store, "deregistration delay", DELAY, "memhtml")  # what a real search gives
    assert expected > 1 and delay.rank == expected and not delay.passed
    assert cell(model, rows[DELAY], "Rank") == str(expected)
    # Selecting the failing probe says why in words; "failing only" hides the passing ones.
    w.probes.table.setCurrentIndex(model.index(row, 0))
    assert "Lost:" in w.probes.detail.text()
    assert "2 failing" in w.probes.figures.text() or "failing" in w.probes.figures.text()


def test_what_if_configuration_side_by_side_shows_the_deltas(qtbot, win, repo):
    committed_set(
        repo,
        "gate",
        [
            EvalProbe("compactor overlapping intervals", MERGES, (DOES_NOT,)),
            EvalProbe("deregistration delay", DELAY),
        ],
    )
    wb, w = open_workbench(qtbot, win)
    w.tabs.setCurrentWidget(w.configs)
    editor = w.configs
    editor.list.setCurrentRow([c.name for c in editor.configs].index("default"))
    assert editor.name.text() == "default-whatif"
    editor.arms["recency"].setValue(11)  # out of range: the spin box clamps it (10 at most)
    assert editor.arms["recency"].value() == 10.0
    editor.name.setText("index")  # a reserved file name: refused, with the reason
    assert not editor.save.isEnabled() and "reserved" in editor.verdict.text()
    editor.name.setText("recency-heavy")
    assert editor.save.isEnabled() and "recency" not in editor.verdict.text() or "arms" in editor.verdict.text()
    qtbot.mouseClick(editor.use_b, Qt.MouseButton.LeftButton)
    assert w.config_b.currentText() == "recency-heavy (draft)"
    with qtbot.waitSignal(wb.compared, timeout=WAIT) as compared:
        qtbot.mouseClick(w.compare_button, Qt.MouseButton.LeftButton)
    comparison = compared.args[0]
    assert comparison.a.config_name == "memhtml" and comparison.b.config_name == "recency-heavy"
    assert comparison.changes, "a recency weight of 10 moves something"
    changes = w.compare.changes
    assert changes.rowCount() == len(comparison.changes)
    for i, change in enumerate(comparison.changes):
        delta = cell(changes, i, "\u0394")
        if change.delta:
            assert delta == (f"\u2191{change.delta}" if change.delta > 0 else f"\u2193{-change.delta}")
    assert "MRR" in w.compare.set_summary.text()
    # Saving the draft commits its file.
    with qtbot.waitSignal(wb.saved, timeout=WAIT):
        qtbot.mouseClick(editor.save, Qt.MouseButton.LeftButton)
    saved = json.loads((repo / ".memhtml-desktop/configs/recency-heavy.json").read_text(encoding="utf-8"))
    assert saved["base"] == "default" and saved["arms"] == {"recency": 10.0}
    assert git(repo, "status", "--porcelain").strip() == ""


def test_the_current_search_side_by_side_links_the_same_memory(qtbot, win, git_store):
    # "delay": the two profiles place the memory differently (memhtml 3rd, default 2nd; the fuller
    # "deregistration delay" now puts it 2nd under both, since default counts priors only for matches).
    search(qtbot, win, "delay")
    wb = win.controllers["workbench"]
    with qtbot.waitSignal(wb.query_compared, timeout=WAIT) as done:
        qtbot.keyClick(win, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qc = done.args[0]
    w = wb.window
    assert w.tabs.currentWidget() is w.compare
    assert (qc.a_name, qc.b_name) == ("memhtml", "default")
    a_paths = [r[1].path for r in w.compare.a.model.rows]
    b_paths = [r[1].path for r in w.compare.b.model.rows]
    at_a, at_b = a_paths.index(DELAY), b_paths.index(DELAY)
    assert (at_a + 1, at_b + 1) == (
        position(git_store, "delay", DELAY, "memhtml"),
        position(git_store, "delay", DELAY, "default"),
    )
    assert at_a != at_b
    # Selecting it under A selects (and highlights) it under B; its move is shown on both sides.
    w.compare.a.table.setCurrentIndex(w.compare.a.model.index(at_a, 0))
    assert w.compare.linked_rows() == (at_a, at_b)
    assert w.compare.b.model.data(w.compare.b.model.index(at_b, 1), Qt.ItemDataRole.BackgroundRole) is not None
    assert w.compare.b.model.data(w.compare.b.model.index(0 if at_b else 1, 1), Qt.ItemDataRole.BackgroundRole) is None
    moved = f"\u2191{at_a - at_b}" if at_a > at_b else f"\u2193{at_b - at_a}"
    assert cell(w.compare.a.model, at_a, "under B") == moved == cell(w.compare.b.model, at_b, "under B")


def claim_probes(store, n: int) -> list[EvalProbe]:
    """Known-item probes: the first words of memories' claims."""
    out = []
    for path, claim in live_claims(store, sample=None):
        words = claim.split()
        if len(words) >= 4:
            out.append(EvalProbe(" ".join(words[:4]), path))
        if len(out) == n:
            break
    return out


def test_optimizer_runs_and_cancels(qtbot, win, repo, git_store):
    committed_set(repo, "claims", claim_probes(git_store, 30))
    wb, w = open_workbench(qtbot, win)
    tab = w.optimizer
    w.tabs.setCurrentWidget(tab)
    tab.trials.setValue(40)
    with qtbot.waitSignal(wb.optimized, timeout=60000) as done:
        qtbot.mouseClick(tab.start, Qt.MouseButton.LeftButton)
    result = done.args[0]
    assert result.trials == 40 and not result.cancelled
    assert len(result.train) + len(result.held_out) == 30 and result.held_out
    assert "Held out" in tab.report.text() and "interval" in tab.report.text()
    assert tab.use_b.isEnabled()
    # A long search, stopped after its first progress report: it answers with the best so far.
    tab.trials.setValue(5000)
    progressed = []
    with qtbot.waitSignal(wb.optimized, timeout=60000) as stopped:
        qtbot.mouseClick(tab.start, Qt.MouseButton.LeftButton)
        assert tab.stop.isEnabled() and not tab.start.isEnabled()
        qtbot.waitUntil(lambda: progressed.append(tab.progress.value()) or tab.progress.value() > 0, timeout=60000)
        qtbot.mouseClick(tab.stop, Qt.MouseButton.LeftButton)
    result = stopped.args[0]
    assert result.cancelled and result.trials < 5000
    assert "stopped early" in tab.report.text()
    assert tab.start.isEnabled() and not tab.stop.isEnabled()


def test_history_chart_has_a_point_per_run(qtbot, win, repo):
    committed_set(
        repo, "gate", [EvalProbe("deregistration delay", DELAY), EvalProbe("compactor overlapping intervals", MERGES)]
    )
    wb, w = open_workbench(qtbot, win)
    with qtbot.waitSignal(wb.compared, timeout=WAIT):
        qtbot.keyClick(w, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    with qtbot.waitSignal(wb.ran, timeout=WAIT):
        qtbot.keyClick(w, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(w.history.chart.runs) == 3, timeout=WAIT)
    points = w.history.chart.points()
    assert sorted(points) == ["default", "memhtml"]
    assert len(points["memhtml"]) == 2 and len(points["default"]) == 1
    assert all(0.0 <= mrr <= 1.0 for pts in points.values() for _, mrr in pts)
    assert w.history.model.rowCount() == 3
    # Two runs selected: what changed between them, by commit.
    w.tabs.setCurrentWidget(w.history)
    table = w.history.table
    table.selectRow(0)
    table.selectionModel().select(
        w.history.model.index(2, 0),
        table.selectionModel().SelectionFlag.Select | table.selectionModel().SelectionFlag.Rows,
    )
    assert w.history.diff_button.isEnabled()
    qtbot.mouseClick(w.history.diff_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.history.diff.count() > 0, timeout=WAIT)
    assert "broke" in w.history.diff.item(0).text()


def test_implicit_judgments_are_opt_in_and_become_probes(qtbot, win, repo, tmp_path):
    wb = win.controllers["workbench"]
    search(qtbot, win, "deregistration delay")
    judged = []
    wb.judged.connect(judged.append)
    with qtbot.waitSignal(win.memory_shown, timeout=WAIT):
        win.open_memory(DELAY)  # setting off: nothing is remembered
    qtbot.waitUntil(lambda: not win.runner.is_busy(), timeout=WAIT)  # the read and whatever it set off answered
    assert judged == []
    assert not (tmp_path / "app-data").exists() or not list((tmp_path / "app-data").rglob("judgments.jsonl"))
    _, w = open_workbench(qtbot, win)
    w.tabs.setCurrentWidget(w.judgments)
    qtbot.mouseClick(w.judgments.enabled, Qt.MouseButton.LeftButton)
    assert wb.judgments_on and win.settings.implicit_judgments
    search(qtbot, win, "rollback drain")
    hits = [h.path for h in win.results.model.result().hits]
    with qtbot.waitSignal(wb.judged, timeout=WAIT) as judged:
        win.open_memory(hits[1])
    assert judged.args[0]
    logs = list((tmp_path / "app-data").rglob("judgments.jsonl"))
    assert logs and repo not in logs[0].parents  # local: never in the store
    with qtbot.waitSignal(wb.listed, timeout=WAIT):
        wb.refresh()
    assert w.judgments.model.rowCount() == 1
    w.judgments.table.setCurrentIndex(w.judgments.model.index(0, 0))
    with qtbot.waitSignal(wb.saved, timeout=WAIT):
        qtbot.mouseClick(w.judgments.accept, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.judgments.model.rowCount() == 0, timeout=WAIT)
    line = json.loads((repo / ".memhtml-desktop/probes/probes.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert line["query"] == "rollback drain" and line["target"] == hits[1]
    assert w.judgments.model.rowCount() == 0
    assert git(repo, "status", "--porcelain").strip() == ""


def test_bad_lines_and_missing_memories_are_named_and_the_rest_runs(qtbot, win, repo):
    good = json.dumps({"query": "deregistration delay", "target": DELAY})
    folder = repo / ".memhtml-desktop" / "probes"
    folder.mkdir(parents=True)
    (folder / "mixed.jsonl").write_text(
        "\n".join(
            [
                good,
                "{not json",
                json.dumps({"query": "gone", "target": "areas/nowhere/deleted-memory.html"}),
                json.dumps(
                    {"query": "compactor overlapping intervals", "target": MERGES, "controls": ["areas/x/gone.html"]}
                ),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a set with bad lines")
    wb, w = open_workbench(qtbot, win)
    with qtbot.waitSignal(wb.ran, timeout=WAIT) as ran:
        qtbot.mouseClick(w.run_button, Qt.MouseButton.LeftButton)
    run = ran.args[0]
    assert sorted(v.target for v in run.verdicts) == sorted([DELAY, MERGES])  # the rest still ran
    problems = [w.probes.problems.item(i).text() for i in range(w.probes.problems.count())]
    assert w.probes.problems.isVisible()
    where = ".memhtml-desktop/probes/mixed.jsonl:"
    assert any(where + "2:" in p and "not JSON" in p for p in problems), problems
    assert any(where + "3:" in p and "deleted-memory.html" in p for p in problems), problems
    assert any(where + "4:" in p and "gone.html" in p for p in problems), problems


def test_a_refused_pin_says_why_and_commits_nothing(qtbot, win, repo):
    committed_set(repo, "gate", [EvalProbe("deregistration delay", DELAY)])
    head = git(repo, "rev-parse", "HEAD").strip()
    search(qtbot, win, "deregistration delay")
    dialog = pin_from_menu(qtbot, win, DELAY)
    dialog.set_name.setCurrentText("sitemap")  # memhtml merges sitemap.xml with 'ours': never a set name
    qtbot.mouseClick(dialog.pin_button, Qt.MouseButton.LeftButton)
    assert "reserved" in dialog.error.text() and dialog.isVisible()
    dialog.set_name.setCurrentText("gate")  # the same probe again: the core refuses it
    wb = win.controllers["workbench"]
    with qtbot.waitSignal(wb.failed, timeout=WAIT):
        qtbot.mouseClick(dialog.pin_button, Qt.MouseButton.LeftButton)
    assert "already has this probe" in dialog.error.text()
    assert dialog.isVisible() and dialog.pin_button.isEnabled()
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert git(repo, "status", "--porcelain").strip() == ""


def test_keyboard_and_accessible_names(qtbot, win, repo):
    from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QComboBox, QLineEdit, QListWidget, QTableView

    committed_set(repo, "gate", [EvalProbe("deregistration delay", DELAY)])
    search(qtbot, win, "deregistration delay")
    # The Menu key on the current result opens the same context menu as a right click.
    win.results.set_current_row(win.results.model.row_of(DELAY))
    win.results._menu = None
    win.results.table.setFocus()
    qtbot.keyClick(win.results.table, Qt.Key.Key_Menu)
    assert win.results._menu is not None
    assert any("Expect this memory" in a.text() for a in win.results._menu.actions())
    win.results._menu.close()
    wb, w = open_workbench(qtbot, win)
    unnamed, checked = [], 0
    kinds = (QAbstractButton, QComboBox, QLineEdit, QAbstractSpinBox, QTableView, QListWidget)
    for widget in [x for kind in kinds for x in w.findChildren(kind)]:
        if widget.objectName().startswith("qt_") or isinstance(widget.parent(), (QComboBox, QAbstractSpinBox)):
            continue  # Qt's own parts of a combo box or spin box (its line edit, its buttons)
        if type(widget) is QAbstractButton and isinstance(widget.parent(), QTableView):
            continue  # a table's corner button (Qt's private class, unnamed before Qt 6.10)
        checked += 1
        text = widget.text() if isinstance(widget, QAbstractButton) else ""
        if not (widget.accessibleName() or text.replace("&", "").strip()):
            unnamed.append(f"{type(widget).__name__} {widget.objectName()}")
    assert not unnamed, unnamed
    assert checked > 50  # the buttons, fields, spin boxes, combos and tables of all seven tabs
    # Alt+4 shows the history, Alt+1 the probes; Esc with nothing running closes the window.
    qtbot.keyClick(w, Qt.Key.Key_4, Qt.KeyboardModifier.AltModifier)
    assert w.tabs.currentWidget() is w.history
    qtbot.keyClick(w, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    assert w.tabs.currentWidget() is w.probes
    qtbot.keyClick(w, Qt.Key.Key_Escape)
    assert not w.isVisible()


def test_the_workbench_fits_1024_by_700(qtbot, win, repo):
    committed_set(repo, "gate", [EvalProbe("deregistration delay", DELAY)])
    wb, w = open_workbench(qtbot, win)
    w.resize(1024, 700)
    for tab in (w.probes, w.compare, w.configs, w.history, w.optimizer, w.diagnostics, w.judgments):
        w.tabs.setCurrentWidget(tab)
        QApplication.processEvents()
        assert tab.minimumSizeHint().width() <= 1024 - 16, type(tab).__name__
        assert tab.minimumSizeHint().height() <= 700 - 100, type(tab).__name__
    assert w.width() <= 1024 and w.height() <= 700


def test_stopping_the_optimizer_while_it_reads_the_store_still_answers(qtbot, win, repo, git_store):
    committed_set(repo, "claims", claim_probes(git_store, 30))
    wb, w = open_workbench(qtbot, win)
    tab = w.optimizer
    from memhtml_desktop.ops.workbench import ForgetCachedJob

    win.runner.run(ForgetCachedJob())  # no cached reading in the engine: the search starts by reading the store
    qtbot.waitUntil(lambda: not win.runner.is_busy(ForgetCachedJob.kind), timeout=WAIT)
    with qtbot.waitSignal(wb.optimized, timeout=60000) as done:
        qtbot.mouseClick(tab.start, Qt.MouseButton.LeftButton)
        qtbot.mouseClick(tab.stop, Qt.MouseButton.LeftButton)  # at once: still reading
    result = done.args[0]
    assert result is None or result.cancelled
    assert tab.start.isEnabled() and not tab.stop.isEnabled()
    assert "stopped" in tab.report.text()


def test_floor_calibration_and_coverage_are_lists_to_act_on(qtbot, win, repo, git_store):
    committed_set(repo, "claims", claim_probes(git_store, 30))
    wb, w = open_workbench(qtbot, win)
    tab = w.diagnostics
    w.tabs.setCurrentWidget(tab)
    with qtbot.waitSignal(wb.floor_scanned, timeout=WAIT) as scanned:
        qtbot.mouseClick(tab.floor_button, Qt.MouseButton.LeftButton)
    scan = scanned.args[0]
    assert tab.floor_model.rowCount() == len(scan.rows) == 20
    chosen = tab.floor_model.row(tab.floor_table.currentIndex().row())
    assert chosen.floor == scan.suggested and tab.save_floor.text() == f"Save floor {scan.suggested:.2f}"
    dropped = [r.targets_dropped for r in scan.rows]
    assert dropped == sorted(dropped)  # a higher floor never drops fewer targets
    # Saving the floor commits a what-if configuration with it, for this store's embedder.
    assert scan.current == 0.45  # the hash embedder's shipped floor
    tab.floor_table.setCurrentIndex(tab.floor_model.index(5, 0))  # 0.25
    with qtbot.waitSignal(wb.saved, timeout=WAIT) as saved:
        qtbot.mouseClick(tab.save_floor, Qt.MouseButton.LeftButton)
    path = next(p for p in saved.args[0].paths if p.startswith(".memhtml-desktop/configs/"))
    config = json.loads((repo / path).read_text(encoding="utf-8"))
    assert config["base"] == "memhtml" and config["floor_cosine"][HashEmbedder().model_id] == 0.25
    assert git(repo, "status", "--porcelain").strip() == ""
    with qtbot.waitSignal(wb.crowders_found, timeout=WAIT) as found:
        qtbot.mouseClick(tab.crowders_button, Qt.MouseButton.LeftButton)
    assert tab.crowders.rowCount() == len(found.args[0])
    with qtbot.waitSignal(wb.unreachable_found, timeout=WAIT) as found:
        qtbot.mouseClick(tab.unreachable_button, Qt.MouseButton.LeftButton)
    reach = found.args[0]
    assert reach.checked > 30 and tab.unreachable.rowCount() == len(reach.unreachable)
    table, model = (tab.unreachable_table, tab.unreachable) if reach.unreachable else (tab.crowders_table, tab.crowders)
    if model.rowCount():  # Enter on a row opens that memory in the reader
        target = model.row(0).path
        table.setFocus()
        table.setCurrentIndex(model.index(0, 0))
        with qtbot.waitSignal(win.memory_shown, timeout=WAIT, check_params_cb=lambda d: d.path == target):
            qtbot.keyClick(table, Qt.Key.Key_Return)


def test_the_settings_dialog_turns_judgments_on_for_the_workbench(qtbot, win):
    wb = win.controllers["workbench"]
    _, w = open_workbench(qtbot, win)
    assert not wb.judgments_on and not w.judgments.enabled.isChecked()
    win.dialogs.apply_settings({"implicit_judgments": True})
    assert wb.judgments_on and w.judgments.enabled.isChecked() and win.settings.implicit_judgments
    search(qtbot, win, "deregistration delay")
    with qtbot.waitSignal(wb.judged, timeout=WAIT) as judged:
        win.open_memory(DELAY)
    assert judged.args[0]


def mnemonics(window) -> dict[str, list[str]]:
    """Each Alt+letter the window's visible widgets answer to, with the texts that claim it."""
    import re

    from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel, QMenuBar, QTabBar

    texts: list[str] = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisibleTo(window):
            continue
        if isinstance(widget, QAbstractButton):
            texts.append(widget.text())
        elif isinstance(widget, QLabel) and widget.buddy() is not None:
            texts.append(widget.text())
        elif isinstance(widget, QGroupBox) and widget.isCheckable():
            texts.append(widget.title())
        elif isinstance(widget, QTabBar):
            texts.extend(widget.tabText(i) for i in range(widget.count()))
        elif isinstance(widget, QMenuBar):
            texts.extend(a.text() for a in widget.actions())
    claims: dict[str, list[str]] = {}
    for text in texts:
        found = re.search(r"&([^&\s])", text.replace("&&", ""))
        if found:
            claims.setdefault(found.group(1).lower(), []).append(text)
    return claims


def test_no_alt_letter_is_claimed_twice_on_any_tab(qtbot, win, repo):
    """Qt cycles focus between widgets that share a mnemonic instead of pressing either: every
    Alt+letter on each tab (with the bar above the tabs) must name one thing."""
    committed_set(repo, "gate", [EvalProbe("deregistration delay", DELAY)])
    wb, w = open_workbench(qtbot, win)
    clashes = {}
    for tab in (w.probes, w.compare, w.configs, w.history, w.optimizer, w.diagnostics, w.judgments):
        w.tabs.setCurrentWidget(tab)
        QApplication.processEvents()
        for letter, texts in mnemonics(w).items():
            if len(texts) > 1:
                clashes.setdefault(type(tab).__name__, {})[letter] = texts
    assert not clashes, clashes


def test_a_probe_that_enters_or_leaves_the_list_says_so_in_the_delta_column():
    from memhtml_desktop.ui.workbench.compare_tab import CHANGE_COLUMNS, change_delta
    from memhtml_desktop.ui.workbench.models import FAIL_COLOR, PASS_COLOR
    from memhtml_desktop.workbench.history import ProbeChange

    def change(before, after):
        return ProbeChange("k", "q", "t.html", "moved", before, after, False, False)

    assert change_delta(change(5, 3)) == ("\u21912", 1)
    assert change_delta(change(2, 4)) == ("\u21932", -1)
    assert change_delta(change(3, 3)) == ("=", 0)
    assert change_delta(change(None, 3)) == ("\u2191in", 1)  # was "–": outside the 40 hits under A
    assert change_delta(change(7, None)) == ("\u2193out", -1)
    assert change_delta(change(None, None)) == ("\u2013", 0)
    delta = next(c for c in CHANGE_COLUMNS if c.header == "\u0394")
    assert delta.color(change(None, 3)) == PASS_COLOR and delta.color(change(7, None)) == FAIL_COLOR
    assert "rank 3 under B" in delta.tip(change(None, 3))


def test_the_shapes_tab_compares_the_pack_shapes_over_the_set(qtbot, win, repo, git_store):
    from memhtml_desktop.workbench.shapes import compare_shapes

    probes = claim_probes(git_store, 8)
    committed_set(repo, "claims", probes)
    state = (repo / ".memhtml" / "state.db").read_bytes()
    wb, w = open_workbench(qtbot, win)
    w.tabs.setCurrentWidget(w.shapes)
    w.shapes.budget.setValue(3000)
    w.shapes.k.setValue(6)
    with qtbot.waitSignal(wb.shapes_compared, timeout=WAIT) as compared:
        qtbot.mouseClick(w.shapes.run_button, Qt.MouseButton.LeftButton)
    report = compared.args[0]
    assert report.budget == 3000 and report.k == 6 and len(report.rows) == len(probes)
    expected = compare_shapes(git_store, probes, budget=3000, k=6)
    assert report.to_json() == expected.to_json()
    table = w.shapes.table
    assert table.rowCount() == 5 and table.item(0, 0).text() == "memhtml's pack"
    first = report.figures[0]
    assert table.item(0, 1).text() == f"{first.content}/{first.probes}"
    assert f"{len(probes)} probes at budget 3,000" in w.shapes.summary.text()
    assert (repo / ".memhtml" / "state.db").read_bytes() == state, "comparing shapes is not a read"
    assert git(repo, "status", "--porcelain").strip() == "", "nor a commit"
