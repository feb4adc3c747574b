"""The History tab: every recorded run of the chosen set, a small trend chart of its MRR per
configuration, and what changed between two runs (which probe broke between which commits).

The chart is painted (QPainter): one line per configuration in its colour, a point per run, the
y axis MRR from 0 to 1. No I/O here.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.kit.rows_model import Col, RowsModel
from memhtml_desktop.ui.workbench.models import config_color, rows_table, selected_rows

RUN_COLUMNS = (
    Col("When", lambda s: s.started.replace("T", " ").replace("Z", ""), width=160),  # the seconds too
    Col("Configuration", lambda s: s.config_name, color=lambda s: config_color(s.config_name).name()),
    Col("Commit", lambda s: (s.head or "?")[:10], width=84, tip=lambda s: s.head or "not a git repository"),
    Col("MRR", lambda s: f"{s.figures.mrr:.3f}", numeric=True, width=56),
    Col("nDCG", lambda s: f"{s.figures.ndcg:.3f}", numeric=True, width=56),
    Col("Passed", lambda s: f"{s.figures.passed}/{s.figures.probes}", numeric=True, width=62),
    Col("Inv.", lambda s: s.figures.inversions, numeric=True, width=42),
)


class TrendChart(QWidget):
    """MRR over the runs of one set, one line per configuration."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("trendChart")
        self.setAccessibleName("Trend of MRR over the recorded runs")
        self.setMinimumHeight(120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.runs: list[Any] = []

    def set_runs(self, runs: list[Any]) -> None:
        self.runs = list(runs)
        names = sorted({r.config_name for r in self.runs})
        last = self.runs[-1].figures.mrr if self.runs else None
        self.setAccessibleDescription(
            f"{counted(len(self.runs), 'run')} of {counted(len(names), 'configuration')}"
            + (f", latest MRR {last:.3f}" if last is not None else "")
        )
        self.update()

    def points(self) -> dict[str, list[tuple[int, float]]]:
        """Configuration -> [(run number, MRR)]: what is drawn (tests read it)."""
        out: dict[str, list[tuple[int, float]]] = {}
        for i, run in enumerate(self.runs):
            out.setdefault(run.config_name, []).append((i, run.figures.mrr))
        return out

    def floor_value(self) -> float:
        """The chart's lowest MRR: 0, or a tenth below the lowest run, so small moves show."""
        if not self.runs:
            return 0.0
        lowest = min(r.figures.mrr for r in self.runs)
        return max(0.0, math.floor(lowest * 10) / 10 - 0.1)

    def paintEvent(self, event: Any) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        text = pal.color(QPalette.ColorRole.WindowText)
        muted = palette.muted_color()
        fm = painter.fontMetrics()
        left, top, right, bottom = fm.horizontalAdvance("1.00") + 10, 8, 10, fm.height() + 8
        plot = QRectF(left, top, max(10, self.width() - left - right), max(10, self.height() - top - bottom))
        low = self.floor_value()
        ticks = [low + (1.0 - low) * i / 4 for i in range(5)]
        grid = QColor(muted)
        grid.setAlphaF(0.35)
        painter.setPen(QPen(grid, 1))
        for value in ticks:
            y = plot.bottom() - (value - low) / (1.0 - low) * plot.height()
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(QPen(muted))
            painter.drawText(
                QRectF(0, y - fm.height() / 2, left - 4, fm.height()),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                f"{value:.2f}",
            )
            painter.setPen(QPen(grid, 1))
        if not self.runs:
            painter.setPen(QPen(muted))
            painter.drawText(plot, int(Qt.AlignmentFlag.AlignCenter), "No runs of this set yet: press Run.")
            return
        n = len(self.runs)

        def at(i: int, mrr: float) -> QPointF:
            x = plot.left() + (plot.width() * (i + 0.5) / n)
            return QPointF(x, plot.bottom() - (max(low, min(1.0, mrr)) - low) / (1.0 - low) * plot.height())

        legend_x = plot.left() + 4
        for name, pts in sorted(self.points().items()):
            color = config_color(name)
            path = QPainterPath(at(*pts[0]))
            for p in pts[1:]:
                path.lineTo(at(*p))
            painter.setPen(QPen(color, 2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(path)
            painter.setBrush(color)
            for p in pts:
                painter.drawEllipse(at(*p), 3.5, 3.5)
            painter.setPen(QPen(color))
            painter.drawText(QPointF(legend_x, plot.bottom() + fm.ascent() + 4), f"\u25cf {name}")
            painter.setPen(QPen(text))
            legend_x += fm.horizontalAdvance(f"\u25cf {name}") + 14
        painter.setPen(QPen(muted))
        painter.drawText(
            QRectF(plot.left(), plot.bottom() + 4, plot.width(), fm.height()),
            int(Qt.AlignmentFlag.AlignRight),
            f"{counted(n, 'run')}, oldest left",
        )


class HistoryTab(QWidget):
    """The chart, the runs (newest first) and the diff of two of them."""

    show_run_requested = Signal(str)  # a run id: show its verdicts in the Probes tab
    diff_requested = Signal(str, str)  # older id, newer id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workbenchHistory")
        self.chart = TrendChart(self)
        self.model = RowsModel(RUN_COLUMNS, self)
        self.table = rows_table(self.model, self, "historyTable", "Recorded runs, newest first", multi=True)
        self.table.activated.connect(lambda i: self._show(i.row()))
        self.table.doubleClicked.connect(lambda i: self._show(i.row()))
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._selection())
        self.show_button = QPushButton("S&how run", self)
        self.show_button.clicked.connect(lambda: self._show(self.table.currentIndex().row()))
        self.diff_button = QPushButton("What changed between the t&wo", self)
        self.diff_button.setObjectName("diffButton")
        self.diff_button.setToolTip("Select two runs: the probes that broke, were fixed or moved between them")
        self.diff_button.clicked.connect(self._diff)
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("Select one run to show it, two to compare them.", self), 1)
        buttons.addWidget(self.show_button)
        buttons.addWidget(self.diff_button)
        self.diff = QListWidget(self)
        self.diff.setObjectName("historyDiff")
        self.diff.setAccessibleName("What changed between the two runs")
        self.diff.hide()
        lower = QWidget(self)
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addLayout(buttons)
        lower_layout.addWidget(self.table, 2)
        lower_layout.addWidget(self.diff, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.chart)
        split.addWidget(lower)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(split)
        self._selection()

    def set_history(self, runs: list[Any]) -> None:
        """The runs of the chosen set, oldest first (the table lists them newest first)."""
        self.chart.set_runs(runs)
        self.model.set_rows(list(reversed(runs)))
        self.diff.hide()
        self._selection()

    def _selection(self) -> None:
        chosen = selected_rows(self.table)
        self.show_button.setEnabled(len(chosen) == 1)
        self.diff_button.setEnabled(len(chosen) == 2)

    def _show(self, row: int) -> None:
        run = self.model.row(row)
        if run is not None:
            self.show_run_requested.emit(run.id)

    def _diff(self) -> None:
        chosen = sorted(selected_rows(self.table), key=lambda s: (s.started, s.id))
        if len(chosen) == 2:
            self.diff_requested.emit(chosen[0].id, chosen[1].id)

    def show_diff(self, diff: Any) -> None:
        self.diff.clear()
        lines = diff.describe()
        head = (
            f"{diff.before.config_name} at {(diff.before.head or '?')[:10]} \u2192 "
            f"{diff.after.config_name} at {(diff.after.head or '?')[:10]}: "
            f"{len(diff.broke)} broke, {len(diff.fixed)} fixed, {len(diff.changes)} changed"
        )
        self.diff.addItem(head)
        for line in lines or ["no probe changed"]:
            self.diff.addItem(line)
        self.diff.show()
