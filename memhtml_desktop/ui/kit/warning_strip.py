"""A warning strip: a plain-text label on the warning colour, shown only while it has something to say."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QWidget

from memhtml_desktop.ui.kit import palette


def warning_strip(parent: QWidget, name: str) -> QLabel:
    """A hidden, word-wrapped, plain-text strip named `name` (its colours are set by `warn`)."""
    label = QLabel(parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setVisible(False)
    label.setAutoFillBackground(True)
    label.setMargin(4)
    return label


def warn(label: QLabel, text: str) -> None:
    """Show `text` on the warning colour, its text colour made legible there; hide it when empty."""
    pal = label.palette()
    pal.setColor(label.backgroundRole(), QColor(palette.warning_color()))
    pal.setColor(
        label.foregroundRole(), palette.legible(pal.color(label.foregroundRole()), QColor(palette.warning_color()))
    )
    label.setPalette(pal)
    label.setText(text)
    label.setVisible(bool(text))
