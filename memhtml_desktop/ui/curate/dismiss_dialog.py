"""The conflicts queue's "not a conflict" (and its restore), previewed like every write.

The write is one commit on `refs/memhtml-desktop/conflicts-dismissed`, a ref of the app's own
(write/dismissals.py says why there): the preview shows that commit and the diff of the file it
keeps, `dismissed.json`. Nothing on the branch, in the working tree or in state.db changes.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QWidget

from memhtml_desktop.ui.curate.write_dialog import WriteDialog
from memhtml_desktop.write.curator import DismissRequest


def _plain(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class DismissDialog(WriteDialog):
    """Not a conflict: the pair is remembered as judged, and listed no more while neither changes."""

    confirm_text = "Not a conflict"

    def __init__(self, runner: Any, a: tuple[str, str], b: tuple[str, str], *, restore: bool = False,
                 parent: QWidget | None = None, **options: Any) -> None:  # fmt: skip
        super().__init__(runner, parent, title="Restore the pair" if restore else "Not a conflict", **options)
        (self.a, a_title), (self.b, b_title) = a, b
        self.restore = restore
        if restore:
            self.confirm_button.setText("Restore")
        self.note = QLineEdit(self.form_box)
        self.note.setObjectName("noteField")
        self.note.setPlaceholderText("optional: why they do not conflict (the commit's body)")
        self.form.addRow("Memory A", _plain(f"{a_title}\n{self.a}" if a_title else self.a, self.form_box))
        self.form.addRow("Memory B", _plain(f"{b_title}\n{self.b}" if b_title else self.b, self.form_box))
        if not restore:
            self.form.addRow("&Note", self.note)
        self.note.textChanged.connect(self.changed)
        self.finish_layout(
            "The pair is listed again." if restore else
            "The two memories stay as they are. The judgement is one commit on a ref of this app's own "
            "(refs/memhtml-desktop/conflicts-dismissed): not on your branch, never read by memhtml, kept across "
            "restarts and store moves. It holds while neither memory's text changes; an edit lists the pair again."
        )  # fmt: skip
        self.changed()

    def request(self) -> DismissRequest:
        return DismissRequest(self.a, self.b, note=self.note.text().strip() or None, restore=self.restore)
