"""A compact picture of the fused pool: is one arm carrying the list?

One bar per candidate of the pool (the first `limit x 3` of the fused list, left to right in fused
order), stacked by each arm's contribution in the arm's colour, on the same fixed scale as the
results' bars. Candidates on the agent's page are drawn solid with their page position under
them; the rest are faded. A dashed line marks the cut at the page's length in fused order: what
a plain top-`limit` would have returned. Beside the bars, each arm's share of the pool's summed
score: a share over half means that arm is carrying the list.

Painted with QPainter from the `FusedPool` it is given; it never queries. Keyboard: Left/Right
move between bars, Enter opens the focused one, the Menu key offers the row actions. Its
accessible description says in words what the picture shows.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QKeyEvent, QMouseEvent, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.ranking import DEFAULT, RankingProfile
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.turns import turn_timer

ARM_NAMES = DEFAULT.arm_names  # the arms' drawing order; the scale is the active profile's max_score
CARRYING = 0.5
LEGEND_WIDTH = 210


def arm_shares(entries: Any) -> dict[str, float]:
    """Each arm's share (0..1) of the summed fused score of `entries`."""
    totals = {arm: 0.0 for arm in ARM_NAMES}
    for hit in entries:
        for score in hit.arms:
            totals[score.arm] = totals.get(score.arm, 0.0) + score.contribution
    whole = sum(totals.values())
    return {arm: (value / whole if whole else 0.0) for arm, value in totals.items()}


def carrier(shares: dict[str, float]) -> str | None:
    arm, share = max(shares.items(), key=lambda kv: kv[1], default=(None, 0.0))
    return arm if share > CARRYING else None


def describe(pool: Any) -> str:
    """The chart in words (its accessible description and its tooltip's first line)."""
    if pool is None or not pool.entries:
        return "No fused pool to show."
    entries = pool.entries[: pool.pool_size]
    shares = arm_shares(entries)
    parts = ", ".join(f"{palette.ARM_LABELS.get(a, a)} {shares[a]:.0%}" for a in ARM_NAMES)
    carry = carrier(shares)
    positions = {e.path: e.position for e in entries}
    page = [positions[p] for p in pool.page if p in positions]
    lead = f"{palette.ARM_LABELS.get(carry, carry)} carries the list" if carry else "no single arm carries the list"
    return (
        f"{len(entries)} fused candidates; {lead} ({parts} of the pool's score). "
        f"The agent's page took fused positions {', '.join(map(str, page))}."
    )


