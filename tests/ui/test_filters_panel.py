"""Scope edits, the filters model and panel, the chips, the archived banner, the status bar."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import Qt

from memhtml_desktop.domain.types import ArchivedPointer, Scope, SearchResult
from memhtml_desktop.ui.filters.filters_panel import FiltersPanel
from memhtml_desktop.ui.results.archived_banner import ArchivedBanner, banner_html
from memhtml_desktop.ui.search.search_bar import SearchBar, form_text
from memhtml_desktop.ui.session.scope_edits import active_filters, is_on, set_filter
from memhtml_desktop.ui.shell.status_bar import StatusBar, batch_text


def test_set_filter_edits_one_axis_at_a_time():
    scope = Scope()
    scope = set_filter(scope, "type", "procedural", True)
    scope = set_filter(scope, "tag", "deploy", True)
    scope = set_filter(scope, "facet", "doc-type=runbook", True)
    scope = set_filter(scope, "facet", "doc-type=guide", True)
    scope = set_filter(scope, "workspace", "checkout-api", True)
    scope = set_filter(scope, "entity", "service:checkout-api", True)
    assert scope.memory_types == ("procedural",) and scope.tags == ("deploy",)
    assert scope.facets == (("doc-type", "runbook"), ("doc-type", "guide"))
    assert is_on(scope, "entity", "SERVICE:Checkout-API")
    assert [label for _, _, label in active_filters(scope)] == [
        "type: procedural",
        "workspace: checkout-api",
        "tag: deploy",
        "entity: service:checkout-api",
        "doc-type = runbook",
        "doc-type = guide",
    ]
    scope = set_filter(scope, "facet", "doc-type=runbook", False)
    scope = set_filter(scope, "workspace", "other", False)  # not the selected one: unchanged
    assert scope.facets == (("doc-type", "guide"),) and scope.workspace == "checkout-api"
    assert set_filter(scope, "archived", "", True).include_archived
    with pytest.raises(ValueError):
        set_filter(scope, "colour", "red", True)


def test_the_filters_model_passes_the_model_tester_and_shows_counts(qtbot, qtmodeltester, store):
    panel = FiltersPanel()
    qtbot.addWidget(panel)
    qtmodeltester.check(panel.model)
    panel.set_universe(store.counts("", Scope()))
    assert panel.model.item_for("facet", "Owner=alice").toolTip() == "Owner = alice"
    panel.set_counts(store.counts("drain the vip", Scope()))
    qtmodeltester.check(panel.model)
    model = panel.model
    assert model.count("type", "procedural") == 1 and model.count("type", "semantic") == 0
    assert model.item_for("type", "semantic") is not None  # zero, greyed, still there
    assert model.item_for("facet", "Owner=alice").text() == "alice"  # under the "Owner" row
    assert "Include archived" in panel.archived.text()
    panel.set_scope(Scope.build(facets=["Owner=alice"]))
    assert model.item_for("facet", "Owner=alice").checkState() == Qt.CheckState.Checked
    assert sorted(panel.entity_names.stringList())[:1]


def test_a_click_on_a_value_row_asks_for_the_filter_once(qtbot, store):
    panel = FiltersPanel()
    qtbot.addWidget(panel)
    panel.resize(300, 700)
    panel.show()
    panel.set_universe(store.counts("", Scope()))
    item = panel.model.item_for("tag", "infra")
    rect = panel.tree.visualRect(item.index())
    with qtbot.waitSignal(panel.filter_toggled) as toggled:
        qtbot.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert toggled.args == ["tag", "infra", True]
    with qtbot.waitSignal(panel.filter_toggled) as toggled:
        panel.entity_edit.setText("service:checkout-api")
        qtbot.keyClick(panel.entity_edit, Qt.Key.Key_Return)
    assert toggled.args == ["entity", "service:checkout-api", True]


def test_search_bar_chips_spinner_and_form(qtbot):
    bar = SearchBar()
    qtbot.addWidget(bar)
    bar.set_scope(Scope.build(tags=["deploy"], facets=["tier=1"]))
    assert [c.label for c in bar.chips.bar.chips()] == ["tag: deploy", "tier = 1"]
    with qtbot.waitSignal(bar.chip_removed) as removed:
        qtbot.mouseClick(bar.chips.bar.chips()[1].close_button, Qt.MouseButton.LeftButton)
    assert removed.args == ["facet", "tier=1"]
    bar.set_busy(True)
    assert bar.is_busy()
    bar.set_busy(False)
    assert not bar.is_busy()
    assert form_text("all", ("fts", "vector", "recency", "salience")) == "fts: all terms \u00b7 4 arms"
    assert form_text("any", ("fts", "recency")) == "fts: any term \u00b7 2 arms"
    assert form_text(None, ("recency", "salience")) == "fts: off (no words) \u00b7 2 arms"
    with qtbot.waitSignal(bar.mode_changed) as mode:
        bar.toggle_mode()
    assert mode.args == ["recall"]


def _empty(archived=(), n=0) -> SearchResult:
    return SearchResult("q", Scope.build(tags=["x"]), None, ("recency",), False, (), True, n, archived, ())


def test_archived_banner_wording_and_links(qtbot):
    result = _empty(
        (
            ArchivedPointer("archive/2025/a.html", "<b>Old</b> claim", "areas/a.html"),
            ArchivedPointer("archive/2025/b.html", "B", None),
        ),
        n=3,
    )
    headline, body = banner_html(result)
    assert headline == "0 live matches \u2014 3 archived memories match these filters"
    assert "&lt;b&gt;Old&lt;/b&gt;" in body  # titles are escaped: an agent wrote them
    assert 'href="open:areas/a.html"' in body and "not superseded" in body and "1 more" in body
    banner = ArchivedBanner()
    qtbot.addWidget(banner)
    banner.show_result(result)
    with qtbot.waitSignal(banner.open_requested) as opened:
        banner.listing.linkActivated.emit("open:areas/a.html")
    assert opened.args == ["areas/a.html"]
    assert banner_html(_empty())[0].startswith("0 live matches \u2014 and no archived memory")


def test_status_bar_reads_the_watcher_status(qtbot):
    from memhtml_desktop.watch.status import BatchSummary, WatchStatus

    bar = StatusBar()
    qtbot.addWidget(bar)
    batch = BatchSummary(2, 1, 0, 0, 0, 41.2, "2026-01-01T00:00:00Z", 3, "batch")
    bar.set_watch(WatchStatus(mode="live", queue_depth=4, last_batch=batch))
    assert bar.watch.label.text() == "\u00b7 live" and bar.queue_label.text() == "\u00b7 queue 4"
    assert bar.batch_label.text() == "\u00b7 last batch 3 files 41 ms"
    bar.set_watch(WatchStatus(mode="starting", busy=True, progress=("index", 40, 200)))
    assert bar.progress.isVisibleTo(bar) and bar.progress.value() == 40 and bar.progress.maximum() == 200
    bar.set_watch(WatchStatus(mode="polling", reason="no inotify"))
    assert not bar.progress.isVisibleTo(bar) and bar.watch.toolTip() == "no inotify"
    assert batch_text(None) == ""
    bar.set_stats({"memories": 1290, "active": 1284, "archived": 6})
    assert bar.count_label.text() == "\u00b7 1,284 memories"


def _layout(model) -> list:
    """The panel's tree as (section, [row texts and counts]) — what a person sees in it."""
    out = []
    for row in range(model.rowCount()):
        section = model.index(row, 0)
        rows = []
        for sub in range(model.rowCount(section)):
            child = model.index(sub, 0, section)
            rows.append(
                (
                    child.data(),
                    model.index(sub, 2, section).data(),
                    [model.index(r, 0, child).data() for r in range(model.rowCount(child))],
                )
            )
        out.append((section.data(), rows))
    return out


