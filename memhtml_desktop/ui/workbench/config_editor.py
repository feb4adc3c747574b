"""The Configurations tab: every configuration (the shipped two, read-only; the store's what-ifs),
and an editor for a what-if: arm weights, RRF's k, the arm window, the pool factor, MMR's λ, the
polarity and twin switches and the thresholds for this store's embedder.

Validation is the core's own, and pure (no I/O, so it runs as the person types): the draft is
written as the file it would be saved as (`domain/configs.configuration_text`) and read back
(`parse_configuration`), and the name is checked as a file name (`workbench/locations.check_name`).
A draft that reads is usable at once — as A or B, for a run, a comparison or a search — before it
is saved; saving commits the file (a job on the curate pool).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QListWidget,
    QListWidgetItem, QPushButton, QScrollArea, QSpinBox, QSplitter, QVBoxLayout, QWidget,
)

from memhtml_desktop.domain.configs import ConfigError, Configuration, configuration_text, parse_configuration
from memhtml_desktop.domain.ranking import FTS_FORMS, PROFILES, PerEmbedder
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.workbench import BadName, check_name

ARMS = ("fts", "vector", "recency", "salience")


def _spin(parent: QWidget, name: str, low: float, high: float, step: float, decimals: int = 2) -> QDoubleSpinBox:
    box = QDoubleSpinBox(parent)
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setDecimals(decimals)
    box.setAccessibleName(name)
    return box


def _int_spin(parent: QWidget, name: str, low: int, high: int) -> QSpinBox:
    box = QSpinBox(parent)
    box.setRange(low, high)
    box.setAccessibleName(name)
    return box


class ConfigEditor(QWidget):
    """The configurations list and the what-if editor. `draft()` is the valid draft or None."""

    use_requested = Signal(object, str)  # a Configuration, "A" or "B"
    save_requested = Signal(str, object, str, str)  # name, profile, base, note
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workbenchConfigs")
        self.model_id: str | None = None
        self.configs: tuple[Configuration, ...] = ()
        self._loading = False
        self.list = QListWidget(self)
        self.list.setObjectName("configList")
        self.list.setAccessibleName("Configurations")
        self.list.currentRowChanged.connect(self._pick)
        self.problems = QLabel(self)
        self.problems.setObjectName("configProblems")
        self.problems.setWordWrap(True)
        self.problems.hide()
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("Configurations (shipped ones are read-only)", left))
        left_layout.addWidget(self.list, 1)
        left_layout.addWidget(self.problems)

        form_host = QWidget(self)
        form = QFormLayout(form_host)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.name = QLineEdit(form_host)
        self.name.setObjectName("configName")
        self.name.setAccessibleName("What-if name")
        self.base = QComboBox(form_host)
        self.base.setAccessibleName("Base profile")
        self.base.addItems(list(PROFILES))
        self.note = QLineEdit(form_host)
        self.note.setAccessibleName("Note")
        self.note.setPlaceholderText("why this what-if (saved in the file)")
        form.addRow("&Name", self.name)
        form.addRow("Based &on", self.base)
        form.addRow("No&te", self.note)
        self.arms: dict[str, QDoubleSpinBox] = {}
        arms_row = QHBoxLayout()
        for arm in ARMS:
            box = _spin(form_host, f"Weight of the {palette.ARM_TITLES[arm]} arm", 0.0, 10.0, 0.1)
            box.setObjectName(f"weight_{arm}")
            box.setPrefix(f"{palette.ARM_LABELS[arm]} ")
            box.setToolTip(palette.ARM_HELP.get(arm, arm))
            self.arms[arm] = box
            arms_row.addWidget(box)
        form.addRow("Arm weights", arms_row)
        self.rrf_k = _int_spin(form_host, "RRF k", 1, 1000)
        self.rrf_k.setObjectName("rrfK")
        self.window = _int_spin(form_host, "Arm window", 1, 500)
        self.pool = _int_spin(form_host, "Pool factor", 1, 20)
        numbers = QHBoxLayout()
        for label, box in (("k", self.rrf_k), ("window", self.window), ("pool \u00d7", self.pool)):
            numbers.addWidget(QLabel(label, form_host))
            numbers.addWidget(box)
        form.addRow("Fusion", numbers)
        self.mmr = _spin(form_host, "MMR lambda", 0.0, 1.0, 0.05)
        self.mmr.setObjectName("mmrLambda")
        self.mmr.setToolTip("1.0: no diversification; lower: more")
        self.keeps = QCheckBox("keeps known items", form_host)
        mmr_row = QHBoxLayout()
        mmr_row.addWidget(self.mmr)
        mmr_row.addWidget(self.keeps)
        form.addRow("MMR \u03bb", mmr_row)
        self.fts_forms = QComboBox(form_host)
        self.fts_forms.setAccessibleName("Lexical forms")
        self.fts_forms.addItems(list(FTS_FORMS))
        form.addRow("&Lexical", self.fts_forms)
        self.polarity = QCheckBox("polarity step", form_host)
        self.twins = QCheckBox("twin resolution", form_host)
        self.gate = QCheckBox("priors only for matches", form_host)
        self.gate.setToolTip("Recency and salience count only for memories that hold every query word "
                             "or reach the relevance floor (docs/ranking.md)")
        switches = QHBoxLayout()
        switches.addWidget(self.polarity)
        switches.addWidget(self.twins)
        switches.addWidget(self.gate)
        form.addRow("Switches", switches)
        self.twin_cosine = _spin(form_host, "Twin cosine for this embedder", 0.0, 1.0, 0.01, 3)
        self.floor = _spin(form_host, "Relevance floor for this embedder", -1.0, 1.0, 0.05, 3)
        thresholds = QHBoxLayout()
        for label, box in (("twin cos", self.twin_cosine), ("floor", self.floor)):
            thresholds.addWidget(QLabel(label, form_host))
            thresholds.addWidget(box)
        form.addRow("Thresholds", thresholds)
        self.verdict = QLabel(form_host)
        self.verdict.setObjectName("configVerdict")
        self.verdict.setWordWrap(True)
        form.addRow(self.verdict)
        self.use_a = QPushButton("&Use as A", form_host)
        self.use_b = QPushButton("Us&e as B", form_host)
        self.save = QPushButton("Sa&ve what-if", form_host)
        self.save.setObjectName("saveConfigButton")
        self.save.setToolTip("Commit .memhtml-desktop/configs/NAME.json to the store (one commit)")
        buttons = QHBoxLayout()
        for button in (self.use_a, self.use_b, self.save):
            buttons.addWidget(button)
        buttons.addStretch(1)
        form.addRow(buttons)
        self.use_a.clicked.connect(lambda: self._use("A"))
        self.use_b.clicked.connect(lambda: self._use("B"))
        self.save.clicked.connect(self._save)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(form_host)
        for widget in (self.name, self.note):
            widget.textChanged.connect(self._edited)
        for combo in (self.base, self.fts_forms):
            combo.currentIndexChanged.connect(self._edited)
        for box in (*self.arms.values(), self.rrf_k, self.window, self.pool, self.mmr, self.twin_cosine, self.floor):
            box.valueChanged.connect(self._edited)
        for check in (self.keeps, self.polarity, self.twins, self.gate):
            check.toggled.connect(self._edited)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(scroll)
        split.setStretchFactor(1, 3)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(split)
        self._draft: Configuration | None = None

    # -- data in -----------------------------------------------------------------------------------

    def set_configurations(self, listing: Any, model_id: str | None) -> None:
        self.model_id = model_id
        current = self.list.currentItem().data(Qt.ItemDataRole.UserRole) if self.list.currentItem() else None
        self.configs = tuple(listing.configurations)
        self.list.blockSignals(True)
        self.list.clear()
        for config in self.configs:
            item = QListWidgetItem(config.name + (" (shipped, read-only)" if config.read_only else ""))
            item.setData(Qt.ItemDataRole.UserRole, config.name)
            item.setToolTip(config.note or config.source)
            self.list.addItem(item)
        self.list.blockSignals(False)
        names = [c.name for c in self.configs]
        self.list.setCurrentRow(names.index(current) if current in names else 0)
        self.problems.setText("\n".join(f"\u26a0 {p}" for p in listing.problems))
        self.problems.setVisible(bool(listing.problems))

    def _pick(self, row: int) -> None:
        if 0 <= row < len(self.configs):
            self.load(self.configs[row])

    def load(self, config: Configuration) -> None:
        """Fill the editor from `config` (a shipped one gets a fresh what-if name)."""
        p = config.profile
        self._loading = True
        self.name.setText(f"{config.name}-whatif" if config.read_only else config.name)
        self.base.setCurrentText(config.name if config.read_only else config.base)
        self.note.setText("" if config.read_only else config.note)
        for arm, box in self.arms.items():
            box.setValue(p.weight(arm))
        self.rrf_k.setValue(p.rrf_k)
        self.window.setValue(p.arm_window)
        self.pool.setValue(p.pool_factor)
        self.mmr.setValue(p.mmr_lambda)
        self.keeps.setChecked(p.mmr_keeps_known_items)
        self.fts_forms.setCurrentText(p.fts_forms)
        self.polarity.setChecked(p.polarity)
        self.twins.setChecked(p.twins)
        self.gate.setChecked(p.gate_priors)
        self.twin_cosine.setValue(p.twin_cosine.get(self.model_id))
        self.floor.setValue(p.floor_cosine.get(self.model_id))
        self._loading = False
        self._edited()

    # -- the draft ---------------------------------------------------------------------------------

    def _profile(self) -> Any:
        base = PROFILES[self.base.currentText()]
        arms = tuple(replace(a, weight=self.arms[a.name].value()) if a.name in self.arms else a for a in base.arms)
        model = self.model_id or "*"

        def per(table: PerEmbedder, value: float) -> PerEmbedder:
            values = dict(table.values)
            if model == "*":
                return PerEmbedder(tuple(values.items()), value)
            values[model] = value
            return PerEmbedder(tuple(values.items()), table.default)

        return replace(base, arms=arms, rrf_k=self.rrf_k.value(), arm_window=self.window.value(),
                       pool_factor=self.pool.value(), mmr_lambda=round(self.mmr.value(), 4),
                       mmr_keeps_known_items=self.keeps.isChecked(), fts_forms=self.fts_forms.currentText(),
                       polarity=self.polarity.isChecked(), twins=self.twins.isChecked(),
                       gate_priors=self.gate.isChecked(),
                       twin_cosine=per(base.twin_cosine, round(self.twin_cosine.value(), 4)),
                       floor_cosine=per(base.floor_cosine, round(self.floor.value(), 4)))

    def validate(self) -> tuple[Configuration | None, str]:
        """(the draft as a configuration, "") or (None, what is wrong)."""
        name = self.name.text().strip()
        try:
            check_name(name, "configuration")
            if name in PROFILES:
                raise BadName(f"{name!r} is shipped and read-only; give the what-if another name")
            base = PROFILES[self.base.currentText()]
            text = configuration_text(self._profile(), base=base, note=self.note.text().strip(), name=name)
            return parse_configuration(text, source=f"{name} (draft)", name=name), ""
        except (BadName, ConfigError, ValueError) as exc:
            return None, str(exc)

    def _edited(self, *_: Any) -> None:
        if self._loading:
            return
        self._draft, problem = self.validate()
        ok = self._draft is not None
        color = palette.muted_color().name() if ok else "#D55E00"
        if ok:
            knobs = ", ".join(f"{k}" for k in self._draft.knobs) or "nothing (same as its base)"
            text = f"\u2713 valid \u2014 differs from {self._draft.base} in: {knobs}"
        else:
            text = f"\u2717 {problem}"
        self.verdict.setText(f"<span style='color:{color}'>{text}</span>")
        self.verdict.setAccessibleDescription(text)
        for button in (self.use_a, self.use_b, self.save):
            button.setEnabled(ok)
        self.changed.emit()

    def draft(self) -> Configuration | None:
        return self._draft

    def _use(self, side: str) -> None:
        if self._draft is not None:
            self.use_requested.emit(self._draft, side)

    def _save(self) -> None:
        if self._draft is not None:
            self.save_requested.emit(self._draft.name, self._draft.profile, self.base.currentText(),
                                     self.note.text().strip())
