"""Provenance in the reader: who wrote the memory shown and when, the commits that changed it since
(their subjects), its session. A strip under the reader's article, filled off the GUI thread
(`ProvenanceJob`) each time the reader shows a memory: one click from any hit. Plain text only
(names, subjects and sessions are anyone's text)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from memhtml_desktop.domain.plural import counted

SHOWN = 5


def _stamp(at: str) -> str:
    return at.replace("T", " ").rstrip("Z") + " UTC" if at.endswith("Z") else at


class ProvenancePanel(QFrame):
    history_requested = Signal(str)  # the memory's path: list its changes in the review window

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("provenancePanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.path: str | None = None
        self.provenance: Any = None
        self.expanded = False
        self.title = QLabel("Provenance", self)
        bold = self.title.font()
        bold.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(bold)
        self.written = self._label("provenanceWritten")
        self.session = self._label("provenanceSession")
        self.commits = self._label("provenanceCommits")
        self.commits.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.more = QPushButton(self)
        self.more.setObjectName("provenanceMore")
        self.more.setFlat(True)
        self.more.clicked.connect(self._toggle)
        head = QHBoxLayout()
        head.addWidget(self.title)
        head.addStretch(1)
        head.addWidget(self.more)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(2)
        layout.addLayout(head)
        for label in (self.written, self.session, self.commits):
            layout.addWidget(label)
        self.hide()

    def _label(self, name: str) -> QLabel:
        label = QLabel(self)
        label.setObjectName(name)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def show_loading(self, path: str) -> None:
        self.path, self.provenance = path, None
        self.written.setText("Reading its history\u2026")
        self.session.setText("")
        self.commits.setText("")
        self.more.hide()
        self.show()

    def show_error(self, path: str, message: str) -> None:
        if path == self.path:
            self.written.setText(f"Its history could not be read: {message}")

    def show_provenance(self, provenance: Any) -> None:
        if provenance.path != self.path:
            return
        self.provenance = provenance
        written = provenance.written
        if written is None:
            self.written.setText("Not committed yet: git has no history for this file.")
        else:
            self.written.setText(
                f"Written by {written.author} on {_stamp(written.at)} \u2014 \u201c{written.subject}\u201d"
            )
        extra = " (changed since the last commit)" if provenance.uncommitted and written is not None else ""
        self.session.setText(f"Session {provenance.session}{extra}" if provenance.session else
                             ("No session named." + extra))  # fmt: skip
        if provenance.notes:
            self.session.setText(self.session.text() + "  " + " ".join(provenance.notes))
        self._fill_commits()

    def _fill_commits(self) -> None:
        p = self.provenance
        later = list(p.since)
        if not later:
            self.commits.setText("No commit has changed it since.")
            self.more.hide()
            return
        shown = later if self.expanded else later[:SHOWN]
        lines = [f"Changed since by {counted(p.total - 1, 'commit')}:"]
        lines += [f"  {_stamp(t.at)} \u00b7 {t.author_name} \u00b7 {t.subject} ({t.commit[:10]})" for t in shown]
        self.commits.setText("\n".join(lines))
        hidden = len(later) - len(shown)
        self.more.setVisible(len(later) > SHOWN)
        self.more.setText(f"Show {hidden} more" if hidden else "Show fewer")

    def _toggle(self) -> None:
        self.expanded = not self.expanded
        if self.provenance is not None:
            self._fill_commits()

    def clear(self) -> None:
        self.path, self.provenance = None, None
        self.hide()
