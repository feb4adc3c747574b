"""The colours of an arm's rank badge in the results table: a faint fill of the arm's colour and a
text colour pushed until it reads on that fill as composited on its row (light, dark, selected)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

from memhtml_desktop.ui.kit import palette


def over(fill: QColor, base: QColor) -> QColor:
    """`fill` (with its alpha) composited over the opaque `base`: the colour a reader sees."""
    a = fill.alphaF()
    return QColor.fromRgbF(
        fill.redF() * a + base.redF() * (1 - a),
        fill.greenF() * a + base.greenF() * (1 - a),
        fill.blueF() * a + base.blueF() * (1 - a),
    )


_PILLS: dict[tuple[str, int, bool], tuple[QColor, QColor]] = {}


def rank_pill_colors(arm: str, pal: QPalette, *, selected: bool) -> tuple[QColor, QColor]:
    """(text, fill) of an arm's rank badge; the text is legible on the fill as composited on its row.

    The fill is the arm's colour, faint; the text starts as the row's text colour and is pushed
    lighter or darker until it reads (on a selected row, over the highlight). Worked out once per
    palette: a table paints hundreds of these.
    """
    key = (arm, pal.cacheKey(), selected)
    cached = _PILLS.get(key)
    if cached is None:
        if len(_PILLS) > 64:
            _PILLS.clear()
        fill = palette.arm_tint(arm, 0.28)
        base = pal.color(QPalette.ColorRole.Highlight if selected else QPalette.ColorRole.Base)
        text = pal.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        cached = _PILLS[key] = (palette.legible(text, over(fill, base)), fill)
    return cached
