"""A one-line label that ends in "…" when it is narrower than its text.

QLabel cuts a line that does not fit wherever the edge falls ("by recency and s"); a count line
beside the list's order toggles at 1024 px did just that. This label draws the same text elided
at the right, so the cut is visible as a cut, and keeps the whole text for its tooltip and its
accessible text (`text()` is unchanged).

Given its text in parts (`set_parts`), it drops whole parts from the end instead, and elides only
when the first part alone does not fit: a count line is never cut inside a parenthesis ("10 of 47
in scope (…", issue 41).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel


class ElidedLabel(QLabel):
    _parts: tuple[str, ...] = ()
    _sep = ""

    def set_parts(self, parts: list[str], sep: str) -> None:
        """The text as `sep`-joined parts, dropped from the end when they do not all fit."""
        self._parts, self._sep = tuple(parts), sep
        self.setText(sep.join(parts))

    def setText(self, text: str) -> None:  # noqa: N802 - Qt override
        if self._parts and text != self._sep.join(self._parts):
            self._parts = ()  # plain text set directly: elided as before
        super().setText(text)

    def elided(self) -> str:
        """The text as painted at the label's current width."""
        metrics, width = self.fontMetrics(), max(0, self.contentsRect().width())
        for n in range(len(self._parts), 1, -1):
            shown = self._sep.join(self._parts[:n])
            if metrics.horizontalAdvance(shown) <= width:
                return shown
        text = self._parts[0] if self._parts else self.text()
        return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        self.style().drawItemText(
            painter,
            self.contentsRect(),
            int(self.alignment()),
            self.palette(),
            self.isEnabled(),
            self.elided(),
            self.foregroundRole(),
        )
        painter.end()
