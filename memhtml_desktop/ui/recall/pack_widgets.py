"""The memhtml pack's widgets: the budget meter, a section's item view and box, the ledger line.

Moved out of recall_pane.py when the pane grew its other shapes; the quota ledgers reuse the item
view (`PackView`) for each ledger's memories.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.types import RecallPack, RecallSection
from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.palette import TIER_COLORS
from memhtml_desktop.ui.recall.recall_model import PackTextDelegate, RecallModel, TierBadgeDelegate


class BudgetMeter(QWidget):
    """A bar of `spent` against `budget`: the quote part and the disclosure part in their tier colours."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.budget = 0
        self.spent = 0
        self.quote_chars = 0
        self.line_chars = 0
        self.setMinimumHeight(10)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Budget spent")

    def set_section(self, section: RecallSection | None) -> None:
        if section is None:
            self.budget = self.spent = self.quote_chars = self.line_chars = 0
        else:
            self.budget = section.budget
            self.spent = section.spent
            self.quote_chars = sum(i.chars for i in section.items if i.tier == "quote")
            self.line_chars = sum(i.chars for i in section.items if i.tier == "disclosure")
        text = (
            f"{self.spent:,} of {self.budget:,} chars: {self.quote_chars:,} in quotes, "
            f"{self.line_chars:,} in disclosures (the claim alone)"
        )
        self.setToolTip(tooltip_text(text))
        self.setAccessibleDescription(text)
        self.update()

    @property
    def over(self) -> bool:
        return self.spent > self.budget

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(160, 10)

    def paintEvent(self, event: Any) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        track = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setPen(self.palette().color(QPalette.ColorRole.Mid))
        painter.setBrush(self.palette().color(QPalette.ColorRole.Base))
        painter.drawRoundedRect(track, 4, 4)
        if self.budget > 0:
            inner = track.adjusted(1, 1, -1, -1)
            x = inner.left()
            painter.setPen(Qt.PenStyle.NoPen)
            for chars, tier in ((self.quote_chars, "quote"), (self.line_chars, "disclosure")):
                width = inner.width() * min(chars, self.budget) / self.budget
                width = min(width, inner.right() - x)
                if width > 0:
                    painter.setBrush(QColor(TIER_COLORS[tier]))
                    painter.drawRect(QRectF(x, inner.top(), width, inner.height()))
                    x += width
        if self.over:
            painter.setPen(QColor("#D55E00"))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(track, 4, 4)
        painter.end()


class PackView(QTreeView):
    """Items in rank order; a click or Enter on an item opens it, the arrow expands its text."""

    open_path = Signal(str)

    def __init__(self, model: RecallModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.setUniformRowHeights(False)
        self.setAllColumnsShowFocus(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setItemDelegate(PackTextDelegate(self))
        self.setItemDelegateForColumn(RecallModel.TIER, TierBadgeDelegate(self))
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(RecallModel.RANK, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(RecallModel.TIER, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(RecallModel.MEMORY, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(RecallModel.COST, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(RecallModel.REASON, QHeaderView.ResizeMode.Fixed)
        model.modelReset.connect(self._span_texts)
        model.modelReset.connect(self._fit_reason)
        self.clicked.connect(self._clicked)

    def _span_texts(self) -> None:
        model = self.model()
        for row in range(model.rowCount()):
            self.setFirstColumnSpanned(0, model.index(row, 0), True)

    def _fit_reason(self) -> None:
        """The reason column gets what it needs up to a third of the width; the title keeps the rest."""
        wanted = max(self.sizeHintForColumn(RecallModel.REASON), self.header().sectionSizeHint(RecallModel.REASON))
        self.header().resizeSection(RecallModel.REASON, max(60, min(wanted, self.viewport().width() // 3)))

    def _clicked(self, index: QModelIndex) -> None:
        if index.isValid() and not index.data(RecallModel.IsTextRole):
            self.open_path.emit(index.data(RecallModel.PathRole))

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            index = self.currentIndex()
            if index.isValid():
                self.open_path.emit(index.data(RecallModel.PathRole))
                return
        super().keyPressEvent(event)

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802
        # Wrapped text heights depend on the viewport's width, which also changes when the
        # scroll bar comes or goes without the view itself changing size.
        if event.type() == QEvent.Type.Resize and event.size().width() != event.oldSize().width():
            self._fit_reason()
            self.scheduleDelayedItemsLayout()
        return super().viewportEvent(event)


def arcs_title(budget: int) -> str:
    return f"Arcs \u2014 their own {budget:,}-char envelope"


class SectionBox(QGroupBox):
    """One section of the pack: a meter row over its items."""

    def __init__(self, title: str, empty_text: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        meter_row = QHBoxLayout()
        self.meter = BudgetMeter(self)
        self.meter_label = QLabel(self)
        self.meter_label.setTextFormat(Qt.TextFormat.PlainText)
        meter_row.addWidget(self.meter, 1)
        meter_row.addWidget(self.meter_label, 0)
        layout.addLayout(meter_row)
        self.model = RecallModel(self)
        self.view = PackView(self.model, self)
        self.empty_label = QLabel(empty_text, self)
        self.empty_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.empty_label)

    def set_section(self, section: RecallSection | None) -> None:
        self.model.set_section(section)
        self.meter.set_section(section)
        if section is None:
            self.meter_label.setText("")
        else:
            counts = section.counts
            self.meter_label.setText(
                f"{section.spent:,} / {section.budget:,} chars"
                + (" — over budget!" if section.spent > section.budget else "")
            )
            self.meter_label.setToolTip(
                tooltip_text(
                    f"{counts['quote']} quote · {counts['disclosure']} disclosure · {counts['index']} index"
                    + (" · truncated" if section.truncated else "")
                )
            )
        has_items = bool(section and section.items)
        self.view.setVisible(has_items)
        self.empty_label.setVisible(not has_items)


def cut_text(pack: RecallPack, cap: int | None = None) -> str:
    """Why the pack is truncated, by cause: memhtml calls a pack truncated when any candidate got
    less than its full quote, and its cap of `cap` quotes per entity does that with the budget
    barely touched (380 of 16,000 spent), so "truncated" alone read as "the budget ran out"."""
    items = [item for section in (pack.memories, pack.arcs) for item in section.items if item.tier != "quote"]
    if not items:
        return "nothing cut"
    by_cap = sum(1 for item in items if item.reason == "entity_cap")
    by_budget = len(items) - by_cap
    cap_words = f"memhtml's cap of {counted(cap, 'quote')} per entity" if cap else "memhtml's cap of quotes per entity"
    if not by_budget:
        return f"truncated by {cap_words}, not by the budget: {counted(by_cap, 'memory')} not quoted"
    if not by_cap:
        return f"truncated by the budget: {counted(by_budget, 'memory')} not quoted in full"
    return f"truncated: {counted(by_budget, 'memory')} by the budget, {counted(by_cap, 'memory')} by {cap_words}"


def person_ledger(pack: RecallPack, cap: int | None = None) -> str:
    """The ledger for a person: budget, spent, per-tier counts, what was cut and why — what 6.4.1 says to read together."""
    sections = (pack.memories, pack.arcs)
    counts = {tier: sum(s.counts[tier] for s in sections) for tier in ("quote", "disclosure", "index")}
    budget = sum(s.budget for s in sections)
    return (
        f"Budget {budget:,} (memories {pack.memories.budget:,} + arcs {pack.arcs.budget:,}) · "
        f"spent {pack.spent:,} · {counts['quote']} quote · {counts['disclosure']} disclosure · "
        f"{counts['index']} index · " + cut_text(pack, cap)
    )
