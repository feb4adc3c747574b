"""Issue 41, the panes as a newcomer reads them: the recall tab at a budget of 0, the pack's header,
counts and their nouns, check boxes in the dark theme.

Each test drives the real MainWindow (or the command line, where the words are the CLI's) and
failed on the code before its fix; the docstring says what the person saw.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionButton

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store
from memhtml_desktop.ui.kit.palette import contrast
from tests.ui.conftest import GOLDEN, PROCEDURAL
from tests.ui.test_main_window import WAIT
from tests.ui.test_window_defects import demo_store  # noqa: F401 - a fixture

UI = Path(__file__).resolve().parents[2] / "memhtml_desktop" / "ui"
QUERY = "drain the vip"


def _recall(qtbot, window, budget: int | None = None):
    """Recall mode on QUERY, the budget typed into its spin box; the comparison shown."""
    shapes = window.controllers["recall"].shapes_shown
    with qtbot.waitSignal(shapes, timeout=WAIT):
        window.set_query(QUERY)
        window.search_bar.set_mode("recall")
    pane = window.recall
    if budget is not None:
        pane.spin.setFocus()
        pane.spin.selectAll()
        with qtbot.waitSignal(shapes, timeout=WAIT, check_params_cb=lambda c: c.budget == budget):
            qtbot.keyClicks(pane.spin, str(budget))
            qtbot.keyClick(pane.spin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: pane.comparison() is not None and pane.comparison().budget == pane.budget(), timeout=WAIT)
    return pane


# -- 5. a budget of 0 ------------------------------------------------------------------------------


def test_a_budget_of_0_says_why_nothing_compares_while_the_list_holds_hits(qtbot, make_window, demo_store):
    """Budget 0: "Nothing to compare: the query found no memory" beside a list of 10 hits, and the
    memhtml pack costed at 3,596 characters without a word on what they were."""
    window = make_window(demo_store)
    window.resize(1024, 700)
    pane = _recall(qtbot, window, budget=0)
    comparison = pane.comparison()
    assert comparison.budget == 0 and window.results.model.rowCount() == 10
    verdict = pane.costs.verdict.text()
    assert "found no memory" not in verdict
    assert "budget of 0" in verdict and "catalogue lists no line" in verdict
    shortest = comparison.catalogue.smallest_line
    assert f"shortest costs {shortest:,} chars" in verdict
    index = sum(s.counts["index"] for s in (comparison.pack.memories, comparison.pack.arcs))
    delivered = comparison.cost("memhtml").delivered
    assert delivered > 0 and f"{index} index lines (free)" in verdict and f"{delivered:,} chars" in verdict
    assert f"{comparison.pack.spent:,} charged" in verdict
    assert pane.costs.chart.budget == 0
    # a query that finds nothing still says so
    with qtbot.waitSignal(window.controllers["recall"].shapes_shown, timeout=WAIT):
        window.set_query("zzqx nothing holds this")
    qtbot.waitUntil(lambda: pane.comparison() is not None and pane.comparison().query.startswith("zzqx"), timeout=WAIT)
    if not pane.comparison().catalogue.entries:
        assert pane.costs.verdict.text() == "Nothing to compare: the query found no memory."


# -- 15. the pack's header: truncated by what ------------------------------------------------------


def test_the_pack_header_names_the_entity_cap_not_the_budget(qtbot, make_window, demo_store):
    """The header said "truncated" with 380 of 16,000 characters spent: memhtml's cap of two quotes
    per entity had cut the pack, not the budget."""
    window = make_window(demo_store)
    pane = _recall(qtbot, window)
    pack = pane.comparison().pack
    cut = [i for s in (pack.memories, pack.arcs) for i in s.items if i.tier != "quote"]
    assert cut and all(i.reason == "entity_cap" for i in cut) and pack.spent < pack.memories.budget // 2
    ledger = pane.ledger_label.text()
    assert "cap of 2 quotes per entity, not by the budget" in ledger
    assert f"{len(cut)} memories not quoted" in ledger
    # a budget that does cut: both causes, counted
    pane = _recall(qtbot, window, budget=500)
    pack = pane.comparison().pack
    by_budget = sum(1 for s in (pack.memories, pack.arcs) for i in s.items if i.reason == "over_budget")
    by_cap = sum(1 for s in (pack.memories, pack.arcs) for i in s.items if i.reason == "entity_cap")
    assert by_budget
    text = pane.ledger_label.text()
    assert f"{by_budget} {'memory' if by_budget == 1 else 'memories'} by the budget" in text
    assert (f"{by_cap} {'memory' if by_cap == 1 else 'memories'} by memhtml's cap" in text) == bool(by_cap)


# -- 15. counts and their nouns ----------------------------------------------------------------------


def test_one_memory_is_one_memory_in_the_window_and_the_cli(qtbot, make_window, tmp_path, capsys):
    """ "1 memory in scope hold …" in the command line's header; the status bar's count too."""
    from memhtml_desktop.cli import main

    root = tmp_path / "one"
    (root / "areas" / "oncall").mkdir(parents=True)
    shutil.copyfile(GOLDEN / "areas__oncall__format-md-procedural.html", root / PROCEDURAL)
    store = Store(root, index_path=tmp_path / "one.db", embedder=HashEmbedder())
    store.index()
    assert store.stats()["memories"] == 1
    window = make_window(store)
    qtbot.waitUntil(lambda: window.status.count_label.text() != "", timeout=WAIT)
    assert window.status.count_label.text() == "\u00b7 1 memory"
    store.close_thread_connection()
    code = main(
        ["--store", str(root), "--index", str(tmp_path / "one.db"), "--embedder", "hash", "search", "drain the vip"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "1 memory in scope holds" in out and "1 hit for" in out, out
    assert "1 memory in scope hold " not in out and "1 hits" not in out


PLURAL_BY_HAND = re.compile(
    r"""'s' if [\w.()\[\]]+ != 1|"""  # {n} row{'s' if n != 1 else ''}
    r"""f["'][^"'\n]*\{[^{}]+\} (?:memories|probes|hits|files|rows|pairs|trials|queries|candidates|lines|"""
    r"""warnings|configurations|neighbours|violations|problems|twins|arms)\b"""  # {n} probes
)


