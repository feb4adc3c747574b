"""A memory of megabytes in the real window (issue 41, item 8): the reader opens it (its text
bounded, a note saying what is left out and where the rest is) and Problems warns about its size.
How long the GUI thread waits is measured by bench/large_memory_bench.py, not here."""

from __future__ import annotations

from PySide6.QtCore import Qt

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.html.render import READER_TEXT_CAP
from memhtml_desktop.index.store import Store
from tests.index.test_large_memory import BIG, paragraphs
from tests.memfiles import write_memory


def test_the_reader_opens_a_large_memory_bounded_and_problems_warn(qtbot, make_window, tmp_path):
    root = tmp_path / "store"
    write_memory(
        root,
        BIG,
        title="A pasted transcript",
        claim="The incident transcript was pasted whole.",
        article_extra=paragraphs(3_200_000, 5),
    )
    write_memory(root, "areas/oncall/small.html", title="Small", claim="A small memory.")
    store = Store(root, index_path=tmp_path / "index.db", embedder=HashEmbedder())
    store.index()
    window = make_window(store)
    try:
        field = window.search_bar.field
        field.setFocus()
        qtbot.keyClicks(field, "pasted transcript")
        qtbot.waitUntil(
            lambda: (
                window.results.model.result() is not None and window.results.model.result().query == "pasted transcript"
            ),
            timeout=15000,
        )
        window.results.table.setFocus()
        qtbot.keyClick(window.results.table, Qt.Key.Key_Home)
        qtbot.keyClick(window.results.table, Qt.Key.Key_Return)  # open the row, as a person does
        qtbot.waitUntil(
            lambda: window.reader.state() == "detail" and window.reader.current_path() == BIG, timeout=20000
        )
        shown = window.reader.article.toPlainText()
        assert "Cut here:" in shown and "Open it in your editor" in shown
        assert len(shown) < READER_TEXT_CAP + 2_000
        window.show_view("problems")
        qtbot.waitUntil(lambda: any(p.path == BIG for p in window.problems.model.problems()), timeout=15000)
        problem = next(p for p in window.problems.model.problems() if p.path == BIG)
        assert "over the 1 MB a memory is expected to stay under" in problem.warnings[0]
    finally:
        store.close_thread_connection()
