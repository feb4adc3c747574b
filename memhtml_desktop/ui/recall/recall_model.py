"""The recall pack as a tree model: one row per item in rank order, its exact text as one child row.

Top-level rows are `RecallItem`s (columns: rank, tier, memory, cost, why here). Each has exactly one
child whose first column holds the text the agent receives, unaltered, so expanding a row shows
precisely what was charged. Delegates paint the tier badge and the wrapped text; they only draw
what the model hands them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTreeView

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.types import RecallItem, RecallSection
from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.palette import TIER_COLORS, muted_color
from memhtml_desktop.ui.kit.two_level_model import TwoLevelModel

TIER_LABELS = {"quote": "QUOTE", "disclosure": "DISCLOSURE", "index": "INDEX"}
TIER_HELP = {
    "quote": "Quote: the claim, summaries, facets and citations, charged at its length",
    "disclosure": "Disclosure: the claim alone, charged at its length",
    "index": "Index: path and title, never charged",
}
_Index = QModelIndex | QPersistentModelIndex


def reason_text(item: RecallItem, cap: int | None = None) -> str:
    """Why an item landed in its tier, phrased for a person. `cap`: the active profile's quotes
    per entity (`max_per_entity`)."""
    if item.reason == "fits":
        return "fits"
    if item.reason == "entity_cap":
        return (
            f"entity cap: {counted(cap, 'quote')} per entity already"
            if cap
            else "entity cap: the entity's quotes are used up"
        )
    if item.reason == "over_budget":
        return "over budget: claim only" if item.tier == "disclosure" else "over budget: index line"
    if item.reason == "recency_cut":
        return "older than one that did not fit: index line"
    return item.reason


class RecallModel(TwoLevelModel):
    """One recall section (memories or arcs). Internal id 0 marks an item row, n+1 the text of item n."""

    COLUMNS = ("#", "Tier", "Memory", "Cost", "Why here")
    RANK, TIER, MEMORY, COST, REASON = range(5)
    ItemRole = Qt.ItemDataRole.UserRole + 1
    PathRole = Qt.ItemDataRole.UserRole + 2
    TierRole = Qt.ItemDataRole.UserRole + 3
    CostRole = Qt.ItemDataRole.UserRole + 4
    IsTextRole = Qt.ItemDataRole.UserRole + 5

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: tuple[RecallItem, ...] = ()
        self._section: RecallSection | None = None
        self.cap: int | None = None  # the active profile's max_per_entity (RecallPane.set_profile)

    def set_section(self, section: RecallSection | None) -> None:
        self.beginResetModel()
        self._section = section
        self._items = section.items if section is not None else ()
        self.endResetModel()

    def section(self) -> RecallSection | None:
        return self._section

    def items(self) -> tuple[RecallItem, ...]:
        return self._items

    # -- structure ----------------------------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        if not parent.isValid():
            return len(self._items)
        if parent.internalId() == 0 and parent.column() == 0:
            return 1
        return 0

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return len(self.COLUMNS)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and section in (self.RANK, self.COST):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    # -- data ---------------------------------------------------------------------------------

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if index.internalId() != 0:
            return self._text_data(index, role)
        if index.row() >= len(self._items):
            return None
        item = self._items[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                str(item.rank),
                TIER_LABELS.get(item.tier, item.tier.upper()),
                (
                    f"\u26a0 {item.title or item.path} ({item.contradictions[0].mark})"
                    if item.contradictions
                    else item.title or item.path
                ),  # the sign first: a narrow column still shows it
                f"{item.chars:,}",
                reason_text(item, self.cap),
            )[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == self.TIER:
                return tooltip_text(TIER_HELP.get(item.tier, item.tier))
            marks = "".join(f"\n\u26a0 {mark.describe()}" for mark in item.contradictions)
            return tooltip_text(
                f"{item.path}\n{item.title}\n{item.memory_type} · {item.chars:,} chars · "
                f"{reason_text(item, self.cap)}{marks}"
            )
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (self.RANK, self.COST):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and (col in (self.RANK, self.REASON) or item.tier == "index"):
            return muted_color()
        if role == self.ItemRole:
            return item
        if role == self.PathRole:
            return item.path
        if role == self.TierRole:
            return item.tier
        if role == self.CostRole:
            return item.chars
        if role == self.IsTextRole:
            return False
        return None

    def _text_data(self, index: _Index, role: int) -> Any:
        row = index.internalId() - 1
        if row >= len(self._items):
            return None
        item = self._items[row]
        if role == Qt.ItemDataRole.DisplayRole and index.column() == 0:
            return item.text
        if role == self.IsTextRole:
            return True
        if role == self.PathRole:
            return item.path
        if role == self.ItemRole:
            return item
        return None


def _readable_on(color: QColor) -> QColor:
    """Black or white text, whichever reads better on `color` (WCAG relative luminance)."""

    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    lum = 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF())
    return QColor("#000000") if lum > 0.30 else QColor("#ffffff")


class TierBadgeDelegate(QStyledItemDelegate):
    """Paints QUOTE / DISCLOSURE / INDEX as a small rounded badge in the tier's colour."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        tier = index.data(RecallModel.TierRole)
        if tier is None:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        label = TIER_LABELS.get(tier, str(tier).upper())
        font = QFont(option.font)
        font.setPointSizeF(max(font.pointSizeF() * 0.78, 6.0))
        font.setBold(True)
        metrics = QFontMetrics(font)
        width = metrics.horizontalAdvance(label) + 12
        height = metrics.height() + 2
        rect = QRect(option.rect.left() + 4, option.rect.center().y() - height // 2 + 1, width, height)
        color = QColor(TIER_COLORS.get(tier, "#999999"))
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawRoundedRect(rect, 4, 4)
        painter.setFont(font)
        painter.setPen(_readable_on(color))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802
        hint = super().sizeHint(option, index)
        font = QFont(option.font)
        font.setPointSizeF(max(font.pointSizeF() * 0.78, 6.0))
        font.setBold(True)
        return QSize(
            QFontMetrics(font).horizontalAdvance("QUOTE") + 20, max(hint.height(), QFontMetrics(font).height() + 6)
        )


class PackTextDelegate(QStyledItemDelegate):
    """Draws an item's exact text, wrapped across the whole row (the child row spans every column)."""

    PAD = 6

    def __init__(self, view: QTreeView) -> None:
        super().__init__(view)
        self._view = view
        self._sizes: dict[tuple, QSize] = {}  # an item row's cell, measured once per text and font

    def _text_width(self) -> int:
        # A text row sits one level down: indented once for its depth, once more for the root
        # decoration; paint() then insets 2 px per side and PAD inside that.
        levels = 2 if self._view.rootIsDecorated() else 1
        return max(self._view.viewport().width() - levels * self._view.indentation() - 2 * self.PAD - 4, 80)

    def _font(self, option: QStyleOptionViewItem) -> QFont:
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.Monospace)
        font.setPointSizeF(max(option.font.pointSizeF() * 0.92, 6.0))
        return font

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        if not index.data(RecallModel.IsTextRole):
            super().paint(painter, option, index)
            return
        painter.save()
        rect = option.rect.adjusted(2, 2, -2, -2)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(option.palette.color(QPalette.ColorRole.AlternateBase))
        painter.drawRoundedRect(rect, 3, 3)
        painter.setFont(self._font(option))
        painter.setPen(option.palette.color(QPalette.ColorRole.Text))
        text_rect = rect.adjusted(self.PAD, self.PAD - 2, -self.PAD, -self.PAD + 2)
        painter.drawText(
            text_rect,
            int(Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop),
            index.data(Qt.ItemDataRole.DisplayRole) or "",
        )
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802
        if not index.data(RecallModel.IsTextRole):
            key = (index.column(), index.data(Qt.ItemDataRole.DisplayRole), option.font.key())
            size = self._sizes.get(key)
            if size is None:
                if len(self._sizes) > 4000:
                    self._sizes.clear()
                size = self._sizes[key] = super().sizeHint(option, index)
            return size
        if index.column() != 0:
            return QSize(0, 0)
        metrics = QFontMetrics(self._font(option))
        width = self._text_width()
        bound = metrics.boundingRect(
            QRect(0, 0, width, 100000), int(Qt.TextFlag.TextWordWrap), index.data(Qt.ItemDataRole.DisplayRole) or ""
        )
        return QSize(width, bound.height() + 2 * self.PAD + 4)
