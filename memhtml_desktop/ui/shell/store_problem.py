"""The store chooser shown instead of quitting when the store asked for cannot be opened.

`--store` mistyped, a remembered store since deleted, a folder that is not a memhtml store: the
window used to say "… is not a directory" and quit on OK. Now it says why (the words of
`check_store`, index/store_check.py, the same the CLI prints) and offers what would open: a folder
typed or browsed to, a recent store, the bundled demo, or Quit. A folder chosen here is checked the
same way before anything is opened there, and the dialog comes back with the new reason when it
is not a store either.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

DEMO_CHOICE = "demo"  # what the chooser answers for "Open the demo store"


class StoreProblemDialog(QDialog):
    """Why the store cannot be opened, and the ways on. `choice`: a folder (str), DEMO_CHOICE or None."""

    def __init__(self, problem: str, recent: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("storeProblemDialog")
        self.setWindowTitle("Open a memhtml store")
        self.choice: str | None = None
        layout = QVBoxLayout(self)
        self.problem_label = QLabel(problem, self)
        self.problem_label.setObjectName("storeProblem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setTextFormat(Qt.TextFormat.PlainText)
        self.problem_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.problem_label)
        layout.addWidget(QLabel("Open another folder:", self))
        row = QHBoxLayout()
        self.path_edit = QLineEdit(self)
        self.path_edit.setObjectName("storePath")
        self.path_edit.setPlaceholderText("a memhtml store's folder")
        self.path_edit.setAccessibleName("Store folder")
        self.path_edit.returnPressed.connect(self._open_typed)
        row.addWidget(self.path_edit, 1)
        browse = QPushButton("Browse\u2026", self)
        browse.setObjectName("browseButton")
        browse.clicked.connect(self._browse)
        row.addWidget(browse)
        layout.addLayout(row)
        self.recent_list = QListWidget(self)
        self.recent_list.setObjectName("recentStores")
        self.recent_list.setAccessibleName("Recent stores")
        for path in recent:
            self.recent_list.addItem(path)
        self.recent_list.itemActivated.connect(lambda item: self._pick(item.text()))
        if recent:
            layout.addWidget(QLabel("Or a recent store:", self))
            layout.addWidget(self.recent_list)
        else:
            self.recent_list.hide()
        buttons = QDialogButtonBox(self)
        self.open_button = buttons.addButton("Open", QDialogButtonBox.ButtonRole.AcceptRole)
        self.open_button.setObjectName("openButton")
        self.open_button.clicked.connect(self._open_typed)
        self.demo_button = buttons.addButton("Open the demo store", QDialogButtonBox.ButtonRole.ActionRole)
        self.demo_button.setObjectName("demoButton")
        self.demo_button.clicked.connect(lambda: self._pick(DEMO_CHOICE))
        quit_button = buttons.addButton("Quit", QDialogButtonBox.ButtonRole.RejectRole)
        quit_button.setObjectName("quitButton")
        quit_button.clicked.connect(self.reject)
        layout.addWidget(buttons)
        self.path_edit.setFocus()
        self.resize(640, self.sizeHint().height())

    def _open_typed(self) -> None:
        selected = self.recent_list.currentItem() if self.recent_list.isVisible() else None
        text = self.path_edit.text().strip() or (selected.text() if selected is not None else "")
        if text:
            self._pick(text)

    def _browse(self) -> None:
        start = self.path_edit.text().strip() or str(Path.home())
        path = QFileDialog.getExistingDirectory(self, "Open a memhtml store", start)
        if path:
            self.path_edit.setText(path)
            self._pick(path)

    def _pick(self, choice: str) -> None:
        self.choice = choice
        self.accept()


def ask_for_store(
    problem: str, recent: list[str], *, parent: QWidget | None = None, check: Callable[[str], str | None] | None = None
) -> str | None:
    """Ask until a folder that is a store, the demo, or nothing (Quit) is chosen.

    `check(path)` says why a folder is not a store, or None (default: `check_store`'s problem)."""
    if check is None:
        from memhtml_desktop.index.store import check_store

        def check(path: str) -> str | None:
            return check_store(path).problem

    while True:
        dialog = StoreProblemDialog(problem, recent, parent)
        accepted = dialog.exec() == QDialog.DialogCode.Accepted
        choice = dialog.choice
        dialog.deleteLater()
        if not accepted or choice is None:
            return None
        if choice == DEMO_CHOICE:
            return choice
        why = check(choice)
        if why is None:
            return str(Path(choice).expanduser())
        problem = why
