"""The main window: filters | ranked results | Reader · Recall pack · Problems, over one Store.

The window owns the state a person edits (query, scope, mode, budget) and turns each edit into
jobs on the `Runner`; answers come back as signals and go to the panes. Nothing here touches the
disk or SQLite: every Store call is a job in `workers`, tagged with a generation so a late answer
never overwrites a newer one, and the list keeps its last answer until the next one arrives.

Reads are explicit. Opening a memory (click, double-click, Enter) is the one act that bumps its
salience (`store.read(path, bump=True)`); searching, previews, recall and re-reads after a
reinforce or an index batch never bump.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QInputDialog,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.fts_query import parse_fts_query
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.settings import Settings
from memhtml_desktop.ui import workers
from memhtml_desktop.ui.problems_pane import ProblemsPane
from memhtml_desktop.ui.reader_pane import ReaderPane
from memhtml_desktop.ui.recall_pane import RecallPane
from memhtml_desktop.ui.filters_panel import FiltersPanel, active_filters, set_filter
from memhtml_desktop.ui.results_view import ResultsView
from memhtml_desktop.ui.search_bar import SearchBar
from memhtml_desktop.ui.status_bar import StatusBar
from memhtml_desktop.ui.watch_bridge import WatchBridge, touched
from memhtml_desktop.ui.window_menus import MAX_RECENT, TAB_NAMES, WindowMenus  # noqa: F401  (re-exported)

log = logging.getLogger(__name__)

REOPEN_GUARD_S = 0.8
"""A click then a double-click on one row is one read, not two jobs."""
INDEXING_REFRESH_S = 1.0
"""While a first index runs and the list is still empty, re-run the search this often, so hits
appear as soon as files are committed (once there are some, the list waits for the batch's end)."""


VERIFY_AFTER_MS = 20_000
"""How long after opening a store its index gets a full integrity check (PRAGMA integrity_check)."""


class MainWindow(WindowMenus, QMainWindow):
    """The composition of panes over one Store (see the module docstring)."""

    search_shown = Signal(object)  # the SearchResult now listed
    counts_shown = Signal(object)  # the FilterCounts now in the filters panel
    memory_shown = Signal(object)  # the MemoryDetail now in the reader
    recall_shown = Signal(object)  # the RecallPack now in the recall tab
    problems_shown = Signal(object)
    why_shown = Signal(object)
    stats_shown = Signal(object)
    store_changed = Signal(object)  # the new Store

    def __init__(self, store: Any, settings: Settings, *, qsettings: QSettings | None = None,
                 store_opener: Callable[[Path], Any] | None = None, watch: bool | None = None,
                 prepare: Callable[[Any], Any] | None = None, watcher_options: dict | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MainWindow")
        self.settings = settings
        self.qsettings = qsettings
        self.store_opener = store_opener
        self.watch_enabled = settings.watch if watch is None else watch
        self.watcher_options = watcher_options
        self.store: Any = None
        self.bridge: WatchBridge | None = None
        self.runner = workers.Runner(self)
        self.runner.busy_changed.connect(self._busy_changed)
        self._query = ""
        self._scope = Scope()
        # The slider IS the recall_budget setting: one persisted value, not two that disagree.
        self._budget = int(settings.recall_budget)
        self._last_open: tuple[str, float] = ("", 0.0)
        self._history: list[str] = []
        self._history_at = -1
        self._last_refresh = 0.0
        self._universe_stale = True
        self._result = None

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(max(0, settings.debounce_ms))
        self._debounce.timeout.connect(self.refresh)

        self._build()
        self._build_menus()
        self._connect()
        self._restore_state()
        self.set_store(store, prepare=prepare)

    # -- construction ----------------------------------------------------------------------------

    def _build(self) -> None:
        self.search_bar = SearchBar(self)
        self.filters = FiltersPanel(self)
        self.results = ResultsView(self)
        self.reader = ReaderPane()
        self.recall = RecallPane()
        self.problems = ProblemsPane()
        self.recall.set_budget(self._budget)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("rightTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.reader, "Reader")
        self.tabs.addTab(self.recall, "Recall pack")
        self.tabs.addTab(self.problems, "Problems")
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.setChildrenCollapsible(False)
        for widget in (self.filters, self.results, self.tabs):
            self.splitter.addWidget(widget)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setStretchFactor(2, 2)
        self.splitter.setSizes([260, 720, 420])
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.search_bar)
        layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        self.status = StatusBar(self)
        self.setStatusBar(self.status)
        self.resize(1400, 900)

    def _action(self, menu, text: str, slot, shortcuts=(), *, checkable: bool = False, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcuts:
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
        action.setCheckable(checkable)
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _connect(self) -> None:
        bar = self.search_bar
        bar.query_edited.connect(self._query_edited)
        bar.submitted.connect(self._submitted)
        bar.navigate.connect(self.results.move_current)
        bar.escape_pressed.connect(self.clear_search)
        bar.mode_changed.connect(self._mode_changed)
        bar.chip_removed.connect(lambda axis, value: self.toggle_filter(axis, value, False))
        bar.clear_filters.connect(lambda: self.set_scope(Scope()))
        self.filters.filter_toggled.connect(self.toggle_filter)
        self.filters.include_archived_toggled.connect(lambda on: self.toggle_filter("archived", "", on))
        self.results.open_requested.connect(self.open_memory)
        self.results.include_archived_requested.connect(lambda: self.toggle_filter("archived", "", True))
        self.reader.open_requested.connect(self.open_memory)
        self.reader.filter_requested.connect(lambda axis, value: self.toggle_filter(axis, value, True))
        self.reader.reinforce_requested.connect(self.reinforce)
        self.reader.why_requested.connect(self.why)
        self.recall.open_requested.connect(self.open_memory)
        self.recall.budget_changed.connect(self._budget_changed)
        self.problems.open_requested.connect(self.open_memory)
        self.tabs.currentChanged.connect(self._tab_changed)

    # -- the store -------------------------------------------------------------------------------

    def set_store(self, store: Any, *, prepare: Callable[[Any], Any] | None = None) -> None:
        """Show `store`: stop following the old one, start following this one, search it."""
        if self.bridge is not None:
            self.bridge.stop()
            self.bridge.deleteLater()
        for kind in ("search", "counts", "universe", "open", "recall", "problems", "stats", "why"):
            self.runner.cancel(kind)
        self.store = store
        self.runner.thread_closers = [store.close_thread_connection]
        self._result = None
        self._history, self._history_at = [], -1
        self.reader.clear()
        self.reader.set_store_root(store.root)
        self.status.set_store(store.root)
        self.setWindowTitle(f"{store.root.name} \u2014 memhtml desktop")
        for notice in getattr(store, "notices", []):
            self.status.showMessage(notice, 15000)
        self.bridge = WatchBridge(store, self.runner, enabled=self.watch_enabled, prepare=prepare,
                                  watcher_options=self.watcher_options, parent=self)
        self.bridge.status_changed.connect(self._watch_status)
        self.bridge.batch_indexed.connect(self._batch_indexed)
        self.bridge.failed.connect(lambda msg: self.status.showMessage(f"Indexing failed: {msg}", 15000))
        self.bridge.start()
        self._universe_stale = True
        self.refresh()
        self._refresh_stats()
        # A full integrity check reads every page: run it once, off the GUI thread, after the
        # start-up work has had its turn. A damaged index is moved aside and rebuilt by the store.
        QTimer.singleShot(VERIFY_AFTER_MS, lambda s=store: self._verify(s))
        self.runner.submit("warm", lambda cancelled, progress, s=store: s.warm())
        self.store_changed.emit(store)

    def _verify(self, store: Any) -> None:
        if store is not self.store:
            return
        seen = len(store.notices)

        def done(sound: bool) -> None:
            for notice in store.notices[seen:]:
                self.notify("The index was rebuilt", notice, QMessageBox.Icon.Warning)
            if not sound:
                self.refresh()

        self.runner.submit("verify", lambda cancelled, progress: store.verify(), done, writer=True)

    # -- query, scope, mode ----------------------------------------------------------------------

    def query(self) -> str:
        return self._query

    def scope(self) -> Scope:
        return self._scope

    def mode(self) -> str:
        return self.search_bar.mode()

    def set_query(self, text: str, *, immediate: bool = True) -> None:
        """Put `text` in the field and search (now, or after the usual debounce)."""
        self.search_bar.set_text(text)
        self._query = text
        if immediate:
            self.refresh()
        else:
            self._debounce.start()

    def _query_edited(self, text: str) -> None:
        self._query = text
        self._debounce.start()

    def _submitted(self) -> None:
        """Enter in the field: run a pending search now, else open the current result."""
        if self._debounce.isActive() or self.runner.is_busy("search"):
            self.refresh()
            return
        self.results.open_current()

    def clear_search(self) -> None:
        """Esc: clear the query; when it is already empty, clear the filters."""
        if self._query or self.search_bar.text():
            self.set_query("")
        elif active_filters(self._scope):
            self.set_scope(Scope())
        self.search_bar.focus_query()

    def toggle_filter(self, axis: str, value: str, on: bool) -> None:
        try:
            self.set_scope(set_filter(self._scope, axis, value, on))
        except ValueError as exc:
            self.status.showMessage(str(exc), 8000)

    def set_scope(self, scope: Scope) -> None:
        self._scope = scope
        self.filters.set_scope(scope)
        self.search_bar.set_scope(scope)
        self.archived_action.setChecked(scope.include_archived)
        self.refresh()

    def _archived_from_menu(self, on: bool) -> None:
        self.toggle_filter("archived", "", on)

    def _mode_changed(self, mode: str) -> None:
        self.recall_action.setChecked(mode == "recall")
        if mode == "recall":
            self.tabs.setCurrentWidget(self.recall)
            self._run_recall()
        elif self.tabs.currentWidget() is self.recall:
            self.tabs.setCurrentWidget(self.reader)

    # -- jobs ------------------------------------------------------------------------------------

    def refresh(self, *, counts: bool = True) -> None:
        """Search for the current state; then its filter counts (and the store's values when stale).

        The jobs run one after another, not side by side: the counts cost several times a search
        on a large store, and the search is what a person waits for. A newer refresh replaces the
        whole chain (each step checks it is still the latest before starting the next).
        """
        self._debounce.stop()
        self._last_refresh = time.monotonic()
        store, query, scope, limit = self.store, self._query, self._scope, self.settings.search_limit
        generation = self.runner.submit(
            "search", lambda c, p: workers.search(store, query, scope, limit, c),
            lambda result: self._search_done(result, counts and generation == self.runner.latest("search")),
            on_error=self._search_failed)
        if self.mode() == "recall" or self.tabs.currentWidget() is self.recall:
            self._run_recall()

    def _search_done(self, result: Any, counts: bool = False) -> None:
        self._result = result
        self.results.set_result(result)
        self.search_bar.set_form(result.fts_form, result.arms, result.degraded_reasons)
        self.search_shown.emit(result)
        if counts:
            self._run_counts(result.query, result.scope)
        elif self._universe_stale:
            self._load_universe()

    def _search_failed(self, message: str) -> None:
        self.results.show_message(f"The search failed: {message}")
        self.status.showMessage(f"Search failed: {message}", 10000)

    def _run_counts(self, query: str, scope: Scope) -> None:
        store = self.store
        self.runner.submit("counts", lambda c, p: workers.counts(store, query, scope, c), self._counts_done,
                           on_error=lambda msg: log.warning("filter counts failed: %s", msg))

    def _counts_done(self, counts: Any) -> None:
        self.filters.set_counts(counts)
        self.counts_shown.emit(counts)
        if self._universe_stale:
            self._load_universe()

    def _load_universe(self) -> None:
        """The store's filter values (empty query, empty scope): after the first index and each batch."""
        self._universe_stale = False
        store = self.store
        self.runner.submit("universe", lambda c, p: workers.counts(store, "", Scope(), c), self.filters.set_universe,
                           on_error=lambda msg: log.warning("filter values failed: %s", msg))

    def _refresh_stats(self) -> None:
        store = self.store
        self.runner.submit("stats", lambda c, p: workers.stats(store, c), self._stats_done,
                           on_error=lambda msg: log.warning("stats failed: %s", msg))

    def _stats_done(self, stats: dict) -> None:
        self.status.set_stats(stats)
        self.stats_shown.emit(stats)

    def _busy_changed(self, kind: str, busy: bool) -> None:
        if kind == "search":
            self.search_bar.set_busy(busy)

    def _run_recall(self) -> None:
        store, query, scope, budget, limit = self.store, self._query, self._scope, self._budget, self.settings.search_limit
        self.recall.show_loading()
        self.runner.submit("recall", lambda c, p: workers.recall(store, query, scope, budget, limit, c),
                           self._recall_done, on_error=lambda msg: self.status.showMessage(f"Recall failed: {msg}", 10000))

    def _recall_done(self, pack: Any) -> None:
        self.recall.show_pack(pack)
        self.recall_shown.emit(pack)

    def _budget_changed(self, chars: int) -> None:
        self._budget = int(chars)
        self.settings = self.settings.with_(recall_budget=self._budget)
        if self.qsettings is not None:
            self.qsettings.setValue("settings/recall_budget", self._budget)
        self._run_recall()

    def _run_problems(self) -> None:
        store = self.store
        self.runner.submit("problems", lambda c, p: workers.problems(store, c), self._problems_done,
                           on_error=lambda msg: self.status.showMessage(f"Problems failed: {msg}", 10000))

    def _problems_done(self, answer: tuple[list, dict]) -> None:
        problems, stats = answer
        self.problems.show_problems(problems, stats)
        self.problems_shown.emit(problems)

    def _tab_changed(self, index: int) -> None:
        widget = self.tabs.widget(index)
        if widget is self.recall:
            self._run_recall()
        elif widget is self.problems:
            self._run_problems()

    def show_view(self, name: str) -> None:
        """Switch the right-hand pane: reader, recall or problems ("results" leaves it as is)."""
        target = {"reader": self.reader, "recall": self.recall, "problems": self.problems}.get(name)
        if target is not None:
            self.tabs.setCurrentWidget(target)

    # -- reading ---------------------------------------------------------------------------------

    def open_memory(self, path: str, *, bump: bool = True, record: bool = True) -> None:
        """Open `path` in the reader. With `bump` (every person's open) this counts as a read."""
        last_path, last_at = self._last_open
        now = time.monotonic()
        if path == last_path and now - last_at < REOPEN_GUARD_S:
            return
        self._last_open = (path, now)
        if record:
            del self._history[self._history_at + 1:]
            if not self._history or self._history[-1] != path:
                self._history.append(path)
            self._history_at = len(self._history) - 1
        self.tabs.setCurrentWidget(self.reader)
        self.reader.show_loading(path)
        store, terms = self.store, parse_fts_query(self._query).highlight_words
        self.runner.submit("open", lambda c, p: workers.open_memory(store, path, terms, bump, c),
                           self._opened, on_error=lambda msg: self.reader.show_error(path, msg))

    def _opened(self, opened: workers.Opened) -> None:
        self.reader.show_detail(opened.detail, opened.safe_html)
        self.memory_shown.emit(opened.detail)
        self._refresh_stats()

    def _reread(self) -> None:
        """Refresh the open memory after an index batch, without counting a read."""
        path = getattr(self.reader, "current_path", lambda: None)()
        if not path or getattr(self.reader, "state", lambda: "detail")() != "detail":
            return
        store, terms = self.store, parse_fts_query(self._query).highlight_words
        self.runner.submit("reread", lambda c, p: workers.open_memory(store, path, terms, False, c),
                           self._reread_done, on_error=lambda msg: None)

    def _reread_done(self, opened: workers.Opened) -> None:
        if getattr(self.reader, "current_path", lambda: opened.detail.path)() == opened.detail.path:
            self.reader.show_detail(opened.detail, opened.safe_html)
            self.memory_shown.emit(opened.detail)

    def go_back(self) -> None:
        if self._history_at > 0:
            self._history_at -= 1
            self._last_open = ("", 0.0)
            self.open_memory(self._history[self._history_at], record=False)

    def go_forward(self) -> None:
        if self._history_at + 1 < len(self._history):
            self._history_at += 1
            self._last_open = ("", 0.0)
            self.open_memory(self._history[self._history_at], record=False)

    def reinforce(self, path: str, signal: str) -> None:
        """Helpful / not helpful: record it, then re-read WITHOUT counting a read."""
        store, terms = self.store, parse_fts_query(self._query).highlight_words
        self.runner.submit("reinforce", lambda c, p: workers.reinforce(store, path, signal, terms, c),
                           self._reinforced, replace=False,
                           on_error=lambda msg: self.status.showMessage(f"Not recorded: {msg}", 10000))

    def _reinforced(self, answer: tuple[Any, workers.Opened]) -> None:
        result, opened = answer
        if getattr(self.reader, "current_path", lambda: opened.detail.path)() == opened.detail.path:
            self.reader.show_detail(opened.detail, opened.safe_html)
            if hasattr(self.reader, "show_reinforce"):
                self.reader.show_reinforce(result)
        self.memory_shown.emit(opened.detail)

    def why(self, path: str) -> None:
        store, query, scope = self.store, self._query, self._scope
        self.runner.submit("why", lambda c, p: workers.why(store, query, scope, path, c), self._why_done,
                           on_error=lambda msg: self.notify("Why not this one?", msg, QMessageBox.Icon.Warning))

    def ask_why(self) -> None:
        path, ok = QInputDialog.getText(self, "Why not this one?", "Memory path (store-relative):",
                                        text=self.results.current_path() or "")
        if ok and path.strip():
            self.why(path.strip())

    def _why_done(self, report: Any) -> None:
        """One dialog, reused: "Open memory" opens in the reader, a typed path asks again."""
        from memhtml_desktop.ui.why_dialog import WhyDialog

        dialog = getattr(self, "_why_dialog", None)
        if not isinstance(dialog, WhyDialog):
            dialog = WhyDialog(self)
            dialog.open_requested.connect(self.open_memory)
            dialog.why_requested.connect(self.why)
            self._why_dialog = dialog
        dialog.show_report(report)
        dialog.show()
        dialog.raise_()
        self.why_shown.emit(report)

    # -- following the disk ----------------------------------------------------------------------

    def _watch_status(self, status: Any) -> None:
        self.status.set_watch(status)
        busy = getattr(status, "busy", False) and getattr(status, "progress", None)
        empty = self._result is None or not self._result.hits
        if busy and empty and time.monotonic() - self._last_refresh > INDEXING_REFRESH_S \
                and not self._debounce.isActive():
            self.refresh(counts=False)  # a first index: show hits as soon as some are committed
            self._refresh_stats()

    def _batch_indexed(self, summary: Any) -> None:
        if not touched(summary):
            return
        self._universe_stale = True
        if not self._debounce.isActive():
            self.refresh()
        self._refresh_stats()
        self._reread()
        if self.tabs.currentWidget() is self.problems:
            self._run_problems()

    def notify(self, title: str, text: str, icon: QMessageBox.Icon = QMessageBox.Icon.Information, *,
               rich: bool = False) -> QMessageBox:
        """A window-modal message that does not block the caller (`open`, never `exec`)."""
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.open()
        self._message = box
        return box

    # -- persistence and shutdown ----------------------------------------------------------------

    def _setting(self, key: str, default: Any) -> Any:
        """A persisted value, or `default` (missing keys are never read: see ui.pyside_fixes.guard_none_refcount)."""
        if self.qsettings is None or not self.qsettings.contains(key):
            return default
        value = self.qsettings.value(key)
        return default if value in (None, "") else value

    def _restore_state(self) -> None:
        if self.qsettings is None:
            return
        geometry = self._setting("window/geometry", None)
        if geometry:
            self.restoreGeometry(geometry)
        state = self._setting("window/state", None)
        if state:
            self.restoreState(state)
        splitter = self._setting("window/splitter", None)
        if splitter:
            self.splitter.restoreState(splitter)
        self.results.restore_state(self._setting("results/header", None))
        filters_visible = str(self._setting("window/filters", "true")).lower() != "false"
        self.filters.setVisible(filters_visible)
        self.filters_action.setChecked(filters_visible)

    def save_state(self) -> None:
        if self.qsettings is None:
            return
        self.qsettings.setValue("window/geometry", self.saveGeometry())
        self.qsettings.setValue("window/state", self.saveState())
        self.qsettings.setValue("window/splitter", self.splitter.saveState())
        self.qsettings.setValue("results/header", self.results.save_state())
        self.qsettings.setValue("window/filters", "true" if self.filters.isVisible() else "false")
        self.qsettings.setValue("settings/recall_budget", self._budget)
        self.qsettings.sync()

    def shutdown(self) -> None:
        """Stop the watcher, the workers and the timers (idempotent)."""
        self._debounce.stop()
        if self.bridge is not None:
            self.bridge.stop()
        self.runner.shutdown()
        self.search_bar.set_busy(False)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        self.shutdown()
        super().closeEvent(event)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """For batch tools (screenshots): pump events until no job and no watcher pass is pending."""
        deadline = time.monotonic() + timeout
        app = QApplication.instance()
        while time.monotonic() < deadline:
            app.processEvents()
            watching = self.bridge is not None and self.bridge.watcher is not None
            if not self.runner.is_busy() and not self._debounce.isActive() and (
                    not watching or self.bridge.wait_idle(0.01)):
                for _ in range(5):
                    app.processEvents()
                if not self.runner.is_busy():
                    return True
            time.sleep(0.005)
        return False
