"""The problems panel lists every failed file with every violation line, filters by kind, and opens on click."""

from __future__ import annotations

import pathlib
import shutil

import pytest
from PySide6.QtCore import Qt

from memhtml_desktop.index.listing import Problem
from memhtml_desktop.ui.problems.problems_pane import ProblemsModel, ProblemsPane, stats_line

GOLDEN = pathlib.Path("/work/shared/spec/store-format-golden/cases")

SAMPLE = [
    Problem(
        "areas/bad/two-marks.html",
        "invalid",
        ("2 <mark> elements: exactly one span is the claim", "empty <title>"),
        ("<b> is outside the closed vocabulary",),
        "2026-08-03T10:00:00Z",
    ),
    Problem(
        "areas/edge/list_flat.html",
        "duplicate",
        ("same article as areas/edge/list_pretty.html (memhtml would refuse the second copy)",),
        (),
        "",
        ("areas/edge/list_pretty.html",),
    ),
    Problem("areas/x/self.html", "warnings", (), ('data-lang="" is not a language token',), "2026-08-03T10:00:00Z"),
]
STATS = {
    "memories": 25,
    "active": 24,
    "archived": 1,
    "open_tasks": 2,
    "failed": 17,
    "with_warnings": 3,
    "chunks": 26,
    "embedded": 26,
}


@pytest.fixture
def pane(qtbot):
    widget = ProblemsPane()
    qtbot.addWidget(widget)
    widget.resize(700, 500)
    return widget


def _lines(model: ProblemsModel, row: int) -> list[tuple[str, str]]:
    parent = model.index(row, 0)
    return [
        (model.index(r, 0, parent).data(ProblemsModel.KindRole), model.index(r, 0, parent).data(ProblemsModel.LineRole))
        for r in range(model.rowCount(parent))
    ]


def test_lists_every_problem_with_every_line(pane, qtmodeltester):
    pane.show_problems(SAMPLE, STATS)
    model = pane.model
    qtmodeltester.check(model)
    qtmodeltester.check(pane.proxy)
    assert model.rowCount() == 3
    assert [model.index(r, 0).data() for r in range(3)] == ["invalid", "duplicate", "warnings"]
    assert [model.index(r, 1).data() for r in range(3)] == [p.path for p in SAMPLE]
    assert model.index(0, 0).data(ProblemsModel.SummaryRole) == "2 violations · 1 warning"
    assert "detected 2026-08-03 10:00:00" in model.index(0, 1).data(Qt.ItemDataRole.ToolTipRole)
    assert _lines(model, 0) == [
        ("violation", "2 <mark> elements: exactly one span is the claim"),
        ("violation", "empty <title>"),
        ("warning", "<b> is outside the closed vocabulary"),
    ]
    assert _lines(model, 1)[-1] == ("twin", "areas/edge/list_pretty.html")
    assert model.index(0, 0, model.index(0, 0)).data() == "violation: 2 <mark> elements: exactly one span is the claim"
    assert model.index(1, 0, model.index(1, 0)).data() == "same article as: areas/edge/list_pretty.html"
    assert pane.summary_label.text() == (
        "24 live · 1 archived · 2 open tasks · 17 failed · 3 with warnings · 26 of 26 chunks embedded"
    )


def test_filter_by_kind_and_path(pane):
    pane.show_problems(SAMPLE, STATS)
    assert pane.kind_combo.itemText(0) == "All kinds (3)"
    pane.set_kind_filter("duplicate")
    assert pane.proxy.rowCount() == 1
    only = pane.proxy.index(0, 1)
    assert only.data() == "areas/edge/list_flat.html"
    assert pane.proxy.rowCount(pane.proxy.index(0, 0)) == 2  # the lines follow their problem
    pane.set_kind_filter("")
    pane.path_filter.setText("x/self")
    assert pane.proxy.rowCount() == 1 and pane.proxy.index(0, 0).data() == "warnings"
    pane.path_filter.setText("")
    pane.show_problems(SAMPLE[:1], {})  # the kind choice survives a refresh
    assert pane.kind_combo.currentData() == ""
    assert pane.summary_label.text() == "1 problem"


def test_click_and_enter_open(pane, qtbot):
    pane.show_problems(SAMPLE, STATS)
    pane.show()
    qtbot.waitExposed(pane)
    view, proxy = pane.view, pane.proxy
    with qtbot.waitSignal(pane.open_requested, timeout=1000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(proxy.index(2, 1)).center())
    assert blocker.args == ["areas/x/self.html"]
    dup = proxy.index(1, 0)
    twin = proxy.index(1, 0, dup)
    with qtbot.waitSignal(pane.open_requested, timeout=1000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(twin).center())
    assert blocker.args == ["areas/edge/list_pretty.html"]
    view.setCurrentIndex(proxy.index(0, 0, proxy.index(0, 0)))  # a violation line opens its file
    with qtbot.waitSignal(pane.open_requested, timeout=1000) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert blocker.args == ["areas/bad/two-marks.html"]


def test_empty_state(pane):
    pane.show_problems([], {"active": 3, "archived": 0, "failed": 0, "with_warnings": 0})
    assert pane.empty_label.isVisibleTo(pane) and not pane.view.isVisibleTo(pane)
    assert stats_line({}) == ""


def test_problems_of_a_real_store(pane, tmp_path, qtmodeltester):
    from memhtml_desktop.index.store import Store

    if not GOLDEN.exists():
        pytest.skip("golden cases not available")
    root = tmp_path / "store"
    for case in GOLDEN.iterdir():
        dest = root / case.name.replace("__", "/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(case, dest)
    store = Store(root, index_path=tmp_path / "i.db")
    store.index()
    problems = store.problems()
    pane.show_problems(problems, store.stats())
    qtmodeltester.check(pane.model)
    model = pane.model
    assert model.rowCount() == len(problems) > 0
    for row, problem in enumerate(problems):
        lines = [text for _, text in _lines(model, row)]
        assert lines == [*problem.violations, *problem.warnings, *problem.duplicates]
    kinds = {p.kind for p in problems}
    assert {"invalid", "duplicate", "warnings"} <= kinds
    assert "failed" in pane.summary_label.text()
