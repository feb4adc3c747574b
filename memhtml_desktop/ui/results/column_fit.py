"""Which result columns show, and how wide, for the room the table has (see results_table's docstring).

The title keeps at least TITLE_MIN pixels: below that the other columns take their compact widths,
then Score, Type and the optional columns step aside (the person's own choices always win). Wide, the
optional columns (Path, Updated, Fused) come in. Pure arithmetic over widths: the table applies it.
"""

from __future__ import annotations

from memhtml_desktop.ui.results.columns import BAR_COLUMN, FIRST_ARM_COLUMN, Column
from memhtml_desktop.ui.results.results_text import ARM_NAMES
from memhtml_desktop.ui.results.row_order import FUSED

TITLE_MIN = 240
NATURAL = {
    Column.Position: 34,
    Column.Fused: 50,
    Column.Type: 92,
    Column.Path: 260,
    Column.Date: 88,
    Column.Score: 62,
    BAR_COLUMN: 124,
}
COMPACT = {
    Column.Position: 30,
    Column.Fused: 44,
    Column.Type: 78,
    Column.Path: 180,
    Column.Date: 80,
    Column.Score: 56,
    BAR_COLUMN: 76,
}
ARM_WIDTH, ARM_COMPACT = 40, 32
OPTIONAL = (Column.Path, Column.Date, Column.Fused)
SHOW_WHEN_WIDER = {Column.Date: 900, Column.Path: 1060, Column.Fused: 1240}
"""Optional columns come in when the table is at least this wide (and the person has not chosen)."""
STEP_ASIDE = (Column.Score, Column.Type)
"""Given up, in this order, when even compact widths leave the title less than TITLE_MIN."""
CHOOSABLE = (
    Column.Position,
    Column.Fused,
    Column.Type,
    Column.Path,
    Column.Date,
    Column.Score,
    *range(FIRST_ARM_COLUMN, FIRST_ARM_COLUMN + len(ARM_NAMES)),
    BAR_COLUMN,
)


def fit(
    room: int, order: str, chosen: dict[int, bool], sized: dict[int, int]
) -> tuple[dict[int, bool], dict[int, int]]:
    """(whether each CHOOSABLE column shows, the width of each shown) for `room` pixels, the rows in
    `order`, the columns the person `chosen` to show or hide and the widths they `sized` by hand."""
    shown = {c: chosen.get(c, c not in OPTIONAL) for c in CHOOSABLE}
    for column, at in SHOW_WHEN_WIDER.items():
        if column not in chosen:
            shown[column] = room >= at or (column == Column.Fused and order == FUSED)

    def widths(compact: bool) -> dict[int, int]:
        table = COMPACT if compact else NATURAL
        out = {c: sized.get(c, table.get(c, ARM_COMPACT if compact else ARM_WIDTH)) for c in CHOOSABLE}
        return {c: w for c, w in out.items() if shown[c]}

    widths_now = widths(False)
    if room - sum(widths_now.values()) < TITLE_MIN:
        widths_now = widths(True)
        keep = Column.Fused if order == FUSED else None  # the fused order's own column stays
        for column in (*(c for c in OPTIONAL if c not in chosen), *STEP_ASIDE):
            if room - sum(widths_now.values()) >= TITLE_MIN:
                break
            if column in widths_now and column not in chosen and column != keep:
                shown[column] = False
                widths_now.pop(column)
    return shown, widths_now
