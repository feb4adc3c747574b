"""The window over a real store: typing searches, filters narrow, reads bump once, the disk is followed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.state import access_stats
from memhtml_desktop.ui.results.results_model import (
    ARM_NAMES,
    BAR_COLUMN,
    FIRST_ARM_COLUMN,
    Column,
    Role,
)
from tests.engine.helpers import Gate, GatedOtherSearch, GatedSearch, HoldJob
from tests.ui.conftest import ARCHIVED, INFRA, PROCEDURAL

WAIT = 15000


def type_query(qtbot, window, text: str) -> None:
    window.search_bar.field.clear()
    window.search_bar.field.setFocus()
    qtbot.keyClicks(window.search_bar.field, text)


def wait_for_query(qtbot, window, text: str):
    qtbot.waitUntil(
        lambda: window.results.model.result() is not None and window.results.model.result().query == text, timeout=WAIT
    )
    return window.results.model.result()


def click_row(qtbot, window, row: int, *, double: bool = False) -> None:
    table = window.results.table
    rect = table.visualRect(window.results.model.index(row, Column.Title))
    if double:
        qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    else:
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def reads(store, path: str) -> int:
    stats = access_stats(store.reader(), path)
    return int(stats["access_count"]) if stats else 0


def all_access(store) -> dict:
    conn = store.reader()
    return {p: access_stats(conn, p) for (p,) in conn.execute("SELECT path FROM files").fetchall()}


# -- searching ------------------------------------------------------------------------------------


def test_typing_shows_hits_with_arm_columns_and_contributions_that_sum(qtbot, window):
    type_query(qtbot, window, "drain the vip")
    result = wait_for_query(qtbot, window, "drain the vip")
    model = window.results.model
    assert model.rowCount() == len(result.hits) > 0
    assert model.index(0, Column.Title).data(Role.Path) == PROCEDURAL
    assert result.fts_form == "any"  # the default binds any of the content words (docs/ranking.md)
    assert window.search_bar.info.text().startswith("fts: any term \u00b7 4 arms")
    for row, hit in enumerate(result.hits):
        assert model.index(row, Column.Score).data() == f"{hit.score:.4f}"
        assert sum(s.contribution for s in model.index(row, BAR_COLUMN).data(Role.ArmScores)) == pytest.approx(
            hit.score
        )
        for offset, arm in enumerate(ARM_NAMES):
            cell = model.index(row, FIRST_ARM_COLUMN + offset).data()
            score = hit.arm(arm)
            assert cell == ("\u2014" if score is None else str(score.rank) if score.counted else f"({score.rank})")
    assert [model.headerData(FIRST_ARM_COLUMN + i, Qt.Orientation.Horizontal) for i in range(4)] == [
        "fts",
        "vec",
        "rec",
        "sal",
    ]


def test_typing_is_debounced_into_one_search(qtbot, make_window, store):
    from memhtml_desktop.settings import Settings

    window = make_window(store, settings=Settings(debounce_ms=200))
    submitted = []
    original = window.runner.run
    window.runner.run = lambda job, *a, **k: (submitted.append(job.kind), original(job, *a, **k))[1]
    type_query(qtbot, window, "rollback")
    wait_for_query(qtbot, window, "rollback")
    assert submitted.count("search") == 1


def test_the_list_keeps_its_answer_until_the_next_one_arrives(qtbot, window, tmp_path):
    """Defect (issue 12): this test asserted before the debounce fired, so no search was running yet.

    Both reader threads are held busy, so the new search is submitted (the debounce has fired) but
    cannot finish; only then is the list checked.
    """

    type_query(qtbot, window, "drain")
    before = wait_for_query(qtbot, window, "drain")
    rows = window.results.model.rowCount()
    model = window.results.model
    shown: list[tuple[int, str]] = []  # every state the list takes until the next answer is in

    def record(*_: object) -> None:
        shown.append((model.rowCount(), model.result().query if model.result() is not None else ""))

    for signal in (model.modelReset, model.rowsRemoved, model.rowsInserted, model.layoutChanged):
        signal.connect(record)
    gate = Gate(tmp_path)
    for _ in range(2):  # occupy the engine's read lane (2 threads)
        window.runner.run(HoldJob(gate=gate.path))
    type_query(qtbot, window, "writer")
    qtbot.waitUntil(lambda: window.runner.is_busy("search") and not window.driver.debounce.isActive(), timeout=WAIT)
    assert model.rowCount() == rows > 0 and model.result() is before  # submitted, nothing cleared
    gate.open()
    after = wait_for_query(qtbot, window, "writer")
    # The list went from "drain"'s answer straight to "writer"'s: no empty or in-between state.
    assert shown and all(state in ((rows, "drain"), (model.rowCount(), "writer")) for state in shown), shown
    assert shown[-1] == (model.rowCount(), "writer") and after is not before


def test_late_results_are_dropped(qtbot, window, tmp_path):
    """Two searches in flight: the first one's answer, arriving last, never replaces the second's."""
    gate = Gate(tmp_path)
    shown = []
    window.search_shown.connect(lambda r: shown.append(r.query))
    window.runner.run(GatedSearch("slow", Scope(), 10, gate=gate.path).success(window.driver.show))
    qtbot.waitUntil(gate.waiting, timeout=WAIT)  # running: the cancel below cannot answer it early
    window.set_query("writer")
    qtbot.waitUntil(lambda: "writer" in shown, timeout=WAIT)
    dropped = window.runner.dropped
    gate.open()
    qtbot.waitUntil(lambda: window.runner.dropped > dropped, timeout=WAIT)  # its answer came, and was dropped
    assert shown[-1] == "writer" and "slow" not in shown


def test_an_older_answer_never_replaces_a_newer_one(qtbot, window, tmp_path):
    """The driver numbers its searches: an answer older than the one listed is dropped whatever
    path it came by (here a job of another kind, which the runner's generations cannot drop)."""
    wait_for_query(qtbot, window, "")
    gate = Gate(tmp_path)
    shown: list[str] = []
    window.search_shown.connect(lambda answer: shown.append(answer.query))
    window.driver.generation += 1  # the slow one is asked first ...
    window.runner.run(
        GatedOtherSearch("slow", Scope(), 10, 30, window.driver.generation, gate=gate.path).success(window.driver.show)
    )
    window.set_query("writer")  # ... and "writer" after it
    qtbot.waitUntil(lambda: "writer" in shown, timeout=WAIT)
    listed, dropped = window.driver.answer, window.driver.dropped
    gate.open()
    qtbot.waitUntil(lambda: window.driver.dropped == dropped + 1, timeout=WAIT)
    assert shown == ["writer"] and window.driver.answer is listed
    assert window.results.model.answer() is listed and window.chart.pool() is listed.pool


def test_degraded_arms_are_shown(qtbot, make_window, store):
    class Broken:
        model_id, dim = "broken", 8

        @property
        def space(self):
            return "broken@8"

        def embed(self, texts):
            raise RuntimeError("model file missing")

    store.embedder = Broken()
    window = make_window(store)
    window.set_query("drain")
    result = wait_for_query(qtbot, window, "drain")
    assert result.degraded
    assert window.results.degraded.isVisibleTo(window)
    assert "model file missing" in window.results.degraded.text()
    assert "\u26a0" in window.results.model.headerData(FIRST_ARM_COLUMN + 1, Qt.Orientation.Horizontal)


# -- filters --------------------------------------------------------------------------------------


def test_toggling_a_facet_narrows(qtbot, window):
    window.set_query("")
    before = wait_for_query(qtbot, window, "")
    qtbot.waitUntil(lambda: window.filters.model.item_for("facet", "Owner=alice") is not None, timeout=WAIT)
    item = window.filters.model.item_for("facet", "Owner=alice")
    assert window.filters.model.count("facet", "Owner=alice") == 1
    with qtbot.waitSignal(window.search_shown, timeout=WAIT) as shown:
        item.setCheckState(Qt.CheckState.Checked)
    after = shown.args[0]
    assert after.scope.facets == (("Owner", "alice"),)
    assert [h.path for h in after.hits] == ["areas/x/self.html"]
    assert len(after.hits) < len(before.hits)
    assert [c.label for c in window.search_bar.chips.bar.chips()] == ["Owner = alice"]
    # values under the same name broaden: ticking Owner=bob keeps the one file (it has both)
    with qtbot.waitSignal(window.search_shown, timeout=WAIT) as shown:
        window.session.toggle_filter("facet", "Owner=bob", True)
    assert [h.path for h in shown.args[0].hits] == ["areas/x/self.html"]


def test_zero_count_values_are_greyed_not_hidden(qtbot, window, store):
    """Issue 14 changed what the number counts: memories in scope (what ticking the value narrows
    to), not memories holding the query's words. A value at 0 is still listed, greyed, and cannot
    be ticked (it could only empty the list)."""
    with qtbot.waitSignal(window.search_shown, timeout=WAIT):
        window.session.toggle_filter("facet", "Owner=alice", True)  # one memory in scope
    qtbot.waitUntil(lambda: not window.runner.is_busy() and window.filters.model.settled(), timeout=WAIT)
    model = window.filters.model
    only = store.read("areas/x/self.html", bump=False).memory_type
    assert model.count("type", only) == 1
    other = next(t for t in ("procedural", "semantic", "episodic") if t != only)
    item = model.item_for("type", other)
    assert item is not None  # still listed
    assert model.count("type", other) == 0 and not model.tickable("type", other)
    assert item.foreground().color() == window.palette().color(window.palette().ColorRole.PlaceholderText)
    assert not item.isEnabled()


def test_a_chip_removes_its_filter(qtbot, window):
    with qtbot.waitSignal(window.search_shown, timeout=WAIT):
        window.session.toggle_filter("tag", "infra", True)
    assert window.session.scope.tags == ("infra",)
    chip = window.search_bar.chips.bar.chips()[0]
    with qtbot.waitSignal(window.search_shown, timeout=WAIT):
        qtbot.mouseClick(chip.close_button, Qt.MouseButton.LeftButton)
    assert window.session.scope == Scope()


def test_an_emptying_filter_shows_the_archived_banner(qtbot, window):
    with qtbot.waitSignal(window.search_shown, timeout=WAIT) as shown:
        window.session.toggle_filter("facet", "Applies to=ALB/NLB target-group deploys", True)
    result = shown.args[0].result
    assert result.scope_empty and result.archived_matches == 1
    assert result.archived[0].path == ARCHIVED and result.archived[0].superseded_by == PROCEDURAL
    view = window.results
    assert view.stack.currentWidget() is view.banner
    assert view.banner.headline.text() == "0 live matches \u2014 1 archived memory matches these filters"
    listing = view.banner.listing.text()
    assert f'href="open:{ARCHIVED}"' in listing and f'href="open:{PROCEDURAL}"' in listing
    assert "superseded by" in listing
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT) as opened:
        view.banner.listing.linkActivated.emit(f"open:{ARCHIVED}")
    assert opened.args[0].path == ARCHIVED
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT) as opened:
        view.banner.listing.linkActivated.emit(f"open:{PROCEDURAL}")
    assert opened.args[0].path == PROCEDURAL


