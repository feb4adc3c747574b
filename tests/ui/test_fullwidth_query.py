"""A fullwidth query typed into the real window lists what its ASCII spelling lists (issue 41, item 7)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store

DRAIN = "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html"


def listed_after_typing(qtbot, window, text: str) -> list[str]:
    field = window.search_bar.field
    field.setFocus()
    field.clear()
    with qtbot.waitSignal(window.driver.answered, timeout=15000):
        if text.isascii():
            qtbot.keyClicks(field, text)
        else:  # QTest types ASCII only: pasted, as fullwidth text from an IME or a document arrives
            QApplication.clipboard().setText(text)
            qtbot.keyClick(field, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: window.results.model.result() is not None and window.results.model.result().query == text, timeout=15000
    )
    return [h.path for h in window.results.model.result().hits]


def test_fullwidth_drain_the_vip_lists_the_drain_runbook_first(qtbot, make_window, demo_store_dir, tmp_path):
    store = Store(demo_store_dir, index_path=tmp_path / "index.db", embedder=HashEmbedder())
    store.index()
    window = make_window(store)
    try:
        ascii_rows = listed_after_typing(qtbot, window, "drain the vip")
        wide_rows = listed_after_typing(qtbot, window, "ｄｒａｉｎ ｔｈｅ ｖｉｐ")
        assert wide_rows == ascii_rows and DRAIN in wide_rows[:3]
    finally:
        store.close_thread_connection()
