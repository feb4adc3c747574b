"""Issue 14's defects, each tried as a person meets it: the real MainWindow over a real store.

Every test here was written against the code before its fix and failed there (the issue names the
defect; the docstring says what the person saw).
"""

from __future__ import annotations

import html
import os
import stat
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter
from PySide6.QtWidgets import QApplication, QLabel, QStyleOptionViewItem

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.ranking import MEMHTML
from memhtml_desktop.index.state import access_stats
from memhtml_desktop.index.store import Store
from memhtml_desktop.ui.results.results_model import Column
from tests.ui.conftest import PROCEDURAL
from tests.ui.test_main_window import WAIT, reads, type_query, wait_for_query


@pytest.fixture
def demo_store(demo_store_dir, tmp_path):
    """The bundled demo store (64 memories, salience from its sidecar), indexed."""
    s = Store(demo_store_dir, index_path=tmp_path / "demo-index.db", embedder=HashEmbedder())
    s.import_sidecar()
    s.index()
    yield s
    s.close_thread_connection()


def settle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.runner.is_busy() and not window.driver.pending(), timeout=WAIT)


# -- 1. Enter opens a memory the user never chose -------------------------------------------------


def test_a_new_list_has_no_hidden_selection_and_enter_reads_nothing(qtbot, make_window, demo_store):
    """On the first list (empty query) row 1 was current without a click; typing a new query and
    pressing Enter opened that memory wherever it now stood (placed there by MMR) and counted a read."""
    window = make_window(demo_store)
    first = window.results.model.result()
    old = first.hits[0].path
    # a query where the old memory is listed lower down (it shares a word or two with the query;
    # one it does not match at all no longer rides recency and salience onto the page)
    query = next(
        q
        for q in (
            "replication",
            "crashed",
            "compactor",
            "rejection",
            "brandt",
            "staging vip",
            "rollback mobile release",
            "vip shared",
            "bad mobile release",
        )
        if old in [h.path for h in demo_store.search(q).hits[2:]]
    )
    before = reads(demo_store, old)
    opened, asked = [], []
    window.memory_shown.connect(lambda detail: opened.append(detail.path))
    window.session.on("open", lambda path, *_: asked.append(path))  # every open, as it is asked for
    type_query(qtbot, window, query)
    wait_for_query(qtbot, window, query)
    settle(qtbot, window)
    assert window.results.current_path() is None, "a new list starts with no hidden selection"
    qtbot.keyClick(window.search_bar.field, Qt.Key.Key_Return)
    # Enter has done its work when the first row is current; whatever it set off has answered after settle.
    qtbot.waitUntil(lambda: window.results.current_path() == window.results.model.hit(0).path, timeout=WAIT)
    settle(qtbot, window)
    assert asked == [] and opened == [] and reads(demo_store, old) == before
    # Enter showed the first row as current (visible, focused) without reading it ...
    assert window.results.current_path() == window.results.model.hit(0).path
    assert window.results.table.hasFocus()
    # ... and an explicit choice of that visible row is a read.
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        qtbot.keyClick(window.results.table, Qt.Key.Key_Return)
    assert opened == [window.results.model.hit(0).path]


