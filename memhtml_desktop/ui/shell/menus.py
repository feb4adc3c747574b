"""The window's menu bar: File, View, Go, Help, each action a one-line call into the session, a
pane or the shell's dialogs. Built once by MainWindow; holds no state but the actions it made."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QMenu, QWidget

TAB_NAMES = ("reader", "recall", "problems")
KEYS_OUTSIDE_MENUS = (
    ("Up / Down, Page Up / Page Down", "move in the results (from the search field too); nothing is read"),
    ("Enter", "open the chosen result (a read); with none chosen, show the first one"),
    ("Esc", "clear the query, then the filters"),
    ("Esc (in Filter by entity)", "close its completions, then clear what was typed there; the query stays"),
    ("Tab / Shift+Tab", "the next / previous control"),
    ("Ctrl+C", "in the results: copy the memory's path"),
    (
        "Menu / Shift+F10",
        "a result's actions: open, why not, helpful, expect this memory for this query, copy path, reveal, editor",
    ),
    ("Left / Right", "in the pool chart: the previous / next candidate"),
    ("Space", "in the filters: tick or untick the value"),
)


def action(
    owner: QWidget,
    menu: QMenu,
    text: str,
    slot: Callable[..., Any],
    shortcuts=(),
    *,
    checkable: bool = False,
    tip: str = "",
) -> QAction:
    made = QAction(text, owner)
    if shortcuts:
        made.setShortcuts([QKeySequence(s) for s in shortcuts])
    made.setCheckable(checkable)
    if tip:
        made.setStatusTip(tip)
    made.triggered.connect(slot)
    menu.addAction(made)
    return made


class WindowMenus:
    """The menu bar of `window` (a MainWindow); `filters_action`, `archived_action`, `recall_action`
    are the checkable ones the window keeps in step with the session."""

    def __init__(self, window: Any) -> None:
        self.window = window
        w, session, dialogs = window, window.session, window.dialogs
        bar = w.menuBar()
        file_menu = bar.addMenu("&File")
        action(w, file_menu, "&Open store\u2026", w.stores.choose, [QKeySequence.StandardKey.Open])
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(lambda: w.stores.fill_recent(self.recent_menu))
        file_menu.addSeparator()
        curate = w.controllers["curate"]
        new = action(
            w,
            file_menu,
            "&New memory\u2026",
            curate.new_memory,
            [QKeySequence.StandardKey.New],
            tip="Write a new memory (or task) in one commit, previewed first",
        )
        file_menu.aboutToShow.connect(lambda: new.setEnabled(curate.can("new")))
        file_menu.addSeparator()
        action(
            w, file_menu, "Re-&index now", w.reindex, ["F5"], tip="Compare the whole store with the index and catch up"
        )
        file_menu.addSeparator()
        settings = action(
            w,
            file_menu,
            "&Settings\u2026",
            dialogs.show_settings,
            ["Ctrl+,"],
            tip="Store, index, embedder, recall budget, debounce, theme, watching",
        )
        settings.setMenuRole(QAction.MenuRole.PreferencesRole)
        file_menu.addSeparator()
        action(w, file_menu, "&Quit", w.close, [QKeySequence.StandardKey.Quit])

        edit = bar.addMenu("&Edit")
        self.curate_actions = {
            "undo": action(
                w,
                edit,
                "&Undo\u2026",
                curate.undo,
                [QKeySequence.StandardKey.Undo],
                tip="This app's own recent changes: the commit that reverts one, previewed",
            ),
            "redo": action(
                w,
                edit,
                "&Redo\u2026",
                curate.redo,
                ["Ctrl+Shift+Z"],
                tip="Give back a change this app undid, previewed",
            ),
        }
        edit.addSeparator()
        for key, text, keys in (("correct", "&Correct\u2026", ["Ctrl+E"]), ("archive", "&Archive\u2026", []),
                                ("link", "&Link to\u2026", ["Ctrl+K"]), ("doing", "Mark task &doing\u2026", []),
                                ("done", "Mark task d&one\u2026", [])):  # fmt: skip
            self.curate_actions[key] = action(
                w, edit, text, lambda _=False, k=key: curate.trigger(k), keys, tip="Acts on the memory in the reader"
            )
        edit.aboutToShow.connect(lambda: [a.setEnabled(curate.can(k)) for k, a in self.curate_actions.items()])

        view = bar.addMenu("&View")
        self.filters_action = action(
            w, view, "&Filters panel", lambda on: w.filters.setVisible(on), ["Ctrl+\\"], checkable=True
        )
        self.filters_action.setChecked(True)
        self.chart_action = action(
            w,
            view,
            "Pool &chart",
            lambda on: w.chart.setVisible(on),
            ["Ctrl+Shift+P"],
            checkable=True,
            tip="Each arm's contribution across the fused pool",
        )
        self.chart_action.setChecked(True)
        self.fused_action = action(
            w,
            view,
            "F&used order",
            lambda on: w.results.set_order("fused" if on else "agent"),
            ["Ctrl+Shift+O"],
            checkable=True,
            tip="The fused list before polarity and MMR, instead of the agent's order",
        )
        w.results.order_changed.connect(lambda order: self.fused_action.setChecked(order == "fused"))
        action(
            w,
            view,
            "Show &more results",
            w.controllers["results"].show_more,
            ["Ctrl+Shift+M"],
            tip="List the next rows of the fused list, below the agent's page",
        )
        columns = view.addMenu("C&olumns")
        columns.aboutToShow.connect(lambda: self._fill_columns(columns))
        view.addSeparator()
        for i, (name, label) in enumerate(zip(TAB_NAMES, ("&Reader", "Recall &pack", "&Problems")), start=1):
            action(w, view, label, lambda _=False, n=name: w.show_view(n), [f"Ctrl+{i}"])
        view.addSeparator()
        action(
            w,
            view,
            "Re&view inbox\u2026",
            w.controllers["review"].show,
            ["Ctrl+Shift+R"],
            tip="What changed since you last looked: the agent's writes since your review mark, and the activity",
        )
        action(
            w,
            view,
            "&Conflicts\u2026",
            w.controllers["conflicts"].show,
            ["Ctrl+Shift+C"],
            tip="Near-twin memories whose claims disagree, side by side",
        )
        action(
            w,
            view,
            "Supersession &timeline\u2026",
            lambda: w.controllers["timeline"].show(w.reader.current_path()),
            ["Ctrl+T"],
            tip="The memory in the reader: what it superseded and what superseded it",
        )
        workbench = w.controllers["workbench"]
        action(
            w,
            view,
            "Relevance &workbench\u2026",
            workbench.show,
            ["Ctrl+Shift+B"],
            tip="Probe sets, runs, what-if configurations side by side, history, optimizer",
        )
        action(
            w,
            view,
            "Compare this search &under A and B\u2026",
            workbench.rerun_search,
            ["Ctrl+Shift+Y"],
            tip="The current search under the workbench's two configurations, side by side",
        )
        view.addSeparator()
        self.archived_action = action(
            w, view, "Include &archived", lambda on: session.toggle_filter("archived", "", on), checkable=True
        )
        session.on("scope", lambda scope: self.archived_action.setChecked(scope.include_archived))

        go = bar.addMenu("&Go")
        action(w, go, "&Search", w.search_bar.focus_query, ["Ctrl+L", "Ctrl+F"])
        self.recall_action = action(w, go, "Recall &mode", w.search_bar.toggle_mode, ["Ctrl+R"], checkable=True)
        session.on("mode", lambda mode: self.recall_action.setChecked(mode == "recall"))
        action(w, go, "&Clear search", session.clear, tip="Esc: clear the query (then the filters)")
        go.addSeparator()
        action(w, go, "&Open selected result", w.results.open_current, tip="Enter")
        action(w, go, "&Back", session.back, [QKeySequence.StandardKey.Back])
        action(w, go, "&Forward", session.forward, [QKeySequence.StandardKey.Forward])
        go.addSeparator()
        action(w, go, "&Why not this one?\u2026", dialogs.ask_why, ["Ctrl+Shift+W"])

        help_menu = bar.addMenu("&Help")
        action(w, help_menu, "&About memhtml desktop", dialogs.show_about)
        action(w, help_menu, "&Keyboard shortcuts", dialogs.show_shortcuts, ["F1"])
        help_menu.addSeparator()
        action(
            w,
            help_menu,
            "Open &log folder",
            dialogs.open_log_folder,
            tip="The folder of memhtml-desktop.log, to attach to a bug report",
        )
        self.escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), w, w.search_bar.escape_pressed.emit)
        w.filters.entity_left.connect(w.search_bar.focus_query)  # Esc on the empty entity field

    def _fill_columns(self, menu: QMenu) -> None:
        menu.clear()
        chooser = self.window.results.table.column_menu()
        for item in chooser.actions():
            item.setParent(menu)
            menu.addAction(item)


def shortcut_rows(window: Any) -> list[tuple[str, str]]:
    """(keys, what they do) for every menu action with a shortcut, then the keys outside menus."""
    rows = []
    for top in window.menuBar().actions():
        for item in top.menu().actions():
            keys = [k.toString(QKeySequence.SequenceFormat.PortableText) for k in item.shortcuts()]
            if keys:
                rows.append((" / ".join(keys), f"{top.text().replace('&', '')} \u2192 {item.text().replace('&', '')}"))
    return rows + list(KEYS_OUTSIDE_MENUS)
