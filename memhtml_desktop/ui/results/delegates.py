"""Painters for the results table: the title with its snippet, the arm ranks, the contribution bar.

Delegates paint what the model hands them through its roles and never query or rank. Colours come
from the palette roles (so the light/dark theme follows the system) and from `palette.ARM_COLORS`
(one colour per arm, everywhere).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.results.cached_delegate import CachedDelegate, background
from memhtml_desktop.ui.results.pills import over, rank_pill_colors  # noqa: F401 - over: part of this module's API
from memhtml_desktop.ui.results.results_model import (
    ARM_NAMES,
    DASH,
    Role,
    arm_for_column,
)
from memhtml_desktop.ui.results.results_text import CONTRADICTION_SIGN
from memhtml_desktop.ui.results.snippets import highlight_spans, runs, snippet_window

PAD = 6
BAR_HEIGHT_RATIO = 0.34


# -- painting -----------------------------------------------------------------------------------


def _selected(option: QStyleOptionViewItem) -> bool:
    return bool(option.state & QStyle.StateFlag.State_Selected)


def _text_color(option: QStyleOptionViewItem) -> QColor:
    role = QPalette.ColorRole.HighlightedText if _selected(option) else QPalette.ColorRole.Text
    return option.palette.color(role)


def _muted(option: QStyleOptionViewItem) -> QColor:
    if _selected(option):
        color = option.palette.color(QPalette.ColorRole.HighlightedText)
        color.setAlphaF(0.8)
        return color
    return option.palette.color(QPalette.ColorRole.PlaceholderText)


def _badge_width(text: str, fm: QFontMetrics) -> int:
    return fm.horizontalAdvance(text) + 10


def _badge(painter: QPainter, opt: QStyleOptionViewItem, text: str, x: int, y: int, height: int, font: QFont) -> int:
    """A small outlined badge at (x, y); returns its width. A contradiction's is filled with the
    warning colour, its text legible on it: it says a fact in the list may be stale."""
    fm = QFontMetrics(font)
    width = _badge_width(text, fm)
    rect = QRect(x, y + (height - fm.height() - 2) // 2, width, fm.height() + 2)
    if text.startswith(CONTRADICTION_SIGN):
        fill = QColor(palette.warning_color())
        painter.setBrush(fill)
        painter.setPen(palette.legible(opt.palette.color(QPalette.ColorRole.Text), fill))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.drawRoundedRect(QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
        painter.setFont(font)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        return width
    painter.setPen(_muted(opt))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.drawRoundedRect(QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
    painter.setFont(font)
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
    return width


_INKS: dict[tuple[int, str], QColor] = {}


def _mark_ink(pal: QPalette, mark: QColor) -> QColor:
    key = (pal.cacheKey(), mark.name())
    if key not in _INKS:
        _INKS.clear() if len(_INKS) > 16 else None
        _INKS[key] = palette.legible(pal.color(QPalette.ColorRole.Text), mark)
    return _INKS[key]


SNIPPET_CHARS = 240
"""More than a cell ever shows: the rest of a hit's snippet is never measured or drawn."""
MIN_SNIPPET_PX = 60
"""Badges give way to the snippet: one that would leave less than this for the text is not drawn."""
MIN_BADGE_PX = 40
"""The narrowest a contradiction's badge is cut to ("⚠ contr…"); the tooltip says it whole."""


