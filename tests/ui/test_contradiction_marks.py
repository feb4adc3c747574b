"""The list's contradiction marks: the badge's words, the tooltip and accessible text naming the other,
and the painter showing the mark even when the title column is too narrow for the whole badge.

Over a real search of a real store (two memories filling one slot, the later one newer).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from memfiles import CHANGED_NEW as NEW
from memfiles import CHANGED_OLD as OLD
from memfiles import write_changed_fact
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.signals import Disagreement
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.store import Store
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.results.results_model import Column, ResultsModel, Role
from memhtml_desktop.ui.results.results_text import accessible_title, badges, contradiction_badge, title_tooltip
from memhtml_desktop.ui.results.results_view import ResultsView


@pytest.fixture
def answer(tmp_path):
    root = tmp_path / "store"
    write_changed_fact(root)
    store = Store(root, index_path=tmp_path / "index.db", embedder=HashEmbedder())
    store.index()
    return store.answer("capital of australia", Scope(), limit=10, depth=30)


def test_the_badge_names_the_other_and_comes_first(answer):
    hits = {h.path: h for h in answer.result.hits}
    # one slot written twice under one title: the other's title, and its value to tell them apart
    assert (
        contradiction_badge(hits[OLD])
        == "\u26a0 contradicted by a newer memory: Capital of Australia, \u201cCanberra\u201d"
    )
    assert (
        contradiction_badge(hits[NEW]) == "\u26a0 contradicts an older memory: Capital of Australia, \u201cSydney\u201d"
    )
    assert contradiction_badge(hits["resources/geo/currency.html"]) is None
    for path in (OLD, NEW):
        page = hits[path].position
        assert badges(hits[path], page=page, no_word_matched=False)[0].startswith("\u26a0")
        tip = title_tooltip(hits[path], page=page, no_word_matched=False)
        spoken = accessible_title(hits[path], page=page, no_word_matched=False)
        other = NEW if path == OLD else OLD
        assert other in tip and other in spoken and "\u201cSydney\u201d" in tip


def test_the_badge_names_the_other_by_title_cuts_a_long_value_and_says_a_negation():
    def hit_with(*marks, title="A"):
        from memhtml_desktop.domain.types import Hit

        return Hit("a.html", title, "a", "semantic", 0.1, 1, 1, None, "", (), None, (), contradictions=marks)

    long = Disagreement(
        "b.html", "Capital of Andorra", "older", "slot", "x", "Andorra la Vella, the capital of the principality"
    )
    assert contradiction_badge(hit_with(long)) == "\u26a0 contradicted by a newer memory: Capital of Andorra"
    assert contradiction_badge(hit_with(long, title="capital of andorra")).endswith(
        ", \u201cAndorra la Vella, the capit\u2026\u201d"
    )
    negation = Disagreement("b.html", "A", "newer", "negation", "merges", "\u2014")
    assert contradiction_badge(hit_with(negation, long)) == "\u26a0 contradicts an older memory: A (a negation) +1"
    untitled = Disagreement("notes/b.html", "", "newer", "slot", "x", "y")
    assert contradiction_badge(hit_with(untitled)) == "\u26a0 contradicts an older memory: notes/b.html"


def test_the_model_hands_the_marks_to_every_role(answer):
    model = ResultsModel()
    model.set_answer(answer)
    row = model.row_of(OLD)
    title = model.index(row, Column.Title)
    assert title.data(Role.Badges)[0].startswith("\u26a0 contradicted by a newer memory")
    assert NEW in title.data(Qt.ItemDataRole.ToolTipRole)
    assert NEW in title.data(Qt.ItemDataRole.AccessibleTextRole)
    assert model.row_of(NEW) < row  # the newer first under the default profile


@pytest.mark.parametrize("width", [1000, 560])
def test_the_painter_fills_the_mark_even_when_the_column_is_narrow(qtbot, answer, width):
    view = ResultsView()
    qtbot.addWidget(view)
    view.resize(width, 400)
    view.show()
    view.set_answer(answer)
    qtbot.waitExposed(view)
    view.table.budgeted = False
    image = view.grab().toImage()
    rect = view.table.visualRect(view.model.index(view.model.row_of(OLD), Column.Title))
    origin = view.table.viewport().mapTo(view, rect.topLeft())
    fill = QColor(palette.warning_color()).name()
    seen = {
        image.pixelColor(origin.x() + x, origin.y() + y).name()
        for x in range(0, rect.width(), 2)
        for y in range(rect.height() // 2, rect.height())
    }
    assert fill in seen, (width, rect.width())