# -- reading --------------------------------------------------------------------------------------


def test_opening_a_memory_bumps_once_and_a_search_bumps_nothing(qtbot, window, store):
    before = all_access(store)
    type_query(qtbot, window, "drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    window.set_query("writer")
    wait_for_query(qtbot, window, "writer")
    window.set_query("drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=WAIT)
    assert all_access(store) == before  # searching (and its counts) bumped nothing

    assert window.results.model.hit(0).path == PROCEDURAL
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT) as shown:
        click_row(qtbot, window, 0)
    assert shown.args[0].path == PROCEDURAL
    assert reads(store, PROCEDURAL) == reads_before(before, PROCEDURAL) + 1
    assert shown.args[0].access["access_count"] == reads(store, PROCEDURAL)
    # a double-click on the same row, and reopening it later, stay inside the cooldown
    click_row(qtbot, window, 0, double=True)
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        window.open_memory(INFRA)
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        window.session.back()
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=WAIT)
    assert reads(store, PROCEDURAL) == reads_before(before, PROCEDURAL) + 1
    changed = {p for p, a in all_access(store).items() if a != before.get(p)}
    assert changed == {PROCEDURAL, INFRA}


def reads_before(before: dict, path: str) -> int:
    return int(before[path]["access_count"]) if before.get(path) else 0


