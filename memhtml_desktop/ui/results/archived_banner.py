"""What the results pane shows instead of an empty list when the filters leave no live memory.

"0 live matches — N archived memories match these filters", then each archived memory with the
memory that superseded it; one click opens either. The banner takes the list's place, so a
filter that empties the result never leaves a blank pane.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.types import SearchResult


def _link(path: str, text: str | None = None) -> str:
    return f'<a href="open:{html.escape(path, quote=True)}">{html.escape(text or path)}</a>'


def banner_html(result: SearchResult) -> tuple[str, str]:
    """The headline and the list (rich text) for a result whose scope emptied it."""
    n = result.archived_matches
    if n:
        headline = (
            f"0 live matches \u2014 "
            f"{counted(n, 'archived memory', 'archived memories', verb=('matches', 'match'))} these filters"
        )
    else:
        headline = "0 live matches \u2014 and no archived memory matches these filters either"
    rows = []
    for pointer in result.archived:
        line = _link(pointer.path, pointer.title or pointer.path)
        line += f'<br><span style="opacity:0.75"><code>{html.escape(pointer.path)}</code></span>'
        if pointer.superseded_by:
            line += f"<br>\u2192 superseded by {_link(pointer.superseded_by)}"
        else:
            line += "<br>\u2192 not superseded (archived as done or retired)"
        rows.append(f"<li style='margin-bottom:6px'>{line}</li>")
    more = n - len(result.archived)
    body = f"<ul style='margin-left:-20px'>{''.join(rows)}</ul>" if rows else ""
    if more > 0:
        body += f"<p>\u2026 and {more} more.</p>"
    if not n:
        body = "<p>Remove a filter (the chips above the list) to widen the search.</p>"
    return headline, body


class ArchivedBanner(QFrame):
    """The empty-result banner; `open_requested(path)` on a click, `include_archived_requested` on the button."""

    open_requested = Signal(str)
    include_archived_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ArchivedBanner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.headline = QLabel(self)
        self.headline.setObjectName("archivedHeadline")
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setBold(True)
        self.headline.setFont(font)
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.TextFormat.PlainText)
        self.listing = QLabel(self)
        self.listing.setTextFormat(Qt.TextFormat.RichText)
        self.listing.setWordWrap(True)
        self.listing.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.listing.setTextInteractionFlags(
            Qt.TextInteractionFlag.LinksAccessibleByMouse | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        self.listing.linkActivated.connect(self._link)
        self.include_button = QPushButton("Include archived memories", self)
        self.include_button.clicked.connect(self.include_archived_requested)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.listing)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.addWidget(self.headline)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.include_button, 0, Qt.AlignmentFlag.AlignLeft)
        self._paths: list[str] = []

    def show_result(self, result: SearchResult) -> None:
        headline, body = banner_html(result)
        self.headline.setText(headline)
        self.listing.setText(body)
        self.include_button.setVisible(result.archived_matches > 0 and not result.scope.include_archived)
        self._paths = [p.path for p in result.archived]

    def paths(self) -> list[str]:
        return list(self._paths)

    def _link(self, href: str) -> None:
        if href.startswith("open:"):
            self.open_requested.emit(href[len("open:") :])
