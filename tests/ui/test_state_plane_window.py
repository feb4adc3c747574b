"""The window follows its store's state plane by its file (issue 40, item 2), as a person sees it.

`state.db` turned into a FIFO while the window is open and idle: within seconds the status bar
marks "salience off" (the reason in its tooltip) and says what happened; a memory opened then says
its read is not counted yet but kept; a search says salience is not in it; the file put back, the
mark goes and the kept read is counted with the time it was opened. Real window, real keys.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store
from tests.hardening.hardening_support import read_state
from tests.ui.test_main_window import WAIT, type_query, wait_for_query

SHOTS = os.environ.get("MEMHTML_TEST_SHOTS")  # a folder: the screenshots are kept there to be looked at


def _open_row(qtbot, window, row: int):
    """Down to the row from the search field, Enter: how a person opens a hit from the keyboard."""
    window.search_bar.field.setFocus()
    for _ in range(row + 1):
        qtbot.keyClick(window.search_bar.field, Qt.Key.Key_Down)
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT) as shown:
        qtbot.keyClick(window.results.table, Qt.Key.Key_Return)
    return shown.args[0]


def test_a_state_db_turned_into_a_fifo_is_marked_kept_and_followed_back(qtbot, make_window, demo_store_dir, tmp_path):
    from memhtml_desktop.ui.app import apply_theme

    store = Store(demo_store_dir, index_path=tmp_path / "demo-index.db", embedder=HashEmbedder())
    store.import_sidecar()
    store.index()
    store.close_thread_connection()
    window = make_window(store)
    window.resize(1024, 700)
    state_db = store.state_path
    label = window.status.plane_label
    qtbot.waitUntil(lambda: window.controllers["status"].plane_timer.isActive(), timeout=WAIT)
    assert label.text() == ""
    type_query(qtbot, window, "drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    first = _open_row(qtbot, window, 0)
    assert first.bump is not None and first.path in first.bump.bumped

    aside = state_db.with_name("state.db.aside")
    os.rename(state_db, aside)
    os.mkfifo(state_db)  # while the window is idle
    qtbot.waitUntil(lambda: "salience off" in label.text(), timeout=WAIT)
    assert "a FIFO, not a regular file" in label.toolTip()
    qtbot.waitUntil(lambda: "was replaced by a FIFO" in window.status.currentMessage(), timeout=WAIT)

    second = _open_row(qtbot, window, 1)
    assert second.bump.queued and not second.bump.lost
    note = window.reader.note_label
    assert note.isVisibleTo(window.reader) and "This read is not counted yet" in note.text()
    assert "It is kept and counted" in note.text()
    qtbot.waitUntil(lambda: "1 read waiting" in label.text(), timeout=WAIT)
    type_query(qtbot, window, "invoice")
    answer = wait_for_query(qtbot, window, "invoice")
    assert any(r.startswith("salience:") and "FIFO" in r for r in answer.degraded_reasons)
    qtbot.waitUntil(lambda: "degraded" in window.search_bar.info.text(), timeout=WAIT)
    assert "FIFO" in window.search_bar.info.toolTip()
    window.status.clearMessage()  # the transient message gone, the bar's own marks show
    assert label.isVisible() and "salience off" in label.text()
    if SHOTS:
        window.grab().save(str(Path(SHOTS) / "state-plane-fifo.png"))
        apply_theme(QApplication.instance(), "dark")
        try:
            type_query(qtbot, window, "drain the vip")  # a fresh answer, painted in the dark theme
            wait_for_query(qtbot, window, "drain the vip")
            qtbot.wait(300)
            window.status.clearMessage()
            window.grab().save(str(Path(SHOTS) / "state-plane-fifo-dark.png"))
        finally:
            apply_theme(QApplication.instance(), "light")

    os.unlink(state_db)
    os.rename(aside, state_db)  # put back
    qtbot.waitUntil(lambda: label.text() == "", timeout=WAIT)
    rows = read_state(state_db)[1]
    assert rows[second.path][0] >= 1 and rows[second.path][3] is not None
    assert not Path(str(state_db) + "-pending.jsonl").exists()
    qtbot.waitUntil(lambda: "written now" in " ".join(window.store.notices), timeout=WAIT)  # the engine's notice, heard
