"""What a demanding user expects of the list (issue 14): totals, show more, two orders, sorting,
columns, a context menu on every row, the pool chart. The real MainWindow over a real store."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMenu

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.ranking import MEMHTML
from memhtml_desktop.index.state import access_stats
from memhtml_desktop.index.store import Store
from memhtml_desktop.ui.kit.row_actions import RowAction
from memhtml_desktop.ui.results.results_model import FUSED, Column, Role
from tests.ui.test_main_window import WAIT, wait_for_query


@pytest.fixture
def demo_store(demo_store_dir, tmp_path):
    s = Store(demo_store_dir, index_path=tmp_path / "demo-index.db", embedder=HashEmbedder())
    s.import_sidecar()
    s.index()
    yield s
    s.close_thread_connection()


@pytest.fixture
def diversified_store(demo_store_dir, tmp_path):
    """The demo store ranked by the memhtml profile, whose cosine MMR moves hits here (the default
    profile's MMR spares everything on this store, so its two orders are the same list)."""
    s = Store(demo_store_dir, index_path=tmp_path / "mmr-index.db", embedder=HashEmbedder(), ranking=MEMHTML)
    s.import_sidecar()
    s.index()
    yield s
    s.close_thread_connection()


def search(qtbot, window, text: str):
    window.set_query(text)
    result = wait_for_query(qtbot, window, text)
    qtbot.waitUntil(lambda: window.results.model.pool() is not None and not window.runner.is_busy(), timeout=WAIT)
    return result


def column_texts(window, column: int) -> list[str]:
    model = window.results.model
    return [model.index(r, column).data() for r in range(model.rowCount())]


# -- totals -------------------------------------------------------------------------------------


def test_the_header_says_how_many_match_the_words_and_how_many_are_in_scope(qtbot, make_window, demo_store):
    window = make_window(demo_store)
    search(qtbot, window, "billing")
    pool = demo_store.pool("billing", limit=10)
    assert pool.matches >= 10
    assert window.results.summary.text().startswith(f"10 of {pool.matches:,} matching all the words")
    search(qtbot, window, "rollback")
    few = demo_store.pool("rollback", limit=10).matches
    assert 0 < few < 10
    assert window.results.summary.text().startswith(f"10 hits \u00b7 only {few} match all the words")
    search(qtbot, window, "")
    assert f"of {demo_store.pool('', limit=10).in_scope:,} in scope" in window.results.summary.text()


# -- show more and the two orders -----------------------------------------------------------------


def test_show_more_pages_through_the_fused_pool_below_the_agents_page(qtbot, make_window, demo_store):
    window = make_window(demo_store)
    result = search(qtbot, window, "rollback")
    view = window.results
    assert view.model.rowCount() == 10 and view.more_button.isEnabled()
    qtbot.mouseClick(view.more_button, Qt.MouseButton.LeftButton)
    assert view.model.rowCount() == 20
    page = {h.path for h in result.hits}
    below = [view.model.hit(r) for r in range(10, 20)]
    assert all(view.model.page_position(r) is None for r in range(10, 20))
    assert not page & {h.path for h in below}
    fused = [h.fused_position for h in below]
    assert fused == sorted(fused), "below the page: the fused list, in fused order"
    assert column_texts(window, Column.Position)[10:] == [""] * 10
    assert "dashed line" in view.more_note.text()
    clicks = 0
    while view.more_button.isEnabled() and clicks < 30:  # page on until every candidate is listed
        before = view.model.rowCount()
        qtbot.mouseClick(view.more_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=WAIT)
        qtbot.waitUntil(lambda: view.model.rowCount() > before or not view.more_button.isEnabled(), timeout=WAIT)
        clicks += 1
    assert not view.more_button.isEnabled() and "Every candidate" in view.more_note.text()
    assert view.model.rowCount() > 30, "paging went past the pool the page was drawn from"
    assert len(set(view.model.paths())) == view.model.rowCount()


def test_the_fused_order_shows_what_diversification_did(qtbot, make_window, diversified_store):
    window = make_window(diversified_store)
    result = search(qtbot, window, "drain the vip")
    view = window.results
    qtbot.mouseClick(view.fused_button, Qt.MouseButton.LeftButton)
    assert view.model.order() == FUSED and window.menus.fused_action.isChecked()
    rows = view.model.rowCount()
    fused = [view.model.hit(r).fused_position for r in range(rows)]
    assert fused == list(range(1, rows + 1)), "the fused list from its top, without gaps"
    assert rows >= max(h.fused_position for h in result.hits)
    on_page = {view.model.hit(r).path: view.model.page_position(r) for r in range(rows)}
    assert {h.path: h.position for h in result.hits}.items() <= on_page.items()
    skipped = [r for r in range(rows) if view.model.page_position(r) is None]
    assert skipped, "MMR passed over some of the fused list"
    assert "not on the agent's page" in view.model.index(skipped[0], Column.Title).data(Role.Badges)
    assert not view.table.horizontalHeader().isSectionHidden(Column.Fused)
    qtbot.mouseClick(view.agent_button, Qt.MouseButton.LeftButton)
    assert [view.model.hit(r).path for r in range(view.model.rowCount())] == [h.path for h in result.hits]


def test_columns_sort_and_the_position_column_restores_the_agents_order(qtbot, make_window, demo_store):
    window = make_window(demo_store)
    window.resize(1900, 1000)
    result = search(qtbot, window, "rollback")
    header = window.results.table.horizontalHeader()
    for column in (Column.Path, Column.Date, Column.Type, Column.Score):
        window.results.table.choose_column(column, True)
    for column, key in (
        (Column.Score, lambda h: h.score),
        (Column.Date, lambda h: h.updated_at),
        (Column.Path, lambda h: h.path),
        (Column.Type, lambda h: h.memory_type),
    ):
        qtbot.mouseClick(
            header.viewport(),
            Qt.MouseButton.LeftButton,
            pos=QPoint(header.sectionViewportPosition(column) + 5, header.height() // 2),
        )
        assert header.sortIndicatorSection() == column
        order = header.sortIndicatorOrder()
        keys = [key(window.results.model.hit(r)) for r in range(window.results.model.rowCount())]
        assert keys == sorted(keys, reverse=order == Qt.SortOrder.DescendingOrder), column
    window.results.table.sortByColumn(Column.Position, Qt.SortOrder.AscendingOrder)
    assert window.results.model.paths() == [h.path for h in result.hits]


def test_the_column_chooser_hides_and_shows_columns_and_remembers(qtbot, make_window, demo_store, qsettings):
    window = make_window(demo_store)
    search(qtbot, window, "rollback")
    table = window.results.table
    menu = table.column_menu()
    titles = [a.text() for a in menu.actions() if a.isCheckable()]
    assert {"#", "Fused", "Type", "Path", "Updated", "Score", "Contribution"} <= set(titles)
    next(a for a in menu.actions() if a.text() == "Path").setChecked(True)
    next(a for a in table.column_menu().actions() if a.text() == "Score").setChecked(False)
    assert not table.horizontalHeader().isSectionHidden(Column.Path)
    assert table.horizontalHeader().isSectionHidden(Column.Score)
    window.close()
    again = make_window(demo_store)
    assert not again.results.table.horizontalHeader().isSectionHidden(Column.Path)
    assert again.results.table.horizontalHeader().isSectionHidden(Column.Score)


# -- the context menu on every row ------------------------------------------------------------------


def test_every_row_offers_the_same_actions_and_they_act_on_that_row(qtbot, make_window, demo_store):
    window = make_window(demo_store)
    result = search(qtbot, window, "drain the vip")
    menu = window.results.context_menu(3)
    texts = [a.text().replace("&", "").split("\t")[0] for a in menu.actions() if not a.isSeparator()]
    assert texts == [
        "Open",
        "Why not this one?\u2026",
        "\u2713 Helpful",
        "\u2717 Not helpful",
        "Expect this memory for this query\u2026",  # the relevance workbench's (issue 16)
        "Reveal in file manager",
        "Open in editor",
        "Copy path",
    ]
    path = result.hits[3].path
    QGuiApplication.clipboard().clear()
    next(a for a in menu.actions() if a.objectName() == "row_copy_path").trigger()
    assert QGuiApplication.clipboard().text() == path
    before = access_stats(demo_store.reader(), path) or {"reinforcement_count": 0}
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        next(a for a in window.results.context_menu(3).actions() if a.objectName() == "row_helpful").trigger()
    after = access_stats(demo_store.reader(), path)
    assert after["reinforcement_count"] == before["reinforcement_count"] + 1
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT) as opened:
        next(a for a in window.results.context_menu(3).actions() if a.objectName() == "row_open").trigger()
    assert opened.args[0].path == path
    # the registry is open: a later pane adds its action and every row offers it
    seen = []
    window.ctx.row_actions.add(RowAction("expect", "Expect for this query", seen.append, group="curate"))
    extended = window.results.context_menu(0)
    assert extended.actions()[-1].text() == "Expect for this query"
    extended.actions()[-1].trigger()
    assert [row.path for row in seen] == [result.hits[0].path]


def test_the_menu_key_opens_a_rows_menu(qtbot, make_window, demo_store):
    window = make_window(demo_store)
    search(qtbot, window, "drain the vip")
    window.results.set_current_row(2)
    window.results.table.setFocus()
    qtbot.keyClick(window.results.table, Qt.Key.Key_Menu)
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu), timeout=WAIT)
    popup = QApplication.activePopupWidget()
    assert popup.objectName() == "rowMenu" and window.results.model.hit(2).title in popup.accessibleName()
    popup.close()