def test_a_row_the_person_chose_follows_its_memory_when_the_same_search_reruns(qtbot, window):
    window.set_query("drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    settle(qtbot, window)
    window.search_bar.focus_query()
    qtbot.keyClick(window.search_bar.field, Qt.Key.Key_Down)
    qtbot.keyClick(window.search_bar.field, Qt.Key.Key_Down)
    chosen = window.results.current_path()
    assert chosen == window.results.model.hit(1).path
    with qtbot.waitSignal(window.search_shown, timeout=WAIT):
        window.driver.refresh()  # what a watcher batch does: the same ask again
    assert window.results.current_path() == chosen


# -- 2. at 1024x700 titles vanish; badges paint over the next column ---------------------------------


def test_titles_stay_readable_at_1024x700(qtbot, make_window, demo_store):
    window = make_window(demo_store)
    window.resize(1024, 700)
    window.set_query("drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    settle(qtbot, window)
    qtbot.wait(50)
    table = window.results.table
    title = window.results.model.hit(0).title
    fm = table.fontMetrics()
    assert table.columnWidth(Column.Title) >= fm.horizontalAdvance(title[:24]), (
        f"the Title column is {table.columnWidth(Column.Title)} px at 1024x700"
    )
    # every visible column is inside the viewport: nothing is pushed off to a scroll bar
    header = table.horizontalHeader()
    right = max(
        header.sectionViewportPosition(c) + header.sectionSize(c)
        for c in range(header.count())
        if not header.isSectionHidden(c)
    )
    assert right <= table.viewport().width() + 1


def test_the_title_painter_never_paints_outside_its_cell(qtbot, make_window, store_dir, tmp_path):
    """The "moved by MMR from 3" badge was drawn past the Title cell, over the Type text.

    Ranked by the memhtml profile, whose cosine MMR moves hits on this store (the default's spares them)."""
    store = Store(store_dir, index_path=tmp_path / "mmr.db", embedder=HashEmbedder(), ranking=MEMHTML)
    store.index()
    window = make_window(store)
    window.set_query("drain the vip")
    result = wait_for_query(qtbot, window, "drain the vip")
    row = next(i for i, h in enumerate(result.hits) if h.moved_by)
    index = window.results.model.index(row, Column.Title)
    delegate = window.results.table.itemDelegateForColumn(Column.Title)
    image = QImage(400, 60, QImage.Format.Format_ARGB32)
    image.fill(QColor(0, 0, 0, 0))
    option = QStyleOptionViewItem()
    delegate.initStyleOption(option, index)
    option.rect = QRect(10, 5, 60, 48)  # a narrow cell: the badge cannot fit
    option.widget = window.results.table
    painter = QPainter(image)
    delegate.paint(painter, option, index)
    painter.end()
    outside = [
        (x, y)
        for x in range(image.width())
        for y in range(image.height())
        if not option.rect.contains(x, y) and image.pixelColor(x, y).alpha() != 0
    ]
    assert outside == []


def test_at_1920x1080_the_list_pane_is_used(qtbot, make_window, demo_store):
    """More than half the list pane was empty under ten rows."""
    window = make_window(demo_store)
    window.resize(1920, 1080)
    window.set_query("drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    settle(qtbot, window)
    qtbot.wait(50)
    view = window.results
    table = view.table
    rows = table.model().rowCount()
    used = sum(table.rowHeight(r) for r in range(rows))
    chart = getattr(view, "chart", None)
    if chart is not None and chart.isVisible():
        used += chart.height()
    assert used >= 0.5 * view.height(), f"{used} of {view.height()} px used"


# -- 3. facet counts contradict the list ---------------------------------------------------------


def _tick_and_count(qtbot, window, axis: str, value: str) -> int:
    with qtbot.waitSignal(window.search_shown, timeout=WAIT) as shown:
        window.session.toggle_filter(axis, value, True)
    n = len(shown.args[0].hits)
    with qtbot.waitSignal(window.search_shown, timeout=WAIT):
        window.session.toggle_filter(axis, value, False)
    return n


@pytest.mark.parametrize("query", ["drain the vip", "xyzzy qwerty"])
def test_type_counts_describe_the_list_and_a_zero_never_gives_hits(qtbot, make_window, demo_store, query):
    """For "drain the vip" Types showed semantic = 0 beside 3 semantic hits, and ticking it gave 10
    hits; for words nothing holds every count was 0 beside 10 hits."""
    window = make_window(demo_store)
    window.set_query(query)
    result = wait_for_query(qtbot, window, query)
    settle(qtbot, window)
    qtbot.waitUntil(window.filters.model.settled, timeout=WAIT)
    model = window.filters.model
    listed = {}
    for hit in result.hits:
        listed[hit.memory_type] = listed.get(hit.memory_type, 0) + 1
    for memory_type, n in listed.items():
        assert model.count("type", memory_type) >= n, (memory_type, model.count("type", memory_type), n)
    zero = [
        t
        for t in (
            "semantic",
            "procedural",
            "episodic",
            "verdict",
            "precedent",
            "user_preference",
            "agent_insight",
            "error_pattern",
            "arc",
            "task",
        )
        if model.item_for("type", t) is not None and model.count("type", t) == 0
    ]
    for memory_type in zero:
        assert _tick_and_count(qtbot, window, "type", memory_type) == 0, memory_type
    shown = [t for t in listed if model.count("type", t) > 0]
    assert shown and _tick_and_count(qtbot, window, "type", shown[0]) > 0


def test_the_panel_says_what_its_counts_count(qtbot, window):
    settle(qtbot, window)
    note = window.filters.note.text().lower()
    assert "list" in note and "scope" in note


# -- 4. nothing says "no word matched" -----------------------------------------------------------


def _visible_texts(widget) -> str:
    return " | ".join(label.text() for label in widget.findChildren(QLabel) if label.isVisibleTo(widget))


def test_words_nothing_holds_are_said_above_the_list(qtbot, make_window, demo_store):
    window = make_window(demo_store)
    window.set_query("xyzzy qwerty")
    wait_for_query(qtbot, window, "xyzzy qwerty")
    settle(qtbot, window)
    text = _visible_texts(window.results).lower()
    assert "no memory contains these words" in text
    window.set_query("drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    settle(qtbot, window)
    assert "no memory contains these words" not in _visible_texts(window.results).lower()


def test_hits_only_recency_and_salience_placed_are_marked(qtbot, make_window, demo_store):
    class Broken:
        model_id, dim, space = "broken", 8, "broken@8"

        def embed(self, texts):
            raise RuntimeError("model file missing")

    demo_store.embedder = Broken()
    window = make_window(demo_store)
    window.set_query("xyzzy qwerty drain")
    result = wait_for_query(qtbot, window, "xyzzy qwerty drain")
    model = window.results.model
    marked = [
        row
        for row in range(model.rowCount())
        if "recency and salience" in (model.index(row, Column.Title).data(Qt.ItemDataRole.ToolTipRole) or "")
    ]
    expected = [row for row, hit in enumerate(result.hits) if hit.arm("fts") is None and hit.arm("vector") is None]
    assert expected and marked == expected


# -- 5. the settings dialog clips its help text --------------------------------------------------


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_settings_help_lines_are_never_clipped(qtbot, theme):
    from memhtml_desktop.settings import Settings
    from memhtml_desktop.ui.shell.settings_dialog import SettingsDialog
    from memhtml_desktop.ui.shell.theme import apply_theme

    app = QApplication.instance()
    palette, style = app.palette(), app.style().name()
    apply_theme(app, theme)
    try:
        dialog = SettingsDialog(Settings(), environ={"MEMHTML_ROOT": "/srv/memory"})
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        for width in (None, 520):
            if width:
                dialog.resize(width, dialog.height())
                qtbot.wait(20)
            for label in dialog.findChildren(QLabel):
                if label.objectName().startswith("help_") and label.isVisible():
                    need = label.heightForWidth(label.width())
                    assert label.height() >= need, (label.objectName(), label.height(), need, width)
    finally:
        app.setPalette(palette)
        app.setStyle(style)


# -- 6. why-not needs a typed path; an unknown path is handled badly ------------------------------


def _why_dialog(qtbot, window):
    from memhtml_desktop.ui.reader.why_dialog import WhyDialog

    qtbot.waitUntil(
        lambda: (
            isinstance(window.controllers["why"].dialog, WhyDialog) and window.controllers["why"].dialog.isVisible()
        ),
        timeout=WAIT,
    )
    return window.controllers["why"].dialog


def test_why_not_finds_a_memory_by_its_title(qtbot, window, store):
    window.set_query("drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    window.dialogs.ask_why()
    dialog = _why_dialog(qtbot, window)
    infra_title = store.read("resources/infra/one-writer-and-many-readers-share-the-index.html", bump=False).title
    dialog.memory_field.setFocus()
    qtbot.keyClicks(dialog.memory_field, infra_title.split()[1].lower())
    completer = dialog.memory_field.completer()
    qtbot.waitUntil(
        lambda: any(infra_title in completer.model().index(r, 0).data() for r in range(completer.model().rowCount())),
        timeout=WAIT,
    )
    row = next(r for r in range(completer.model().rowCount()) if infra_title in completer.model().index(r, 0).data())
    with qtbot.waitSignal(window.why_shown, timeout=WAIT) as shown:
        completer.activated[str].emit(completer.model().index(row, 0).data())
    assert shown.args[0].path == "resources/infra/one-writer-and-many-readers-share-the-index.html"
    dialog.close()


def test_why_not_from_any_rows_context_menu(qtbot, window):
    window.set_query("drain the vip")
    result = wait_for_query(qtbot, window, "drain the vip")
    menu = window.results.context_menu(2)
    action = next(a for a in menu.actions() if a.text().replace("&", "").startswith("Why not"))
    with qtbot.waitSignal(window.why_shown, timeout=WAIT) as shown:
        action.trigger()
    assert shown.args[0].path == result.hits[2].path
    _why_dialog(qtbot, window).close()


def test_an_unknown_memory_is_said_once_and_cannot_be_opened(qtbot, window):
    with qtbot.waitSignal(window.why_shown, timeout=WAIT):
        window.session.why("areas/oncall/no-such-memory.html")
    dialog = _why_dialog(qtbot, window)
    qtbot.wait(50)
    assert not dialog.open_button.isEnabled()
    texts = [label.text() for label in dialog.findChildren(QLabel) if label.isVisible() and label.text()]
    assert sum("not in the index" in t.lower() for t in texts) == 1, texts
    assert not dialog.arms_view.isVisible()
    dialog.close()


# -- 7. a terminal editor is started with no terminal ----------------------------------------------


def _script(folder: Path, name: str, record: Path) -> Path:
    path = folder / name
    path.write_text(f'#!/bin/sh\nprintf "%s\\n" "$0" "$@" > "{record}"\n', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_a_terminal_editor_runs_in_the_users_terminal(qtbot, window, tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "argv.txt"
    _script(bin_dir, "my-terminal", record)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("TERMINAL", "my-terminal")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "vi")
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        window.open_memory(PROCEDURAL, bump=False)
    window.reader.editor_action.trigger()
    qtbot.waitUntil(record.exists, timeout=WAIT)
    argv = record.read_text(encoding="utf-8").split("\n")
    assert argv[0].endswith("my-terminal")
    assert argv[1:4] == ["-e", "vi", str(window.store.root / PROCEDURAL)]


def test_a_terminal_editor_without_a_terminal_says_why(qtbot, window, tmp_path, monkeypatch):
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("TERMINAL", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "vi")
    launched = []
    window.reader.editor_launcher = lambda argv: launched.append(argv) or True
    window.reader.url_opener = lambda url: launched.append(url) or True
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        window.open_memory(PROCEDURAL, bump=False)
    window.reader.editor_action.trigger()
    assert launched == []
    note = window.reader.note_label.text()
    assert "terminal" in note and "vi" in note and "$TERMINAL" in note


# -- 8. a reinforcement misclick cannot be taken back -------------------------------------------


def test_not_helpful_right_after_helpful_replaces_it(qtbot, window, store):
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        window.open_memory(PROCEDURAL)
    before = access_stats(store.reader(), PROCEDURAL)
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        window.reader.helpful_action.trigger()
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        window.reader.not_helpful_action.trigger()
    settle(qtbot, window)
    after = access_stats(store.reader(), PROCEDURAL)
    assert after["reinforcement_count"] == before["reinforcement_count"] + 1
    assert after["outcome_score"] == pytest.approx(before["outcome_score"] * 0.7 - 0.3)
    assert window.reader.not_helpful_action.isChecked() and not window.reader.helpful_action.isChecked()
    assert "not helpful" in window.reader.note_label.text().lower()


# -- 9. the small ones ------------------------------------------------------------------------------


def test_problem_lines_wrap_instead_of_being_cut(qtbot):
    from memhtml_desktop.domain.results import Problem
    from memhtml_desktop.ui.problems.problems_pane import ProblemsPane

    long = "the claim <mark> sits inside an <aside>, which memhtml reads as a side note " * 3
    pane = ProblemsPane()
    qtbot.addWidget(pane)
    pane.resize(420, 400)
    pane.show()
    pane.show_problems([Problem("areas/bad/x.html", "invalid", (long.strip(),), (), "")], {})
    qtbot.wait(20)
    proxy = pane.view.model()
    line = proxy.index(0, 0, proxy.index(0, 0))
    rect = pane.view.visualRect(line)
    assert rect.height() >= 2 * pane.view.fontMetrics().height()
    assert html.escape(long.strip(), quote=False) in line.data(Qt.ItemDataRole.ToolTipRole)


def test_ctrl_c_in_the_results_copies_the_memorys_path(qtbot, window):
    window.set_query("drain the vip")
    result = wait_for_query(qtbot, window, "drain the vip")
    window.results.set_current_row(1)
    window.results.table.setCurrentIndex(window.results.model.index(1, Column.Score))
    window.results.table.setFocus()
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(window.results.table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == result.hits[1].path


def test_tab_leaves_the_results_table(qtbot, window):
    window.activateWindow()
    window.results.set_current_row(0)
    window.results.table.setFocus()
    qtbot.keyClick(window.results.table, Qt.Key.Key_Tab)
    assert not window.results.table.hasFocus()


def _contrast(a: QColor, b: QColor) -> float:
    def lum(c: QColor) -> float:
        def ch(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF())

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_arm_headers_and_rank_badges_are_legible_in_the_dark_theme(qtbot, window):
    from memhtml_desktop.ui.results import delegates
    from memhtml_desktop.ui.results.results_model import ARM_NAMES, FIRST_ARM_COLUMN
    from memhtml_desktop.ui.shell.theme import apply_theme

    app = QApplication.instance()
    palette, style = app.palette(), app.style().name()
    apply_theme(app, "dark")
    try:
        window.set_query("drain the vip")
        wait_for_query(qtbot, window, "drain the vip")
        header = window.results.table.horizontalHeader()
        background = header.palette().color(header.backgroundRole())
        base = window.results.table.palette().color(window.results.table.palette().ColorRole.Base)
        for offset, arm in enumerate(ARM_NAMES):
            brush = window.results.model.headerData(
                FIRST_ARM_COLUMN + offset, Qt.Orientation.Horizontal, Qt.ItemDataRole.ForegroundRole
            )
            assert _contrast(brush.color(), background) >= 4.5, arm
            text, fill = delegates.rank_pill_colors(arm, window.results.table.palette(), selected=False)
            assert _contrast(text, delegates.over(fill, base)) >= 4.5, arm
    finally:
        app.setPalette(palette)
        app.setStyle(style)


def test_the_shortcuts_list_names_every_shortcut_of_the_menus(qtbot, window):
    action = next(
        a
        for menu in window.menuBar().actions()
        for a in menu.menu().actions()
        if a.text().replace("&", "") == "Keyboard shortcuts"
    )
    action.trigger()
    dialog = window.dialogs.shortcuts
    qtbot.waitUntil(dialog.isVisible, timeout=WAIT)
    text = dialog.text()
    for shortcut in ("Ctrl+Shift+W", "Ctrl+\\", "Ctrl+,", "Ctrl+L", "F5", "Ctrl+R"):
        assert shortcut in text, shortcut
    for menu in window.menuBar().actions():
        for item in menu.menu().actions():
            for key in item.shortcuts():
                assert key.toString() in text, item.text()
    dialog.close()


def test_a_store_of_only_broken_files_points_at_problems(qtbot, make_window, tmp_path):
    from tests.ui.conftest import GOLDEN

    root = tmp_path / "broken"
    for name in ("areas__bad__no-article.html", "areas__bad__two-marks.html", "areas__bad__time-bad.html"):
        target = root / name.replace("__", "/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((GOLDEN / name).read_bytes())
    store = Store(root, index_path=tmp_path / "broken.db", embedder=HashEmbedder())
    store.index()
    window = make_window(store)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: "Problems" in window.results.message.text(), timeout=WAIT)
    assert "index is empty" not in window.results.message.text()
    assert "3" in window.results.message.text()
    store.close_thread_connection()


def test_the_recall_pane_says_disclosure_as_the_cli_does(qtbot, window):
    window.set_query("drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    with qtbot.waitSignal(window.recall_shown, timeout=WAIT):
        window.session.set_mode("recall")
    pane = window.recall
    texts = " ".join(
        [pane.ledger_label.text(), pane.ledger_label.toolTip()]
        + [box.meter_label.toolTip() for box in pane.findChildren(type(pane.memories_box))]
    )
    model = pane.memories_box.model
    tiers = {model.index(r, model.TIER).data() for r in range(model.rowCount())}
    assert "line" not in texts.replace("disclosure", "").split() and " line " not in texts
    assert "LINE" not in tiers
    assert "disclosure" in texts


def test_a_count_line_too_long_for_1024_px_ends_in_an_ellipsis(qtbot, make_window, demo_store):
    """At 1024x700 the browse list's count line was cut mid-word by the order toggles
    ("… by recency and s"); it now drops whole parts from its end, and the tooltip and accessible
    text keep it whole."""
    window = make_window(demo_store)
    window.resize(1024, 700)
    settle(qtbot, window)
    qtbot.wait(50)
    label = window.results.summary
    whole = label.text()
    assert "recency and salience" in whole and label.toolTip() == whole
    if label.fontMetrics().horizontalAdvance(whole) > label.contentsRect().width():
        # whole parts dropped from the end, never a cut inside one (issue 41: "in scope (…")
        shown = label.elided()
        assert shown != whole and whole.startswith(shown) and shown.count("(") == shown.count(")"), shown
    window.resize(1920, 900)
    qtbot.wait(50)
    assert label.elided() == whole  # room enough: the whole line