class TitleDelegate(CachedDelegate):
    """The title on the first line; under it the badges ("moved by MMR from 3", "below the agent's
    page", "archived", ...) and the snippet with the query's words marked; a third line with the
    path when the row is tall enough.

    Everything is clipped to the cell: at a narrow width badges that do not fit are left out (the
    tooltip and the accessible text still carry them), never painted over the next column.
    Painting runs on the GUI thread while indexing threads compete for the GIL, so what does not
    change between paints is computed once: fonts per base font, the snippet's window and marked
    spans per (path, query words).
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._fonts: dict[str, tuple[QFont, QFont, QFont, QFontMetrics, QFontMetrics, int]] = {}
        self._snippets: dict[tuple[str, tuple[str, ...]], list[tuple[str, bool]]] = {}

    def _font_set(self, font: QFont):
        key = font.key()
        if key not in self._fonts:
            base = QFont(font)
            bold = QFont(base)
            bold.setWeight(QFont.Weight.DemiBold)
            small = QFont(base)
            small.setPointSizeF(max(6.0, base.pointSizeF() * 0.85))
            fm, bfm = QFontMetrics(base), QFontMetrics(bold)
            self._fonts[key] = (base, bold, small, fm, bfm, max(fm.height(), bfm.height()))
        return self._fonts[key]

    def _snippet_runs(self, hit, terms: tuple[str, ...]) -> list[tuple[str, bool]]:
        key = (hit.path + "\0" + (hit.snippet or hit.gist or ""), terms)
        pieces = self._snippets.get(key)
        if pieces is None:
            if len(self._snippets) > 500:
                self._snippets.clear()
            snippet = " ".join((hit.snippet or hit.gist or "").split())
            spans = highlight_spans(snippet, terms)
            snippet, spans = snippet_window(snippet, spans)
            snippet = snippet[:SNIPPET_CHARS]
            pieces = runs(snippet, [(a, min(b, len(snippet))) for a, b in spans if a < len(snippet)])
            self._snippets[key] = pieces
        return pieces

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        fm = QFontMetrics(option.font)
        return QSize(320, fm.height() * 2 + PAD + 4)

    def content_key(self, index) -> tuple | None:
        model, row = index.model(), index.row()
        hit = model.hit(row) if hasattr(model, "hit") else index.data(Role.Hit)
        if hit is None:
            return None
        return (
            "title",
            hit.path,
            hit.title,
            hit.snippet or hit.gist or "",
            hit.updated_at,
            tuple((model.terms() if hasattr(model, "terms") else index.data(Role.Terms)) or ()),
            tuple(model.data(index, Role.Badges) or ()),
            model.page_position(row) is None if hasattr(model, "page_position") else False,
        )

    def draw(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        painter.save()
        painter.setClipRect(option.rect)
        opt = background(painter, option, index)
        hit = index.data(Role.Hit)
        if hit is None:
            painter.restore()
            return
        rect = opt.rect.adjusted(PAD, 2, -PAD, -2)
        base, bold, small, fm, bfm, line = self._font_set(opt.font)
        lines = 3 if rect.height() >= 3 * line + 4 else 2
        top = rect.top() + max(0, (rect.height() - lines * line) // 2)
        below = index.data(Role.Page) is None
        low = getattr(hit, "low_relevance", False)  # muted like a row below the page; its badge says why

        painter.setFont(bold)
        painter.setPen(_muted(opt) if below or low else _text_color(opt))
        title = bfm.elidedText(hit.title or hit.path, Qt.TextElideMode.ElideRight, max(0, rect.width()))
        painter.drawText(
            QRect(rect.left(), top, rect.width(), line),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            title,
        )

        x, right = rect.left(), rect.right()
        sfm = QFontMetrics(small)
        for text in index.data(Role.Badges) or ():
            width = _badge_width(text, sfm)
            # a marker (moved, low relevance, future date) outranks the snippet: every badge that
            # fits in the cell is drawn, the snippet gets what is left; a contradiction's badge
            # that does not fit is cut short rather than left out (a stale fact is never unmarked)
            if x + width > right:
                if text.startswith(CONTRADICTION_SIGN) and right - x >= MIN_BADGE_PX:
                    text = sfm.elidedText(text, Qt.TextElideMode.ElideRight, right - x - 10)
                    x += _badge(painter, opt, text, x, top + line, line, small) + 6
                break
            x += _badge(painter, opt, text, x, top + line, line, small) + 6
        pieces = self._snippet_runs(hit, tuple(index.data(Role.Terms) or ()))
        painter.setFont(base)
        self._paint_runs(painter, opt, pieces, x, top + line, right, line, fm)
        if lines == 3:
            painter.setFont(small)
            painter.setPen(_muted(opt))
            meta = " \u00b7 ".join(p for p in (hit.path, (hit.updated_at or "")[:10]) if p)
            painter.drawText(
                QRect(rect.left(), top + 2 * line, rect.width(), line),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                sfm.elidedText(meta, Qt.TextElideMode.ElideMiddle, max(0, rect.width())),
            )
        painter.restore()

    @staticmethod
    def _paint_runs(painter, opt, pieces, x, y, right, height, fm) -> None:
        mark = QColor(palette.mark_color())
        selected = _selected(opt)
        for piece, marked in pieces:
            if x >= right:
                break
            width = fm.horizontalAdvance(piece)
            if x + width > right:
                piece = fm.elidedText(piece, Qt.TextElideMode.ElideRight, right - x)
                width = fm.horizontalAdvance(piece)
            if marked and piece:
                painter.fillRect(QRect(x - 1, y + 1, width + 2, height - 2), mark)
                painter.setPen(_mark_ink(opt.palette, mark) if not selected else mark.darker(400))
            else:
                painter.setPen(_muted(opt))
            painter.drawText(
                QRect(x, y, width + 1, height), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), piece
            )
            x += width


class ArmRankDelegate(CachedDelegate):
    """An arm's rank in a pill of the arm's colour; a muted dash when the arm did not rank the hit,
    and the rank muted in parentheses, without a pill, when it ranked it but did not count (a prior
    arm gated off for a memory the query does not match, `domain/priors.py`)."""

    def content_key(self, index) -> tuple | None:
        arm = arm_for_column(index.column())
        model = index.model()
        hit = model.hit(index.row()) if hasattr(model, "hit") else index.data(Role.Hit)
        score = hit.arm(arm) if hit is not None and arm else None
        return ("arm", arm, score.rank if score is not None else None, score is None or score.counted)

    def draw(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        painter.save()
        painter.setClipRect(option.rect)
        opt = background(painter, option, index)
        arm = arm_for_column(index.column())
        hit = index.data(Role.Hit)
        score = hit.arm(arm) if hit is not None and arm else None
        text = DASH if score is None else (str(score.rank) if score.counted else f"({score.rank})")
        fm = QFontMetrics(opt.font)
        rect = opt.rect.adjusted(3, 0, -PAD, 0)
        if score is None or not score.counted:
            painter.setPen(_muted(opt))
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
        else:
            ink, fill = rank_pill_colors(arm, opt.palette, selected=_selected(opt))
            width = min(rect.width() + 3, max(fm.horizontalAdvance(text) + 12, fm.height() + 6))
            pill = QRectF(rect.right() - width + 4, rect.center().y() - fm.height() / 2 - 1, width, fm.height() + 2)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRoundedRect(pill, pill.height() / 2, pill.height() / 2)
            painter.setBrush(palette.arm_color(arm))
            painter.drawRoundedRect(QRectF(pill.left(), pill.top(), 3, pill.height()), 1.5, 1.5)
            painter.setPen(ink)
            painter.drawText(pill, int(Qt.AlignmentFlag.AlignCenter), text)
        painter.restore()


class ScoreBarDelegate(CachedDelegate):
    """The stacked bar: one segment per arm that ranked the hit, as long as its contribution."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        return QSize(160, QFontMetrics(option.font).height() + PAD)

    def content_key(self, index) -> tuple | None:
        model = index.model()
        hit = model.hit(index.row()) if hasattr(model, "hit") else index.data(Role.Hit)
        if hit is None:
            return None
        scale = model.profile().max_score if hasattr(model, "profile") else index.data(Role.MaxScore)
        return ("bar", tuple((s.arm, round(s.contribution, 7)) for s in hit.arms), scale)

    def draw(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        painter.save()
        painter.setClipRect(option.rect)
        opt = background(painter, option, index)
        scores = index.data(Role.ArmScores) or ()
        scale = index.data(Role.MaxScore) or 1.0
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        track = QRectF(opt.rect.adjusted(PAD, 0, -PAD, 0))
        height = max(6.0, min(track.height() * BAR_HEIGHT_RATIO, QFontMetrics(opt.font).height() * 0.75))
        track.setTop(track.center().y() - height / 2)
        track.setHeight(height)
        groove = opt.palette.color(QPalette.ColorRole.Mid)
        groove.setAlphaF(0.25)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(groove)
        painter.drawRoundedRect(track, 2, 2)
        x = track.left()
        by_arm = {s.arm: s for s in scores}
        for arm in ARM_NAMES:
            score = by_arm.get(arm)
            if score is None:
                continue
            width = track.width() * min(1.0, score.contribution / scale)
            painter.setBrush(palette.arm_color(arm))
            painter.drawRect(QRectF(x, track.top(), max(1.0, width - 1), track.height()))
            x += width
        painter.restore()
