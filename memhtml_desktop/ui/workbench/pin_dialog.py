""" "Expect this memory for this query": a probe pinned from a search, in one gesture.

Opened from a result row's context menu with the query, the row's memory and the list it came
from. The memory's near-twins (asked for in the background: the core's suggestions among the query's
candidates, and the conflicts scan of that one memory) are offered as controls, checked; the hits ranked above it in the list
are offered too, unchecked. Pin commits the probe to the chosen set (a job; the dialog shows the
commit or the refusal in the write core's words). No I/O here.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.probes import EvalProbe
from memhtml_desktop.workbench import BadName, check_name

DEFAULT_SET = "probes"


class PinDialog(QDialog):
    """Query, target, set, controls, note; `pin_requested(set name, EvalProbe)` on Pin."""

    pin_requested = Signal(str, object)

    def __init__(
        self,
        query: str,
        target: str,
        title: str,
        above: list[tuple[str, str]],
        sets: list[str],
        scope: Any = None,
        current_set: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("pinDialog")
        self.setWindowTitle("Expect this memory for this query")
        self.target, self.scope = target, scope
        self.query = QLineEdit(query, self)
        self.query.setObjectName("pinQuery")
        self.query.setAccessibleName("Query")
        target_label = QLabel(f"<b>{_escape(title or target)}</b><br><small>{_escape(target)}</small>", self)
        target_label.setTextFormat(Qt.TextFormat.RichText)
        target_label.setWordWrap(True)
        self.set_name = QComboBox(self)
        self.set_name.setObjectName("pinSet")
        self.set_name.setEditable(True)
        self.set_name.setAccessibleName("Probe set")
        self.set_name.addItems(sets or [DEFAULT_SET])
        self.set_name.setCurrentText(current_set or (sets[0] if sets else DEFAULT_SET))
        self.controls = QListWidget(self)
        self.controls.setObjectName("pinControls")
        self.controls.setAccessibleName("Controls: memories that must rank below it")
        self.twins_note = QLabel("Looking for its near-twins\u2026", self)
        self.twins_note.setObjectName("pinTwinsNote")
        for path, name in above:
            self._add_control(path, f"{name or path} (ranked above it now)", checked=False)
        self.within = QSpinBox(self)
        self.within.setRange(1, 40)
        self.within.setValue(1)
        self.within.setAccessibleName("Passes when within this many first hits")
        self.within.setToolTip("1: it must come first; 10: anywhere on the first page")
        self.scoped = QCheckBox("only within the current filters", self)
        self.scoped.setEnabled(scope is not None and bool(_scope_json(scope)))
        self.note = QLineEdit(self)
        self.note.setAccessibleName("Note")
        self.note.setPlaceholderText("why this memory (\u201cthe runbook, not the incident\u201d)")
        self.error = QLabel(self)
        self.error.setObjectName("pinError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #D55E00")
        form = QFormLayout()
        form.addRow("&Query", self.query)
        form.addRow("Expect", target_label)
        form.addRow("In &set", self.set_name)
        form.addRow("&Controls", self.controls)
        form.addRow("", self.twins_note)
        form.addRow("Passes &within", self.within)
        form.addRow("", self.scoped)
        form.addRow("&Note", self.note)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.pin_button = self.buttons.addButton("&Pin probe", QDialogButtonBox.ButtonRole.AcceptRole)
        self.pin_button.setObjectName("pinButton")
        self.pin_button.setDefault(True)
        self.buttons.accepted.connect(self._pin)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.resize(560, 460)

    def add_sets(self, names: Any) -> None:
        """The store's sets, once listed (the typed or chosen name is kept)."""
        current = self.set_name.currentText()
        known = {self.set_name.itemText(i) for i in range(self.set_name.count())}
        for name in names:
            if name not in known:
                self.set_name.addItem(name)
        if names and current == DEFAULT_SET and DEFAULT_SET not in names:
            self.set_name.setCurrentText(names[0])
        else:
            self.set_name.setCurrentText(current)

    def _add_control(self, path: str, text: str, *, checked: bool) -> None:
        for i in range(self.controls.count()):
            item = self.controls.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == path:
                if checked:
                    item.setCheckState(Qt.CheckState.Checked)
                    item.setText(text)
                return
        item = QListWidgetItem(text, self.controls)
        item.setData(Qt.ItemDataRole.UserRole, path)
        item.setToolTip(path)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def set_twins(self, twins: Any) -> None:
        """The near-twins found (checked: a twin is the control a probe is about)."""
        for twin in twins:
            self._add_control(
                twin.path, f"{twin.title or twin.path} (near-twin: \u201c{_cut(twin.claim, 70)}\u201d)", checked=True
            )
        self.twins_note.setText(
            f"{counted(len(twins), 'near-twin')} of it (checked as controls)."
            if twins
            else "No near-twin of it among the candidates or in the store."
        )

    def chosen_controls(self) -> list[str]:
        return [
            self.controls.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(self.controls.count())
            if self.controls.item(i).checkState() == Qt.CheckState.Checked
        ]

    def probe(self) -> EvalProbe:
        return EvalProbe(
            query=" ".join(self.query.text().split()),
            target=self.target,
            controls=tuple(self.chosen_controls()),
            scope=self.scope if self.scoped.isChecked() else None,
            note=self.note.text().strip(),
            within=self.within.value(),
        )

    def _pin(self) -> None:
        name = self.set_name.currentText().strip()
        try:
            check_name(name, "probe set")
        except BadName as exc:
            self.say(str(exc))
            return
        if not self.query.text().strip():
            self.say("A probe needs a query.")
            return
        self.say("Committing\u2026", error=False)
        self.pin_button.setEnabled(False)
        self.pin_requested.emit(name, self.probe())

    def say(self, text: str, *, error: bool = True) -> None:
        self.error.setStyleSheet("color: #D55E00" if error else "")
        self.error.setText(text)
        if error:
            self.pin_button.setEnabled(True)


def _cut(text: str, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _escape(text: str) -> str:
    import html

    return html.escape(text or "")


def _scope_json(scope: Any) -> dict:
    from memhtml_desktop.domain.probes import scope_to_json

    return scope_to_json(scope)