def test_arrow_keys_move_without_opening_and_enter_opens(qtbot, window, store):
    window.set_query("drain the vip")
    result = wait_for_query(qtbot, window, "drain the vip")
    opened, asked = [], []
    window.memory_shown.connect(lambda d: opened.append(d.path))
    window.session.on("open", lambda path, *_: asked.append(path))  # every open, as it is asked for
    window.results.set_current_row(0)
    window.search_bar.focus_query()
    qtbot.keyClick(window.search_bar.field, Qt.Key.Key_Down)
    qtbot.keyClick(window.search_bar.field, Qt.Key.Key_Down)
    assert window.results.current_path() == result.hits[2].path
    qtbot.keyClick(window.search_bar.field, Qt.Key.Key_Up)
    window.results.table.setFocus()
    qtbot.keyClick(window.results.table, Qt.Key.Key_Down)
    assert window.results.current_path() == result.hits[2].path
    assert asked == []  # moving asked for nothing ...
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        qtbot.keyClick(window.results.table, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=WAIT)  # ... and every open asked has landed
    assert asked == [result.hits[2].path] and opened == [result.hits[2].path]
    assert reads(store, result.hits[2].path) == 1


def test_helpful_reinforces_and_rereads_without_a_bump(qtbot, window, store):
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        window.open_memory(PROCEDURAL)
    count = reads(store, PROCEDURAL)
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT) as shown:
        window.reader.reinforce_requested.emit(PROCEDURAL, "positive")
    stats = access_stats(store.reader(), PROCEDURAL)
    assert stats["access_count"] == count and stats["reinforcement_count"] == 1
    assert shown.args[0].access["reinforcement_count"] == 1


