"""Keyboard and accessibility (issue 14): every control reachable and operable by keyboard, and
every control and custom-painted part named for a screen reader. The real window, a real store."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QApplication, QLineEdit, QTabBar, QWidget

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.ranking import MEMHTML
from memhtml_desktop.index.store import Store
from memhtml_desktop.ui.results.results_model import BAR_COLUMN, FIRST_ARM_COLUMN, Column
from tests.ui.test_main_window import WAIT, wait_for_query


@pytest.fixture
def demo_store(demo_store_dir, tmp_path):
    """The demo store ranked by the memhtml profile: its cosine MMR moves hits on this store (the
    default profile's spares them all here), so the "moved" badge has a row to describe."""
    s = Store(demo_store_dir, index_path=tmp_path / "demo-index.db", embedder=HashEmbedder(), ranking=MEMHTML)
    s.import_sidecar()
    s.index()
    yield s
    s.close_thread_connection()


@pytest.fixture
def ready(qtbot, make_window, demo_store):
    window = make_window(demo_store)
    window.set_query("drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    qtbot.waitUntil(lambda: window.results.model.pool() is not None and not window.runner.is_busy(), timeout=WAIT)
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        window.open_memory(window.results.model.hit(0).path, bump=False)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=WAIT)
    return window


def tab_chain(qtbot, window, start: QWidget, steps: int = 80, key=Qt.Key.Key_Tab) -> list[QWidget]:
    start.setFocus(Qt.FocusReason.TabFocusReason)
    seen = [QApplication.focusWidget()]
    for _ in range(steps):
        qtbot.keyClick(QApplication.focusWidget(), key)
        widget = QApplication.focusWidget()
        if widget is seen[0]:
            break
        seen.append(widget)
    return seen


def test_tab_reaches_every_pane_and_comes_back(qtbot, ready):
    window = ready
    chain = tab_chain(qtbot, window, window.search_bar.field)
    names = {w.objectName() for w in chain if w is not None}
    for widget in (
        window.search_bar.field,
        window.filters.entity_edit,
        window.filters.tree,
        window.results.agent_button,
        window.results.table,
        window.results.more_button,
        window.chart,
    ):
        assert widget in chain, widget.objectName() or type(widget).__name__
    assert chain[-1] is window.search_bar.search_button, "the mode switch comes just before the field"
    assert any(isinstance(w, QTabBar) for w in chain), "the Reader / Recall pack / Problems tabs"
    assert "searchMode" in names
    # a two-button switch is one Tab stop; the arrows move inside it (as in any radio group)
    window.results.agent_button.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(window.results.agent_button, Qt.Key.Key_Right)
    assert window.results.fused_button.hasFocus()
    window.search_bar.search_button.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(window.search_bar.search_button, Qt.Key.Key_Right)
    assert window.search_bar.recall_button.hasFocus()
    reader_buttons = [
        w for w in chain if isinstance(w, QAbstractButton) and w.window() is window and window.reader.isAncestorOf(w)
    ]
    assert {b.text() for b in reader_buttons} >= {"\u2713 Helpful", "\u2717 Not helpful", "Why not?", "Open in editor"}
    stops = [w for i, w in enumerate(chain) if i == 0 or w is not chain[i - 1]]  # Tab walks a text's links
    assert chain[-1] is not None and len(stops) == len(set(stops)), "Tab goes round once, no trap"
    back = tab_chain(qtbot, window, window.search_bar.field, key=Qt.Key.Key_Backtab)
    assert window.results.table in back and window.chart in back


def test_keys_operate_the_filters_the_orders_and_the_list(qtbot, ready):
    window = ready
    tree = window.filters.tree
    tree.setFocus()
    model = window.filters.model
    item = model.item_for("type", "procedural")
    tree.setCurrentIndex(item.index())
    with qtbot.waitSignal(window.search_shown, timeout=WAIT) as shown:
        qtbot.keyClick(tree, Qt.Key.Key_Space)
    assert shown.args[0].scope.memory_types == ("procedural",)
    with qtbot.waitSignal(window.search_shown, timeout=WAIT) as shown:
        qtbot.keyClick(tree, Qt.Key.Key_Space)
    assert shown.args[0].scope.memory_types == ()
    window.results.fused_button.setFocus()
    qtbot.keyClick(window.results.fused_button, Qt.Key.Key_Space)
    assert window.results.model.order() == "fused"
    qtbot.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.results.model.order() == "agent"
    rows = window.results.model.rowCount()
    qtbot.keyClick(window, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.results.model.rowCount() > rows, timeout=WAIT)
    qtbot.keyClick(window, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.chart.isHidden()
    qtbot.keyClick(window, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert not window.chart.isHidden()


def _name(widget: QWidget) -> str:
    iface = QAccessible.queryAccessibleInterface(widget)
    return iface.text(QAccessible.Text.Name) if iface is not None else ""


def test_every_control_has_an_accessible_name(qtbot, ready):
    window = ready
    for view in ("reader", "recall", "problems"):
        window.show_view(view)
        qtbot.wait(50)
        nameless = []
        for widget in window.findChildren(QWidget):
            if not widget.isVisible() or widget.focusPolicy() == Qt.FocusPolicy.NoFocus or not widget.isEnabled():
                continue
            if isinstance(widget.parent(), (QLineEdit, QAbstractSpinBox)):
                continue  # a line edit's own clear button, a spin box's own editor
            if not _name(widget).strip():
                nameless.append(f"{type(widget).__name__} {widget.objectName()!r}")
        assert nameless == [], (view, nameless)


def test_the_painted_parts_are_described_in_words(qtbot, ready):
    window = ready
    table = QAccessible.queryAccessibleInterface(window.results.table)
    assert table.text(QAccessible.Text.Name) == "Results"
    cells = {}
    for i in range(table.childCount()):
        child = table.child(i)
        if child.role() == QAccessible.Role.Cell:
            cells.setdefault(len(cells), child)
    hit = window.results.model.hit(0)
    model = window.results.model
    title = model.index(0, Column.Title).data(Qt.ItemDataRole.AccessibleTextRole)
    assert title.startswith(f"position 1: {hit.title}") and hit.memory_type in title
    texts = [c.text(QAccessible.Text.Name) for c in cells.values()]
    assert title in texts, "the title cell reads its row, not a blank painted rectangle"
    for offset in range(4):
        arm_text = model.index(0, FIRST_ARM_COLUMN + offset).data(Qt.ItemDataRole.AccessibleTextRole)
        assert ("rank" in arm_text and "contributes" in arm_text) or arm_text.endswith("not ranked")
        assert arm_text in texts
    bar = model.index(0, BAR_COLUMN).data(Qt.ItemDataRole.AccessibleTextRole)
    assert bar.startswith(f"fused score {hit.score:.4f}") and bar in texts
    moved = next(r for r in range(model.rowCount()) if model.hit(r).moved_by)
    assert "moved by MMR" in model.index(moved, Column.Title).data(Qt.ItemDataRole.AccessibleTextRole)
    chart = QAccessible.queryAccessibleInterface(window.chart)
    assert chart.text(QAccessible.Text.Name) == "Fused pool chart"
    assert "fused candidates" in chart.text(QAccessible.Text.Description)
    with qtbot.waitSignal(window.recall_shown, timeout=WAIT):
        window.session.set_mode("recall")
    meter = QAccessible.queryAccessibleInterface(window.recall.memories_box.meter)
    assert meter.text(QAccessible.Text.Name) == "Budget spent"
    assert "chars" in meter.text(QAccessible.Text.Description)
