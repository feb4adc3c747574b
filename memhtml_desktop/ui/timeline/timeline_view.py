"""A supersession chain on a time axis, painted: one lane per version, oldest at the top.

Each version is a bar from when it began to hold (its valid-from, else its creation) to when it
stopped (its valid-until, else when it was archived, else when its successor began; a live
version runs to now). Arrows go from a superseded version's end to the version that superseded
it. The focus is drawn in the highlight colour, archived versions muted, a version the index
does not know (a link to a missing file) as a dashed outline. A vertical line marks now, another
the search's as-of instant when one is set.

Clicking a bar asks to open that version; clicking the axis asks to search as of that day. Plain
QPainter: no chart library. Titles come from memory files and are drawn as text, never markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QMouseEvent, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from memhtml_desktop.ui.kit.palette import ARM_COLORS, muted_color

LANE = 58
AXIS = 40
MARGIN = 18
TOP = 34  # the legend's row above the first lane
BAR = 14


def parse_when(text: str | None) -> datetime | None:
    """A stamp (`2026-06-09`, `2026-06-09T14:10:00Z`, an offset) as an aware UTC datetime, or None."""
    if not text:
        return None
    raw = text.strip()
    try:
        moment = datetime.fromisoformat(raw[:-1] + "+00:00" if raw[-1:] in "Zz" else raw)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


@dataclass(frozen=True)
class Lane:
    """One version as drawn: where its bar starts and ends, and why it ends there."""

    version: object
    start: datetime | None
    end: datetime | None
    open_ended: bool  # still holds: the bar runs to now


def lanes_of(chain, now: datetime) -> list[Lane]:
    """The chain's versions as lanes, oldest first, each end worked out (see the module docstring)."""
    starts = {v.path: parse_when(v.start) for v in chain.versions}
    newer_of: dict[str, list[str]] = {}
    for newer, older in chain.edges:
        newer_of.setdefault(older, []).append(newer)
    lanes = []
    for v in chain.versions:
        start = starts[v.path]
        end = parse_when(v.valid_until) or parse_when(v.archived_at)
        if end is None:
            successors = [s for s in (starts.get(n) for n in newer_of.get(v.path, ())) if s is not None]
            end = min(successors) if successors else None
        open_ended = end is None and not v.archived and v.known
        lanes.append(Lane(v, start, now if open_ended else end, open_ended))
    return lanes


