"""Clickable chips in a flow layout: entities and tags in the reader, active filters in the search bar.

A chip is a key (what a click reports) and a label (what a person reads). Labels come from memory
files, which agents write, so every label is shown as plain text: a chip never interprets markup.
`tooltip_text` does the same for tooltips, which Qt would otherwise sniff for rich text (and an
`<img src>` in rich text is a file read).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLayout,
    QLayoutItem,
    QSizePolicy,
    QToolButton,
    QWidget,
)


def tooltip_text(text: str) -> str:
    """Untrusted text as a tooltip: escaped inside an explicit rich-text block, so it shows literally."""
    return "<p style='white-space:pre-wrap'>" + html.escape(text, quote=False) + "</p>"


class FlowLayout(QLayout):
    """Lays widgets left to right and wraps to the next line (the Qt "Flow Layout" example)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 4) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 - Qt override
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self._arrange(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802
        super().setGeometry(rect)
        self._arrange(rect, apply=True)

    def sizeHint(self) -> QSize:  # noqa: N802
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _arrange(self, rect: QRect, *, apply: bool) -> int:
        m: QMargins = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, line_height = area.x(), area.y(), 0
        for item in self._items:
            if item.isEmpty():
                continue
            hint = item.sizeHint()
            next_x = x + hint.width() + self._spacing
            if next_x - self._spacing > area.right() + 1 and line_height > 0:
                x = area.x()
                y += line_height + self._spacing
                next_x = x + hint.width() + self._spacing
                line_height = 0
            if apply:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x = next_x
            line_height = max(line_height, hint.height())
        return y + line_height - rect.y() + m.bottom()


_CHIP_STYLE = """
QWidget#chip { border: 1px solid palette(mid); border-radius: 8px; background: palette(alternate-base); }
QWidget#chip:hover { border-color: palette(highlight); }
QToolButton { border: none; background: transparent; padding: 2px 2px; }
QToolButton#chipLabel { padding-left: 6px; padding-right: 6px; }
QToolButton#chipClose { padding: 0px 5px 0px 0px; }
"""


class Chip(QWidget):
    """One rounded chip: a label button and, when closable, a small ✕."""

    clicked = Signal(str)
    closed = Signal(str)

    def __init__(self, key: str, label: str, *, closable: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self.setObjectName("chip")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet(_CHIP_STYLE)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.label_button = QToolButton(self)
        self.label_button.setObjectName("chipLabel")
        self.label_button.setText(label.replace("&", "&&"))  # a bare & would become a mnemonic
        self.label_button.setToolTip(tooltip_text(key if key != label else label))
        self.label_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.label_button.setAutoRaise(True)
        self.label_button.clicked.connect(lambda: self.clicked.emit(self.key))
        layout.addWidget(self.label_button)
        self.close_button: QToolButton | None = None
        if closable:
            self.close_button = QToolButton(self)
            self.close_button.setObjectName("chipClose")
            self.close_button.setText("✕")
            self.close_button.setToolTip("Remove")
            self.close_button.setAccessibleName(f"Remove {label}")
            self.close_button.setAutoRaise(True)
            self.close_button.clicked.connect(lambda: self.closed.emit(self.key))
            layout.addWidget(self.close_button)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    @property
    def label(self) -> str:
        return self.label_button.text().replace("&&", "&")


class ChipBar(QWidget):
    """A wrapping row of chips.

    `set_chips([(key, label), ...])` replaces them all. A click on a chip emits `chip_clicked(key)`;
    with `closable=True` each chip carries a ✕ that emits `chip_closed(key)` (the owner decides
    whether the chip goes away, by calling `set_chips` again).
    """

    chip_clicked = Signal(str)
    chip_closed = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, closable: bool = False) -> None:
        super().__init__(parent)
        self._closable = closable
        self._layout = FlowLayout(self)
        sp = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        sp.setHeightForWidth(True)
        self.setSizePolicy(sp)
        self._chips: list[Chip] = []

    def set_chips(self, chips: list[tuple[str, str]]) -> None:
        for chip in self._chips:
            self._layout.removeWidget(chip)
            chip.hide()
            chip.deleteLater()
        self._chips = []
        for key, label in chips:
            chip = Chip(key, label, closable=self._closable, parent=self)
            chip.clicked.connect(self.chip_clicked)
            chip.closed.connect(self.chip_closed)
            self._layout.addWidget(chip)
            chip.show()
            self._chips.append(chip)
        self._layout.invalidate()
        self.updateGeometry()

    def chips(self) -> list[Chip]:
        return list(self._chips)

    def keys(self) -> list[str]:
        return [chip.key for chip in self._chips]

    def chip(self, key: str) -> Chip | None:
        return next((c for c in self._chips if c.key == key), None)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self._layout.heightForWidth(width)

    def sizeHint(self) -> QSize:  # noqa: N802
        width = sum(c.sizeHint().width() + 4 for c in self._chips)
        return QSize(width, self._layout.heightForWidth(max(width, 1)))
