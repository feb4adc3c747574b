"""The pool chart's picture: each bar its arms stacked bottom-up in arm order over its groove,
full colour on the page and faded off it, whatever order the fills are made in."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor

from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.pool.pool_chart import ARM_NAMES, PoolChart


def _segments(chart: PoolChart, i: int) -> list[tuple[str, int]]:
    """(arm, the y of its segment's middle) of bar `i`, bottom-up, as the chart stacks them."""
    rect = chart.bar_rect(i)
    y, out = rect.bottom(), []
    for score in sorted(chart.entries()[i].arms, key=lambda s: ARM_NAMES.index(s.arm)):
        h = rect.height() * min(1.0, score.contribution / chart._profile.max_score)
        if h >= 3:  # a segment a pixel or two high is all edge
            out.append((score.arm, round(y - h / 2)))
        y -= h
    return out


def test_each_bar_shows_its_arms_stacked_in_order(qtbot, store):
    chart = PoolChart()
    qtbot.addWidget(chart)
    chart.resize(900, 420)
    pool = store.pool("deploy service database", limit=2)
    chart.set_pool(pool)
    chart._render()
    image = chart._picture[1].toImage()
    ratio = chart._picture[1].devicePixelRatio()
    page = set(pool.page)
    checked = faded = 0
    for i, hit in enumerate(chart.entries()):
        x = round(chart.bar_rect(i).center().x())
        for arm, y in _segments(chart, i):
            pixel = image.pixelColor(QPoint(round(x * ratio), round(y * ratio)))
            if hit.path in page:
                assert pixel.rgb() == palette.arm_color(arm).rgb(), (i, arm)
                checked += 1
            else:
                want = palette.arm_color(arm)
                assert pixel != QColor(want) and pixel.alpha() < 255, (i, arm)  # faded over the groove
                faded += 1
    assert checked >= 3 and faded >= 3, (checked, faded, len(chart.entries()))
