"""The recall pane's other shapes, as a person uses them: choose a shape, move the budget, Expand a row."""

from __future__ import annotations

import hashlib

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication

from memhtml_desktop.domain.catalogue import Catalogue, CatalogueEntry, list_within
from memhtml_desktop.domain.disclosure import FoldCandidate
from memhtml_desktop.domain.quotas import SEED, LedgerMap, MemoryFacts, QuotaCandidate, fold_quotas
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.store import Store
from memhtml_desktop.ui.recall.catalogue_view import CatalogueModel, CatalogueView
from memhtml_desktop.ui.recall.ledgers_view import LedgerModel, LedgersView
from memhtml_desktop.ui.recall.recall_model import RecallModel

WAIT = 20_000
QUERY = "drain the vip"


def quota_pack(budget: int = 2000, ledger_map: LedgerMap = SEED):
    def cand(path, mtype, rank=None, status=None, size=300):
        return QuotaCandidate(
            FoldCandidate(path, path.rsplit("/", 1)[1], mtype, "Q" * size, "C" * 60 + ".", ()),
            MemoryFacts(path, mtype, status),
            rank=rank,
        )

    pool = [cand(f"a/hit-{i}.html", "episodic", i + 1) for i in range(6)] + [cand("a/how.html", "procedural", 7)]
    resident = {
        "profile": [cand("p/pref.html", "user_preference")],
        "pending": [cand(f"t/{i}.html", "task", status="todo") for i in range(3)],
    }
    return fold_quotas("q", pool, resident, {"profile": 1, "pending": 7}, budget, ledger_map, max_per_entity=2)


def test_the_ledgers_are_four_budgets_with_what_each_holds(qtbot, qtmodeltester):
    view = LedgersView()
    qtbot.addWidget(view)
    view.resize(700, 500)
    pack = quota_pack()
    view.set_pack(pack)
    qtmodeltester.check(view.model)
    model = view.model
    assert model.rowCount() == 4
    for row, ledger in enumerate(pack.ledgers):
        top = model.index(row, 0)
        assert top.data().startswith(f"{ledger.spec.label} ({ledger.share}%) — {ledger.used:,} / {ledger.limit:,}")
        assert f"{ledger.unspent:,} unspent" in top.data()
        assert model.rowCount(top) == len(ledger.section.items)
        for n, item in enumerate(ledger.section.items):
            assert model.index(n, LedgerModel.TIER, top).data(RecallModel.TierRole) == item.tier
            assert model.index(n, LedgerModel.COST, top).data() == f"{item.chars:,}"
    assert model.index(3, 0).data(LedgerModel.LedgerRole).name == "pending"
    assert "never lend" in view.summary.text() and f"unspent {pack.unspent:,}" in view.summary.text()
    segments = view.budgets.segments()
    assert [s[1].name for s in segments] == ["profile", "task", "experience", "pending"]
    widths = [s[0].width() for s in segments]
    assert widths[1] > widths[0] > widths[2] > widths[3], "each account is as wide as its limit (35 > 30 > 20 > 15)"
    with qtbot.waitSignal(view.open_path, timeout=1000) as blocker:
        view.view.setCurrentIndex(model.index(0, 0, model.index(1, 0)))
        qtbot.keyClick(view.view, Qt.Key.Key_Return)
    assert blocker.args == [pack.ledgers[1].section.items[0].path]


def test_budget_no_ledger_holds_is_its_own_segment():
    view = LedgersView()
    odd = LedgerMap(shares=(("profile", 20), ("task", 20), ("experience", 20), ("pending", 20)), rules=SEED.rules)
    view.set_pack(quota_pack(1000, odd))
    assert view.budgets.segments()[-1][1] is None
    assert "200 in no ledger" in view.summary.text()
    view.deleteLater()


def catalogue_of(titles, budget=10_000) -> Catalogue:
    entries = [
        CatalogueEntry(i + 1, f"areas/m{i}.html", t, s, "semantic", 100 * (i + 1)) for i, (t, s) in enumerate(titles)
    ]
    return Catalogue(
        "q",
        Scope(),
        len(entries),
        budget,
        list_within(entries, budget),
        question="vague",
        question_why="no memory holds every word",
    )