def test_why_not_this_one(qtbot, window):
    window.set_query("drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    with qtbot.waitSignal(window.why_shown, timeout=WAIT) as why:
        window.reader.why_requested.emit(ARCHIVED)
    assert why.args[0].path == ARCHIVED
    assert why.args[0].excluded_by
    window.controllers["why"].dialog.close()


def test_recall_mode_fills_the_recall_tab_within_its_budget(qtbot, window):
    window.set_query("drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    with qtbot.waitSignal(window.recall_shown, timeout=WAIT) as shown:
        qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert window.session.mode == "recall" and window.tabs.currentWidget() is window.recall
    pack = shown.args[0]
    assert pack.query == "drain the vip" and pack.memories.spent <= pack.memories.budget
    with qtbot.waitSignal(window.recall_shown, timeout=WAIT) as shown:
        window.recall.budget_changed.emit(300)
    assert shown.args[0].memories.budget == 300 and shown.args[0].memories.spent <= 300
    qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert window.session.mode == "search"


def test_problems_tab_lists_the_invalid_file(qtbot, window):
    with qtbot.waitSignal(window.problems_shown, timeout=WAIT) as shown:
        window.show_view("problems")
    assert "areas/bad/no-article.html" in {p.path for p in shown.args[0]}


# -- keyboard -------------------------------------------------------------------------------------


def test_keyboard_focus_and_escape(qtbot, window):
    window.results.table.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert window.search_bar.field.hasFocus()
    window.results.table.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.search_bar.field.hasFocus()
    type_query(qtbot, window, "drain")
    wait_for_query(qtbot, window, "drain")
    with qtbot.waitSignal(window.search_shown, timeout=WAIT):
        window.session.toggle_filter("tag", "deploy", True)
    qtbot.keyClick(window.search_bar.field, Qt.Key.Key_Escape)
    assert window.search_bar.text() == "" and window.session.query == ""
    assert window.session.scope.tags == ("deploy",)
    qtbot.keyClick(window.search_bar.field, Qt.Key.Key_Escape)
    assert window.session.scope == Scope()


# -- the store, the disk, the status bar ------------------------------------------------------------


def test_status_bar_shows_store_count_and_watch_state(qtbot, window, store, store_dir):
    qtbot.waitUntil(lambda: "memories" in window.status.count_label.text(), timeout=WAIT)
    stats = store.stats()
    assert window.status.count_label.text() == f"\u00b7 {stats['active']:,} memories"
    assert window.status.store_label.toolTip() == str(store_dir.resolve())
    assert "stopped" in window.status.watch.label.text()  # this window does not watch


def test_a_file_edited_on_disk_changes_the_results(qtbot, make_window, store, store_dir):
    window = make_window(store, watch=True, watcher_options={"quiet_s": 0.05})
    qtbot.waitUntil(lambda: window.bridge.status().mode in ("live", "polling"), timeout=WAIT)
    assert "live" in window.status.watch.label.text() or "polling" in window.status.watch.label.text()
    window.set_query("zebrafish")
    result = wait_for_query(qtbot, window, "zebrafish")
    assert all(h.arm("fts") is None for h in result.hits)
    target = store_dir / INFRA
    target.write_text(
        target.read_text(encoding="utf-8").replace("<mark>WAL admits", "<mark>Zebrafish note: WAL admits"),
        encoding="utf-8",
    )

    def top_is_infra():
        r = window.results.model.result()
        return r.hits and r.hits[0].path == INFRA and r.hits[0].arm("fts") is not None

    qtbot.waitUntil(top_is_infra, timeout=WAIT)  # no user action: the watcher's batch re-ran the search
    assert window.results.model.index(0, FIRST_ARM_COLUMN).data() == "1"
    qtbot.waitUntil(lambda: "last batch" in window.status.batch_label.text(), timeout=WAIT)


def test_the_reader_follows_a_memory_moved_on_disk_and_says_when_it_is_gone(qtbot, make_window, store, store_dir):
    """An agent archives (or a person `git mv`s) the memory being read: the reader follows it to its
    new path; when it is deleted, the reader says so instead of showing text that no longer exists."""
    window = make_window(store, watch=True, watcher_options={"quiet_s": 0.05})
    qtbot.waitUntil(lambda: window.bridge.status().mode in ("live", "polling"), timeout=WAIT)
    reader = window.reader
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT, check_params_cb=lambda d: d.path == INFRA):
        window.open_memory(INFRA, bump=False)
    moved = "archive/2026/resources/infra/" + INFRA.rsplit("/", 1)[1]
    (store_dir / moved).parent.mkdir(parents=True, exist_ok=True)
    (store_dir / INFRA).rename(store_dir / moved)
    qtbot.waitUntil(lambda: reader.current_path() == moved and reader.state() == "detail", timeout=WAIT)
    assert reader.note_label.text() == f"Moved on disk from {INFRA}."
    (store_dir / moved).unlink()
    qtbot.waitUntil(lambda: reader.state() == "error", timeout=WAIT)
    assert reader.current_path() == moved
    assert "moved or deleted" in reader.error_strip.body.text()


def test_open_store_switches_and_remembers(qtbot, window, tmp_path, qsettings):
    from tests.ui.conftest import write_golden_store

    other = write_golden_store(tmp_path / "other")
    with qtbot.waitSignal(window.store_changed, timeout=WAIT):
        assert window.stores.open_path(other)
    assert window.store.root == other.resolve()
    assert window.stores.recent()[0] == str(other.resolve())
    qtbot.waitUntil(
        lambda: window.results.model.result() is not None and window.results.model.rowCount() > 0, timeout=WAIT
    )


def test_geometry_splitter_and_columns_persist(qtbot, make_window, store, qsettings, qapp):
    if qapp.primaryScreen().availableGeometry().width() < 1200:
        pytest.skip("the screen is too small to restore this geometry (QApplication made before conftest)")
    first = make_window(store)
    # the person sizes the Type column while it shows, then narrows the list: a column they sized
    # stays (issue 14: narrow lists let unsized optional columns step aside)
    first.results.table.horizontalHeader().resizeSection(Column.Type, 140)
    first.resize(1111, 777)
    first.splitter.setSizes([300, 500, 300])
    sizes = first.splitter.sizes()
    first.close()
    second = make_window(store)
    assert second.results.table.horizontalHeader().sectionSize(Column.Type) == 140
    assert second.splitter.sizes() == sizes
    assert (second.width(), second.height()) == (1111, 777)


def test_about_lists_versions_without_blocking(qtbot, window):
    from memhtml_desktop.ui.shell.about_dialog import AboutDialog

    window.dialogs.show_about()
    qtbot.waitUntil(
        lambda: isinstance(window.dialogs.about, AboutDialog) and window.dialogs.about.isVisible(), timeout=WAIT
    )
    text = window.dialogs.about.text()
    for name in (
        "Qt",
        "PySide6",
        "SQLite",
        "sqlite-vec",
        "Embedder",
        "memhtml-desktop-hash-v1",
        str(window.store.root),
    ):
        assert name in text
    window.dialogs.about.close()


def test_a_bad_store_is_refused_with_a_message(qtbot, window, tmp_path):
    root = window.store.root
    assert not window.stores.open_path(tmp_path / "missing")
    assert window.store.root == root
    assert "not a directory" in window._message_box.text() or "not found" in window._message_box.text()
    window._message_box.close()


def test_menus_are_file_edit_view_go_help(window):
    assert [a.text().replace("&", "") for a in window.menuBar().actions()] == ["File", "Edit", "View", "Go", "Help"]


def test_why_dialog_opens_memories_and_asks_again(qtbot, window):
    from memhtml_desktop.ui.reader.why_dialog import WhyDialog

    target = "areas/oncall/format-md-procedural.html"
    window.session.why(target)
    qtbot.waitUntil(lambda: isinstance(window.controllers["why"].dialog, WhyDialog), timeout=WAIT)
    dialog = window.controllers["why"].dialog
    with qtbot.waitSignal(window.why_shown, timeout=WAIT) as shown:
        dialog.why_requested.emit("resources/infra/one-writer-and-many-readers-share-the-index.html")
    assert shown.args[0].path == "resources/infra/one-writer-and-many-readers-share-the-index.html"
    assert window.controllers["why"].dialog is dialog, "the dialog is reused"
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT) as opened:
        dialog.open_requested.emit(target)
    assert opened.args[0].path == target
    dialog.close()


