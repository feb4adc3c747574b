"""The Configurations tab: every configuration (the shipped two, read-only; the store's what-ifs),
and an editor for a what-if with a field for every knob of the ranking profile, grouped (fusion,
the lexical arm, after fusion, the thresholds for this store's embedder, recall). The fields are
made from the profile's schema (`domain/knobs.py`: each field of `RankingProfile`, its range,
choices and description), so a knob added to the profile appears here without editing this tab.

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
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.configs import ConfigError, Configuration, configuration_text, parse_configuration
from memhtml_desktop.domain.knobs import Knob, knobs
from memhtml_desktop.domain.ranking import PROFILES
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.workbench.knob_fields import KnobField
from memhtml_desktop.workbench import BadName, check_name

GRID = {
    "Fusion": (0, 0),
    "Lexical arm": (1, 0),
    "After fusion": (0, 1),
    "Thresholds for this embedder": (1, 1),
    "Recall": (2, 1),
    "Other": (2, 0),
}
"""Where each group of knobs sits: two columns, so 1024 px shows most of them without scrolling."""


def _by_group(all_knobs: tuple[Knob, ...]) -> dict[str, list[Knob]]:
    groups: dict[str, list[Knob]] = {}
    for knob in all_knobs:
        groups.setdefault(knob.group, []).append(knob)
    return groups


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
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # long names elide
        self.list.currentRowChanged.connect(self._pick)
        self.problems = QLabel(self)
        self.problems.setObjectName("configProblems")
        self.problems.setWordWrap(True)
        self.problems.hide()
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        caption = QLabel("Configurations (shipped ones are read-only)", left)
        caption.setWordWrap(True)
        left_layout.addWidget(caption)
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
        self.fields: dict[str, KnobField] = {}
        groups = QGridLayout()
        for n, (group, members) in enumerate(_by_group(knobs()).items()):
            box = QGroupBox(group, form_host)
            rows = QFormLayout(box)
            rows.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            for knob in members:
                field = self.fields[knob.name] = KnobField(knob, box, self._edited)
                rows.addRow(field.label, field.widget) if field.label else rows.addRow(field.widget)
            groups.addWidget(box, *GRID.get(group, (n, 0)))
        groups.setColumnStretch(0, 1)
        groups.setColumnStretch(1, 1)
        form.addRow(groups)
        self.arms: dict[str, QDoubleSpinBox] = self.fields["arms"].boxes
        right = QWidget(self)  # the knobs scroll; the verdict and the buttons stay in sight under them
        self.verdict = QLabel(right)
        self.verdict.setObjectName("configVerdict")
        self.verdict.setWordWrap(True)
        self.use_a = QPushButton("&Use as A", right)
        self.use_b = QPushButton("Us&e as B", right)
        self.save = QPushButton("Sa&ve what-if", right)
        self.save.setObjectName("saveConfigButton")
        self.save.setToolTip("Commit .memhtml-desktop/configs/NAME.json to the store (one commit)")
        buttons = QHBoxLayout()
        for button in (self.use_a, self.use_b, self.save):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.use_a.clicked.connect(lambda: self._use("A"))
        self.use_b.clicked.connect(lambda: self._use("B"))
        self.save.clicked.connect(self._save)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(form_host)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(scroll, 1)
        right_layout.addWidget(self.verdict)
        right_layout.addLayout(buttons)
        for widget in (self.name, self.note):
            widget.textChanged.connect(self._edited)
        self.base.currentIndexChanged.connect(self._edited)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 4)
        split.setSizes([190, 810])  # the names are short; the knobs need the width
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
        for field in self.fields.values():
            field.load(p, self.model_id)
        self._loading = False
        self._edited()

    # -- the draft ---------------------------------------------------------------------------------

    def _profile(self) -> Any:
        base = PROFILES[self.base.currentText()]
        return replace(base, **{name: field.value(base, self.model_id) for name, field in self.fields.items()})

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
            self.save_requested.emit(
                self._draft.name, self._draft.profile, self.base.currentText(), self.note.text().strip()
            )
