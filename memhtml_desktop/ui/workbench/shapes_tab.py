"""The workbench's Shapes tab: the pack shapes over the chosen probe set (workbench/shapes.py).

Per shape — memhtml's pack, the quota ledgers, the catalogue plus expanding its first entry, its
first two, or the target itself — how many probes got the target's text, only a pointer, or
nothing, and the mean characters delivered and charged; under the table, which of direct recall
and catalogue plus one expansion was cheaper per question kind, and how many catalogues listed
lookalikes. It reads only: nothing is recorded or committed, no shape counts as a read.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ops.workbench import CompareShapesJob

SHAPE_NAMES = {
    "memhtml": "memhtml's pack",
    "quotas": "Quota ledgers",
    "catalog+1": "Catalogue + expand #1",
    "catalog+2": "Catalogue + expand #1–2",
    "catalog+pick": "Catalogue + expand the target",
}
COLUMNS = ("Shape", "Text", "Pointer only", "Missing", "Mean chars", "Charged")


class ShapesTab(QWidget):
    """Data in (`show_report`), `run_requested(budget, k)` out."""

    run_requested = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: Any = None
        self.budget = QSpinBox(self)
        self.budget.setRange(0, 1_000_000)
        self.budget.setSingleStep(500)
        self.budget.setValue(16_000)
        self.budget.setSuffix(" chars")
        self.budget.setGroupSeparatorShown(True)
        self.budget.setAccessibleName("Recall budget for the shapes")
        self.k = QSpinBox(self)
        self.k.setRange(1, 100)
        self.k.setValue(10)
        self.k.setAccessibleName("Catalogue entries")
        self.run_button = QPushButton("Compare &shapes", self)
        self.run_button.setToolTip("Every pack shape for every probe of the set: where the target landed, at what cost")
        self.run_button.clicked.connect(lambda: self.run_requested.emit(self.budget.value(), self.k.value()))
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setObjectName("shapesTable")
        self.table.setAccessibleName("Pack shapes over the probe set")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.summary = QLabel(
            "Choose a set and compare: how often each shape gets the target to the agent, "
            "and at what cost (docs/recall.md).",
            self,
        )
        self.summary.setWordWrap(True)
        top = QHBoxLayout()
        for text, widget in (("Budget", self.budget), ("Catalogue k", self.k)):
            label = QLabel(text, self)
            label.setBuddy(widget)
            top.addWidget(label)
            top.addWidget(widget)
        top.addWidget(self.run_button)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary)

    def show_report(self, report: Any) -> None:
        self.report = report
        figures = report.figures
        self.table.setRowCount(len(figures))
        for row, f in enumerate(figures):
            cells = (
                SHAPE_NAMES.get(f.shape, f.shape),
                f"{f.content}/{f.probes}",
                str(f.pointer),
                str(f.probes - f.content - f.pointer),
                f"{f.mean_cost:,.0f}",
                f"{f.mean_charged:,.0f}",
            )
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, col, item)
        rule = "; ".join(
            f"{kind} questions: direct recall cheaper {c['direct']}, catalogue + one expansion {c['catalog']}"
            for kind, c in report.rule().items()
        )
        self.summary.setText(
            f"{counted(len(report.rows), 'probe')} at budget {report.budget:,}, catalogue of {report.k}. {rule}. "
            f"Catalogues with entries they cannot tell apart: {report.indistinct_probes}; listing a near-twin "
            f"control beside the target: {report.controls_listed_probes}. Text: the target's text reached the "
            "agent; pointer only: just its index or catalogue line (a budget problem, not a ranking one)."
        )


class ShapesPresenter(QObject):
    """The tab's presenter: the chosen set, the long-job pool, the busy bar (a `Bench`'s)."""

    shapes_compared = Signal(object)  # a workbench.shapes.ShapeReport

    def __init__(self, bench: Any) -> None:
        super().__init__(bench)
        self.bench = bench

    def wire(self, window: Any) -> None:
        window.shapes.run_requested.connect(self.run)

    def run(self, budget: int, k: int) -> None:
        b = self.bench
        if not b.set_name():
            b.window.say("Choose a probe set first.")
            return
        b.run(CompareShapesJob(set_name=b.set_name(), budget=budget, k=k), self._done, busy="Comparing shapes…")

    def _done(self, report: Any) -> None:
        self.bench.window.shapes.show_report(report)
        self.bench.window.say(f"Shapes compared over {counted(len(report.rows), 'probe')}.")
        self.shapes_compared.emit(report)
