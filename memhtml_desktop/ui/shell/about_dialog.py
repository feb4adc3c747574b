"""Help → About: what this build is made of, in a form a bug report can carry.

`about_facts` gathers the rows (the store's from the engine: `ops.jobs.AboutJob`, which loads the
sqlite-vec extension into a private in-memory connection, see `index.versions`); `AboutDialog`
shows them and its Copy button puts them on the clipboard as `name: value` lines.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path

from PySide6 import __version__ as PYSIDE_VERSION
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QGuiApplication, QIcon, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop import __version__

ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)
TAGLINE = "Browse and search an agent's memory, and see why each memory ranked where it did."


def icons_dir() -> Path:
    from memhtml_desktop.data import resources_dir

    return resources_dir() / "icons"


def app_icon() -> QIcon:
    """The application icon from the shipped PNG renders (empty when they are missing)."""
    icon = QIcon()
    for size in ICON_SIZES:
        path = icons_dir() / f"memhtml-desktop-{size}.png"
        if path.is_file():
            icon.addFile(str(path))
    return icon


def build_kind() -> str:
    if getattr(sys, "frozen", False):
        return "bundled app (PyInstaller)"
    return "Python package"


def about_facts(
    store_rows: list[tuple[str, str]] | None = None, *, log_file: Path | str | None = None
) -> list[tuple[str, str]]:
    """`(name, value)` rows: this build's versions, then the store's (`ops.jobs.store_facts`, from the
    engine: the SQLite libraries, the embedder, the store's files), the log file, the platform."""
    rows: list[tuple[str, str]] = [
        ("memhtml desktop", __version__),
        ("Build", build_kind()),
        ("Python", sys.version.split()[0]),
        ("Qt", qVersion()),
        ("PySide6", PYSIDE_VERSION),
    ]
    rows += list(store_rows or ())
    if log_file is not None:
        rows.append(("Log file", str(log_file)))
    rows.append(("Platform", platform.platform()))
    return rows


def facts_text(rows: list[tuple[str, str]]) -> str:
    """The rows as a bug report wants them: one `name: value` per line."""
    return "\n".join(f"{name}: {value}" for name, value in rows) + "\n"


class AboutDialog(QDialog):
    """The facts in a two-column table, a Copy button, and Close."""

    def __init__(self, rows: list[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AboutDialog")
        self.setWindowTitle("About memhtml desktop")
        platform_name = QGuiApplication.platformName()
        self.rows = list(rows) + ([("Qt platform", platform_name)] if platform_name else [])

        header = QHBoxLayout()
        icon = QLabel(self)
        pixmap = QPixmap(str(icons_dir() / "memhtml-desktop-64.png"))
        if not pixmap.isNull():
            icon.setPixmap(pixmap)
        header.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        title = QLabel(
            f"<b style='font-size:15pt'>memhtml desktop {__version__}</b><br>{TAGLINE}<br>License: Apache-2.0", self
        )
        title.setWordWrap(True)
        title.setTextFormat(Qt.TextFormat.RichText)
        header.addWidget(title, 1)

        self.table = QTableWidget(len(self.rows), 2, self)
        self.table.setObjectName("aboutFacts")
        self.table.setHorizontalHeaderLabels(["", ""])
        self.table.horizontalHeader().hide()
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        for row, (name, value) in enumerate(self.rows):
            key = QTableWidgetItem(name)
            key.setFlags(Qt.ItemFlag.ItemIsEnabled)
            item = QTableWidgetItem(value)
            item.setToolTip(value)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            self.table.setItem(row, 0, key)
            self.table.setItem(row, 1, item)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = QPushButton("&Copy", self)
        self.copy_button.setToolTip("Copy these facts for a bug report")
        self.buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.buttons)
        self.resize(640, 520)

    def text(self) -> str:
        return facts_text(self.rows)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text())
        self.copy_button.setText("Copied")