def test_the_catalogue_marks_what_it_cannot_tell_apart_and_expands_a_row(qtbot, qtmodeltester):
    view = CatalogueView()
    qtbot.addWidget(view)
    view.resize(600, 500)
    view.show()
    cat = catalogue_of(
        [("Pool size", "Holds 40."), ("Other", "Else."), ("Pool size", "Holds 40."), ("Long", "x" * 400)], budget=200
    )
    view.set_catalogue(cat)
    qtmodeltester.check(view.model)
    assert view.finding.isVisible() and "#1 = #3" in view.finding.text()
    assert view.model.index(0, CatalogueModel.ENTRY).data().startswith("≡ ")
    assert view.model.index(1, CatalogueModel.ENTRY).data() == "Other: Else."
    assert view.model.index(3, CatalogueModel.LINE).data() == "left out", "a line that does not fit is left out whole"
    assert "The question reads vague" in view.summary.text()
    with qtbot.waitSignal(view.expand_requested, timeout=1000) as blocker:
        view.table.selectRow(2)
        qtbot.mouseClick(view.expand_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["areas/m2.html"]
    with qtbot.waitSignal(view.expand_requested, timeout=1000) as blocker:
        view.table.setCurrentIndex(view.model.index(1, 1))
        qtbot.keyClick(view.table, Qt.Key.Key_Return)
    assert blocker.args == ["areas/m1.html"]
    view._menu(view.table.visualRect(view.model.index(0, 1)).center())
    actions = [a.text() for a in view._menu_shown.actions()]
    assert actions[0] == "Expand #1 (100 chars)" and "counts as a read" in actions[1]
    view._menu_shown.close()


# -- the real window ---------------------------------------------------------------------------------


def _state(store) -> tuple:
    return (
        store.reader().execute("SELECT * FROM state.access ORDER BY path").fetchall(),
        hashlib.sha256(store.state_path.read_bytes()).hexdigest(),
    )


@pytest.fixture
def demo_window(make_window, demo_store_dir, tmp_path):
    from memhtml_desktop.domain.hash_embedder import HashEmbedder

    store = Store(demo_store_dir, index_path=tmp_path / "demo-index.db", embedder=HashEmbedder())
    store.import_sidecar()
    store.index()
    window = make_window(store)
    yield window, store
    store.close_thread_connection()


def click_tab(qtbot, pane, index: int) -> None:
    bar = pane.shapes.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())


def test_choose_a_shape_move_the_budget_and_expand_a_row(qtbot, demo_window):
    window, store = demo_window
    before = _state(store)
    pane = window.recall
    shapes = window.controllers["recall"].shapes_shown
    window.search_bar.field.setFocus()
    with qtbot.waitSignal(shapes, timeout=WAIT):
        qtbot.keyClicks(window.search_bar.field, QUERY)
        qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)  # recall mode
    qtbot.waitUntil(lambda: pane.comparison() is not None and pane.comparison().query == QUERY, timeout=WAIT)
    # every tab shows the same comparison the store gives for this query and budget
    budget = pane.budget()
    expected = store.shapes(QUERY, budget=budget, ledgers=store.ledger_map())
    assert pane.comparison().to_json() == expected.to_json()
    click_tab(qtbot, pane, 1)
    assert pane.shape() == "quotas" and pane.ledgers.isVisible() and not pane.memories_box.isVisible()
    assert pane.ledgers.model.rowCount() == 4
    assert pane.copy_button.text() == "Copy ledgers as text"
    pane.copy_pack()
    assert QApplication.clipboard().text().startswith(f'<recall query="{QUERY}" shape="quotas">')
    # the slider re-folds every shape
    pane.slider.setFocus()
    with qtbot.waitSignal(shapes, timeout=WAIT) as blocker:
        for _ in range(8):
            qtbot.keyClick(pane.slider, Qt.Key.Key_PageDown)
    comparison = blocker.args[0]
    assert comparison.budget == pane.budget() < budget
    assert comparison.pack.memories.budget == comparison.quotas.budget == comparison.catalogue.budget == pane.budget()
    assert comparison.to_json() == store.shapes(QUERY, budget=pane.budget(), ledgers=store.ledger_map()).to_json()
    limits = [ledger.limit for ledger in comparison.quotas.ledgers]
    assert (
        pane.ledgers.model.index(0, 0)
        .data()
        .endswith(
            f"/ {limits[0]:,} used · {comparison.quotas.ledgers[0].unspent:,} unspent · "
            f"{comparison.quotas.ledgers[0].section.counts['index']} index"
        )
    )
    assert pane.costs.chart.budget == pane.budget()
    # Expand a catalogue row
    click_tab(qtbot, pane, 2)
    table = pane.catalogue.table
    assert pane.catalogue.isVisible() and pane.catalogue.model.rowCount() == 10
    qtbot.mouseClick(
        table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(pane.catalogue.model.index(1, 1)).center()
    )
    target = pane.catalogue.current_path()
    with qtbot.waitSignal(window.controllers["recall"].expanded, timeout=WAIT) as blocker:
        qtbot.mouseClick(pane.catalogue.expand_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0].path == target
    assert pane.catalogue.expansion_text.toPlainText() == store.expand(target).text
    assert f"{store.expand(target).cost:,} chars" in pane.catalogue.expansion_label.text()
    store.close_thread_connection()
    assert _state(store) == before, "previewing, cataloguing and expanding are not reads"


