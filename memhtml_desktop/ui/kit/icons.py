"""Small icons drawn at run time (no image files to ship): the search spinner, arm swatches, states."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap

SIZE = 16


def _canvas(size: int = SIZE) -> tuple[QPixmap, QPainter]:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    return pixmap, painter


def spinner_icon(step: int, color: QColor, steps: int = 12) -> QIcon:
    """One frame of a spinning arc; `step` in [0, steps)."""
    pixmap, painter = _canvas()
    pen = QPen(color, 2.0)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    start = int(-360 * 16 * (step % steps) / steps)
    painter.drawArc(QRectF(2.5, 2.5, SIZE - 5, SIZE - 5), start, 270 * 16)
    painter.end()
    return QIcon(pixmap)


def search_icon(color: QColor) -> QIcon:
    pixmap, painter = _canvas()
    painter.setPen(QPen(color, 1.6))
    painter.drawEllipse(QRectF(2.5, 2.5, 8, 8))
    painter.drawLine(10, 10, 14, 14)
    painter.end()
    return QIcon(pixmap)


def swatch_icon(color: QColor, size: int = 12) -> QIcon:
    pixmap, painter = _canvas(size)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    painter.drawRoundedRect(QRectF(1, 1, size - 2, size - 2), 2, 2)
    painter.end()
    return QIcon(pixmap)


def dot_icon(color: QColor, hollow: bool = False, size: int = 10) -> QIcon:
    pixmap, painter = _canvas(size)
    if hollow:
        painter.setPen(QPen(color, 1.5))
        painter.setBrush(Qt.BrushStyle.NoBrush)
    else:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
    painter.drawEllipse(QRectF(1.5, 1.5, size - 3, size - 3))
    painter.end()
    return QIcon(pixmap)
