"""Edit → Settings: a dialog generated from `settings.SETTINGS`, one editor per row of the table.

The row decides the editor: `choices` give a combo box, an int default a spin box (`bounds`,
`unit`), a bool a check box, `kind="dir"`/`"file"` a line edit with a Browse button, anything
else a line edit. The row's help text is the editor's tooltip and the grey line under it, so a
setting added to the table shows up here, documented, with no code in this module.

The dialog edits a copy: it never writes QSettings and never touches the window. The caller
reads `changes()` after `exec()` (only what the person changed), persists it with
`settings_store.save_persisted` and applies it. Settings in `APPLY_ON_REOPEN` take effect when the
store is opened again; the rest can be applied to a running window.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.settings import SETTINGS, Setting, Settings, _coerce

#: Settings that the Store is built with: changing one means opening the store again.
APPLY_ON_REOPEN = frozenset({"store", "index", "embedder", "vector_backend", "watch"})


def label_for(setting: Setting) -> str:
    """`recall_budget` → "Recall budget"."""
    text = setting.name.replace("_", " ")
    return text[:1].upper() + text[1:]


class HelpLabel(QLabel):
    """A wrapped grey help line whose minimum height is what its text needs at its width.

    A grid lays wrapped labels out by height-for-width only partly: its minimum size ignores it
    (the dialog then clipped the lines, losing "~/memhtml" and the underscore of $MEMHTML_ROOT)
    and its height-for-width pass overestimates (gaps). Here the label reports a plain size
    hint measured at its current width, and asks for a new layout when its width changes.
    """

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)  # "$MEMHTML_ROOT" and "~/memhtml" as written
        self.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.setContentsMargins(0, 0, 0, 8)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self._measured = 0

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return False

    def _need(self) -> int:
        width = self.width() if self.width() > 50 else 480
        return super().heightForWidth(width)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(super().sizeHint().width(), self._need())

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(super().minimumSizeHint().width(), self._need())

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.width() != self._measured:
            self._measured = self.width()
            self.updateGeometry()


class SettingsDialog(QDialog):
    """One editor per setting; `changes()` after `exec()` says what the person changed.

    Args:
        settings: the values the editors start from (the window's current Settings).
        environ: the environment to check for overriding variables (default `os.environ`); a
            setting whose variable is set says so, because the variable wins at the next start.
        choice_notes: `{setting: {choice: why it cannot be used}}`, e.g. an embedder whose extra is
            not installed; the choice stays selectable and is labelled.
    """

    def __init__(
        self,
        settings: Settings,
        parent: QWidget | None = None,
        *,
        table: tuple[Setting, ...] = SETTINGS,
        environ: Mapping[str, str] | None = None,
        choice_notes: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("SettingsDialog")
        self.setWindowTitle("Settings \u2014 memhtml desktop")
        self.initial = settings
        self.table = table
        self._environ = os.environ if environ is None else environ
        self._notes = choice_notes or {}
        self._editors: dict[str, QWidget] = {}

        # A grid, not a QFormLayout: the wrapped help line spans the field column at full width
        # (nested in a form row it is squeezed to the width of a combo box and clipped).
        grid = QGridLayout()
        grid.setColumnStretch(1, 1)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(2)
        for i, setting in enumerate(table):
            editor, field = self._make_editor(setting)
            editor.setObjectName(f"setting_{setting.name}")
            editor.setToolTip(setting.help)
            self._editors[setting.name] = editor
            self.set_value(setting.name, getattr(settings, setting.name, setting.default))
            label = QLabel(label_for(setting) + ":", self)
            label.setBuddy(editor)
            label.setToolTip(setting.help)
            description = HelpLabel(self._description(setting), self)
            description.setObjectName(f"help_{setting.name}")
            grid.addWidget(label, 2 * i, 0)
            grid.addWidget(field, 2 * i, 1)
            grid.addWidget(description, 2 * i + 1, 1)
        names = [label_for(s).lower() for s in table if s.name in APPLY_ON_REOPEN]
        reopen = " and ".join(filter(None, [", ".join(names[:-1]), names[-1] if names else ""]))
        footer = HelpLabel(f"Changes to {reopen} take effect when the store is opened again.", self)
        footer.setContentsMargins(0, 0, 0, 0)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults,
            self,
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(self.restore_defaults)

        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addStretch(1)
        layout.addWidget(footer)
        layout.addWidget(self.buttons)
        self.resize(640, 1)

    def showEvent(self, event) -> None:  # noqa: N802
        """Fit the height to the help lines as laid out at this width: no clipping, no empty band."""
        super().showEvent(event)
        for _ in range(3):  # widths settle, the lines re-measure, the minimum height follows
            self.layout().activate()
            self.resize(self.width(), self.layout().minimumSize().height())

    # -- building ---------------------------------------------------------------------------------

    def _description(self, setting: Setting) -> str:
        text = setting.help
        if setting.env and self._environ.get(setting.env):
            text += f" Now set by ${setting.env}, which wins over the value saved here."
        return text

    def _make_editor(self, setting: Setting) -> tuple[QWidget, QWidget]:
        """`(editor, field)`: the widget holding the value, and what goes in the form's row."""
        default = setting.default
        if setting.choices:
            combo = QComboBox(self)
            notes = self._notes.get(setting.name, {})
            for choice in setting.choices:
                note = notes.get(choice)
                combo.addItem(f"{choice} (not available)" if note else choice, choice)
                if note:
                    combo.setItemData(combo.count() - 1, note, Qt.ItemDataRole.ToolTipRole)
            return combo, combo
        if isinstance(default, bool):
            box = QCheckBox(self)
            return box, box
        if isinstance(default, int):
            spin = QSpinBox(self)
            low, high, step = setting.bounds or (0, 1_000_000, 1)
            spin.setRange(low, high)
            spin.setSingleStep(step)
            spin.setGroupSeparatorShown(True)
            if setting.unit:
                spin.setSuffix(f" {setting.unit}")
            return spin, spin
        line = QLineEdit(self)
        line.setClearButtonEnabled(True)
        if not default:
            line.setPlaceholderText("(default)")
        if setting.kind not in ("dir", "file"):
            return line, line
        row = QWidget(self)
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(line, 1)
        browse = QPushButton("Browse\u2026", row)
        browse.setObjectName(f"browse_{setting.name}")
        browse.clicked.connect(lambda _=False, s=setting: self._browse(s))
        box.addWidget(browse)
        return line, row

    def _browse(self, setting: Setting) -> None:
        line = self._editors[setting.name]
        assert isinstance(line, QLineEdit)
        current = line.text().strip()
        start = str(Path(current).expanduser()) if current else str(Path.home())
        title = f"Choose the {label_for(setting).lower()}"
        if setting.kind == "dir":
            chosen = QFileDialog.getExistingDirectory(self, title, start)
        else:
            chosen, _ = QFileDialog.getSaveFileName(
                self,
                title,
                start,
                "SQLite index (*.db);;All files (*)",
                options=QFileDialog.Option.DontConfirmOverwrite,
            )
        if chosen:
            line.setText(chosen)

    # -- values -----------------------------------------------------------------------------------

    def editor(self, name: str) -> QWidget:
        return self._editors[name]

    def set_value(self, name: str, value: Any) -> None:
        editor = self._editors[name]
        if isinstance(editor, QComboBox):
            index = editor.findData(value)
            editor.setCurrentIndex(max(index, 0))
        elif isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QSpinBox):
            editor.setValue(int(value))
        elif isinstance(editor, QLineEdit):
            editor.setText("" if value is None else str(value))

    def value(self, name: str) -> Any:
        editor = self._editors[name]
        if isinstance(editor, QComboBox):
            raw: Any = editor.currentData()
        elif isinstance(editor, QCheckBox):
            raw = editor.isChecked()
        elif isinstance(editor, QSpinBox):
            raw = editor.value()
        else:
            assert isinstance(editor, QLineEdit)
            raw = editor.text().strip()
        setting = next(s for s in self.table if s.name == name)
        return _coerce(setting, raw)

    def values(self) -> dict[str, Any]:
        """Every setting as the editors now hold it."""
        return {s.name: self.value(s.name) for s in self.table}

    def changes(self) -> dict[str, Any]:
        """Only the settings whose value differs from the one the dialog opened with."""
        return {name: value for name, value in self.values().items() if value != getattr(self.initial, name, None)}

    def result_settings(self) -> Settings:
        """The opening Settings with the changes applied."""
        return self.initial.with_(**self.changes())

    def restore_defaults(self) -> None:
        for setting in self.table:
            self.set_value(setting.name, setting.default)


def edit_settings(settings: Settings, parent: QWidget | None = None, **options: Any) -> dict[str, Any] | None:
    """Show the dialog modally; the changes when accepted, None when cancelled."""
    dialog = SettingsDialog(settings, parent, **options)
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.changes()
    finally:
        dialog.deleteLater()
