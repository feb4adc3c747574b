"""One editor field per ranking knob, made from the knob's schema (`domain/knobs.py`): spin boxes held
inside the core's ranges, a check box, a choice of the allowed words, one value per arm or per
lexical field, or this store's embedder's value of a per-embedder threshold. Each field loads from a
profile and gives back the value `dataclasses.replace` puts in the draft.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from memhtml_desktop.domain.knobs import Knob
from memhtml_desktop.domain.ranking import PerEmbedder, RankingProfile
from memhtml_desktop.ui.kit import palette


def number_box(parent: QWidget, name: str, low: float, high: float, *, whole: bool = False) -> Any:
    """A spin box holding a value in [low, high]: 0.05 steps over a span of 1 or less, else tenths."""
    if whole:
        box: Any = QSpinBox(parent)
        box.setRange(int(low), int(high))
    else:
        box = QDoubleSpinBox(parent)
        box.setRange(low, high)
        box.setDecimals(3 if high - low <= 2 else 2)
        box.setSingleStep(0.05 if high - low <= 2 else 0.1)
    box.setAccessibleName(name)
    return box


class KnobField:
    """The widget(s) for one knob; `widget` goes in the form, `label` beside it ("" for a switch)."""

    def __init__(self, knob: Knob, parent: QWidget, changed: Callable[..., Any]) -> None:
        self.knob = knob
        self.boxes: dict[str, Any] = {}
        self.label = "" if knob.kind == "switch" else knob.label
        tip = f"{knob.label}: {knob.help} ({knob.name})"
        if knob.kind in ("arms", "fields"):
            self.widget = QWidget(parent)
            row = QGridLayout(self.widget)
            row.setContentsMargins(0, 0, 0, 0)
            per_row = 2 if len(knob.parts) > 3 else 3  # the four arms two by two: the column stays narrow
            for i, part in enumerate(knob.parts):
                what = (
                    f"Weight of the {palette.ARM_TITLES.get(part, part)} arm"
                    if knob.kind == "arms"
                    else f"{knob.label}: {part}"
                )
                box = number_box(self.widget, what, knob.low, knob.high)
                box.setObjectName(f"weight_{part}" if knob.kind == "arms" else f"knob_{knob.name}_{part}")
                box.setPrefix(f"{palette.ARM_LABELS.get(part, part)} ")
                box.setToolTip(palette.ARM_HELP.get(part, tip) if knob.kind == "arms" else tip)
                box.valueChanged.connect(changed)
                self.boxes[part] = box
                row.addWidget(box, i // per_row, i % per_row)
            return
        if knob.kind == "switch":
            widget: Any = QCheckBox(knob.label, parent)
            widget.toggled.connect(changed)
        elif knob.kind == "choice":
            widget = QComboBox(parent)
            widget.addItems(list(knob.choices))
            widget.currentIndexChanged.connect(changed)
        elif knob.kind == "text":
            widget = QLineEdit(parent)
            widget.textChanged.connect(changed)
        else:  # whole, number, per_embedder
            widget = number_box(parent, knob.label, knob.low, knob.high, whole=knob.kind == "whole")
            widget.valueChanged.connect(changed)
        widget.setObjectName(f"knob_{knob.name}")
        widget.setAccessibleName(knob.label)
        widget.setToolTip(tip)
        self.widget = widget

    def load(self, profile: RankingProfile, model_id: str | None) -> None:
        value, kind, w = getattr(profile, self.knob.name), self.knob.kind, self.widget
        if kind == "arms":
            for name, box in self.boxes.items():
                box.setValue(profile.weight(name))
        elif kind == "fields":
            for box, v in zip(self.boxes.values(), value):
                box.setValue(v)
        elif kind == "per_embedder":
            w.setValue(value.get(model_id))
        elif kind == "switch":
            w.setChecked(value)
        elif kind == "choice":
            w.setCurrentText(value)
        elif kind == "text":
            w.setText(str(value))
        else:
            w.setValue(value)

    def value(self, base: RankingProfile, model_id: str | None) -> Any:
        """The knob's value in a draft over `base` (a per-embedder table: `base`'s, this embedder's set)."""
        kind, w = self.knob.kind, self.widget
        if kind == "arms":
            return tuple(
                replace(a, weight=self.boxes[a.name].value()) if a.name in self.boxes else a for a in base.arms
            )
        if kind == "fields":
            return tuple(round(box.value(), 4) for box in self.boxes.values())
        if kind == "per_embedder":
            table: PerEmbedder = getattr(base, self.knob.name)
            value = round(w.value(), 4)
            if value == round(table.get(model_id), 4):
                return table  # untouched: the base's table as it is
            if model_id is None or model_id == "*":
                return PerEmbedder(table.values, value)
            return PerEmbedder(tuple({**dict(table.values), model_id: value}.items()), table.default)
        if kind == "switch":
            return w.isChecked()
        if kind == "choice":
            return w.currentText()
        if kind == "text":
            return w.text()
        return w.value() if kind == "whole" else round(w.value(), 4)
