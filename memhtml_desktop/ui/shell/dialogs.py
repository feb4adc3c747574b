"""The shell's dialogs: Settings, About, "Why not this one?" by path, the log folder.

Every method runs on the GUI thread and hands slow work (About's version facts) to the runner.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox

from memhtml_desktop.ui.session.jobs import CallJob


class ShellDialogs:
    """Dialogs for `window` (a MainWindow: its settings, qsettings, session, runner, notify)."""

    def __init__(self, window: Any) -> None:
        self.window = window
        self.about: Any = None

    def show_about(self) -> None:
        from memhtml_desktop.logs import log_file
        from memhtml_desktop.ui.shell.about_dialog import about_facts

        path = log_file()
        job = CallJob(kind="versions", fn=lambda store: about_facts(store, log_file=path)).success(self._about_done)
        self.window.runner.run(job.failure(lambda msg: self.window.notify("About", msg, QMessageBox.Icon.Warning)))

    def _about_done(self, rows: list[tuple[str, str]]) -> None:
        from memhtml_desktop.ui.shell.about_dialog import AboutDialog

        self.about = AboutDialog(rows, self.window)
        self.about.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.about.show()

    def ask_why(self) -> None:
        window = self.window
        path, ok = QInputDialog.getText(window, "Why not this one?", "Memory path (store-relative):",
                                        text=window.results.current_path() or "")
        if ok and path.strip():
            window.session.why(path.strip())

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
