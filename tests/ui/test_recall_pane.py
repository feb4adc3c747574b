"""The recall preview shows the pack as given: tiers, costs, reasons, and a meter that agrees with the ledger."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from memhtml_desktop.domain.disclosure import ARC_BODY_BUDGET, FoldCandidate, fold, render_pack_text
from memhtml_desktop.domain.types import RecallPack, RecallSection, Scope
from memhtml_desktop.ui.recall.recall_model import RecallModel, reason_text
from memhtml_desktop.ui.recall.recall_pane import DEBOUNCE_MS, RecallPane

GOLDEN = pathlib.Path("/work/shared/spec/store-format-golden")


def candidate(i: int, quote: int, claim: int, entities=("checkout-api",)) -> FoldCandidate:
    return FoldCandidate(
        path=f"areas/oncall/memory-{i}.html",
        title=f"Memory {i}",
        memory_type="procedural",
        disclosure_text=("q" * (quote - 1)) + str(i % 10),
        gist=("c" * (claim - 1)) + str(i % 10),
        entity_names=entities,
    )


def pack_of(memories: RecallSection, arcs: RecallSection | None = None, **kw) -> RecallPack:
    return RecallPack(
        query=kw.get("query", "drain the vip"),
        scope=Scope(),
        degraded=kw.get("degraded", False),
        degraded_reasons=kw.get("degraded_reasons", ()),
        memories=memories,
        arcs=arcs if arcs is not None else fold([], ARC_BODY_BUDGET, name="arcs"),
    )


def three_tier_pack() -> RecallPack:
    """Budget 300: #1 quoted (200), #2 its claim only (60), #3 an index line, #4 quoted (30), #5-6 capped."""
    memories = fold(
        [
            candidate(1, 200, 50, ("a",)),
            candidate(2, 200, 60, ("b",)),
            candidate(3, 400, 300, ("c",)),
            candidate(4, 30, 20, ("a",)),
            candidate(5, 20, 10, ("a",)),
            candidate(6, 30, 10, ("a",)),
        ],
        300,
        max_per_entity=2,
    )
    arcs = fold(
        [
            FoldCandidate(
                "areas/arcs/reversibility-first.html",
                "Reversibility first",
                "semantic",
                "Prefer reversible changes.",
                "Prefer reversible changes.",
                (),
            )
        ],
        ARC_BODY_BUDGET,
        name="arcs",
    )
    return pack_of(memories, arcs)


@pytest.fixture
def pane(qtbot):
    widget = RecallPane()
    qtbot.addWidget(widget)
    widget.resize(560, 720)
    return widget


def test_three_tiers_with_badges_costs_and_reasons(pane, qtmodeltester):
    pack = three_tier_pack()
    pane.show_pack(pack)
    model = pane.memories_box.model
    qtmodeltester.check(model)
    qtmodeltester.check(pane.arcs_box.model)
    tiers = [model.index(r, RecallModel.TIER).data() for r in range(model.rowCount())]
    assert tiers == ["QUOTE", "DISCLOSURE", "INDEX", "QUOTE", "INDEX", "INDEX"]
    assert [model.index(r, RecallModel.RANK).data() for r in range(6)] == ["1", "2", "3", "4", "5", "6"]
    reasons = [model.index(r, RecallModel.REASON).data() for r in range(6)]
    assert reasons == [
        "fits",
        "over budget: claim only",
        "over budget: index line",
        "fits",
        "entity cap: 2 quotes per entity already",
        "entity cap: 2 quotes per entity already",
    ]
    assert model.index(0, RecallModel.COST).data() == "200"
    # the exact text, one child per item
    first = model.index(0, 0)
    assert model.rowCount(first) == 1
    assert model.index(0, 0, first).data() == pack.memories.items[0].text
    assert model.index(0, 0, model.index(2, 0)).data() == "areas/oncall/memory-3.html — Memory 3"
    assert model.index(0, 0, first).data(RecallModel.IsTextRole) is True


