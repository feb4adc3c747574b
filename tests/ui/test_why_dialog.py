""" "Why not this one?": status, reasons, one row per arm, fused and search positions, and an open button."""

from __future__ import annotations

import pathlib
import shutil

import pytest

from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.explain import WhyNot
from memhtml_desktop.ui.kit.palette import ARM_COLORS
from memhtml_desktop.ui.reader.why_arms import ArmsModel, raw_text
from memhtml_desktop.ui.reader.why_dialog import WhyDialog

GOLDEN = pathlib.Path("/work/shared/spec/store-format-golden/cases")
PATH = "areas/oncall/format-md-procedural.html"


def synthetic() -> WhyNot:
    return WhyNot(
        path="areas/oncall/rollback-order.html",
        query="drain the vip",
        status="indexed",
        reasons=["fused position 47: below the pool the page is chosen from"],
        arms={
            "fts": {
                "ranked": 210,
                "weight": 1.0,
                "form": "all",
                "rank": 57,
                "in_window": False,
                "contribution": 0.0,
                "raw": -2.5,
            },
            "vector": {
                "ranked": 210,
                "weight": 1.0,
                "rank": 12,
                "in_window": True,
                "contribution": 1 / 72,
                "distance": 0.4321,
            },
            "recency": {"ranked": 210, "weight": 0.5, "rank": None, "in_window": False, "contribution": 0.0},
            "salience": {
                "ranked": 180,
                "weight": 0.4,
                "rank": 3,
                "in_window": True,
                "contribution": 0.4 / 63,
                "raw": [0.5, 1.1, 0.4, 12.0],
            },
        },
        fused_position=47,
        fused_score=0.0201,
        search_position=None,
    )


@pytest.fixture
def dialog(qtbot):
    widget = WhyDialog()
    qtbot.addWidget(widget)
    return widget


def cell(model: ArmsModel, row: int, col: int):
    return model.index(row, col).data()


def test_arm_rows(dialog, qtmodeltester):
    dialog.show_report(synthetic())
    model = dialog.arms_model
    qtmodeltester.check(model)
    assert model.rowCount() == 4
    assert [model.index(r, 0).data(ArmsModel.ArmRole) for r in range(4)] == ["fts", "vector", "recency", "salience"]
    assert [cell(model, r, ArmsModel.RANK) for r in range(4)] == [
        "57 of 210",
        "12 of 210",
        "not ranked (of 210)",
        "3 of 180",
    ]
    assert [cell(model, r, ArmsModel.WINDOW) for r in range(4)] == [
        "outside the 40",
        "inside the 40",
        "—",
        "inside the 40",
    ]
    assert cell(model, 0, ArmsModel.CONTRIBUTION) == "—"
    assert cell(model, 1, ArmsModel.CONTRIBUTION) == f"{1 / 72:.4f}"
    assert cell(model, 0, ArmsModel.RAW) == "bm25 -2.500 (all terms)"
    assert cell(model, 1, ArmsModel.RAW) == "cosine distance 0.432"
    assert cell(model, 3, ArmsModel.RAW) == "decay 0.50 · popularity 1.10 · outcome 0.40 · 12 h since last read"
    for row, arm in enumerate(("fts", "vector", "recency", "salience")):
        assert model.index(row, 0).data(0x1).name().lower() == ARM_COLORS[arm].lower()  # DecorationRole
    assert dialog.fused_label.text() == "Fused position: 47 (score 0.0201) · search position: —"
    assert dialog.verdict_label.text() == "It is not on the result page."
    assert "below the pool" in dialog.reasons_label.text()


def test_open_and_ask_about_another_path(dialog, qtbot):
    dialog.show_report(synthetic())
    with qtbot.waitSignal(dialog.open_requested, timeout=1000) as blocker:
        dialog.open_button.click()
    assert blocker.args == ["areas/oncall/rollback-order.html"]
    dialog.memory_field.setText("  areas/x/self.html ")
    with qtbot.waitSignal(dialog.why_requested, timeout=1000) as blocker:
        dialog.ask_button.click()
    assert blocker.args == ["areas/x/self.html"]


def test_an_invalid_file(dialog):
    report = WhyNot(
        path="areas/bad/two-marks.html",
        query="claim",
        status="invalid",
        problems=["2 <mark> elements: exactly one span is the claim"],
        reasons=[
            "the file failed to parse, so it is not in the index: 2 <mark> elements: exactly one span is the claim"
        ],
    )
    dialog.show_report(report)
    assert dialog.status_label.text() == "Failed to parse, so it is not in the index."
    assert "2 <mark> elements" in dialog.reasons_label.text()
    assert dialog.arms_model.rowCount() == 0
    assert not dialog.fused_label.isVisibleTo(dialog)


def test_raw_text_fallbacks():
    assert raw_text("recency", {"raw": "2026-07-28"}) == "time 2026-07-28"
    assert raw_text("fts", {}) == "—"
    assert raw_text("vector", {"distance": None, "raw": None}) == "—"


def test_a_real_report_from_a_store(dialog, tmp_path, qtmodeltester):
    from memhtml_desktop.index.store import Store

    if not GOLDEN.exists():
        pytest.skip("golden cases not available")
    root = tmp_path / "store"
    source = GOLDEN / "areas__oncall__format-md-procedural.html"
    for case in (source, GOLDEN / "resources__infra__one-writer-and-many-readers-share-the-index.html"):
        dest = root / case.name.replace("__", "/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(case, dest)
    store = Store(root, index_path=tmp_path / "i.db")
    store.index()
    report = store.why("rollback drain", Scope.build(tags=["nope"]), PATH)
    dialog.show_report(report)
    qtmodeltester.check(dialog.arms_model)
    assert dialog.arms_model.rowCount() == len(report.arms) >= 3
    assert "tags" in dialog.relaxed_label.text()
    assert "carries none of the selected tags" in dialog.reasons_label.text()
    fts_row = [
        r for r in range(dialog.arms_model.rowCount()) if dialog.arms_model.index(r, 0).data(ArmsModel.ArmRole) == "fts"
    ][0]
    assert dialog.arms_model.index(fts_row, ArmsModel.RANK).data() == f"1 of {report.arms['fts']['ranked']}"


def test_a_prior_arm_that_did_not_count_says_so(dialog):
    report = synthetic()
    report.arms["salience"].update(contribution=0.0, counted=False)
    dialog.show_report(report)
    model = dialog.arms_model
    row = [model.index(r, 0).data(ArmsModel.ArmRole) for r in range(model.rowCount())].index("salience")
    assert cell(model, row, ArmsModel.CONTRIBUTION) == "not counted"
    assert cell(model, row, ArmsModel.RANK) == "3 of 180"  # its rank is still shown
