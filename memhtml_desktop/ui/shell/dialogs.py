"""The shell's dialogs: Settings, About, the keyboard shortcuts, "Why not this one?", the log folder.

Every method runs on the GUI thread and hands slow work (About's version facts) to the runner.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from memhtml_desktop.ops.jobs import AboutJob


class ShellDialogs:
    """Dialogs for `window` (a MainWindow: its settings, qsettings, session, runner, notify)."""

    def __init__(self, window: Any) -> None:
        self.window = window
        self.about: Any = None
        self.shortcuts: ShortcutsDialog | None = None

    def show_about(self) -> None:
        from memhtml_desktop.logs import log_file
        from memhtml_desktop.ui.shell.about_dialog import about_facts

        path = log_file()
        job = AboutJob().success(lambda rows: self._about_done(about_facts(rows, log_file=path)))
        self.window.runner.run(job.failure(lambda msg: self.window.notify("About", msg, QMessageBox.Icon.Warning)))

    def _about_done(self, rows: list[tuple[str, str]]) -> None:
        from memhtml_desktop.ui.shell.about_dialog import AboutDialog

        self.about = AboutDialog(rows, self.window)
        self.about.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.about.show()

    def ask_why(self) -> None:
        """Go → Why not this one?: the dialog, on the chosen result or ready to find a memory by title."""
        window = self.window
        window.controllers["why"].choose(window.results.current_path())

    def show_shortcuts(self) -> None:
        from memhtml_desktop.ui.shell.menus import shortcut_rows

        if self.shortcuts is None:
            self.shortcuts = ShortcutsDialog(self.window)
        self.shortcuts.set_rows(shortcut_rows(self.window))
        self.shortcuts.show()
        self.shortcuts.raise_()

    def open_log_folder(self) -> None:
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        from memhtml_desktop.logs import log_dir

        folder = log_dir()
        folder.mkdir(parents=True, exist_ok=True)
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            self.window.notify("Log folder", f"The log files are in {folder}")

    def show_settings(self) -> None:
        from memhtml_desktop.embedders.registry import available_embedders
        from memhtml_desktop.settings import load_settings
        from memhtml_desktop.ui.shell import settings_store
        from memhtml_desktop.ui.shell.settings_dialog import edit_settings

        window = self.window
        notes = {"embedder": {name: why for name, why in available_embedders().items() if why}}
        changes = edit_settings(window.settings, window, choice_notes=notes)
        if not changes:
            return
        if window.qsettings is not None:
            saved = load_settings(persisted=settings_store.load_persisted(window.qsettings), environ={})
            settings_store.save_persisted(window.qsettings, saved.with_(**changes))
        self.apply_settings(changes)

    def apply_settings(self, changes: dict[str, Any]) -> None:
        """Apply what changed now; what shapes the store (index, embedder, backend) reopens it."""
        from memhtml_desktop.ui.shell.settings_dialog import APPLY_ON_REOPEN
        from memhtml_desktop.ui.shell.theme import apply_theme

        window = self.window
        window.settings = window.settings.with_(**changes)
        if "debounce_ms" in changes:
            window.driver.set_debounce(window.settings.debounce_ms)
        if "search_limit" in changes:
            window.session.set_limit(window.settings.search_limit)
        if "recall_budget" in changes:
            window.recall.set_budget(window.settings.recall_budget)
            window.session.set_budget(window.settings.recall_budget)
        if "ranking" in changes:
            from memhtml_desktop.domain.ranking import profile_named

            window.session.set_ranking(profile_named(window.settings.ranking))  # re-runs the search
        if "theme" in changes:
            apply_theme(QApplication.instance(), window.settings.theme)  # back to "system" needs a restart
        if "watch" in changes:
            window.watch_enabled = window.settings.watch
        if "implicit_judgments" in changes:
            window.controllers["workbench"].follow_setting(window.settings.implicit_judgments)
        if "store" in changes and window.settings.store:
            window.stores.open_path(Path(window.settings.store).expanduser())
        elif APPLY_ON_REOPEN & changes.keys():
            window.stores.open_path(window.store.root, remember=False)
        else:
            window.driver.refresh()


class ShortcutsDialog(QDialog):
    """Help → Keyboard shortcuts: two aligned columns, generated from the menus' own actions."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.setObjectName("shortcutsDialog")
        self.table = QTableWidget(0, 2, self)
        self.table.setObjectName("shortcutsTable")
        self.table.setAccessibleName("Keyboard shortcuts")
        self.table.setHorizontalHeaderLabels(["Keys", "What they do"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setTabKeyNavigation(False)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(640, 560)

    def set_rows(self, rows: list[tuple[str, str]]) -> None:
        self.table.setRowCount(len(rows))
        for r, (keys, what) in enumerate(rows):
            for c, text in enumerate((keys, what)):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(r, c, item)

    def text(self) -> str:
        return "\n".join(
            f"{self.table.item(r, 0).text()}\t{self.table.item(r, 1).text()}" for r in range(self.table.rowCount())
        )
