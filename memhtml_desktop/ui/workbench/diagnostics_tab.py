"""The Diagnostics tab: floor calibration on the store's own probes, and coverage — memories that
crowd nearly every probe query, memories their own claim cannot reach.

Each is a list a curator acts on: double-click (or Enter) opens the memory in the reader, where
the curation actions are; the chosen floor is saved into a what-if configuration. No I/O here.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QSplitter, QVBoxLayout, QWidget

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.workbench.models import PATH_ROLE, Col, RowsModel, rank_text, rows_table, short


class DiagnosticsTab(QWidget):
    floor_requested = Signal()
    save_floor_requested = Signal(float)
    crowders_requested = Signal()
    unreachable_requested = Signal()
    open_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workbenchDiagnostics")
        self.scan: Any = None

        def mark(row: Any) -> QColor | None:
            if self.scan is not None and abs(row.floor - self.scan.suggested) < 1e-9:
                return QColor(palette.mark_color())
            return None

        floor_cols = (
            Col("Floor", lambda r: f"{r.floor:.2f}", numeric=True, width=56, background=mark),
            Col(
                "Targets dropped",
                lambda r: r.targets_dropped,
                numeric=True,
                background=mark,
                width=130,
                tip=lambda r: "probe targets whose cosine falls below this floor",
            ),
            Col(
                "Non-targets admitted",
                lambda r: r.non_targets_admitted,
                numeric=True,
                background=mark,
                width=160,
                tip=lambda r: "first-page hits that are not targets and clear this floor (an upper bound)",
            ),
            Col("Of them controls", lambda r: r.controls_admitted, numeric=True, background=mark, width=130),
            Col("", lambda r: "\u2190 suggested" if mark(r) is not None else "", background=mark),
        )
        self.floor_model = RowsModel(floor_cols, self)
        self.floor_table = rows_table(self.floor_model, self, "floorTable", "Floor calibration: one row per floor")
        self.floor_table.activated.connect(lambda i: self._pick_floor(i.row()))
        self.floor_button = QPushButton("Scan &floors", self)
        self.floor_button.setObjectName("floorButton")
        self.floor_button.clicked.connect(self.floor_requested)
        self.save_floor = QPushButton("Save floor", self)
        self.save_floor.setObjectName("saveFloorButton")
        self.save_floor.setEnabled(False)
        self.save_floor.clicked.connect(self._save_floor)
        self.floor_summary = QLabel(
            "For each floor: how many targets it would drop, how many non-targets it admits.", self
        )
        self.floor_summary.setWordWrap(True)
        self.floor_table.selectionModel().currentRowChanged.connect(lambda cur, _: self._floor_chosen(cur.row()))
        floor_box = QGroupBox("Relevance floor (configuration A, this store's embedder)", self)
        fl = QVBoxLayout(floor_box)
        row = QHBoxLayout()
        row.addWidget(self.floor_button)
        row.addWidget(self.save_floor)
        row.addWidget(self.floor_summary, 1)
        fl.addLayout(row)
        fl.addWidget(self.floor_table, 1)

        crowd_cols = (
            Col("Memory", lambda c: short(c.path, 70), tip=lambda c: c.path),
            Col("Pages", lambda c: c.pages, numeric=True, width=50, tip=lambda c: "probe queries with it on page one"),
            Col("Share", lambda c: f"{c.share:.0%}", numeric=True, width=50),
            Col(
                "Rec/sal only",
                lambda c: c.without_query_arms,
                numeric=True,
                width=84,
                tip=lambda c: "pages it reached through recency and salience alone",
            ),
            Col(
                "Arms", lambda c: ", ".join(f"{palette.ARM_LABELS.get(a, a)} {n}" for a, n in c.arms.items()), width=150
            ),
        )
        self.crowders = RowsModel(crowd_cols, self, path=lambda c: c.path)
        self.crowders_table = rows_table(self.crowders, self, "crowdersTable", "Memories that crowd most probe queries")
        unreach_cols = (
            Col("Memory", lambda u: short(u.path, 60), tip=lambda u: u.path),
            Col(
                "Rank", lambda u: rank_text(u.rank), numeric=True, width=46, tip=lambda u: "where its own claim put it"
            ),
            Col("Its claim", lambda u: u.query, tip=lambda u: u.query),
            Col(
                "Above it",
                lambda u: short(u.above[0], 40) if u.above else "",
                tip=lambda u: "\n".join(u.above),
                width=180,
            ),
        )
        self.unreachable = RowsModel(unreach_cols, self, path=lambda u: u.path)
        self.unreachable_table = rows_table(
            self.unreachable, self, "unreachableTable", "Memories their own claim does not reach"
        )
        for table in (self.crowders_table, self.unreachable_table):
            table.doubleClicked.connect(self._open)
            table.activated.connect(self._open)
            table.setToolTip("Enter or double-click opens the memory in the reader")
        self.crowders_button = QPushButton("Find cro&wders", self)
        self.crowders_button.setObjectName("crowdersButton")
        self.crowders_button.clicked.connect(self.crowders_requested)
        self.unreachable_button = QPushButton("Find &unreachable", self)
        self.unreachable_button.setObjectName("unreachableButton")
        self.unreachable_button.clicked.connect(self.unreachable_requested)
        self.coverage_summary = QLabel(self)
        self.coverage_summary.setWordWrap(True)
        cov_box = QGroupBox("Coverage (configuration A)", self)
        cl = QVBoxLayout(cov_box)
        row = QHBoxLayout()
        row.addWidget(self.crowders_button)
        row.addWidget(self.unreachable_button)
        row.addWidget(self.coverage_summary, 1)
        cl.addLayout(row)
        tables = QSplitter(Qt.Orientation.Horizontal, cov_box)
        tables.addWidget(self.crowders_table)
        tables.addWidget(self.unreachable_table)
        tables.setChildrenCollapsible(False)
        cl.addWidget(tables, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(floor_box)
        split.addWidget(cov_box)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(split)

    # -- floor -------------------------------------------------------------------------------------

    def show_floor(self, scan: Any) -> None:
        self.scan = scan
        self.floor_model.set_rows(scan.rows)
        self.floor_summary.setText(
            f"{scan.targets} targets, {scan.non_targets} non-target hits on first pages; embedder "
            f"{scan.model_id or '?'}: current floor {scan.current:.2f}, suggested <b>{scan.suggested:.2f}</b>"
        )
        at = next((i for i, r in enumerate(scan.rows) if abs(r.floor - scan.suggested) < 1e-9), 0)
        self.floor_table.selectRow(at)
        self._floor_chosen(at)

    def _floor_chosen(self, row: int) -> None:
        r = self.floor_model.row(row)
        self.save_floor.setEnabled(r is not None)
        if r is not None:
            self.save_floor.setText(f"Save floor {r.floor:.2f}")

    def _pick_floor(self, row: int) -> None:
        self._floor_chosen(row)

    def _save_floor(self) -> None:
        r = self.floor_model.row(self.floor_table.currentIndex().row())
        if r is not None:
            self.save_floor_requested.emit(float(r.floor))

    # -- coverage ----------------------------------------------------------------------------------

    def show_crowders(self, crowders: list[Any], probes: int) -> None:
        self.crowders.set_rows(crowders)
        self.coverage_summary.setText(
            f"{counted(len(crowders), 'memory', verb=('is', 'are'))} on page one of at least half the {probes} probe "
            "queries without being their target."
        )

    def show_unreachable(self, reach: Any) -> None:
        self.unreachable.set_rows(reach.unreachable)
        self.coverage_summary.setText(
            f"{len(reach.unreachable)} of {counted(reach.checked, 'memory')} checked are not on "
            "page one for their own claim."
        )

    def _open(self, index) -> None:
        path = index.data(PATH_ROLE)
        if path:
            self.open_requested.emit(path)
