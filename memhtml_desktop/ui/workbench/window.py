"""The relevance workbench window: a probe set and two configurations on top, seven tabs below.

    Set [gate ▾]   A [memhtml ▾]  B [default ▾]   [Run A] [Compare A ↔ B] [Cancel] [████░░] status
    Probes | Compare | Configurations | History | Optimizer | Diagnostics | Judgments

A defaults to `memhtml` (what an agent on memhtml receives) and B to `default` (this app's), so
the first comparison a curator sees is the agent's against ours. Every action is a signal the
controller turns into a job; the window does no I/O. Keyboard: Ctrl+Enter runs, Ctrl+Shift+Enter
compares, Esc cancels a run (a second Esc closes), Ctrl+PgUp/PgDn and Alt+1..8 switch tabs.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.ui.workbench.compare_tab import CompareTab
from memhtml_desktop.ui.workbench.config_editor import ConfigEditor
from memhtml_desktop.ui.workbench.diagnostics_tab import DiagnosticsTab
from memhtml_desktop.ui.workbench.history_tab import HistoryTab
from memhtml_desktop.ui.workbench.judgments_tab import JudgmentsTab
from memhtml_desktop.ui.workbench.models import config_color
from memhtml_desktop.ui.workbench.optimizer_tab import OptimizerTab
from memhtml_desktop.ui.workbench.probes_tab import ProbesTab
from memhtml_desktop.ui.workbench.shapes_tab import ShapesTab

DRAFT_SUFFIX = " (draft)"


class WorkbenchWindow(QDialog):
    run_requested = Signal()
    compare_requested = Signal()
    cancel_requested = Signal()
    set_changed = Signal(str)
    configs_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workbenchWindow")
        self.setWindowTitle("Relevance workbench")
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.setMinimumSize(760, 520)
        self.sets = QComboBox(self)
        self.sets.setObjectName("setCombo")
        self.sets.setAccessibleName("Probe set")
        self.sets.setMinimumContentsLength(10)
        self.sets.currentTextChanged.connect(self.set_changed)
        self.config_a, self.config_b = self._config_combo("A"), self._config_combo("B")
        self.run_button = QPushButton("&Run A", self)
        self.run_button.setObjectName("runButton")
        self.run_button.setToolTip("Run configuration A on the probe set (Ctrl+Enter); the run is recorded")
        self.compare_button = QPushButton("&Compare A \u2194 B", self)
        self.compare_button.setObjectName("compareButton")
        self.compare_button.setToolTip("Run A and B on the probe set and list the probes that moved (Ctrl+Shift+Enter)")
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setObjectName("cancelButton")
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("workbenchProgress")
        self.progress.setAccessibleName("Progress")
        self.progress.setMaximumWidth(160)
        self.progress.hide()
        self.status = QLabel(self)
        self.status.setObjectName("workbenchStatus")
        self.status.setWordWrap(False)
        self.run_button.clicked.connect(self.run_requested)
        self.compare_button.clicked.connect(self.compare_requested)
        self.cancel_button.clicked.connect(self.cancel_requested)
        top = QHBoxLayout()
        set_label = QLabel("&Set", self)
        set_label.setBuddy(self.sets)
        top.addWidget(set_label)
        top.addWidget(self.sets)
        for label, combo in (("&A", self.config_a), ("&B", self.config_b)):
            lab = QLabel(label, self)
            lab.setBuddy(combo)
            top.addSpacing(6)
            top.addWidget(lab)
            top.addWidget(combo)
        top.addSpacing(6)
        for widget in (self.run_button, self.compare_button, self.cancel_button, self.progress):
            top.addWidget(widget)
        top.addStretch(1)
        self.probes, self.compare = ProbesTab(self), CompareTab(self)
        self.configs, self.history = ConfigEditor(self), HistoryTab(self)
        self.optimizer, self.diagnostics, self.judgments = OptimizerTab(self), DiagnosticsTab(self), JudgmentsTab(self)
        self.shapes = ShapesTab(self)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("workbenchTabs")
        self.tabs.setDocumentMode(True)
        for i, (tab, title) in enumerate(
            (
                (self.probes, "Probes"),
                (self.compare, "Side by side"),
                (self.configs, "Configurations"),
                (self.history, "History"),
                (self.optimizer, "Optimizer"),
                (self.diagnostics, "Diagnostics"),
                (self.judgments, "Judgments"),
                (self.shapes, "Shapes"),
            ),
            start=1,
        ):
            # Tabs answer to Alt+1..8 (said in their tooltips), leaving the letters to the buttons and fields.
            self.tabs.addTab(tab, title)
            self.tabs.setTabToolTip(self.tabs.count() - 1, f"{title} (Alt+{i})")
            QShortcut(QKeySequence(f"Alt+{i}"), self, lambda t=tab: self.tabs.setCurrentWidget(t))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.status)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self, self.run_requested.emit)
        for keys in ("Ctrl+Shift+Return", "Ctrl+Shift+Enter"):
            QShortcut(QKeySequence(keys), self, self.compare_requested.emit)
        self._configs: dict[str, Any] = {}
        self.resize(1024, 700)

    def _config_combo(self, side: str) -> QComboBox:
        combo = QComboBox(self)
        combo.setObjectName(f"config{side}")
        combo.setAccessibleName(f"Configuration {side}")
        combo.setMinimumContentsLength(12)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.currentIndexChanged.connect(lambda _: self.configs_changed.emit())
        return combo

    # -- data in -----------------------------------------------------------------------------------

    def set_sets(self, names: list[str], keep: str = "") -> None:
        current = keep or self.sets.currentText()
        self.sets.blockSignals(True)
        self.sets.clear()
        self.sets.addItems(names)
        if current in names:
            self.sets.setCurrentText(current)
        self.sets.blockSignals(False)
        has = bool(names)
        self.run_button.setEnabled(has)
        self.compare_button.setEnabled(has)
        if not has:
            self.say(
                "No probe set in this store yet: right-click a search result and choose "
                "\u201cExpect this memory for this query\u2026\u201d to pin the first probe."
            )

    def set_configurations(self, configs: list[Any]) -> None:
        """Fill A and B (kept where they were; A: memhtml and B: default the first time)."""
        drafts = {n: c for n, c in self._configs.items() if n.endswith(DRAFT_SUFFIX)}
        self._configs = {c.name: c for c in configs} | drafts
        for combo, default in ((self.config_a, "memhtml"), (self.config_b, "default")):
            current = combo.currentText() or default
            combo.blockSignals(True)
            combo.clear()
            for name in self._configs:
                combo.addItem(name)
                combo.setItemData(combo.count() - 1, config_color(name), Qt.ItemDataRole.DecorationRole)
            combo.setCurrentText(current if current in self._configs else default)
            combo.blockSignals(False)

    def use(self, config: Any, side: str) -> None:
        """Put `config` in A or B: a saved one under its name, anything else (an editor draft, the
        optimizer's best) as a draft that lives until the window closes."""
        saved = self._configs.get(config.name)
        if saved is not None and saved.profile == config.profile:
            name = config.name
        else:
            name = config.name if config.name.endswith(DRAFT_SUFFIX) else config.name + DRAFT_SUFFIX
            self._configs[name] = config
            for combo in (self.config_a, self.config_b):
                if combo.findText(name) < 0:
                    combo.addItem(name)
                    combo.setItemData(combo.count() - 1, config_color(name), Qt.ItemDataRole.DecorationRole)
        (self.config_a if side == "A" else self.config_b).setCurrentText(name)

    def chosen(self, side: str) -> Any:
        combo = self.config_a if side == "A" else self.config_b
        return self._configs.get(combo.currentText())

    def set_busy(self, busy: bool, text: str = "") -> None:
        self.cancel_button.setEnabled(busy)
        self.progress.setVisible(busy)
        if busy:
            self.progress.setRange(0, 0)
        if text:
            self.say(text)

    def set_progress(self, phase: str, done: int, total: int) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)
        self.progress.setFormat(f"{phase} %v/%m")

    def say(self, text: str) -> None:
        self.status.setText(text)

    def keyPressEvent(self, event: Any) -> None:
        """Esc cancels the running work first; with nothing running it closes the window."""
        if event.key() == Qt.Key.Key_Escape and self.cancel_button.isEnabled():
            self.cancel_requested.emit()
            event.accept()
            return
        super().keyPressEvent(event)
