"""Facts that changed, in the window: the list puts the newer first and marks both, the reader says
which memory contradicts the one shown and opens it, the recall pack says so, under either profile.

Real MainWindows over conflicting-fact stores (`devtools/fact_store.py`: real facts written with
`apply` into a git repository, some changed by a newer memory), driven by typing, clicking and the
ranking selector; several seeds, both embedders (MiniLM's run is `slow`).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memhtml_desktop.devtools import fact_store
from memhtml_desktop.domain.disclosure import render_pack_text
from memhtml_desktop.embedders.registry import make_embedder
from memhtml_desktop.index.store import Store
from memhtml_desktop.ui.results.results_model import Column, Role
from tests.ui.test_main_window import WAIT, click_row, type_query, wait_for_query
from tests.ui.test_window_signals import choose_ranking, row_of, wait_ranked


def _facts(tmp_path, seed: int, embedder: str):
    if embedder == "minilm":
        pytest.importorskip("onnxruntime")
    made = fact_store.build(tmp_path / f"facts-{seed}", slots=160, seed=seed)
    store = Store(made.root, index_path=tmp_path / f"facts-{seed}-{embedder}.db", embedder=make_embedder(embedder))
    store.index()
    return store, made


def open_row(qtbot, window, path: str) -> None:
    """Scroll to a row and click it, as a person opens a memory from the list."""
    row = row_of(window, path)
    window.results.table.scrollTo(window.results.model.index(row, Column.Title))
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        click_row(qtbot, window, row)


def _changed_question(store, made):
    """A question about a changed slot whose page holds its newest fact and an older one, marked."""
    for question, newest, olders in made.questions:
        hits = {h.path: h for h in store.search(question, limit=10).hits}
        older = next((o for o in olders if o in hits and any(m.other == newest for m in hits[o].contradictions)), None)
        if newest in hits and older is not None:
            return question, newest, older
    raise AssertionError("no question of this store puts a changed fact's two versions on one page")


@pytest.mark.parametrize(
    "seed,embedder", [(3, "hash"), (17, "hash"), pytest.param(5, "minilm", marks=pytest.mark.slow)]
)
def test_the_list_puts_the_newer_first_and_marks_both(qtbot, make_window, tmp_path, seed, embedder):
    store, made = _facts(tmp_path, seed, embedder)
    question, newest, older = _changed_question(store, made)
    window = make_window(store)
    type_query(qtbot, window, question)
    result = wait_for_query(qtbot, window, question)
    model = window.results.model
    assert row_of(window, newest) < row_of(window, older)
    hits = {h.path: h for h in result.hits}
    stale = next(m for m in hits[older].contradictions if m.other == newest)
    fresh = next(m for m in hits[newest].contradictions if m.other == older)
    for path, mark, badge in (
        (older, stale, "\u26a0 contradicted by a newer memory"),
        (newest, fresh, "\u26a0 contradicts an older memory"),
    ):
        title = model.index(row_of(window, path), Column.Title)
        assert title.data(Role.Badges)[0].startswith(badge)  # first: it outranks every other badge
        assert mark.describe() in title.data(Qt.ItemDataRole.ToolTipRole)
        assert mark.describe() in title.data(Qt.ItemDataRole.AccessibleTextRole)
        assert mark.other in mark.describe()  # the other memory is named
    # a move the step made says so, in the list and in its tooltip
    moved = [h for h in result.hits if any(m.step == "newer" for m in h.moves)]
    for hit in moved:
        title = model.index(row_of(window, hit.path), Column.Title)
        assert any("moved by newer first from" in b for b in title.data(Role.Badges))
        assert next(m for m in hit.moves if m.step == "newer").describe() in title.data(Qt.ItemDataRole.ToolTipRole)
    # memhtml: what an agent on memhtml gets, in its order, the marks kept
    choose_ranking(qtbot, window, "memhtml")
    memhtml = wait_ranked(qtbot, window, "memhtml")
    assert all(m.step != "newer" for h in memhtml.hits for m in h.moves)
    marked = [h for h in memhtml.hits if h.contradictions]
    assert marked, "the memhtml profile shows the marks too"
    for hit in marked:
        badges = model.index(row_of(window, hit.path), Column.Title).data(Role.Badges)
        assert badges[0].startswith("\u26a0 contradict")


def test_the_reader_names_the_other_and_opens_it(qtbot, make_window, tmp_path):
    store, made = _facts(tmp_path, 29, "hash")
    question, newest, older = _changed_question(store, made)
    window = make_window(store)
    type_query(qtbot, window, question)
    wait_for_query(qtbot, window, question)
    open_row(qtbot, window, older)
    reader = window.reader
    strip = reader.contradiction_strip
    assert reader.current_path() == older and strip.isVisibleTo(window)
    assert strip.heading.text() == "\u26a0 Contradicted by a newer memory"
    newest_title = next(f for f in made.facts if f.path == newest).title
    assert newest in strip.body.text() and "newer" in strip.body.text()
    assert (
        newest_title.replace("&", "&amp;").replace("'", "&#x27;") in strip.body.text()
        or newest_title in strip.body.text()
    )
    # the link opens the newer memory, whose strip says it is the newer of the two
    index = [m.other for m in strip.marks].index(newest)
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        strip.body.linkActivated.emit(f"#{index}")
    qtbot.waitUntil(lambda: reader.current_path() == newest, timeout=WAIT)
    assert strip.heading.text() == "\u26a0 Contradicts an older memory: this one is newer"
    assert older in strip.body.text()
    # a memory in no contradiction shows no strip
    plain = next(h.path for h in window.results.model.result().hits if not h.contradictions)
    open_row(qtbot, window, plain)
    assert not strip.isVisibleTo(window)


def test_the_recall_pack_carries_the_newer_and_says_an_older_disagrees(qtbot, make_window, tmp_path):
    store, made = _facts(tmp_path, 41, "hash")
    question, newest, older = _changed_question(store, made)
    window = make_window(store)
    with qtbot.waitSignal(window.recall_shown, timeout=WAIT):
        qtbot.mouseClick(window.search_bar.recall_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(window.recall_shown, timeout=WAIT, check_params_cb=lambda pack: pack.query == question):
        type_query(qtbot, window, question)
    pack = window.recall.pack()
    ranks = {i.path: i.rank for i in pack.memories.items}
    assert ranks[newest] < ranks[older]
    text = render_pack_text(pack)
    assert f'<contradiction path="{newest}" other="{older}" this="newer"' in text
    assert "contradicts an older memory" in text and "not reconciled" in text
    marked = next(i for i in pack.memories.items if i.path == newest)
    assert marked.contradictions[0].other == older
    # the memhtml profile's text stays what memhtml hands an agent; its items keep the marks
    choose_ranking(qtbot, window, "memhtml")
    qtbot.waitUntil(
        lambda: window.recall.pack() is not None and window.recall.pack().ranking == "memhtml", timeout=WAIT
    )
    memhtml = window.recall.pack()
    assert "<contradiction" not in render_pack_text(memhtml)
    assert any(i.contradictions for i in memhtml.memories.items)


def test_the_marks_hold_at_1024x700_in_the_dark_theme(qtbot, make_window, tmp_path):
    from memhtml_desktop.ui.kit.palette import contrast
    from memhtml_desktop.ui.shell import theme

    store, made = _facts(tmp_path, 3, "hash")
    question, newest, older = _changed_question(store, made)
    window = make_window(store)
    window.resize(1024, 700)
    app = QApplication.instance()
    before = app.palette()
    try:
        theme.apply_theme(app, "dark")
        type_query(qtbot, window, question)
        wait_for_query(qtbot, window, question)
        title = window.results.model.index(row_of(window, older), Column.Title)
        assert title.data(Role.Badges)[0].startswith("\u26a0 contradicted by a newer memory")
        open_row(qtbot, window, older)
        strip = window.reader.contradiction_strip
        qtbot.wait(50)
        image = strip.grab().toImage()
        background = image.pixelColor(image.width() - 3, image.height() // 2)
        inks = {image.pixelColor(x, y).rgb() for x in range(0, image.width(), 2) for y in range(0, image.height(), 2)}
        from PySide6.QtGui import QColor

        assert max(contrast(QColor.fromRgb(c), background) for c in inks) >= 4.5
        # the whole window as a person sees it: the newer above, both rows marked, the strip read
        shot = tmp_path / "newer-first-1024x700-dark.png"
        assert window.grab().save(str(shot)) and shot.stat().st_size > 10_000
    finally:
        app.setPalette(before)
        app.setProperty(theme.THEME_PROPERTY, None)
        theme.restyle(app)
