"""The recall preview: the pack an agent would receive for the current query, in each shape.

A budget slider (with a spin box) on top, the costs of every shape side by side, then a tab per
shape: memhtml's pack (the ledger, then two boxes: memories and arcs, each with a meter of what its
section spent against its own budget; arcs fold under their own 9,000 envelope), the four quota
ledgers (ledgers_view.py) and the catalogue with Expand (catalogue_view.py). Moving the slider
re-folds every shape. The pane shows each shape exactly as given — it never re-folds, trims or
re-ranks — so what a meter says is what the agent pays.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.catalogue import Expansion, render_catalogue_text
from memhtml_desktop.domain.disclosure import MEMORY_BODY_BUDGET, ledger_line, render_pack_text
from memhtml_desktop.domain.quotas import render_quota_text
from memhtml_desktop.domain.ranking import DEFAULT
from memhtml_desktop.domain.shapes import SHAPE_LABELS, SHAPES, ShapeComparison
from memhtml_desktop.domain.types import RecallPack
from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.palette import warning_color
from memhtml_desktop.ui.recall.catalogue_view import CatalogueView
from memhtml_desktop.ui.recall.costs_strip import CostsStrip
from memhtml_desktop.ui.recall.ledgers_view import LedgersView
from memhtml_desktop.ui.recall.pack_widgets import SectionBox, arcs_title, person_ledger

BUDGET_STEP = 250
BUDGET_MAX = 32_000
DEBOUNCE_MS = 300
TAB_LABELS = {"memhtml": "memhtml pack", "quotas": "Ledgers", "catalog": "Catalogue"}


class RecallPane(QWidget):
    """The recall tab. Data in (`show_shapes`, `show_pack`, `show_expansion`), signals out
    (`budget_changed`, `open_requested`, `expand_requested`, `shape_changed`)."""

    budget_changed = Signal(int)
    open_requested = Signal(str)
    expand_requested = Signal(str)
    shape_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pack: RecallPack | None = None
        self._shapes: ShapeComparison | None = None
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
        self.ledger_label.setAccessibleName("The pack's ledger: no pack yet")
        layout.addWidget(self.query_label)
        self.costs = CostsStrip(self)
        layout.addWidget(self.costs)

        self.shapes = QTabWidget(self)
        self.shapes.setDocumentMode(True)
        self.shapes.setAccessibleName("Pack shape")
        pack_page = QWidget(self.shapes)
        self._pack_layout = pack_layout = QVBoxLayout(pack_page)
        pack_layout.setContentsMargins(0, 4, 0, 0)
        pack_layout.setSpacing(6)
        pack_layout.addWidget(self.ledger_label)
        self.memories_box = SectionBox("Memories", "No memories in this pack.", pack_page)
        self.arcs_box = SectionBox(arcs_title(DEFAULT.arc_budget), "No arcs in this pack.", pack_page)
        for box in (self.memories_box, self.arcs_box):
            box.model.cap = DEFAULT.max_per_entity  # until the window names the active profile
            box.view.open_path.connect(self.open_requested)
        pack_layout.addWidget(self.memories_box, 3)
        pack_layout.addWidget(self.arcs_box, 0)
        self.ledgers = LedgersView(self.shapes)
        self.ledgers.open_path.connect(self.open_requested)
        self.catalogue = CatalogueView(self.shapes)
        self.catalogue.open_path.connect(self.open_requested)
        self.catalogue.expand_requested.connect(self.expand_requested)
        for page, shape in ((pack_page, "memhtml"), (self.ledgers, "quotas"), (self.catalogue, "catalog")):
            self.shapes.setTabToolTip(self.shapes.addTab(page, TAB_LABELS[shape]), SHAPE_LABELS[shape])
        self.shapes.currentChanged.connect(self._shape_tab_changed)
        layout.addWidget(self.shapes, 1)

        bottom = QHBoxLayout()
        self.copy_button = QPushButton("Copy pack as text", self)
        self.copy_button.setToolTip("The shape shown, exactly as an agent receives it, ledger included")
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

    def set_profile(self, profile) -> None:
        """The active ranking profile: its arc envelope and entity cap are what the pane says."""
        self.arcs_box.setTitle(arcs_title(profile.arc_budget))
        for box in (self.memories_box, self.arcs_box):
            box.model.cap = profile.max_per_entity

    def show_pack(self, pack: RecallPack | None) -> None:
        self._pack = pack
        self.status_label.setText("" if pack is None else f"{pack.elapsed_ms:.0f} ms" if pack.elapsed_ms else "")
        self.memories_box.set_section(pack.memories if pack else None)
        self.arcs_box.set_section(pack.arcs if pack else None)
        has_arcs = bool(pack and pack.arcs.items)
        self._pack_layout.setStretchFactor(self.arcs_box, 1 if has_arcs else 0)
        self.copy_button.setEnabled(pack is not None)
        if pack is None:
            self.query_label.setText("No recall pack yet: type a query.")
            self.ledger_label.setText("")
            self.degraded_strip.hide()
            if self._shapes is not None:
                self.show_shapes(None)
            return
        ranking = getattr(pack, "ranking", "")
        agent = "an agent on memhtml" if ranking == "memhtml" else "an agent"
        text = f"The pack {agent} gets for “{pack.query}”" if pack.query else f"The pack {agent} gets"
        self.query_label.setText(text + (f" ({ranking} ranking)" if ranking else ""))
        ledger = person_ledger(pack, self.memories_box.model.cap)
        self.ledger_label.setText(ledger)
        self.ledger_label.setAccessibleName(ledger)
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

    def show_shapes(self, comparison: ShapeComparison | None) -> None:
        """Every shape for the query: the pack, the ledgers, the catalogue and their costs."""
        self._shapes = comparison
        self.show_pack(comparison.pack if comparison is not None else None)
        self.ledgers.set_pack(comparison.quotas if comparison is not None else None)
        self.catalogue.set_catalogue(comparison.catalogue if comparison is not None else None)
        self.costs.set_comparison(comparison)
        if comparison is not None and comparison.pack.query:
            self.query_label.setText(
                f"What an agent gets for “{comparison.pack.query}”, in each shape ({comparison.pack.ranking} ranking)"
            )
        self._shape_tab_changed(self.shapes.currentIndex())

    def show_expansion(self, expansion: Expansion | None) -> None:
        self.catalogue.show_expansion(expansion)

    def set_shape(self, shape: str) -> None:
        """Show one shape's tab: `memhtml`, `quotas` or `catalog`."""
        self.shapes.setCurrentIndex(SHAPES.index(shape))

    # -- additions ----------------------------------------------------------------------------

    def pack(self) -> RecallPack | None:
        return self._pack

    def comparison(self) -> ShapeComparison | None:
        return self._shapes

    def shape(self) -> str:
        return SHAPES[max(0, self.shapes.currentIndex())]

    def budget(self) -> int:
        return self.spin.value()

    def shape_text(self) -> str | None:
        """The shape shown, as the agent receives it (the catalogue with its expansion, if any)."""
        shape, comparison = self.shape(), self._shapes
        if shape == "quotas" and comparison is not None:
            return render_quota_text(comparison.quotas)
        if shape == "catalog" and comparison is not None:
            expansion = self.catalogue.expansion()
            return render_catalogue_text(comparison.catalogue) + (f"\n{expansion.text}" if expansion else "")
        return render_pack_text(self._pack) if self._pack is not None else None

    def copy_pack(self) -> None:
        text = self.shape_text()
        if text is not None:
            QGuiApplication.clipboard().setText(text)

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

    def _shape_tab_changed(self, index: int) -> None:
        shape = SHAPES[max(0, index)]
        self.texts_button.setVisible(shape == "memhtml")
        self.copy_button.setText(
            {"memhtml": "Copy pack as text", "quotas": "Copy ledgers as text", "catalog": "Copy catalogue as text"}[
                shape
            ]
        )
        self.copy_button.setEnabled(self._pack is not None if shape == "memhtml" else self._shapes is not None)
        self.shape_changed.emit(shape)

    def _toggle_texts(self, on: bool) -> None:
        self.texts_button.setText("Hide texts" if on else "Show texts")
        for box in (self.memories_box, self.arcs_box):
            if on:
                box.view.expandAll()
            else:
                box.view.collapseAll()
