"""One search, one Answer: typed in the real window, the list resets once over its page and pool,
the pool chart draws that very pool, and the query is parsed once for the search, the pool, the
reader's highlighting and *Why not?* (issue 24)."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from memhtml_desktop.domain import fts_query
from memhtml_desktop.domain.fts_query import sanitize
from memhtml_desktop.html.render import HIGHLIGHT_STYLE

WAIT = 15000


def settle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.runner.is_busy() and not window.driver.pending(), timeout=WAIT)


@pytest.fixture
def parses(monkeypatch):
    """Every call of `parse_fts_query`, by its sanitised text, wherever a module imported it."""
    calls: list[str] = []
    original = fts_query.parse_fts_query

    def counting(query: str):
        calls.append(sanitize(query))
        return original(query)

    counting.counts_parses = True  # type: ignore[attr-defined]
    for module in list(sys.modules.values()):
        name = getattr(module, "__name__", "") or ""
        bound = getattr(module, "parse_fts_query", None)
        # a module first imported during an earlier test bound that test's counter: count here too
        if name.startswith("memhtml_desktop") and (bound is original or getattr(bound, "counts_parses", False)):
            monkeypatch.setattr(module, "parse_fts_query", counting)
    return calls


def type_and_enter(qtbot, window, text: str) -> None:
    field = window.search_bar.field
    field.clear()
    field.setFocus()
    QTest.keyClicks(field, text)
    QTest.keyClick(field, Qt.Key.Key_Return)


@pytest.mark.parametrize("query", ["drain the vip", "writer index readers"])
def test_one_search_is_one_answer_one_reset_and_one_parse(qtbot, make_window, store, parses, query):
    window = make_window(store, local_engine=True)  # its engine's parses are counted in this process
    settle(qtbot, window)
    model, chart = window.results.model, window.chart
    resets, relists, shown = [], [], []
    model.modelReset.connect(lambda: resets.append(model.rowCount()))
    model.layoutChanged.connect(lambda: relists.append(model.rowCount()))
    window.search_shown.connect(shown.append)
    parses.clear()

    type_and_enter(qtbot, window, query)
    qtbot.waitUntil(lambda: model.result() is not None and model.result().query == query, timeout=WAIT)
    settle(qtbot, window)

    rows = model.rowCount()
    assert rows > 0 and len(shown) == 1, "one search, one emission"
    assert resets == [rows] and relists == [], f"one rebuild per search: resets {resets}, relists {relists}"
    pool = model.pool()
    assert pool is not None and chart.pool() is pool, "the chart draws the pool the list shows"
    assert window.driver.answer is shown[0] and pool.query == model.result().query == query
    assert [h.path for h in model.result().hits] == list(pool.page), "the page and its pool are one read's"

    # The reader highlights the answer's words and Why not? explains it, with no parse of their own.
    hit = next(h for h in model.result().hits if h.arm("fts") is not None)  # it holds the words
    path = hit.path
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        window.open_memory(path, bump=False)
    assert HIGHLIGHT_STYLE in window.reader._safe_html
    with qtbot.waitSignal(window.why_shown, timeout=WAIT) as why:
        window.session.why(path)
    assert why.args[0].path == path and why.args[0].search_position == hit.position
    window.controllers["why"].dialog.close()
    # The recall pane folds the same answer: its catalogue is the answer's page, its pack the same ask.
    with qtbot.waitSignal(window.controllers["recall"].shapes_shown, timeout=WAIT) as shapes:
        window.session.set_mode("recall")  # what Ctrl+R does
    comparison = shapes.args[0]
    assert comparison.pack.query == query
    assert [e.path for e in comparison.catalogue.entries] == [h.path for h in model.result().hits][
        : len(comparison.catalogue.entries)
    ]
    settle(qtbot, window)
    assert parses.count(sanitize(query)) == 1, parses


def test_show_more_deepens_the_same_answer_without_a_reset(qtbot, window):
    """A deeper pool is not a new search: the rows are relisted, the model is not reset, and the
    pool asked for carries the answer's parsed query (no parse)."""
    settle(qtbot, window)
    type_and_enter(qtbot, window, "drain")
    qtbot.waitUntil(
        lambda: window.results.model.result() is not None and window.results.model.result().query == "drain",
        timeout=WAIT,
    )
    settle(qtbot, window)
    model, answer = window.results.model, window.driver.answer
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(1))
    window.driver.deepen(len(answer.pool.entries) + 40)
    qtbot.waitUntil(lambda: window.driver.answer is not answer, timeout=WAIT)
    deeper = window.driver.answer
    assert deeper.generation == answer.generation and deeper.result is answer.result and deeper.fts is answer.fts
    assert len(deeper.pool.entries) >= len(answer.pool.entries) and model.pool() is deeper.pool
    assert resets == []