def test_f5_while_watching_asks_the_watcher_and_watching_goes_on(qtbot, make_window, store):
    """Defect (issue 12): F5 looked for a `Watcher.request_reconcile` that did not exist, ran a second
    reconciliation beside the watcher and showed "watching is off" while watching went on."""
    window = make_window(store, watch=True, watcher_options={"quiet_s": 0.05})
    qtbot.waitUntil(
        lambda: window.bridge.status().mode in ("live", "polling") and not window.bridge.status().busy, timeout=WAIT
    )
    before = window.bridge.status().batches
    kinds = []
    window.runner.busy_changed.connect(lambda kind, busy: kinds.append(kind) if busy else None)
    texts = []
    window.bridge.status_changed.connect(lambda status: texts.append(window.status.watch.label.text()))
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: window.bridge.status().batches > before, timeout=WAIT)
    last = window.bridge.status().last_batch
    assert last.kind == "reconcile"
    # Done: the watcher is idle again, its status shown, and every job the batch set off has answered.
    qtbot.waitUntil(
        lambda: (
            not window.bridge.status().busy
            and not window.runner.is_busy()
            and bool(texts)
            and window.status.watch.label.text() == texts[-1]
        ),
        timeout=WAIT,
    )
    assert "reconcile" not in kinds  # no second reconciliation on the runner's writer pool
    assert window.bridge.status().mode in ("live", "polling")
    assert not any("off" in text or "stopped" in text for text in texts + [window.status.watch.label.text()])
