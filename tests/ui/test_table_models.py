"""The catalogue's and the conflicts' tables over the shared column-table model (ui/kit/rows_model.py):
every role each pane gave its cells before they shared it (text, tooltip, muted rows, alignment,
the row's path or pair)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from memhtml_desktop.domain.catalogue import Catalogue, CatalogueEntry
from memhtml_desktop.domain.claim_diff import ClaimDiff
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.ui.conflicts.conflicts_model import ConflictsModel
from memhtml_desktop.ui.kit.palette import muted_color
from memhtml_desktop.ui.recall.catalogue_view import CatalogueModel
from memhtml_desktop.write.conflicts import ConflictPair, ConflictSide

D, TIP, FG, ALIGN = (
    Qt.ItemDataRole.DisplayRole,
    Qt.ItemDataRole.ToolTipRole,
    Qt.ItemDataRole.ForegroundRole,
    Qt.ItemDataRole.TextAlignmentRole,
)
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def cell(model, row, col, role=D):
    return model.index(row, col).data(role)


def test_the_catalogue_rows(qapp):
    entries = (
        CatalogueEntry(1, "areas/a/twin-one.html", "Twin", "same words", "semantic", 1234),
        CatalogueEntry(2, "areas/a/twin-two.html", "Twin", "same words", "semantic", 88),
        CatalogueEntry(3, "areas/b/apart.html", "Apart", "", "episodic", 5000, listed=False),
    )
    model = CatalogueModel()
    model.set_catalogue(Catalogue("twin", Scope(), 3, 200, entries))
    assert model.rowCount() == 3 and model.columnCount() == 4
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(4)] == ["#", "Entry", "Line", "Expand"]
    assert [cell(model, 0, c) for c in range(4)] == ["1", "\u2261 Twin: same words", f"{entries[0].cost:,}", "1,234"]
    assert [cell(model, 2, c) for c in range(4)] == ["3", "Apart", "left out", "5,000"]
    assert "cannot be told apart from areas/a/twin-two.html" in cell(model, 0, 1, TIP)
    assert "left out: the line does not fit" in cell(model, 2, 3, TIP) and "twin" not in cell(model, 2, 3, TIP)
    muted = muted_color()
    assert cell(model, 0, CatalogueModel.RANK, FG).color() == muted and cell(model, 0, CatalogueModel.ENTRY, FG) is None
    assert all(cell(model, 2, c, FG).color() == muted for c in range(4)), "a left-out line is muted whole"
    assert [cell(model, 0, c, ALIGN) for c in range(4)] == [RIGHT, None, RIGHT, RIGHT]
    assert cell(model, 1, 0, CatalogueModel.PathRole) == "areas/a/twin-two.html" and model.entry(2) is entries[2]
    model.set_catalogue(None)
    assert model.rowCount() == 0 and model.entry(0) is None


def _pair(a: str, b: str, cosine: float, links=()):
    diff = ClaimDiff(("negation",), ("not",), (), ((0, 3),), ())
    return ConflictPair(
        ConflictSide(a, a.split("/")[-1].upper(), f"claim of {a}"),
        ConflictSide(b, "", f"claim of {b}"),
        cosine,
        diff,
        tuple(links),
    )


def test_the_conflicts_rows(qapp):
    open_ = _pair("areas/a.html", "areas/b.html", 0.93456)
    settled = _pair("areas/c.html", "areas/d.html", 0.91, links=("relates_to",))
    model = ConflictsModel()
    model.set_pairs([open_, settled])
    assert model.rowCount() == 1 and model.pair(0) is open_ and model.settled_count() == 1
    assert [cell(model, 0, c) for c in range(5)] == ["A.HTML", "areas/b.html", "negation", "neither", "0.935"]
    assert cell(model, 0, 0, TIP) and "claim of areas/a.html" in cell(model, 0, 0, TIP)
    assert "claim of areas/b.html" in cell(model, 0, 1, TIP) and cell(model, 0, 2, TIP) is None
    assert "neither is newer" in cell(model, 0, 3, TIP) and "cosine similarity" in cell(model, 0, 4, TIP)
    assert cell(model, 0, 4, ALIGN) == RIGHT and cell(model, 0, 0, ALIGN) is None and cell(model, 0, 0, FG) is None
    assert cell(model, 0, 0, ConflictsModel.PairRole) is open_
    model.set_show_settled(True)
    row = model.row_of("areas/d.html", "areas/c.html")
    assert model.rowCount() == 2 and row == 1 and model.pair(row) is settled
    assert cell(model, row, 2) == "negation \u00b7 settled" and "linked: relates_to" in cell(model, row, 2, TIP)
    assert cell(model, row, 1, FG).color() == muted_color()
    assert model.row_of("areas/a.html", "areas/x.html") == -1 and len(model.pairs()) == 2


def _dated(a: str, b: str, when_a: str, when_b: str, links=(), dismissed=False):
    diff = ClaimDiff(("number",), (), (), (), ())
    newer = a if when_a > when_b else b
    return ConflictPair(
        ConflictSide(a, "", "x", when_a),
        ConflictSide(b, "", "y", when_b),
        None,
        diff,
        tuple(links),
        newer=newer,
        dismissed=dismissed,
    )


def test_the_queue_lists_open_pairs_newest_change_first_then_known_and_hides_the_rest(qapp):
    old = _dated("areas/a.html", "areas/b.html", "2024-01-01", "2025-03-01")
    new = _dated("areas/c.html", "areas/d.html", "2026-05-02", "2026-01-01")
    known = _dated("areas/e.html", "areas/f.html", "2027-01-01", "2020-01-01", links=("contradicts",))
    settled = _dated("areas/g.html", "areas/h.html", "2028-01-01", "2020-01-01", links=("relates_to",))
    gone = _dated("areas/i.html", "areas/j.html", "2029-01-01", "2020-01-01", dismissed=True)
    model = ConflictsModel()
    model.set_pairs([old, known, settled, gone, new])
    assert [model.pair(r) for r in range(model.rowCount())] == [new, old, known]
    assert [cell(model, r, 3) for r in range(3)] == [
        "A \u00b7 2026-05-02",
        "B \u00b7 2025-03-01",
        "A \u00b7 2027-01-01",
    ]
    assert cell(model, 2, 2) == "number \u00b7 known" and cell(model, 2, 0, FG).color() == muted_color()
    model.set_show_dismissed(True)
    assert (
        model.pair(model.rowCount() - 1) is gone and cell(model, model.rowCount() - 1, 2) == "number \u00b7 dismissed"
    )
    assert model.dismissed_count() == 1 and model.settled_count() == 1
