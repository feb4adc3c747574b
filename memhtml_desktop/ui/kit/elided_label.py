"""A one-line label that ends in "…" when it is narrower than its text.

QLabel cuts a line that does not fit wherever the edge falls ("by recency and s"); a count line
beside the list's order toggles at 1024 px did just that. This label draws the same text elided
at the right, so the cut is visible as a cut, and keeps the whole text for its tooltip and its
accessible text (`text()` is unchanged).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel


class ElidedLabel(QLabel):
    def elided(self) -> str:
        """The text as painted at the label's current width."""
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                             max(0, self.contentsRect().width()))

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        self.style().drawItemText(painter, self.contentsRect(), int(self.alignment()), self.palette(),
                                  self.isEnabled(), self.elided(), self.foregroundRole())
        painter.end()