@pytest.mark.parametrize("added", ["zz-new-tag", "aa-new-tag"])
def test_a_rebuild_puts_in_one_section_a_turn_and_ends_as_a_fresh_build(qtbot, qtmodeltester, store, added):
    """New values (a cold index's counts, batch after batch) rebuild the panel a section per
    event-loop turn, the old section shown until its new one is in; the end is the tree a fresh
    panel builds from the same values, with the ticked value still ticked."""
    panel = FiltersPanel()
    qtbot.addWidget(panel)
    first = store.counts("", Scope())
    panel.set_universe(first)
    assert panel.model.settled() or qtbot.waitUntil(panel.model.settled) is None
    panel.set_scope(Scope.build(tags=["infra"]))
    grown = dataclasses.replace(first, tags={**first.tags, added: max(first.tags.values()) + 5})
    steps: list[bool] = []
    panel.model.sections_replaced.connect(lambda: steps.append(panel.model.item_for("tag", added) is not None))
    panel.set_universe(grown)
    assert panel.model.item_for("tag", added) is None and panel.model.building()  # the old tags still shown
    qtbot.waitUntil(panel.model.settled, timeout=5000)
    assert steps == [False, False, False, True, True], "types, workspaces, facets, then tags: a section a turn"
    qtmodeltester.check(panel.model)
    fresh = FiltersPanel()
    qtbot.addWidget(fresh)
    fresh.set_universe(grown)
    fresh.set_scope(Scope.build(tags=["infra"]))
    qtbot.waitUntil(fresh.model.settled, timeout=5000)
    assert _layout(panel.model) == _layout(fresh.model)
    assert panel.model.item_for("tag", "infra").checkState() == Qt.CheckState.Checked