# -- the pool chart -----------------------------------------------------------------------------


def test_the_pool_chart_draws_the_pool_and_says_which_arm_carries_it(qtbot, make_window, demo_store):
    from memhtml_desktop.ui.pool.pool_chart import arm_shares

    window = make_window(demo_store)
    result = search(qtbot, window, "drain the vip")
    chart = window.chart
    qtbot.waitUntil(lambda: chart.pool() is not None and chart.pool().query == "drain the vip", timeout=WAIT)
    entries = chart.entries()
    assert len(entries) == chart.pool().pool_size == 30
    assert [e.position for e in entries] == list(range(1, 31))
    shares = chart.shares()
    assert sum(shares.values()) == pytest.approx(1.0)
    total = sum(e.score for e in entries)
    fts = sum(a.contribution for e in entries for a in e.arms if a.arm == "fts")
    assert shares["fts"] == pytest.approx(fts / total)
    assert arm_shares(entries) == shares
    description = chart.accessibleDescription()
    assert "30 fused candidates" in description and "fts" in description
    page_positions = [next(e.position for e in entries if e.path == h.path) for h in result.hits]
    assert ", ".join(map(str, page_positions)) in description
    image = chart.grab().toImage()  # painted: the arm colours are on it
    colours = {image.pixelColor(x, y).name() for x in range(0, image.width(), 2) for y in range(0, image.height(), 2)}
    assert "#cc79a7" in colours and "#009e73" in colours
    chart.setFocus()
    qtbot.keyClick(chart, Qt.Key.Key_Right)
    qtbot.keyClick(chart, Qt.Key.Key_Right)
    assert chart.focused_path() == entries[1].path
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT) as opened:
        qtbot.keyClick(chart, Qt.Key.Key_Return)
    assert opened.args[0].path == entries[1].path


@pytest.mark.parametrize("factor", [4, 5])
def test_the_pool_behind_the_page_is_as_deep_as_the_profiles_pool_factor(qtbot, make_window, store, factor):
    """The driver draws the page's pool `limit × pool_factor` deep (not a fixed 3 × limit)."""
    from dataclasses import replace

    store.ranking = replace(store.ranking, pool_factor=factor)
    window = make_window(store)
    window.session.set_limit(3)
    result = search(qtbot, window, "rollback")
    pool = window.results.model.pool()
    assert window.driver.pool_depth() == 3 * factor
    assert pool.query == result.query and len(pool.entries) == 3 * factor  # the store holds more than 15
