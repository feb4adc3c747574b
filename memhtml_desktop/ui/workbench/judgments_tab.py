"""The Judgments tab: implicit judgments, opt-in and local. When the setting is on, a search
followed by opening one of its hits is remembered on this computer (never in the store), and each
(query, memory) pair is offered here as a candidate probe: accept it into the chosen set (one
commit) or discard it. No I/O here.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ui.workbench.models import PATH_ROLE, Col, RowsModel, rows_table, short

COLUMNS = (
    Col("Query", lambda j: j.query, tip=lambda j: j.query),
    Col("Opened memory", lambda j: short(j.path, 60), tip=lambda j: j.path, width=300),
    Col("Times", lambda j: j.count, numeric=True, width=50),
    Col("Best at", lambda j: j.best_position, numeric=True, width=56, tip=lambda j: "its best position in the list"),
    Col("Last", lambda j: j.last_seen[:10], width=84),
)


class JudgmentsTab(QWidget):
    enabled_changed = Signal(bool)
    accept_requested = Signal(object)  # a Judgment
    discard_requested = Signal(object)
    open_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workbenchJudgments")
        self.enabled = QCheckBox(
            "Re&member searches followed by opening a memory (on this computer only, never in the store)", self
        )
        self.enabled.setObjectName("judgmentsEnabled")
        self.enabled.toggled.connect(self.enabled_changed)
        self.model = RowsModel(COLUMNS, self, path=lambda j: j.path)
        self.table = rows_table(
            self.model, self, "judgmentsTable", "Candidate probes from searches and opened memories"
        )
        self.table.doubleClicked.connect(lambda i: i.data(PATH_ROLE) and self.open_requested.emit(i.data(PATH_ROLE)))
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._selection())
        self.accept = QPushButton("Acc&ept into the set", self)
        self.accept.setObjectName("acceptJudgment")
        self.discard = QPushButton("&Discard", self)
        self.discard.setObjectName("discardJudgment")
        self.accept.clicked.connect(lambda: self._emit(self.accept_requested))
        self.discard.clicked.connect(lambda: self._emit(self.discard_requested))
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.summary, 1)
        buttons.addWidget(self.accept)
        buttons.addWidget(self.discard)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.enabled)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)
        self._selection()

    def set_enabled(self, on: bool) -> None:
        self.enabled.blockSignals(True)
        self.enabled.setChecked(on)
        self.enabled.blockSignals(False)

    def set_candidates(self, judgments: Any, set_name: str) -> None:
        self.model.set_rows(list(judgments))
        into = f"\u201c{set_name}\u201d" if set_name else "a new set"
        self.summary.setText(
            f"{counted(len(self.model.rows), 'candidate')}. Accepting one adds it to {into} as a probe (one commit)."
            if self.model.rows
            else "No candidates yet." + ("" if self.enabled.isChecked() else " Turn remembering on above.")
        )
        self._selection()

    def _selection(self) -> None:
        has = self.model.row(self.table.currentIndex().row()) is not None
        self.accept.setEnabled(has)
        self.discard.setEnabled(has)

    def _emit(self, signal: Any) -> None:
        j = self.model.row(self.table.currentIndex().row())
        if j is not None:
            signal.emit(j)
