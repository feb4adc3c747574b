"""The window's menus and the dialogs they open: stores, settings, About, the log folder.

A mixin of MainWindow, split out so main_window.py reads as layout, jobs and wiring. Every method
here runs on the GUI thread and hands slow work to the window's runner.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

MAX_RECENT = 8
TAB_NAMES = ("reader", "recall", "problems")


class WindowMenus:
    """Menus, store choice and help for MainWindow (uses its runner, store, settings, qsettings)."""

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self._action(file_menu, "&Open store\u2026", self.choose_store, [QKeySequence.StandardKey.Open])
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file_menu.addSeparator()
        self._action(file_menu, "Re-&index now", self.reindex, ["F5"],
                     tip="Compare the whole store with the index and catch up")
        file_menu.addSeparator()
        settings_action = self._action(file_menu, "&Settings\u2026", self.show_settings, ["Ctrl+,"],
                                       tip="Store, index, embedder, recall budget, debounce, theme, watching")
        settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, [QKeySequence.StandardKey.Quit])

        view = bar.addMenu("&View")
        self.filters_action = self._action(view, "&Filters panel", lambda on: self.filters.setVisible(on),
                                           ["Ctrl+\\"], checkable=True)
        self.filters_action.setChecked(True)
        view.addSeparator()
        for i, (name, label) in enumerate(zip(TAB_NAMES, ("&Reader", "Recall &pack", "&Problems")), start=1):
            self._action(view, label, lambda _=False, n=name: self.show_view(n), [f"Ctrl+{i}"])
        view.addSeparator()
        self.archived_action = self._action(view, "Include &archived", self._archived_from_menu, checkable=True)

        go = bar.addMenu("&Go")
        self._action(go, "&Search", self.search_bar.focus_query, ["Ctrl+L", "Ctrl+F"])
        self.recall_action = self._action(go, "Recall &mode", self.search_bar.toggle_mode, ["Ctrl+R"],
                                          checkable=True)
        self._action(go, "&Clear search", self.clear_search, tip="Esc: clear the query (then the filters)")
        go.addSeparator()
        self._action(go, "&Open selected result", self.results.open_current, tip="Enter")
        self._action(go, "&Back", self.go_back, [QKeySequence.StandardKey.Back])
        self._action(go, "&Forward", self.go_forward, [QKeySequence.StandardKey.Forward])
        go.addSeparator()
        self._action(go, "&Why not this one?\u2026", self.ask_why, ["Ctrl+Shift+W"])

        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "&About memhtml desktop", self.show_about)
        self._action(help_menu, "&Keyboard shortcuts", self.show_shortcuts)
        help_menu.addSeparator()
        self._action(help_menu, "Open &log folder", self.open_log_folder,
                     tip="The folder of memhtml-desktop.log, to attach to a bug report")
        self.escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.clear_search)

    def choose_store(self) -> None:
        start = str(self.store.root.parent) if self.store is not None else str(Path.home())
        path = QFileDialog.getExistingDirectory(self, "Open a memhtml store", start)
        if path:
            self.open_store_path(Path(path))

    def open_store_path(self, path: Path, *, remember: bool = True) -> bool:
        from memhtml_desktop.index.store import Store, StoreError

        try:
            if self.store_opener is not None:
                store = self.store_opener(Path(path))
            else:
                store = Store(path, embedder=self.store.embedder, vector_backend=self.settings.vector_backend)
        except (StoreError, OSError, ValueError) as exc:
            self.notify("Cannot open this store", str(exc), QMessageBox.Icon.Warning)
            return False
        self.set_store(store)
        if remember:
            self.remember_store(store.root)
        return True

    def remember_store(self, root: Path) -> None:
        if self.qsettings is None:
            return
        recent = [str(root)] + [p for p in self.recent_stores() if p != str(root)]
        self.qsettings.setValue("recent_stores", recent[:MAX_RECENT])
        self.qsettings.setValue("settings/store", str(root))

    def recent_stores(self) -> list[str]:
        if self.qsettings is None:
            return []
        value = self._setting("recent_stores", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_stores()
        if not recent:
            self.recent_menu.addAction("(none yet)").setEnabled(False)
        for path in recent:
            action = self.recent_menu.addAction(path)
            action.setEnabled(Path(path).is_dir())
            action.triggered.connect(lambda _=False, p=path: self.open_store_path(Path(p)))

    def reindex(self) -> None:
        if self.bridge is not None:
            self.bridge.reconcile_now()

    # -- help ------------------------------------------------------------------------------------

    def show_about(self) -> None:
        from memhtml_desktop.logs import log_file
        from memhtml_desktop.ui.about_dialog import about_facts

        store, path = self.store, log_file()
        self.runner.submit("versions", lambda c, p: about_facts(store, log_file=path), self._about_done,
                           on_error=lambda msg: self.notify("About", msg, QMessageBox.Icon.Warning))

    def _about_done(self, rows: list[tuple[str, str]]) -> None:
        from memhtml_desktop.ui.about_dialog import AboutDialog

        dialog = AboutDialog(rows, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self._about_dialog = dialog

    def open_log_folder(self) -> None:
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        from memhtml_desktop.logs import log_dir

        folder = log_dir()
        folder.mkdir(parents=True, exist_ok=True)
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            self.notify("Log folder", f"The log files are in {folder}")

    def show_settings(self) -> None:
        from memhtml_desktop.embedders.registry import available_embedders
        from memhtml_desktop.settings import load_settings
        from memhtml_desktop.ui import settings_store
        from memhtml_desktop.ui.settings_dialog import edit_settings

        notes = {"embedder": {name: why for name, why in available_embedders().items() if why}}
        changes = edit_settings(self.settings, self, choice_notes=notes)
        if not changes:
            return
        if self.qsettings is not None:
            saved = load_settings(persisted=settings_store.load_persisted(self.qsettings), environ={})
            settings_store.save_persisted(self.qsettings, saved.with_(**changes))
        self.apply_settings(changes)

    def apply_settings(self, changes: dict[str, Any]) -> None:
        """Apply what changed now; what shapes the store (index, embedder, backend) reopens it."""
        from memhtml_desktop.ui.settings_dialog import APPLY_ON_REOPEN

        self.settings = self.settings.with_(**changes)
        if "debounce_ms" in changes:
            self._debounce.setInterval(max(0, self.settings.debounce_ms))
        if "recall_budget" in changes:
            self._budget_changed(self.settings.recall_budget)
            self.recall.set_budget(self._budget)
        if "theme" in changes:
            from memhtml_desktop.ui.app import apply_theme

            apply_theme(QApplication.instance(), self.settings.theme)  # back to "system" needs a restart
        if "watch" in changes:
            self.watch_enabled = self.settings.watch
        if "store" in changes and self.settings.store:
            self.open_store_path(Path(self.settings.store).expanduser())
        elif APPLY_ON_REOPEN & changes.keys():
            self.open_store_path(self.store.root, remember=False)
        else:
            self.refresh()

    def show_shortcuts(self) -> None:
        self.notify(
            "Keyboard shortcuts",
            "Ctrl+L / Ctrl+F\tfocus the search field\nUp / Down\tmove in the results\nEnter\topen the "
            "current result (counts as a read)\nCtrl+R\ttoggle recall mode\nEsc\tclear the query, then the "
            "filters\nCtrl+1/2/3\treader, recall pack, problems\nAlt+Left / Alt+Right\tback, forward\n"
            "F5\tre-index now\nCtrl+O\topen a store")