def test_the_pane_at_1024_by_700_in_the_dark(qtbot, demo_window):
    window, store = demo_window
    from memhtml_desktop.ui.app import apply_theme

    apply_theme(QApplication.instance(), "dark")
    try:
        window.resize(1024, 700)
        with qtbot.waitSignal(window.controllers["recall"].shapes_shown, timeout=WAIT):
            window.set_query(QUERY)
            window.session.set_mode("recall")
        pane = window.recall
        pane.set_shape("quotas")
        qtbot.waitUntil(lambda: pane.ledgers.isVisible(), timeout=WAIT)
        assert pane.ledgers.view.isColumnHidden(LedgerModel.REASON), "too narrow: the reason steps into the tooltip"
        assert pane.costs.chart.height() >= 5 * pane.costs.chart.ROW, "every cost row is drawn"
        assert pane.costs.chart.geometry().bottom() < pane.costs.verdict.geometry().top()
        image = pane.grab().toImage()
        probe = pane.ledgers.budgets.mapTo(pane, QPoint(4, 6))
        assert image.pixelColor(probe).name() != image.pixelColor(QPoint(1, 1)).name()
        window.resize(1600, 1000)
        qtbot.waitUntil(lambda: not pane.ledgers.view.isColumnHidden(LedgerModel.REASON), timeout=WAIT)
    finally:
        apply_theme(QApplication.instance(), "light")


@pytest.mark.parametrize(
    "broken,words",
    [
        ('{"rules": ' + "[" * 50_000 + "]" * 50_000 + "}", "nested too deeply"),
        ('{"window": 1' + "0" * 5000 + "}", "more than 4,300 digits"),
        ("fifo", "a FIFO"),
    ],
)
def test_a_ledger_map_that_cannot_be_used_falls_back_to_the_seeds_with_the_reason_shown(qtbot, demo_window, tmp_path,
                                                                                         broken, words):  # fmt: skip
    """Issue 40, item 6: in the window a deeply nested map or a 5,001-digit number raised (the job
    failed, no ledgers) instead of falling back as docs/recall.md says. Now the seed's map is used
    and the Ledgers tab says why, as long as it lasts; the status bar says it once."""
    import os

    from memhtml_desktop.domain.quotas import STORE_FILE

    window, store = demo_window
    target = store.root / STORE_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    if broken == "fifo":
        os.mkfifo(target)
    else:
        target.write_text(broken)
    window.resize(1024, 700)
    with qtbot.waitSignal(window.controllers["recall"].shapes_shown, timeout=WAIT) as blocker:
        window.set_query(QUERY)
        window.session.set_mode("recall")
    pane = window.recall
    pane.set_shape("quotas")
    qtbot.waitUntil(lambda: pane.ledgers.isVisible(), timeout=WAIT)
    quotas = blocker.args[0].quotas
    assert quotas.map_name == SEED.name and words in quotas.map_note
    summary = pane.ledgers.summary.text()
    assert words in summary and "the seed's ledger map is used instead" in summary and STORE_FILE in summary
    assert pane.ledgers.model.rowCount() == 4
    assert any(words in n for n in window.store.notices)  # the engine's store's, heard by the window
    qtbot.waitUntil(lambda: words in window.statusBar().currentMessage(), timeout=WAIT)
    if broken != "fifo":
        window.grab().save(str(tmp_path / "ledgers-fallback.png"))


def test_the_verdict_reads_a_specific_question_under_default_in_the_window(qtbot, demo_window):
    """Issue 41, item 1: the verdict under the bars and the catalogue's line say "specific" for a
    question one memory answers (the old verdict read the default profile's any-of form: "vague")."""
    window, store = demo_window
    pane = window.recall
    assert store.ranking.name == "default"
    query = "idempotency keys expire after 24 hours"
    window.search_bar.field.setFocus()
    with qtbot.waitSignal(window.controllers["recall"].shapes_shown, timeout=WAIT):
        qtbot.keyClicks(window.search_bar.field, query)
        qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)  # recall mode
    qtbot.waitUntil(lambda: pane.comparison() is not None and pane.comparison().query == query, timeout=WAIT)
    click_tab(qtbot, pane, 2)
    assert "The question reads specific: every word is in 1 memory." in pane.catalogue.summary.text()
    assert "the question reads specific" in pane.costs.verdict.text()
