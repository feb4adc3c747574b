"""The costs side by side: one bar per way of feeding the query, and the verdict under them.

Each bar is what that shape hands the agent (characters, UTF-16 units): the charged part solid,
the uncharged index lines lighter, against a tick at the budget; a shape over the budget is marked.
The verdict says which shape is cheaper for this question and whether that is what the seed's rule
expects, and names entries the catalogue cannot tell apart.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from memhtml_desktop.domain.shapes import ShapeComparison, ShapeCost
from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.palette import TIER_COLORS, muted_color

SHORT_LABELS = {
    "memhtml": "memhtml pack",
    "quotas": "Ledgers",
    "catalog": "Catalogue",
    "catalog+1": "+ expand #1",
    "catalog+2": "+ expand #1–2",
}
SHAPE_COLORS = {
    "memhtml": "#0072B2",
    "quotas": "#009E73",
    "catalog": "#CC79A7",
    "catalog+1": "#CC79A7",
    "catalog+2": "#CC79A7",
}


class CostsChart(QWidget):
    ROW = 17

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.costs: tuple[ShapeCost, ...] = ()
        self.budget = 0
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Costs of each shape")

    def set_costs(self, costs: tuple[ShapeCost, ...], budget: int) -> None:
        self.costs, self.budget = costs, budget
        lines = [
            f"{c.label}: {c.delivered:,} chars delivered, {c.charged:,} charged"
            + ("" if c.within else ", over budget")
            + (f" ({c.note})" if c.note else "")
            for c in costs
        ]
        self.setToolTip(
            tooltip_text("\n".join(lines) + "\n\nBars: charged solid, index lines light; dashes: the budget.")
        )
        self.setAccessibleDescription("; ".join(lines))
        self.setFixedHeight(self.sizeHint().height())
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(300, max(1, len(self.costs)) * self.ROW + 4)

    def paintEvent(self, event: Any) -> None:  # noqa: N802
        if not self.costs:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = self.fontMetrics()
        label_w = max(metrics.horizontalAdvance(SHORT_LABELS.get(c.key, c.label)) for c in self.costs) + 8
        value_w = metrics.horizontalAdvance("99,999 over") + 8
        bar_w = max(20.0, self.width() - label_w - value_w - 4)
        top = max(max(c.delivered for c in self.costs), self.budget, 1)
        text = self.palette().color(QPalette.ColorRole.WindowText)
        for row, cost in enumerate(self.costs):
            y = 2 + row * self.ROW
            painter.setPen(text)
            painter.drawText(
                QRectF(0, y, label_w - 6, self.ROW),
                int(Qt.AlignmentFlag.AlignVCenter),
                SHORT_LABELS.get(cost.key, cost.label),
            )
            color = QColor(SHAPE_COLORS.get(cost.key, TIER_COLORS["quote"]))
            solid = bar_w * cost.charged / top
            whole = bar_w * cost.delivered / top
            painter.setPen(Qt.PenStyle.NoPen)
            light = QColor(color)
            light.setAlphaF(0.35)
            painter.setBrush(light)
            painter.drawRect(QRectF(label_w, y + 4, whole, self.ROW - 8))
            painter.setBrush(color)
            painter.drawRect(QRectF(label_w, y + 4, solid, self.ROW - 8))
            painter.setPen(text if cost.within else QColor("#D55E00"))
            value = f"{cost.delivered:,}" + ("" if cost.within else " over")
            painter.drawText(
                QRectF(label_w + bar_w + 4, y, value_w, self.ROW), int(Qt.AlignmentFlag.AlignVCenter), value
            )
        if self.costs:  # a budget of 0 is drawn too: the bars beyond it are what is handed over free
            x = label_w + bar_w * self.budget / top
            painter.setPen(QPen(muted_color(), 1, Qt.PenStyle.DashLine))
            painter.drawLine(int(x), 1, int(x), self.height() - 1)
        painter.end()


class CostsStrip(QWidget):
    """The chart and the verdict, for the query in the box (`set_comparison`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.chart = CostsChart(self)
        self.verdict = QLabel(self)
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.PlainText)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict.setAccessibleName("Which shape is cheaper for this question")
        layout.addWidget(self.chart)
        layout.addWidget(self.verdict)
        self.set_comparison(None)

    def set_comparison(self, comparison: ShapeComparison | None) -> None:
        if comparison is None:
            self.chart.set_costs((), 0)
            self.verdict.setText("")
            self.setVisible(False)
            return
        self.chart.set_costs(comparison.costs, comparison.budget)
        self.verdict.setText(comparison.verdict())
        self.verdict.setAccessibleName(comparison.verdict())
        self.setVisible(True)