def test_meter_agrees_with_the_pack(pane):
    pack = three_tier_pack()
    pane.show_pack(pack)
    meter = pane.memories_box.meter
    costs = [
        pane.memories_box.model.index(r, 0).data(RecallModel.CostRole)
        for r in range(pane.memories_box.model.rowCount())
    ]
    assert meter.budget == pack.memories.budget == 300
    assert meter.spent == pack.memories.spent == sum(costs) == 290
    assert meter.spent <= meter.budget and not meter.over
    assert (meter.quote_chars, meter.line_chars) == (230, 60)
    assert pane.memories_box.meter_label.text() == "290 / 300 chars"
    assert pane.arcs_box.meter.budget == ARC_BODY_BUDGET
    assert pane.arcs_box.meter_label.text() == f"26 / {ARC_BODY_BUDGET:,} chars"
    ledger = pane.ledger_label.text()
    assert "spent 316" in ledger and "3 quote · 1 disclosure · 3 index" in ledger and "truncated" in ledger


def test_tier_badges_are_drawn(pane, qtbot):
    pane.show_pack(three_tier_pack())
    pane.show()
    qtbot.waitExposed(pane)
    view = pane.memories_box.view
    image = view.viewport().grab().toImage()
    from memhtml_desktop.ui.kit.palette import TIER_COLORS

    wanted = {TIER_COLORS[t].lower() for t in ("quote", "disclosure", "index")}
    found = set()
    for row in range(3):
        rect = view.visualRect(pane.memories_box.model.index(row, RecallModel.TIER))
        for dx in range(4, 40):
            color = image.pixelColor(rect.left() + dx, rect.center().y()).name()
            if color in wanted:
                found.add(color)
    assert found == wanted


def test_clicking_an_item_opens_it_but_not_its_text(pane, qtbot):
    pane.show_pack(three_tier_pack())
    pane.show()
    qtbot.waitExposed(pane)
    view = pane.memories_box.view
    model = pane.memories_box.model
    with qtbot.waitSignal(pane.open_requested, timeout=1000) as blocker:
        qtbot.mouseClick(
            view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(model.index(1, RecallModel.MEMORY)).center()
        )
    assert blocker.args == ["areas/oncall/memory-2.html"]
    view.expand(model.index(1, 0))
    text_rect = view.visualRect(model.index(0, 0, model.index(1, 0)))
    with qtbot.assertNotEmitted(pane.open_requested):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=text_rect.center())
    view.setCurrentIndex(model.index(3, 0))
    with qtbot.waitSignal(pane.open_requested, timeout=1000) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert blocker.args == ["areas/oncall/memory-4.html"]


def test_budget_is_debounced_and_set_budget_is_silent(pane, qtbot):
    with qtbot.assertNotEmitted(pane.budget_changed):
        pane.set_budget(8000)
    assert pane.slider.value() == 32 and pane.spin.value() == 8000
    with qtbot.waitSignal(pane.budget_changed, timeout=DEBOUNCE_MS * 5) as blocker:
        for steps in (33, 35, 40, 41):
            pane.slider.setValue(steps)
    assert blocker.args == [41 * 250]
    assert pane.spin.value() == 10_250
    with qtbot.waitSignal(pane.budget_changed, timeout=DEBOUNCE_MS * 5) as blocker:
        pane.spin.setValue(1234)
    assert blocker.args == [1234]
    pane.set_budget(50_000)  # past the slider's end: the range grows
    assert pane.budget() == 50_000 and pane.slider.value() == 200


def test_copy_pack_as_text(pane):
    pack = three_tier_pack()
    pane.show_pack(pack)
    pane.copy_button.click()
    assert QGuiApplication.clipboard().text() == render_pack_text(pack)


