"""One change, as a curator judges it: what happened, who did it, when, why, and the diff that matters.

The facts of the list's row show at once; the claim before and after, the fields and links that
changed arrive with `show_detail` (read off the GUI thread). Everything here was written by an
agent or taken from a commit message, so it goes into labels as plain text, or escaped before the
few layout tags are put around it. The actions are buttons with their key on them; the panel only
emits `action(name)`.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from memhtml_desktop.ui.kit.palette import mark_color, warning_color

#: (name, label, key): every action a change offers, in the order of the buttons.
ACTIONS = (("accept", "Accept", "A"), ("correct", "Correct\u2026", "C"), ("archive", "Archive\u2026", "X"),
           ("revert", "Revert\u2026", "R"), ("open", "Open in reader", "O"), ("skip", "Skip", "S"))  # fmt: skip
ELLIPSIS, DASH = "\u2026", "\u2014"
STAMPS = ("created", "updated", "valid-from")  # a new version's own stamps: noise beside what it says
KIND_SENTENCES = {
    "new": "A new memory", "edited": "Edited in place", "corrected": "A correction, and the memory it superseded",
    "archived": "Archived", "linked": "Links changed", "task": "A task's status changed",
    "removed": "Removed outside memhtml's verbs",
}  # fmt: skip


def _label(parent: QWidget, *, rich: bool = False, muted: bool = False, wrap: bool = True) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if muted:
        label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


def _esc(text: Any) -> str:
    return html.escape(str(text)) if text is not None else ""


class DetailPanel(QWidget):
    action = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reviewDetail")
        self.change: Any = None
        self.detail: Any = None
        self.kind = _label(self)
        font = self.kind.font()
        font.setWeight(QFont.Weight.DemiBold)
        self.kind.setFont(font)
        self.title = _label(self)
        title_font = self.title.font()
        title_font.setPointSizeF(title_font.pointSizeF() * 1.25)
        title_font.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(title_font)
        self.title.setObjectName("reviewTitle")
        self.path = _label(self, muted=True)
        self.who = _label(self)
        self.who.setObjectName("reviewWho")
        self.subject = _label(self)
        self.claims = _label(self, rich=True)
        self.claims.setObjectName("reviewClaims")
        self.fields = _label(self, rich=True)
        self.fields.setObjectName("reviewFields")
        self.notes = _label(self, muted=True)
        body = QWidget(self)
        column = QVBoxLayout(body)
        for widget in (self.kind, self.title, self.path, self.who, self.subject, self.claims, self.fields, self.notes):
            column.addWidget(widget)
        column.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        self.buttons: dict[str, QPushButton] = {}
        row = QGridLayout()  # two rows of three: the panel stays narrow enough for a 1024-wide window
        for i, (name, text, key) in enumerate(ACTIONS):
            button = QPushButton(f"{text} ({key})", self)
            button.setObjectName(f"review_{name}")
            button.setToolTip(text.rstrip(ELLIPSIS) + f" \u2014 key {key}")
            button.clicked.connect(lambda _=False, n=name: self.action.emit(n))
            self.buttons[name] = button
            row.addWidget(button, i // 3, i % 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 0, 0, 0)
        layout.addWidget(scroll, 1)
        layout.addLayout(row)
        self.show_change(None)

    def show_change(self, change: Any, group: Any = None) -> None:
        """The row's own facts at once (the comparison follows with `show_detail`)."""
        self.change, self.detail = change, None
        for name, button in self.buttons.items():
            button.setEnabled(change is not None or (group is not None and name in ("accept", "skip")))
        if change is None:
            if group is not None:
                self.kind.setText(f"{len(group.changes)} change(s) in this group")
                self.title.setText(group.last.title if len(group.changes) == 1 else group.first.subject)
                self.path.setText("Accept (A) marks every change of the group reviewed.")
            else:
                self.kind.setText("")
                self.title.setText("Choose a change to see what it did.")
                self.path.setText("")
            for label in (self.who, self.subject, self.claims, self.fields, self.notes):
                label.setText("")
            return
        if change.kind == "removed":
            for name in ("correct", "archive", "open"):
                self.buttons[name].setEnabled(False)
        if change.path.startswith("archive/"):
            self.buttons["archive"].setEnabled(False)
            self.buttons["correct"].setEnabled(False)
        self.kind.setText(KIND_SENTENCES.get(change.kind, change.kind))
        self.title.setText(change.title)
        self.path.setText(change.path + (f"  (was {change.old_path})" if change.old_path else ""))
        session = f" \u00b7 session {change.session}" if change.session else ""
        self.who.setText(f"{change.author} \u00b7 {change.at.replace('T', ' ').rstrip('Z')} UTC \u00b7 "
                         f"commit {change.commit[:12]}{session}")  # fmt: skip
        reason = f"\nWhy: {change.reason}" if change.reason else ""
        self.subject.setText(f"\u201c{change.subject}\u201d{reason}")
        self.claims.setText("<i>Reading both versions\u2026</i>")
        self.fields.setText("")
        self.notes.setText("")

    def show_detail(self, detail: Any) -> None:
        """The diff that matters: the claim before and after, the fields and links that changed."""
        if self.change is None or detail.change.key != self.change.key:
            return
        self.detail = detail
        mark = mark_color()
        parts = []
        if detail.title_before and detail.title_after and detail.title_before != detail.title_after:
            parts.append(f"<p><b>Title</b><br>{_esc(detail.title_before)} \u2192 {_esc(detail.title_after)}</p>")
        before, after = detail.claim_before, detail.claim_after
        if before and after and before != after:
            parts.append(
                f"<p><b>Claim before</b><br><s>{_esc(before)}</s></p>"
                f'<p><b>Claim after</b><br><span style="background-color:{mark}">{_esc(after)}</span></p>'
            )
        elif after or before:
            parts.append(f"<p><b>Claim</b>{' (unchanged)' if before and after else ''}<br>{_esc(after or before)}</p>")
        if detail.article_changed and before == after:
            parts.append("<p>The article's text changed beyond the claim.</p>")
        self.claims.setText("".join(parts) or "<i>No claim to compare.</i>")
        fields = [f for f in detail.fields if f.name not in STAMPS or detail.change.kind not in ("new", "corrected")]
        if detail.change.kind == "new":
            rows = [f"<tr><td><b>{_esc(f.name)}</b>&nbsp;</td><td>{_esc(f.after or DASH)}</td></tr>" for f in fields]
        else:
            rows = [
                f"<tr><td><b>{_esc(f.name)}</b>&nbsp;</td><td>{_esc(f.before or DASH)}</td>"
                f"<td>&nbsp;\u2192&nbsp;</td><td>{_esc(f.after or DASH)}</td></tr>"
                for f in fields
            ]
        links = [f"<tr><td><b>link +</b>&nbsp;</td><td colspan=3>{_esc(x)}</td></tr>" for x in detail.links_added]
        links += [
            f"<tr><td><b>link \u2212</b>&nbsp;</td><td colspan=3>{_esc(x)}</td></tr>" for x in detail.links_removed
        ]
        if rows or links:
            heading = "Its fields" if detail.change.kind == "new" else "What changed"
            self.fields.setText(f"<p><b>{heading}</b></p><table>{''.join(rows + links)}</table>")
        if detail.notes:
            self.notes.setText("\n".join(detail.notes))

    def show_refusal(self, text: str) -> None:
        self.notes.setStyleSheet(f"background-color:{warning_color()}; padding:4px")
        self.notes.setForegroundRole(QPalette.ColorRole.WindowText)
        self.notes.setText(text)

    def clear_refusal(self) -> None:
        self.notes.setStyleSheet("")
        self.notes.setForegroundRole(QPalette.ColorRole.PlaceholderText)
