"""The recall preview: the pack an agent would receive for the current query and filters.

A budget slider (with a spin box) on top, then the ledger, then two boxes: memories and arcs, each
with a meter of what its section spent against its own budget (arcs fold under their own 9,000
envelope, so they get their own box) and its items in rank order. The pane shows the pack exactly
as given — it never re-folds, trims or re-ranks — so what the meter says is what the agent pays.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.disclosure import ARC_BODY_BUDGET, MEMORY_BODY_BUDGET, ledger_line, render_pack_text
from memhtml_desktop.domain.types import RecallPack, RecallSection
from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.palette import TIER_COLORS, warning_color
from memhtml_desktop.ui.recall.recall_model import PackTextDelegate, RecallModel, TierBadgeDelegate

BUDGET_STEP = 250
BUDGET_MAX = 32_000
DEBOUNCE_MS = 300


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
        text = (f"{self.spent:,} of {self.budget:,} chars: {self.quote_chars:,} in quotes, "
                f"{self.line_chars:,} in disclosures (the claim alone)")
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


class _PackView(QTreeView):
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


class _SectionBox(QGroupBox):
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
        self.view = _PackView(self.model, self)
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
            self.meter_label.setToolTip(tooltip_text(
                f"{counts['quote']} quote · {counts['disclosure']} disclosure · {counts['index']} index"
                + (" · truncated" if section.truncated else "")
            ))
        has_items = bool(section and section.items)
        self.view.setVisible(has_items)
        self.empty_label.setVisible(not has_items)


class RecallPane(QWidget):
    """The recall tab. Data in (`show_pack`), signals out (`budget_changed`, `open_requested`)."""

    budget_changed = Signal(int)
    open_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pack: RecallPack | None = None
        self._last_emitted = MEMORY_BODY_BUDGET
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._emit_budget)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(6)

        budget_row = QHBoxLayout()
        budget_label = QLabel("Budget", self)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setRange(0, BUDGET_MAX // BUDGET_STEP)
        self.slider.setSingleStep(1)
        self.slider.setPageStep(4)
        self.slider.setTickInterval(16)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setToolTip("Memory budget in characters (UTF-16 units), in steps of 250")
        self.slider.setAccessibleName("Recall budget")
        self.spin = QSpinBox(self)
        self.spin.setRange(0, BUDGET_MAX)
        self.spin.setSingleStep(BUDGET_STEP)
        self.spin.setGroupSeparatorShown(True)
        self.spin.setSuffix(" chars")
        self.spin.setAccelerated(True)
        self.spin.setAccessibleName("Recall budget in characters")
        budget_label.setBuddy(self.spin)
        budget_row.addWidget(budget_label)
        budget_row.addWidget(self.slider, 1)
        budget_row.addWidget(self.spin)
        layout.addLayout(budget_row)
        self.slider.valueChanged.connect(self._slider_moved)
        self.spin.valueChanged.connect(self._spin_changed)

        self.degraded_strip = QLabel(self)
        self.degraded_strip.setObjectName("degradedStrip")
        self.degraded_strip.setTextFormat(Qt.TextFormat.PlainText)
        self.degraded_strip.setWordWrap(True)
        layout.addWidget(self.degraded_strip)

        self.query_label = QLabel(self)
        self.query_label.setTextFormat(Qt.TextFormat.PlainText)
        self.query_label.setWordWrap(True)
        self.query_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.ledger_label = QLabel(self)
        self.ledger_label.setTextFormat(Qt.TextFormat.PlainText)
        self.ledger_label.setWordWrap(True)
        self.ledger_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.query_label)
        layout.addWidget(self.ledger_label)

        self.memories_box = _SectionBox("Memories", "No memories in this pack.", self)
        self.arcs_box = _SectionBox(f"Arcs — their own {ARC_BODY_BUDGET:,}-char envelope", "No arcs in this pack.", self)
        for box in (self.memories_box, self.arcs_box):
            box.view.open_path.connect(self.open_requested)
        layout.addWidget(self.memories_box, 3)
        layout.addWidget(self.arcs_box, 0)

        bottom = QHBoxLayout()
        self.copy_button = QPushButton("Copy pack as text", self)
        self.copy_button.setToolTip("The pack exactly as an agent receives it, ledger included")
        self.copy_button.clicked.connect(self.copy_pack)
        self.texts_button = QPushButton("Show texts", self)
        self.texts_button.setCheckable(True)
        self.texts_button.setToolTip("Expand every item to the exact text the agent gets")
        self.texts_button.toggled.connect(self._toggle_texts)
        self.status_label = QLabel(self)
        self.status_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        bottom.addWidget(self.copy_button)
        bottom.addWidget(self.texts_button)
        bottom.addStretch(1)
        bottom.addWidget(self.status_label)
        layout.addLayout(bottom)

        self.set_budget(MEMORY_BODY_BUDGET)
        self.show_pack(None)

    # -- contract -----------------------------------------------------------------------------

    def set_budget(self, chars: int) -> None:
        """Set the budget without emitting `budget_changed` (the caller already knows it)."""
        chars = max(0, int(chars))
        if chars > self.spin.maximum():
            self.spin.setMaximum(chars)
            self.slider.setMaximum(-(-chars // BUDGET_STEP))
        self._debounce.stop()
        for widget, value in ((self.slider, round(chars / BUDGET_STEP)), (self.spin, chars)):
            widget.blockSignals(True)
            widget.setValue(value)
            widget.blockSignals(False)
        self._last_emitted = chars

    def show_loading(self) -> None:
        self.status_label.setText("Updating…")

    def show_pack(self, pack: RecallPack | None) -> None:
        self._pack = pack
        self.status_label.setText("" if pack is None else f"{pack.elapsed_ms:.0f} ms" if pack.elapsed_ms else "")
        self.memories_box.set_section(pack.memories if pack else None)
        self.arcs_box.set_section(pack.arcs if pack else None)
        has_arcs = bool(pack and pack.arcs.items)
        layout = self.layout()
        layout.setStretchFactor(self.arcs_box, 1 if has_arcs else 0)
        self.copy_button.setEnabled(pack is not None)
        if pack is None:
            self.query_label.setText("No recall pack yet: type a query.")
            self.ledger_label.setText("")
            self.degraded_strip.hide()
            return
        self.query_label.setText(f"The pack an agent gets for “{pack.query}”" if pack.query else "The pack an agent gets")
        self.ledger_label.setText(person_ledger(pack))
        self.ledger_label.setToolTip(tooltip_text(ledger_line(pack)))
        if pack.degraded:
            reasons = "; ".join(pack.degraded_reasons) or "an arm is unavailable"
            self.degraded_strip.setText(f"Degraded: {reasons}")
            self.degraded_strip.setStyleSheet(
                f"QLabel#degradedStrip {{ background: {warning_color()}; border-radius: 4px; padding: 5px 8px; }}"
            )
        self.degraded_strip.setVisible(pack.degraded)
        if self.texts_button.isChecked():
            self._toggle_texts(True)

    # -- additions ----------------------------------------------------------------------------

    def pack(self) -> RecallPack | None:
        return self._pack

    def budget(self) -> int:
        return self.spin.value()

    def copy_pack(self) -> None:
        if self._pack is not None:
            QGuiApplication.clipboard().setText(render_pack_text(self._pack))

    # -- reactions ----------------------------------------------------------------------------

    def _slider_moved(self, steps: int) -> None:
        self.spin.blockSignals(True)
        self.spin.setValue(steps * BUDGET_STEP)
        self.spin.blockSignals(False)
        self._debounce.start()

    def _spin_changed(self, chars: int) -> None:
        self.slider.blockSignals(True)
        self.slider.setValue(round(chars / BUDGET_STEP))
        self.slider.blockSignals(False)
        self._debounce.start()

    def _emit_budget(self) -> None:
        value = self.spin.value()
        if value != self._last_emitted:
            self._last_emitted = value
            self.budget_changed.emit(value)

    def _toggle_texts(self, on: bool) -> None:
        self.texts_button.setText("Hide texts" if on else "Show texts")
        for box in (self.memories_box, self.arcs_box):
            if on:
                box.view.expandAll()
            else:
                box.view.collapseAll()


def person_ledger(pack: RecallPack) -> str:
    """The ledger for a person: budget, spent, per-tier counts, truncated — what 6.4.1 says to read together."""
    sections = (pack.memories, pack.arcs)
    counts = {tier: sum(s.counts[tier] for s in sections) for tier in ("quote", "disclosure", "index")}
    budget = sum(s.budget for s in sections)
    return (
        f"Budget {budget:,} (memories {pack.memories.budget:,} + arcs {pack.arcs.budget:,}) · "
        f"spent {pack.spent:,} · {counts['quote']} quote · {counts['disclosure']} disclosure · "
        f"{counts['index']} index · " + ("truncated" if pack.truncated else "nothing cut")
    )