class PoolChart(QWidget):
    """See the module docstring. `open_requested(path)` on Enter or a double-click;
    `menu_requested(path, title, global point)` on a right-click or the Menu key."""

    open_requested = Signal(str)
    menu_requested = Signal(str, str, QPoint)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("poolChart")
        self.setAccessibleName("Fused pool chart")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumHeight(90)
        self._pool: Any = None
        self._focus = -1
        self._picture: tuple[tuple, QPixmap] | None = None  # the bars, drawn once per pool and size
        self._render_pending = False
        self._later = turn_timer(self, self._render)
        self._profile: RankingProfile = DEFAULT
        self.set_pool(None)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(600, 150)

    # -- data ----------------------------------------------------------------------------------

    def set_pool(self, pool: Any) -> None:
        self._pool = pool
        self._focus = -1 if pool is None else min(self._focus, len(self.entries()) - 1)
        text = describe(pool)
        self.setAccessibleDescription(text)
        self.setToolTip(tooltip_text(text + "\nLeft/Right choose a bar; Enter opens it."))
        self.update()

    def pool(self) -> Any:
        return self._pool

    def set_profile(self, profile: RankingProfile | None) -> None:
        """The active ranking profile: the bars' full height is its `max_score`."""
        self._profile = profile or DEFAULT
        self.update()  # the picture's key holds the scale: it is drawn again in its own event

    def entries(self) -> tuple:
        pool = self._pool
        return tuple(pool.entries[: pool.pool_size]) if pool is not None else ()

    def shares(self) -> dict[str, float]:
        return arm_shares(self.entries())

    # -- geometry ------------------------------------------------------------------------------

    def _plot(self) -> QRectF:
        fm = self.fontMetrics()
        return QRectF(
            8, 6 + fm.height(), max(40, self.width() - LEGEND_WIDTH - 16), max(20, self.height() - 14 - 2 * fm.height())
        )

    def bar_rect(self, i: int) -> QRectF:
        plot = self._plot()
        n = max(1, len(self.entries()))
        slot = plot.width() / n
        width = max(2.0, slot * 0.72)
        return QRectF(plot.left() + i * slot + (slot - width) / 2, plot.top(), width, plot.height())

    def bar_at(self, point) -> int:
        for i in range(len(self.entries())):
            rect = self.bar_rect(i)
            if rect.left() - 2 <= point.x() <= rect.right() + 2 and rect.top() <= point.y() <= rect.bottom() + 16:
                return i
        return -1

    # -- painting ------------------------------------------------------------------------------

    def _key(self) -> tuple:
        ratio = self.devicePixelRatioF()
        return (
            id(self._pool),
            self.width(),
            self.height(),
            self.palette().cacheKey(),
            ratio,
            self.font().key(),
            self._profile.max_score,
        )

    def _render(self) -> None:
        """Draw the picture for the current pool, size and palette (10-30 ms of Python painting)."""
        self._render_pending = False
        key = self._key()
        if self._picture is not None and self._picture[0] == key:
            return
        ratio = key[4]
        pixmap = QPixmap(round(self.width() * ratio), round(self.height() * ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        inner = QPainter(pixmap)
        self._draw(inner)
        inner.end()
        self._picture = (key, pixmap)
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802
        """Blit the picture (drawn once per pool, size and palette), then the focused bar's frame.

        A new picture is drawn in an event of its own, after the paint event that found the old one
        stale (which blits the old one meanwhile): a new answer repaints the results table and this
        chart in ONE paint of the window, and the two together were the window's longest stall.
        """
        if self._picture is None:
            self._render()
        elif self._picture[0] != self._key() and not self._render_pending:
            self._render_pending = True
            self._later.start()
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._picture[1])
        if 0 <= self._focus < len(self.entries()):
            pen = QPen(self.palette().color(QPalette.ColorRole.Highlight))
            pen.setWidth(2)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(self.bar_rect(self._focus).adjusted(-2, -2, 2, 2))
        painter.end()

    def _draw(self, painter: QPainter) -> None:
        pal = self.palette()
        fm = self.fontMetrics()
        text_color = pal.color(QPalette.ColorRole.WindowText)
        muted = palette.muted_color()
        entries = self.entries()
        painter.setPen(text_color)
        title = "Fused pool" + (f" \u2014 {counted(len(entries), 'candidate')}, fused order" if entries else "")
        painter.drawText(QRectF(8, 2, self.width() - 16, fm.height()), int(Qt.AlignmentFlag.AlignLeft), title)
        if not entries:
            painter.setPen(muted)
            painter.drawText(self.rect(), int(Qt.AlignmentFlag.AlignCenter), "No pool yet.")
            return
        pool = self._pool
        plot = self._plot()
        page = {path: i + 1 for i, path in enumerate(pool.page)}
        groove = pal.color(QPalette.ColorRole.Mid)
        groove.setAlphaF(0.18)
        small = self.font()
        small.setPointSizeF(max(6.0, small.pointSizeF() * 0.8))
        painter.setFont(small)
        sfm = QFontMetrics(small)
        # Every bar's groove, then its arms stacked bottom-up (faded off the page), gathered by colour
        # and filled with one call a colour: the rectangles never overlap, so the picture is the one
        # drawn bar by bar, and a new pool is ~10 calls into Qt instead of ~600, each of which
        # could hand the GIL to a pool thread (on loaded cores, the list's longest turn).
        grooves: list[QRectF] = []
        fills: dict[tuple[str, bool], list[QRectF]] = {}
        labels: list[tuple[QRectF, str]] = []
        label_fits = sfm.horizontalAdvance("10") - 2
        top = self._profile.max_score
        for i, hit in enumerate(entries):
            rect = self.bar_rect(i)
            grooves.append(rect)
            on_page = hit.path in page
            y = rect.bottom()
            for score in sorted(hit.arms, key=lambda s: ARM_NAMES.index(s.arm) if s.arm in ARM_NAMES else 9):
                h = rect.height() * min(1.0, score.contribution / top)
                fills.setdefault((score.arm, on_page), []).append(QRectF(rect.left(), y - h, rect.width(), h))
                y -= h
            if on_page and rect.width() >= label_fits:
                labels.append(
                    (QRectF(rect.left() - 6, plot.bottom() + 1, rect.width() + 12, sfm.height()), str(page[hit.path]))
                )
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(groove)
        painter.drawRects(grooves)
        for (arm, on_page), rects in fills.items():
            color = palette.arm_color(arm)
            if not on_page:
                color.setAlphaF(0.35)
            painter.setBrush(color)
            painter.drawRects(rects)
        painter.setPen(text_color)
        for rect, text in labels:
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignHCenter), text)
        if len(entries) > pool.limit:
            cut = (self.bar_rect(pool.limit - 1).right() + self.bar_rect(pool.limit).left()) / 2
            pen = QPen(palette.legible(pal.color(QPalette.ColorRole.Highlight), pal.color(QPalette.ColorRole.Window)))
            pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.drawLine(int(cut), int(plot.top()) - 2, int(cut), int(plot.bottom()))
            placed = self.cut_label(sfm)
            if placed is not None:
                painter.drawText(placed[0], int(Qt.AlignmentFlag.AlignLeft), placed[1])
        self._paint_legend(painter, fm, text_color, muted)

    def cut_label(self, metrics: QFontMetrics | None = None) -> tuple[QRectF, str] | None:
        """Where the cut's words go: right of the dashed line, else left of it, else shorter; always
        inside the plot, never over the legend (issue 41: a fixed 160 px ran into it). None: no room."""
        pool, entries = self._pool, self.entries()
        if pool is None or len(entries) <= pool.limit:
            return None
        if metrics is None:
            small = self.font()
            small.setPointSizeF(max(6.0, small.pointSizeF() * 0.8))
            metrics = QFontMetrics(small)
        plot = self._plot()
        cut = (self.bar_rect(pool.limit - 1).right() + self.bar_rect(pool.limit).left()) / 2
        for text in (f"top {pool.limit} by fused score", f"top {pool.limit}"):
            width = metrics.horizontalAdvance(text) + 2
            for left in (cut + 3, cut - 3 - width):
                if plot.left() <= left and left + width <= plot.right():
                    return QRectF(left, plot.top() - 2, width, metrics.height()), text
        return None

    def _paint_legend(self, painter: QPainter, fm: QFontMetrics, text_color: QColor, muted: QColor) -> None:
        shares = self.shares()
        carry = carrier(shares)
        x = self.width() - LEGEND_WIDTH
        y = 4 + fm.height()
        painter.setFont(self.font())
        for arm in ARM_NAMES:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(palette.arm_color(arm))
            painter.drawRect(QRectF(x, y + 3, 10, fm.height() - 6))
            painter.setPen(text_color if arm == carry else muted)
            label = f"{palette.ARM_LABELS.get(arm, arm)}  {shares[arm]:.0%} of the score"
            painter.drawText(QRectF(x + 16, y, LEGEND_WIDTH - 20, fm.height()), int(Qt.AlignmentFlag.AlignLeft), label)
            y += fm.height() + 2
        painter.setPen(text_color)
        verdict = f"{palette.ARM_LABELS.get(carry, carry)} carries the list" if carry else "no one arm carries it"
        painter.drawText(QRectF(x, y + 2, LEGEND_WIDTH - 4, fm.height()), int(Qt.AlignmentFlag.AlignLeft), verdict)

    # -- interaction ---------------------------------------------------------------------------

    def _bar_text(self, i: int) -> str:
        hit = self.entries()[i]
        page = list(self._pool.page)
        where = f"page position {page.index(hit.path) + 1}" if hit.path in page else "not on the agent's page"
        arms = ", ".join(f"{palette.ARM_LABELS.get(s.arm, s.arm)} {s.contribution:.4f}" for s in hit.arms)
        return f"fused {hit.position}: {hit.title or hit.path} \u2014 {where}; score {hit.score:.4f} = {arms}"

    def focused_path(self) -> str | None:
        entries = self.entries()
        return entries[self._focus].path if 0 <= self._focus < len(entries) else None

    def set_focus_bar(self, i: int) -> None:
        entries = self.entries()
        if not entries:
            return
        self._focus = max(0, min(len(entries) - 1, i))
        self.setAccessibleDescription(self._bar_text(self._focus))
        self.update()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        key = event.key()
        if key in (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Home, Qt.Key.Key_End):
            n = len(self.entries())
            target = {
                Qt.Key.Key_Left: self._focus - 1,
                Qt.Key.Key_Right: self._focus + 1,
                Qt.Key.Key_Home: 0,
                Qt.Key.Key_End: n - 1,
            }[key]
            self.set_focus_bar(target if self._focus >= 0 or key != Qt.Key.Key_Left else 0)
            if self._focus >= 0:
                rect = self.bar_rect(self._focus)
                QToolTip.showText(self.mapToGlobal(rect.center().toPoint()), self._bar_text(self._focus), self)
            return
        path = self.focused_path()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and path:
            self.open_requested.emit(path)
            return
        if path and (
            key == Qt.Key.Key_Menu or (key == Qt.Key.Key_F10 and event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        ):
            hit = self.entries()[self._focus]
            self.menu_requested.emit(path, hit.title, self.mapToGlobal(self.bar_rect(self._focus).center().toPoint()))
            return
        super().keyPressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        i = self.bar_at(event.position())
        if i >= 0:
            QToolTip.showText(event.globalPosition().toPoint(), self._bar_text(i), self)
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        i = self.bar_at(event.position())
        if i >= 0:
            self.set_focus_bar(i)
            if event.button() == Qt.MouseButton.RightButton:
                hit = self.entries()[i]
                self.menu_requested.emit(hit.path, hit.title, event.globalPosition().toPoint())
                return
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        i = self.bar_at(event.position())
        if i >= 0:
            self.open_requested.emit(self.entries()[i].path)
            return
        super().mouseDoubleClickEvent(event)