class TimelineView(QWidget):
    """Paints a chain (see the module docstring); `open_requested(path)`, `as_of_requested(iso day)`."""

    open_requested = Signal(str)
    as_of_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timelineView")
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.chain = None
        self.lanes: list[Lane] = []
        self.now = datetime.now(timezone.utc)
        self.as_of: datetime | None = None
        self._span: tuple[datetime, datetime] | None = None
        self._bars: list[tuple[QRectF, str]] = []

    def set_chain(self, chain, *, now: datetime | None = None) -> None:
        self.chain = chain
        self.now = now or datetime.now(timezone.utc)
        self.lanes = lanes_of(chain, self.now) if chain is not None else []
        dated = [t for lane in self.lanes for t in (lane.start, lane.end) if t is not None]
        if self.as_of is not None:
            dated.append(self.as_of)
        if dated:
            low, high = min(dated), max(dated)
            pad = max((high - low) * 0.06, timedelta(days=3))
            self._span = (low - pad, high + pad)
        else:
            self._span = None
        self.setFixedHeight(self.sizeHint().height())
        self.update()

    def set_as_of(self, instant: str | None) -> None:
        self.as_of = parse_when(instant)
        if self.chain is not None:
            self.set_chain(self.chain, now=self.now)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(640, TOP + max(1, len(self.lanes)) * LANE + AXIS + MARGIN)

    # -- geometry -----------------------------------------------------------------------------

    def _x(self, when: datetime) -> float:
        low, high = self._span
        width = max(1.0, self.width() - 2 * MARGIN)
        return MARGIN + (when - low) / (high - low) * width

    def _when_at(self, x: float) -> datetime:
        low, high = self._span
        width = max(1.0, self.width() - 2 * MARGIN)
        return low + (high - low) * max(0.0, min(1.0, (x - MARGIN) / width))

    def _axis_y(self) -> float:
        return TOP + len(self.lanes) * LANE + 6

    # -- painting -----------------------------------------------------------------------------

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), self.palette().color(QPalette.ColorRole.Base))
        self._bars = []
        if not self.lanes or self._span is None:
            painter.setPen(muted_color())
            painter.drawText(
                self.rect(),
                Qt.AlignmentFlag.AlignCenter,
                "No dated versions to draw." if self.lanes else "Open a memory to see its timeline.",
            )
            return
        self._paint_axis(painter)
        self._paint_legend(painter)
        centers: dict[str, tuple[QPointF, QPointF]] = {}
        for i, lane in enumerate(self.lanes):
            centers[lane.version.path] = self._paint_lane(painter, i, lane)
        self._paint_edges(painter, centers)
        painter.end()

    def _paint_axis(self, painter: QPainter) -> None:
        y = self._axis_y()
        muted = muted_color()
        painter.setPen(QPen(muted, 1))
        painter.drawLine(QPointF(MARGIN, y), QPointF(self.width() - MARGIN, y))
        low, high = self._span
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
        painter.setFont(small)
        metrics = QFontMetrics(small)
        last_right = -1e9
        for tick, label in _ticks(low, high):
            x = self._x(tick)
            painter.drawLine(QPointF(x, y), QPointF(x, y + 4))
            width = metrics.horizontalAdvance(label)
            if x - width / 2 > last_right + 6 and x + width / 2 < self.width() - 2:
                painter.drawText(QPointF(x - width / 2, y + 6 + metrics.ascent()), label)
                last_right = x + width / 2
        for when, text, color in ((self.now, "now", muted), (self.as_of, "as of", QColor(ARM_COLORS["fts"]))):
            if when is None or not low <= when <= high:
                continue
            x = self._x(when)
            painter.setPen(QPen(color, 1, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(x, TOP - 4), QPointF(x, y))
            painter.setPen(color)
            painter.drawText(QPointF(x + 3, TOP - 4 + metrics.ascent()), text)

    def _paint_legend(self, painter: QPainter) -> None:
        """What the colours mean, in the row above the lanes."""
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
        painter.setFont(small)
        metrics = QFontMetrics(small)
        x = float(MARGIN)
        y = 8.0
        for color, text, dashed in (
            (self.palette().color(QPalette.ColorRole.Highlight), "this memory", False),
            (QColor(ARM_COLORS["recency"]), "still holds", False),
            (muted_color(), "archived", False),
            (muted_color(), "not in the index", True),
        ):
            swatch = QRectF(x, y + 2, 18, metrics.ascent() - 2)
            if dashed:
                painter.setPen(QPen(color, 1, Qt.PenStyle.DashLine))
                painter.setBrush(Qt.BrushStyle.NoBrush)
            else:
                fill = QColor(color)
                fill.setAlphaF(0.7)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(fill)
            painter.drawRoundedRect(swatch, 3, 3)
            painter.setPen(muted_color())
            painter.drawText(QPointF(x + 24, y + metrics.ascent()), text)
            x += 24 + metrics.horizontalAdvance(text) + 18
        painter.setPen(muted_color())
        painter.drawText(QPointF(x, y + metrics.ascent()), "\u2192 superseded by")

    def _paint_lane(self, painter: QPainter, i: int, lane: Lane) -> tuple[QPointF, QPointF]:
        v = lane.version
        top = TOP + i * LANE
        focus = v.path == self.chain.focus
        palette = self.palette()
        if focus:
            color = palette.color(QPalette.ColorRole.Highlight)
        elif v.archived or not v.known:
            color = muted_color()
        else:
            color = QColor(ARM_COLORS["recency"])
        start = lane.start or lane.end or self.now
        end = lane.end or start
        x0, x1 = self._x(start), max(self._x(end), self._x(start) + 6)
        bar = QRectF(x0, top + 24, x1 - x0, BAR)
        if v.known:
            fill = QColor(color)
            fill.setAlphaF(0.85 if focus else 0.55)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
        else:
            painter.setPen(QPen(color, 1, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(bar, 4, 4)
        if lane.open_ended:
            painter.setPen(QPen(color, 2))
            painter.drawLine(QPointF(x1, top + 20), QPointF(x1, top + 24 + BAR + 4))
        self._bars.append((bar.adjusted(-2, -18, 2, 14), v.path))
        title_font = QFont(self.font())
        title_font.setWeight(QFont.Weight.Bold if focus else QFont.Weight.Normal)
        painter.setFont(title_font)
        metrics = QFontMetrics(title_font)
        title = v.title or v.path
        if v.archived:
            title += "  (archived)"
        room = self.width() - 2 * MARGIN
        text = metrics.elidedText(title, Qt.TextElideMode.ElideRight, int(room))
        # from the bar's start, shifted left as far as needed for the whole title to fit
        left = max(MARGIN, min(x0, self.width() - MARGIN - metrics.horizontalAdvance(text)))
        painter.setPen(palette.color(QPalette.ColorRole.Text))
        painter.drawText(QPointF(left, top + 20 - metrics.descent()), text)
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
        painter.setFont(small)
        painter.setPen(muted_color())
        span = f"{_day(lane.start)} \u2192 {'now' if lane.open_ended else _day(lane.end)}"
        painter.drawText(QPointF(x0, top + 24 + BAR + QFontMetrics(small).ascent() + 2), span)
        middle = top + 24 + BAR / 2
        return QPointF(x0, middle), QPointF(x1, middle)

    def _paint_edges(self, painter: QPainter, centers) -> None:
        pen = QPen(self.palette().color(QPalette.ColorRole.Text), 1.2)
        for newer, older in self.chain.edges:
            if newer not in centers or older not in centers:
                continue
            start, end = centers[older][1], centers[newer][0]
            path = QPainterPath(start)
            bend = max(24.0, abs(end.x() - start.x()) / 2)
            path.cubicTo(QPointF(start.x() + bend, start.y()), QPointF(end.x() - bend, end.y()), end)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(path)
            direction = -1 if end.x() >= start.x() - 1 else 1
            head = QPainterPath(end)
            head.lineTo(end.x() + 7 * direction, end.y() - 4)
            head.lineTo(end.x() + 7 * direction, end.y() + 4)
            head.closeSubpath()
            painter.setBrush(pen.color())
            painter.drawPath(head)

    # -- mouse ----------------------------------------------------------------------------------

    def _bar_at(self, point: QPointF) -> str | None:
        for rect, path in self._bars:
            if rect.contains(point):
                return path
        return None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        path = self._bar_at(event.position())
        on_axis = self._span is not None and event.position().y() >= self._axis_y() - 4
        self.setCursor(Qt.CursorShape.PointingHandCursor if path or on_axis else Qt.CursorShape.ArrowCursor)
        if path:
            lane = next(lane for lane in self.lanes if lane.version.path == path)
            v = lane.version
            QToolTip.showText(event.globalPosition().toPoint(), _tip(v, lane), self)
        elif on_axis:
            QToolTip.showText(
                event.globalPosition().toPoint(),
                f"Search as of {self._when_at(event.position().x()).date().isoformat()}",
                self,
            )
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            path = self._bar_at(event.position())
            if path:
                self.open_requested.emit(path)
            elif self._span is not None and event.position().y() >= self._axis_y() - 4:
                self.as_of_requested.emit(self._when_at(event.position().x()).date().isoformat())
        super().mouseReleaseEvent(event)


def _day(when: datetime | None) -> str:
    return when.date().isoformat() if when is not None else "?"


def _tip(version, lane: Lane) -> str:
    import html

    lines = [
        version.title or "",
        version.path,
        f"from {_day(lane.start)} to {'now' if lane.open_ended else _day(lane.end)}",
    ]
    if not version.known:
        lines.append("not in the index (a link names it)")
    return "<p style='white-space:pre-wrap'>" + html.escape("\n".join(x for x in lines if x)) + "</p>"


def _ticks(low: datetime, high: datetime) -> list[tuple[datetime, str]]:
    """Axis ticks: years, quarters, months or days, whichever gives a handful over the span."""
    days = (high - low).days
    out: list[tuple[datetime, str]] = []
    if days > 3 * 365:
        for year in range(low.year + 1, high.year + 1):
            out.append((datetime(year, 1, 1, tzinfo=timezone.utc), str(year)))
        return out
    step = 3 if days > 540 else 1 if days > 60 else 0
    if step:
        year, month = low.year, low.month
        while True:
            month += 1
            if month > 12:
                year, month = year + 1, 1
            tick = datetime(year, month, 1, tzinfo=timezone.utc)
            if tick > high:
                return out
            if (month - 1) % step == 0:
                out.append((tick, tick.strftime("%Y-%m") if month != 1 or step == 1 else str(year)))
    tick = datetime(low.year, low.month, low.day, tzinfo=timezone.utc) + timedelta(days=1)
    every = max(1, days // 8)
    while tick <= high:
        out.append((tick, tick.strftime("%m-%d")))
        tick += timedelta(days=every)
    return out
