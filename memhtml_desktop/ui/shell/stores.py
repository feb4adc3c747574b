"""Choosing a store: File → Open store, Open recent, and remembering the last ones opened."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

MAX_RECENT = 8


class StoreChooser:
    """Opens stores for `window` (a MainWindow: its `set_store`, `notify`, `qsettings`, `settings`).

    `opener` makes what the window's engine opens from a path (a `StoreSpec`; the composition root
    sets one that uses the window's current settings); without it, the open store's own, rooted there.
    """

    def __init__(self, window: Any, opener: Callable[[Path], Any] | None = None) -> None:
        self.window = window
        self.opener = opener

    def choose(self) -> None:
        store = self.window.store
        start = str(store.root.parent) if store is not None else str(Path.home())
        path = QFileDialog.getExistingDirectory(self.window, "Open a memhtml store", start)
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path, *, remember: bool = True) -> bool:
        """Switch the window to the store at `path` (its engine opens it); a folder that is not a
        store (`check_store`: a few stats, nothing run) is refused with why, and nothing is made there."""
        from memhtml_desktop.index.store import StoreError, check_store

        window = self.window
        try:
            if self.opener is not None:
                store = self.opener(Path(path))
            else:
                check = check_store(path)
                if check.problem is not None:
                    raise StoreError(check.problem)
                store = window.runner.like_this(path, curation_off=check.git_problem)
        except (StoreError, OSError, ValueError) as exc:
            window.notify("Cannot open this store", str(exc), QMessageBox.Icon.Warning)
            return False
        window.set_store(store)
        if remember:
            self.remember(window.store.root)
        return True

    def remember(self, root: Path) -> None:
        qsettings = self.window.qsettings
        if qsettings is None:
            return
        recent = [str(root)] + [p for p in self.recent() if p != str(root)]
        qsettings.setValue("recent_stores", recent[:MAX_RECENT])
        qsettings.setValue("settings/store", str(root))

    def recent(self) -> list[str]:
        value = self.window.setting("recent_stores", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def fill_recent(self, menu: QMenu) -> None:
        menu.clear()
        recent = self.recent()
        if not recent:
            menu.addAction("(none yet)").setEnabled(False)
        for path in recent:
            made = menu.addAction(path)
            made.setEnabled(Path(path).is_dir())
            made.triggered.connect(lambda _=False, p=path: self.open_path(Path(p)))
