"""The results model and its painters, over a real search of a real store."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from memhtml_desktop.domain.ranking import DEFAULT
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.results.results_model import (
    ARM_NAMES,
    BAR_COLUMN,
    COLUMN_COUNT,
    FIRST_ARM_COLUMN,
    Column,
    ResultsModel,
    Role,
    moved_text,
)
from memhtml_desktop.ui.results.results_view import ResultsView
from memhtml_desktop.ui.results.snippets import highlight_spans, runs, snippet_window


@pytest.fixture
def answer(store):
    return store.answer("drain the vip", Scope(), limit=10, depth=30)


@pytest.fixture
def result(answer):
    return answer.result


def test_the_model_passes_the_model_tester(qtmodeltester, answer):
    model = ResultsModel()
    qtmodeltester.check(model)
    model.set_answer(answer)
    qtmodeltester.check(model)
    model.set_answer(None)
    qtmodeltester.check(model)


def test_cells_and_roles_explain_every_hit(answer, result):
    model = ResultsModel()
    model.set_answer(answer)
    assert model.rowCount() == len(result.hits) and model.columnCount() == COLUMN_COUNT
    for row, hit in enumerate(result.hits):
        assert model.index(row, Column.Position).data() == str(hit.position)
        assert model.index(row, Column.Title).data() == hit.title
        assert model.index(row, Column.Type).data() == hit.memory_type
        assert model.index(row, Column.Title).data(Role.Hit) is hit
        scores = model.index(row, BAR_COLUMN).data(Role.ArmScores)
        assert sum(s.contribution for s in scores) == pytest.approx(hit.score)
        assert [s.arm for s in scores] == [a for a in ARM_NAMES if hit.arm(a)]
        for offset, arm in enumerate(ARM_NAMES):
            index = model.index(row, FIRST_ARM_COLUMN + offset)
            score = hit.arm(arm)
            if score is None:
                assert index.data() == "\u2014"  # a dash, never a zero
                assert "did not rank" in index.data(Qt.ItemDataRole.ToolTipRole)
            else:
                # a prior arm gated off (domain/priors.py) shows its rank in parentheses and says why
                assert index.data() == (str(score.rank) if score.counted else f"({score.rank})")
                assert index.data(Role.Contribution) == pytest.approx(score.contribution)
                tip = index.data(Qt.ItemDataRole.ToolTipRole)
                assert f"rank {score.rank}" in tip and "raw signal" in tip
                assert score.counted or "not counted" in tip
    assert any(not s.counted for hit in result.hits for s in hit.arms)  # the page has both kinds
    assert model.index(0, BAR_COLUMN).data(Role.MaxScore) == pytest.approx(DEFAULT.max_score)
    heavy = replace(DEFAULT, name="what-if", rrf_k=5, fusion="rrf")  # the scale and k are the ACTIVE profile's
    model.set_profile(heavy)
    assert model.index(0, BAR_COLUMN).data(Role.MaxScore) == pytest.approx(heavy.max_score) != DEFAULT.max_score
    # A hit's tooltip says how ITS contribution was made: a convex fusion's share of the normalised
    # score for full text and vectors (the default's), weight/(rank+k) with the active k for the rest.
    ranked = [(i, arm) for i, arm in enumerate(ARM_NAMES) if model.hit(0).arm(arm) is not None]
    assert ranked
    for i, arm in ranked:
        tip = model.index(0, FIRST_ARM_COLUMN + i).data(Qt.ItemDataRole.ToolTipRole)
        score = model.hit(0).arm(arm)
        assert (
            ("of this query's best" in tip and f"= {score.contribution:.4f}" in tip)
            if score.norm is not None
            else ("+5)" in tip or not score.counted)
        )
    assert "+5)" in model.headerData(FIRST_ARM_COLUMN, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    model.set_profile(DEFAULT)
    assert "query's window" in model.headerData(
        FIRST_ARM_COLUMN, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole
    )
    model.set_profile(DEFAULT)
    assert model.terms() == ("drain", "vip"), "function words are not highlighted"


def test_headers_name_colour_and_explain_each_arm(qapp, answer):
    model = ResultsModel()
    model.set_answer(answer)
    for offset, arm in enumerate(ARM_NAMES):
        section = FIRST_ARM_COLUMN + offset
        tip = model.headerData(section, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
        assert "weight" in tip
        brush = model.headerData(section, Qt.Orientation.Horizontal, Qt.ItemDataRole.ForegroundRole)
        # the arm's hue, at a lightness that reads as text on the window (issue 14: 4.5:1)
        expected = QColor({"fts": "#0072b2", "vector": "#cc79a7", "recency": "#009e73", "salience": "#e69f00"}[arm])
        assert abs(brush.color().hslHue() - expected.hslHue()) <= 2
        assert palette.contrast(brush.color(), palette.window_color()) >= 4.5


def test_moved_hits_say_so(result):
    from dataclasses import replace

    hit = replace(result.hits[0], moved_by="mmr", moved_from=1, position=2)
    assert moved_text(hit) == "moved by MMR from 1"
    assert moved_text(replace(hit, moved_by="polarity", moved_from=3)) == "moved by polarity from 3"
    assert moved_text(replace(hit, moved_by=None)) is None


def test_highlighting_helpers():
    text = "If a prod rollback is issued, drain the VIP before draining the other VIPs"
    spans = highlight_spans(text, ("drain", "vip"))
    assert [text[a:b] for a, b in spans] == ["drain", "VIP", "draining"]  # `vip` is short: whole words only
    assert highlight_spans(text, ()) == []
    pieces = runs(text, spans)
    assert "".join(p for p, _ in pieces) == text and [p for p, m in pieces if m] == ["drain", "VIP", "draining"]
    long = "x " * 60 + "the drain"
    window, shifted = snippet_window(long, highlight_spans(long, ("the", "drain")))
    assert window.startswith("\u2026") and [window[a:b] for a, b in shifted] == ["the", "drain"]
    assert snippet_window("drain it", [(0, 5)]) == ("drain it", [(0, 5)])


def test_the_view_paints_titles_bars_and_dashes(qtbot, answer, result):
    view = ResultsView()
    qtbot.addWidget(view)
    view.resize(1000, 500)
    view.show()
    view.set_answer(answer)
    qtbot.waitExposed(view)
    # Paint events keep to a time budget and leave the rest for the next turns of the event loop;
    # a grab paints the widget again, so under a slow first paint it held only part of the table
    # (seen in CI). A picture wants every cell in the one paint it grabs, as the screenshot tool
    # says (ui/screenshot.py): no budget for the grab.
    view.table.budgeted = False
    image = view.grab().toImage()
    table = view.table
    rect = table.visualRect(view.model.index(0, BAR_COLUMN))
    origin = table.viewport().mapTo(view, rect.topLeft())
    colours = {image.pixelColor(origin.x() + x, origin.y() + rect.height() // 2).name() for x in range(rect.width())}
    hit = result.hits[0]
    expected = {"fts": "#0072b2", "vector": "#cc79a7", "recency": "#009e73", "salience": "#e69f00"}
    scale = view.model.index(0, BAR_COLUMN).data(Role.MaxScore)
    for arm, colour in expected.items():
        score = hit.arm(arm)  # a prior arm that did not count (domain/priors.py) has no segment
        if score is None or not score.counted:
            assert colour not in colours, arm
        elif score.contribution / scale * rect.width() >= 2:  # under the default's convex fusion a
            assert colour in colours, arm  # prior's RRF contribution may be thinner than a pixel
    assert view.summary.text().startswith(f"{len(result.hits)} hits")
    assert view.stack.currentWidget() is view.table