def test_degraded_and_loading(pane):
    pack = pack_of(
        fold([candidate(1, 10, 5)], 100), degraded=True, degraded_reasons=("vector arm off: the embedder failed",)
    )
    pane.show_loading()
    assert pane.status_label.text() == "Updating…"
    pane.show_pack(pack)
    assert pane.degraded_strip.isVisibleTo(pane)
    assert "the embedder failed" in pane.degraded_strip.text()
    assert pane.arcs_box.empty_label.isVisibleTo(pane) and not pane.arcs_box.view.isVisibleTo(pane)


def test_show_texts_expands_every_item(pane):
    pane.show_pack(three_tier_pack())
    pane.texts_button.setChecked(True)
    view, model = pane.memories_box.view, pane.memories_box.model
    assert all(view.isExpanded(model.index(r, 0)) for r in range(model.rowCount()))
    pane.show_pack(three_tier_pack())  # a new pack keeps the choice
    assert all(view.isExpanded(model.index(r, 0)) for r in range(model.rowCount()))


def test_reason_text_for_every_reason():
    pack = three_tier_pack()
    assert {reason_text(i, 2) for i in pack.memories.items} == {
        "fits",
        "over budget: claim only",
        "over budget: index line",
        "entity cap: 2 quotes per entity already",
    }
    assert "entity cap: 3 quotes per entity already" in {reason_text(i, 3) for i in pack.memories.items}


def test_the_pane_reads_the_active_profiles_envelope_and_cap(pane):
    from dataclasses import replace

    from memhtml_desktop.domain.ranking import DEFAULT

    pane.set_profile(replace(DEFAULT, name="what-if", arc_budget=5000, max_per_entity=1))
    assert pane.arcs_box.title() == "Arcs \u2014 their own 5,000-char envelope"
    pane.show_pack(three_tier_pack())
    model = pane.memories_box.model
    texts = {model.index(r, 4).data() for r in range(model.rowCount())}
    assert "entity cap: 1 quote per entity already" in texts, texts  # one, not "1 quotes" (issue 41)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sizes=st.lists(st.tuples(st.integers(1, 900), st.integers(1, 300), st.sampled_from("abcd")), max_size=14),
    budget=st.integers(0, 3000),
)
def test_the_pane_never_shows_more_than_the_budget(pane, sizes, budget):
    memories = fold([candidate(i, q, c, (e,)) for i, (q, c, e) in enumerate(sizes)], budget)
    pane.show_pack(pack_of(memories))
    model = pane.memories_box.model
    shown = sum(model.index(r, 0).data(RecallModel.CostRole) for r in range(model.rowCount()))
    assert model.rowCount() == len(sizes)
    assert shown == pane.memories_box.meter.spent == memories.spent <= budget == pane.memories_box.meter.budget


def _golden_store(tmp_path):
    from memhtml_desktop.index.store import Store

    if not GOLDEN.exists():
        pytest.skip("golden cases not available")
    root = tmp_path / "store"
    for line in (GOLDEN / "cases.expected.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["ok"]:
            dest = root / case["path"]
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(GOLDEN / "cases" / case["file"], dest)
    store = Store(root, index_path=tmp_path / "i.db")
    store.index()
    return store


def test_a_real_pack_from_a_store(pane, tmp_path, qtmodeltester):
    store = _golden_store(tmp_path)
    pack = store.recall("rollback drain", budget=200)
    pane.show_pack(pack)
    qtmodeltester.check(pane.memories_box.model)
    meter = pane.memories_box.meter
    model = pane.memories_box.model
    assert model.rowCount() == len(pack.memories.items) > 0
    assert meter.spent == pack.memories.spent == sum(i.chars for i in pack.memories.items) <= 200
    shown = {model.index(r, RecallModel.TIER).data() for r in range(model.rowCount())}
    assert shown <= {"QUOTE", "DISCLOSURE", "INDEX"} and len(shown) >= 2  # 200 chars cannot quote them all