def test_no_count_in_the_window_writes_its_noun_by_hand():
    """Every count-and-noun string of the window goes through `domain.plural.counted` ("1 probes
    moved" was one of a dozen written with the plural always on)."""
    found = []
    for path in sorted(UI.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if PLURAL_BY_HAND.search(line):
                found.append(f"{path.relative_to(UI)}:{number}: {line.strip()}")
    assert found == []


def test_the_guard_sees_a_plural_written_by_hand():
    assert PLURAL_BY_HAND.search("""    w.say(f"{comparison.moved} probes moved between")""")
    assert PLURAL_BY_HAND.search("""    rows = f"{below} row{'s' if below != 1 else ''} below\"""")
    assert not PLURAL_BY_HAND.search("""    w.say(f"{counted(comparison.moved, 'probe')} moved")""")


# -- 15. check boxes in the dark ---------------------------------------------------------------------


def _frame_contrast(widget, option_rect: QRect, background: QColor) -> float:
    """The best contrast of the indicator's outermost ring of pixels against the window colour."""
    image = widget.grab().toImage()
    ring = []
    r = option_rect
    for x in range(r.left(), r.right() + 1):
        ring += [image.pixelColor(x, r.top()), image.pixelColor(x, r.bottom())]
    for y in range(r.top(), r.bottom() + 1):
        ring += [image.pixelColor(r.left(), y), image.pixelColor(r.right(), y)]
    return max(contrast(c, background) for c in ring)


@pytest.mark.parametrize("platform_base", [None, "#1e1e1e"])
def test_check_boxes_read_in_the_dark_theme(qtbot, make_window, store, monkeypatch, platform_base):
    """In the dark theme the filters' check boxes were all but invisible: Fusion frames them with the
    window colour 40 % darker (about 1.3:1). Ours, and a platform's dark palette whose base is
    darker than its window (Fusion's own dark scheme), both read at 3:1."""
    from memhtml_desktop.ui.shell import theme

    window = make_window(store)
    app = QApplication.instance()
    before, style_before = QPalette(app.palette()), app.style().name()
    if platform_base:
        dark = theme.dark_palette()
        dark.setColor(QPalette.ColorRole.Base, QColor(platform_base))
        monkeypatch.setattr(theme, "dark_palette", lambda: QPalette(dark))
    try:
        theme.apply_theme(app, "dark")
        qtbot.wait(50)
        box = window.filters.archived
        option = QStyleOptionButton()
        option.initFrom(box)
        indicator = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
        window_color = app.palette().color(QPalette.ColorRole.Window)
        assert window_color.lightness() < 128
        assert _frame_contrast(box, indicator, window_color) >= 3.0
        tree = window.filters.tree
        item = window.filters.model.item_for("type", "procedural")
        rect = tree.visualRect(item.index())
        image = tree.viewport().grab().toImage()
        width = tree.style().pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth) + 6  # the box, not the text
        row = [image.pixelColor(x, rect.center().y()) for x in range(rect.left(), rect.left() + width)]
        assert max(contrast(c, window_color) for c in row) >= 3.0, "the item check box's frame"
    finally:
        app.setPalette(before)
        app.setProperty(theme.THEME_PROPERTY, None)
        theme.restyle(app)
    assert style_before.lower() in ("fusion", app.style().name().lower())
