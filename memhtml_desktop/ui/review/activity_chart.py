"""The store's history, drawn: a stacked bar per day or week (what was written, by kind or by author)
above a band of reads (memories last read that week, from the state plane). A click on a bar
selects its bucket (`bucket_clicked`); hovering one says what it holds. Painted with QPainter from
plain data (`history.Activity`); no I/O.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPalette
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from memhtml_desktop.domain.plural import counted

#: Okabe-Ito: told apart with every common colour-vision deficiency.
SERIES_COLORS = ("#0072B2", "#E69F00", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#F0E442", "#999999")
KIND_ORDER = ("new", "corrected", "edited", "linked", "task", "archived", "removed")
KIND_COLORS = dict(zip(KIND_ORDER, ("#0072B2", "#D55E00", "#E69F00", "#009E73", "#CC79A7", "#999999", "#56B4E9")))
READS_COLOR = "#56B4E9"


class ActivityChart(QWidget):
    bucket_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("activityChart")
        self.setMouseTracking(True)
        self.setMinimumHeight(220)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.activity: Any = None
        self.by = "kind"
        self.selected = -1
        self.setAccessibleName("Activity chart")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(640, 280)

    def set_activity(self, activity: Any, by: str | None = None) -> None:
        self.activity = activity
        self.by = by or self.by
        self.selected = -1
        self.setAccessibleDescription(self.summary())
        self.update()

    def set_by(self, by: str) -> None:
        self.by = by
        self.update()

    def series(self) -> list[tuple[str, str]]:
        """(name, colour) of each stacked series, bottom first."""
        if self.activity is None:
            return []
        if self.by == "author":
            return [(a, SERIES_COLORS[i % len(SERIES_COLORS)]) for i, a in enumerate(self.activity.authors)]
        seen = {k for b in self.activity.buckets for k in b.by_kind}
        return [(k, KIND_COLORS[k]) for k in KIND_ORDER if k in seen]

    def _values(self, bucket: Any) -> dict[str, int]:
        return bucket.by_author if self.by == "author" else bucket.by_kind

    def summary(self) -> str:
        if self.activity is None:
            return "No activity read yet."
        total = sum(b.total for b in self.activity.buckets)
        busiest = max(self.activity.buckets, key=lambda b: b.total, default=None)
        unit = self.activity.unit
        top = (
            f"; the busiest {unit} began {busiest.start} ({counted(busiest.total, 'change')})"
            if busiest and total
            else ""
        )
        return f"{counted(total, 'change')} over {counted(len(self.activity.buckets), unit)}{top}."

    # -- geometry --------------------------------------------------------------------------------

    def _plot(self) -> tuple[QRect, QRect]:
        """(the writes' area, the reads' band)."""
        fm = self.fontMetrics()
        left, right, top = fm.horizontalAdvance("0000") + 8, 8, fm.height() * 2 + 6
        bottom = fm.height() + 6
        height = max(40, self.height() - top - bottom)
        reads_h = max(24, height // 4)
        writes = QRect(left, top, max(10, self.width() - left - right), height - reads_h - 8)
        return writes, QRect(left, writes.bottom() + 8, writes.width(), reads_h)

    def _bar_at(self, x: int) -> int:
        if self.activity is None or not self.activity.buckets:
            return -1
        writes, _ = self._plot()
        if not writes.left() <= x <= writes.right():
            return -1
        n = len(self.activity.buckets)
        return min(n - 1, int((x - writes.left()) * n / max(1, writes.width())))

    # -- painting ----------------------------------------------------------------------------------

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        pal = self.palette()
        text, grid = pal.color(QPalette.ColorRole.WindowText), pal.color(QPalette.ColorRole.Mid)
        painter.setPen(text)
        fm = self.fontMetrics()
        if self.activity is None or not self.activity.buckets:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "Reading the store's history\u2026")
            return
        writes, reads = self._plot()
        buckets = self.activity.buckets
        series = self.series()
        peak = max((b.total for b in buckets), default=0) or 1
        peak_reads = max((b.reads for b in buckets), default=0) or 1
        legend = [(name if self.by == "author" else name, color) for name, color in series]
        lx = writes.left()
        for name, color in legend[:8]:
            painter.fillRect(QRect(lx, fm.height() // 2, 10, 10), QColor(color))
            label = name.split(" <")[0] if self.by == "author" else name
            painter.drawText(lx + 14, fm.height() // 2 + 10, label)
            lx += 14 + fm.horizontalAdvance(label) + 14
        painter.setPen(grid)
        painter.drawLine(writes.bottomLeft(), writes.bottomRight())
        painter.drawLine(reads.bottomLeft(), reads.bottomRight())
        painter.setPen(text)
        painter.drawText(QRect(0, writes.top() - 2, writes.left() - 4, fm.height()),
                         Qt.AlignmentFlag.AlignRight, str(peak))  # fmt: skip
        painter.drawText(QRect(0, reads.top(), writes.left() - 4, fm.height()), Qt.AlignmentFlag.AlignRight, "reads")
        n = len(buckets)
        step = writes.width() / n
        label_every = max(1, int((fm.horizontalAdvance("0000-00-00") + 12) / max(step, 1)) + 1)
        for i, bucket in enumerate(buckets):
            x0 = int(writes.left() + i * step)
            w = max(1, int(step) - 2)
            if i == self.selected:  # a faint band behind the bar chosen, and its outline
                band = QColor(pal.color(QPalette.ColorRole.Highlight))
                band.setAlpha(45)
                painter.fillRect(QRect(x0 - 2, writes.top(), w + 4, reads.bottom() - writes.top()), band)
                painter.setPen(pal.color(QPalette.ColorRole.Highlight))
                painter.drawRect(QRect(x0 - 2, writes.top(), w + 3, reads.bottom() - writes.top()))
                painter.setPen(text)
            y = writes.bottom()
            values = self._values(bucket)
            for name, color in series:
                count = values.get(name, 0)
                if count:
                    h = max(1, round(count * writes.height() / peak))
                    painter.fillRect(QRect(x0, y - h, w, h), QColor(color))
                    y -= h
            if bucket.reads:
                h = max(1, round(bucket.reads * reads.height() / peak_reads))
                painter.fillRect(QRect(x0, reads.bottom() - h, w, h), QColor(READS_COLOR))
            if i % label_every == 0:
                painter.drawText(QPoint(x0, reads.bottom() + fm.ascent() + 3), bucket.start)
        painter.end()

    # -- the mouse -------------------------------------------------------------------------------------

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        i = self._bar_at(int(event.position().x()))
        if i < 0:
            QToolTip.hideText()
            return
        QToolTip.showText(event.globalPosition().toPoint(), self.describe(i), self)

    def describe(self, i: int) -> str:
        bucket = self.activity.buckets[i]
        parts = [f"{'Week of' if self.activity.unit == 'week' else 'Day'} {bucket.start}: "
                 f"{counted(bucket.total, 'change')}, {counted(bucket.reads, 'memory', 'memories')} last read"]  # fmt: skip
        values = self._values(bucket)
        parts += [f"  {name}: {values[name]}" for name, _ in self.series() if values.get(name)]
        return "\n".join(parts) + "\nClick to list these changes."

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        i = self._bar_at(int(event.position().x()))
        if i >= 0:
            self.select(i)

    def select(self, i: int) -> None:
        self.selected = i
        self.update()
        self.bucket_clicked.emit(i)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if self.activity is not None and event.key() in (Qt.Key.Key_Left, Qt.Key.Key_Right):
            n = len(self.activity.buckets)
            step = -1 if event.key() == Qt.Key.Key_Left else 1
            self.select(min(n - 1, max(0, (self.selected if self.selected >= 0 else n) + step)))
            return
        super().keyPressEvent(event)