def test_a_large_first_build_goes_a_section_a_turn_and_a_small_one_at_once(qtbot, qtmodeltester, store, monkeypatch):
    """A cold index's first values arrive mid-pass, hundreds of rows at 20,000 memories: past
    FIRST_BUILD_AT_ONCE rows the first build puts the sections in one a turn (in AXES order), and
    ends as the tree built in one go; a small first build is whole at once."""
    from memhtml_desktop.ui.filters import filters_model

    small = store.counts("", Scope())
    at_once = FiltersPanel()
    qtbot.addWidget(at_once)
    at_once.set_universe(small)
    assert at_once.model.rowCount() == 5 and not at_once.model.building()
    assert 0 < len(at_once.model._rows) <= filters_model.FIRST_BUILD_AT_ONCE

    large = dataclasses.replace(small, tags={**small.tags, **{f"tag-{i:03d}": 1 + i % 7 for i in range(90)}})
    panel = FiltersPanel()
    qtbot.addWidget(panel)
    seen: list[int] = []
    panel.model.sections_replaced.connect(lambda: seen.append(panel.model.rowCount()))
    panel.set_universe(large)
    assert panel.model.rowCount() == 0 and panel.model.building(), "nothing built in the turn the values came"
    qtbot.waitUntil(panel.model.settled, timeout=5000)
    assert seen == [1, 2, 3, 4, 5], "a section a turn, each put in after the ones before it"
    qtmodeltester.check(panel.model)
    monkeypatch.setattr(filters_model, "FIRST_BUILD_AT_ONCE", 10_000)
    whole = FiltersPanel()
    qtbot.addWidget(whole)
    whole.set_universe(large)
    assert whole.model.rowCount() == 5 and not whole.model.building()
    qtbot.waitUntil(whole.model.settled, timeout=5000)  # its numbers are put in a slice a turn
    assert _layout(panel.model) == _layout(whole.model)


def test_the_values_and_the_counts_of_one_turn_are_compared_with_the_rows_once(qtbot, store):
    """The store's values and the counts in scope arrive in one turn after a search; each compare
    walks every row, so it runs once, in the next turn, and every row then shows its number."""
    panel = FiltersPanel()
    qtbot.addWidget(panel)
    counts = store.counts("", Scope())
    panel.set_universe(counts)
    qtbot.waitUntil(panel.model.settled, timeout=5000)
    compared: list[int] = []
    real = panel.model._changed_rows
    panel.model._changed_rows = lambda: compared.append(1) or real()
    narrow = store.counts("", Scope.build(tags=["infra"]))
    panel.set_universe(counts)
    panel.set_counts(narrow)
    assert compared == [], "compared in the turn the updates came in"
    qtbot.waitUntil(panel.model.settled, timeout=5000)
    assert compared == [1]
    for (axis, value), (_, _, count_item) in panel.model._rows.items():
        assert count_item.text() == str(panel.model.count(axis, value)), (axis, value)
