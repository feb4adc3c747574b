"""The Optimizer tab: search arm weights, RRF's k and MMR's λ for the best MRR on the probe set,
starting from configuration A, with a held-out part so the gain is honest.

Start runs the search as a job with progress; Stop ends it early and still shows the best found
so far (the core's optimizer answers with it). The result names the held-out gain, its 95 %
interval and the sign test, and the chosen knobs; it can be used as B or saved as a what-if.
No I/O here.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ui.workbench.models import FAIL_COLOR, PASS_COLOR


class OptimizerTab(QWidget):
    start_requested = Signal(int, float)  # trials, held-out share
    stop_requested = Signal()
    use_requested = Signal(object)  # the best Configuration, as B
    save_requested = Signal(str, object)  # name, the best Configuration

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workbenchOptimizer")
        self.result: Any = None
        self.trials = QSpinBox(self)
        self.trials.setRange(10, 5000)
        self.trials.setValue(200)
        self.trials.setSingleStep(50)
        self.trials.setAccessibleName("Trials")
        self.holdout = QDoubleSpinBox(self)
        self.holdout.setRange(0.1, 0.6)
        self.holdout.setSingleStep(0.05)
        self.holdout.setValue(0.3)
        self.holdout.setAccessibleName("Held-out share")
        self.start = QPushButton("S&tart", self)
        self.start.setObjectName("optimizeButton")
        self.stop = QPushButton("Sto&p", self)
        self.stop.setObjectName("stopOptimizeButton")
        self.stop.setEnabled(False)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("optimizeProgress")
        self.progress.setAccessibleName("Optimizer progress")
        self.progress.setFormat("%v / %m trials")
        self._running = False
        self._idle_range(self.trials.value())
        self.trials.valueChanged.connect(self._idle_range)
        row = QHBoxLayout()
        for label, widget in (("Trials", self.trials), ("held out", self.holdout)):
            row.addWidget(QLabel(label, self))
            row.addWidget(widget)
        row.addWidget(self.start)
        row.addWidget(self.stop)
        row.addWidget(self.progress, 1)
        self.intro = QLabel(
            "Searches from configuration A on the probe set: the search sees only the training "
            "part; the gain reported is on the held-out part.",
            self,
        )
        self.intro.setWordWrap(True)
        self.report = QLabel(self)
        self.report.setObjectName("optimizeReport")
        self.report.setWordWrap(True)
        self.report.setTextFormat(Qt.TextFormat.RichText)
        self.report.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.save_name = QLineEdit(self)
        self.save_name.setAccessibleName("Name to save the best configuration as")
        self.save_name.setPlaceholderText("what-if name")
        self.use_b = QPushButton("Us&e as B", self)
        self.save = QPushButton("Sa&ve as what-if", self)
        after = QFormLayout()
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_name, 1)
        buttons.addWidget(self.save)
        buttons.addWidget(self.use_b)
        after.addRow(buttons)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.intro)
        layout.addLayout(row)
        layout.addWidget(self.report)
        layout.addLayout(after)
        layout.addStretch(1)
        self.start.clicked.connect(lambda: self.start_requested.emit(self.trials.value(), self.holdout.value()))
        self.stop.clicked.connect(self.stop_requested)
        self.use_b.clicked.connect(lambda: self.result is not None and self.use_requested.emit(self.result.best))
        self.save.clicked.connect(self._save)
        self._enable_result(False)

    def _enable_result(self, on: bool) -> None:
        for widget in (self.use_b, self.save, self.save_name):
            widget.setEnabled(on)

    def _idle_range(self, trials: int) -> None:
        """Before a run the bar counts the trials the spin box asks for ("0 / 200", not Qt's "0 / 100")."""
        if not self._running:
            self.progress.setRange(0, max(1, trials))
            self.progress.setValue(0)

    def set_running(self, running: bool, trials: int = 0) -> None:
        self._running = running
        self.start.setEnabled(not running)
        self.stop.setEnabled(running)
        if running:
            self.progress.setRange(0, max(1, trials))
            self.progress.setValue(0)
            self.report.setText("Reading the probe set\u2026")

    def set_progress(self, phase: str, done: int, total: int) -> None:
        if phase == "trial":
            self.progress.setRange(0, max(1, total))
            self.progress.setValue(done)
            self.report.setText(f"Trial {done} of {total}\u2026")
        else:
            self.report.setText(
                f"Reading the store for the probe set: {done} of {counted(total, 'query', 'queries')}\u2026"
            )

    def show_result(self, result: Any) -> None:
        self.result = result
        self.set_running(False)
        self.progress.setRange(0, max(1, result.asked or result.trials))  # "184 / 200" when it ended early
        self.progress.setValue(result.trials)
        gain = result.held_out_gain
        c = result.certainty
        color = PASS_COLOR if c.interval[0] > 0 else (FAIL_COLOR if c.interval[1] < 0 else "")
        sure = (
            "the whole interval is above zero: a real gain"
            if c.interval[0] > 0
            else "the interval includes zero: not shown to help"
            if c.interval[1] >= 0
            else "the whole interval is below zero: worse"
        )
        knobs = result.knobs
        arms = ", ".join(f"{a} {w:g}" for a, w in knobs["arms"].items())
        ended = getattr(result, "ended", "") or ("stopped early: the best found so far" if result.cancelled else "")
        stopped = f" <b>({ended})</b>" if ended else ""
        self.report.setText(
            f"{counted(result.trials, 'trial')} in {result.elapsed_s:.1f} s{stopped}<br>"
            f"Training ({counted(len(result.train), 'probe')}): MRR {result.base_train_mrr:.3f} \u2192 {result.best_train_mrr:.3f}<br>"
            f"<b>Held out ({counted(len(result.held_out), 'probe')}): MRR {result.base_held_out_mrr:.3f} \u2192 "
            f"{result.best_held_out_mrr:.3f}, gain <span style='color:{color}'>{gain:+.3f}</span></b><br>"
            f"95 % interval [{c.interval[0]:+.3f}, {c.interval[1]:+.3f}] \u2014 {sure}; "
            f"{counted(c.wins, 'probe')} up, {c.losses} down, sign test p = {c.p_value:.3f}<br>"
            f"Best: weights {arms}; k {knobs['rrf_k']}; \u03bb {knobs['mmr_lambda']:g}"
        )
        if not self.save_name.text():
            self.save_name.setText(f"{result.base.name.replace(' ', '-').replace('(', '').replace(')', '')}-optimized")
        self._enable_result(True)

    def show_failure(self, message: str) -> None:
        self.set_running(False)
        self._idle_range(self.trials.value())
        self.report.setText(f"The optimizer stopped: {message}")

    def _save(self) -> None:
        if self.result is not None and self.save_name.text().strip():
            self.save_requested.emit(self.save_name.text().strip(), self.result.best)
