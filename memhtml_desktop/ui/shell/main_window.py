"""The main window: a thin composition of panes over one Store and one search session.

filters | ranked results | Reader · Recall pack · Problems, under the search bar. The window builds
the session (`ui/session/search.py`: what is asked), the runner and its store events
(`ui/session/runner.py`: where work runs and how a change is announced), the driver (the debounce
and the search job), and one controller per pane; each controller observes the session, the
driver and the store events and runs its own typed jobs. So a pane never reaches into another,
and a new pane is a new package under `ui/` with a controller, added here in one line.

What stays here: the layout, switching stores (the store's engine with its watcher, the background
integrity check, the vector warm-up), persistence of geometry and splitter, and shutdown. Nothing
here touches the disk or SQLite: the store lives in its engine (`engine/`), the window holds its
`StoreHandle`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QMainWindow, QMessageBox, QWidget

from memhtml_desktop.domain.ranking import DEFAULT
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.jobs import VerifyJob, WarmJob
from memhtml_desktop.settings import Settings
from memhtml_desktop.ui.conflicts.controller import ConflictsController
from memhtml_desktop.ui.curate.controller import CurateController
from memhtml_desktop.ui.filters.controller import FiltersController
from memhtml_desktop.ui.filters.filters_panel import FiltersPanel
from memhtml_desktop.ui.pool.controller import PoolController
from memhtml_desktop.ui.pool.pool_chart import PoolChart
from memhtml_desktop.ui.problems.controller import ProblemsController
from memhtml_desktop.ui.problems.problems_pane import ProblemsPane
from memhtml_desktop.ui.reader.controller import ReaderController, WhyController
from memhtml_desktop.ui.reader.reader_pane import ReaderPane
from memhtml_desktop.ui.recall.controller import RecallController
from memhtml_desktop.ui.recall.recall_pane import RecallPane
from memhtml_desktop.ui.results.controller import ResultsController
from memhtml_desktop.ui.results.results_view import ResultsView
from memhtml_desktop.ui.review.controller import ReviewController
from memhtml_desktop.ui.search.controller import SearchController
from memhtml_desktop.ui.search.search_bar import SearchBar
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.ui.session.driver import SessionDriver
from memhtml_desktop.ui.session.runner import Runner
from memhtml_desktop.ui.session.search import SearchSession
from memhtml_desktop.ui.session.watch_bridge import WatchBridge
from memhtml_desktop.ui.shell import idle, window_state
from memhtml_desktop.ui.shell.dialogs import ShellDialogs
from memhtml_desktop.ui.shell.idle_gc import IdleCollector
from memhtml_desktop.ui.shell.layout import default_sizes, lay_out
from memhtml_desktop.ui.shell.menus import WindowMenus
from memhtml_desktop.ui.shell.preferences import Preferences
from memhtml_desktop.ui.shell.status_bar import StatusBar, StatusController
from memhtml_desktop.ui.shell.stores import StoreChooser
from memhtml_desktop.ui.timeline.controller import TimelineController
from memhtml_desktop.ui.workbench.controller import WorkbenchController

VERIFY_AFTER_MS = 20_000
"""How long after opening a store its index gets a full integrity check (PRAGMA integrity_check)."""


class MainWindow(QMainWindow):
    """The composition of panes over one Store (see the module docstring)."""

    def __init__(
        self,
        store: Any,
        settings: Settings,
        *,
        qsettings: QSettings | None = None,
        store_opener: Callable[[Path], Any] | None = None,
        watch: bool | None = None,
        seed: bool = False,
        watcher_options: dict | None = None,
        local_engine: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        """`store`: a `StoreSpec` (or an open `Store`, whose spec its engine opens again); `seed`:
        import its access sidecar first (a fresh demo copy's recorded reads); `local_engine`: the
        engine on threads of this process (tests that count calls inside it)."""
        super().__init__(parent)
        self.setObjectName("MainWindow")
        self.settings, self.qsettings = settings, qsettings
        self.watch_enabled = settings.watch if watch is None else watch
        self.watcher_options = watcher_options
        self.store: Any = None
        self.bridge: WatchBridge | None = None
        self.runner = Runner(self, processes=not local_engine)
        # The recall slider IS the recall_budget setting: one persisted value, not two that disagree.
        self.session = SearchSession(
            limit=settings.search_limit, budget=settings.recall_budget, debounce_ms=settings.debounce_ms
        )
        self.driver = SessionDriver(self.session, self.runner, self)
        self.ctx = PaneContext(
            self.session,
            self.runner,
            status=self._message,
            notify=self.notify,
            reveal=self.reveal,
            answer=lambda: self.driver.answer,
        )
        self.stores = StoreChooser(self, store_opener)
        self.idle_gc = IdleCollector(self.runner, self.driver, self)
        self.dialogs = ShellDialogs(self)
        self._build()
        self.menus = WindowMenus(self)
        self.session.on("mode", self._mode_changed)
        self.prefs = Preferences(self)
        window_state.restore(self)
        self.set_store(store, seed=seed)

    def _build(self) -> None:
        ctx, driver = self.ctx, self.driver
        self.search_bar, self.filters, self.results = SearchBar(self), FiltersPanel(self), ResultsView(self)
        self.reader, self.recall, self.problems = ReaderPane(), RecallPane(), ProblemsPane()
        self.chart = PoolChart(self)
        self.status = StatusBar(self)
        self.controllers = {
            "search": SearchController(ctx, driver, self.search_bar),
            "filters": FiltersController(ctx, driver, self.filters),
            "results": ResultsController(ctx, driver, self.results),
            "pool": PoolController(ctx, driver, self.chart),
            "reader": ReaderController(ctx, self.reader, driver),
            "why": WhyController(ctx, self),
            "recall": RecallController(ctx, driver, self.recall),
            "problems": ProblemsController(ctx, self.problems),
            "status": StatusController(ctx, self.status),
            "curate": CurateController(ctx, self, reader=self.reader, refresh_index=lambda: not self.watch_enabled),
            "timeline": TimelineController(ctx, self),
        }
        self.controllers["conflicts"] = ConflictsController(ctx, self, self.controllers["curate"])
        self.controllers["workbench"] = WorkbenchController(
            ctx,
            self,
            driver,
            judgments=self.settings.implicit_judgments,
            on_judgments=lambda on: self.prefs.judgments_changed(on),
        )
        self.controllers["review"] = ReviewController(
            ctx, self, self.controllers["curate"], reader=self.reader, shown=self.controllers["reader"].shown
        )
        self.reader.curate_requested.connect(self._curate_requested)
        self.controllers["reader"].shown.connect(self.controllers["timeline"].follow)
        # What the window shows, by event (tests and batch tools wait on these).
        self.search_shown, self.memory_shown = driver.answered, self.controllers["reader"].shown
        self.recall_shown, self.problems_shown = self.controllers["recall"].shown, self.controllers["problems"].shown
        self.why_shown, self.store_changed = self.controllers["why"].shown, self.runner.events.changed
        self.search_bar.submitted.connect(self._submitted)
        self.search_bar.navigate.connect(self.results.move_current)
        driver.indexing_refreshed.connect(self.controllers["status"].recount)
        lay_out(self)

    # -- the store -------------------------------------------------------------------------------

    def set_store(self, store: Any, *, seed: bool = False) -> None:
        """Show `store`: close the old one's engine, start this one's, search it."""
        if self.bridge is not None:
            self.bridge.stop()
            self.bridge.deleteLater()
        for kind in (
            "search",
            "pool",
            "counts",
            "listed",
            "universe",
            "open",
            "reread",
            "recall",
            "problems",
            "stats",
            "why",
            "find",
        ):
            self.runner.cancel(kind)
        self.store = handle = self.runner.open(store)
        ranking = getattr(store, "ranking", None) or DEFAULT
        self.session.set_ranking(ranking, announce=False)  # the store opens with the active profile
        self.prefs.show_ranking(ranking)
        self.session.reset()
        self.setWindowTitle(f"{handle.name} \u2014 memhtml desktop")
        self.bridge = WatchBridge(
            self.runner, enabled=self.watch_enabled, seed=seed, watcher_options=self.watcher_options, parent=self
        )
        self.bridge.status_changed.connect(self.status.set_watch)
        self.bridge.status_changed.connect(self.driver.follow_indexing)
        self.bridge.status_changed.connect(self.idle_gc.heard)
        self.bridge.failed.connect(lambda msg: self._message(f"Indexing failed: {msg}", 15000))
        self.bridge.start()
        self.runner.events.announce(StoreChange(index=True, problems=True, reopened=True, store=handle))
        # A full integrity check reads every page: run it once, in the engine, after the start-up
        # work has had its turn. A damaged index is moved aside and rebuilt by the store.
        QTimer.singleShot(VERIFY_AFTER_MS, lambda s=handle: self._verify(s))
        self.runner.run(WarmJob())

    def _verify(self, store: Any) -> None:
        if store is not self.store:
            return
        seen = len(store.notices)

        def done(sound: bool) -> None:
            for notice in store.notices[seen:]:
                self.notify("The index was rebuilt", notice, QMessageBox.Icon.Warning)

        self.runner.run(VerifyJob().success(done))

    def reindex(self) -> None:
        """F5: a full comparison of tree and index (by the watcher when one runs)."""
        if self.bridge is not None:
            self.bridge.reconcile_now()

    # -- the shell's own reactions ---------------------------------------------------------------

    def set_query(self, text: str, *, immediate: bool = True) -> None:
        """Put `text` in the field and search (now, or after the usual debounce)."""
        self.session.set_query(text, immediate=immediate)

    def open_memory(self, path: str, *, bump: bool = True) -> None:
        self.session.open(path, bump=bump)

    def _curate_requested(self, key: str, path: str) -> None:
        """The reader's Curate menu: the timeline, or a curation dialog for the memory shown."""
        if key == "timeline":
            self.controllers["timeline"].show(path)
        else:
            self.controllers["curate"].trigger(key, path)

    def _submitted(self) -> None:
        """Enter in the field: run a pending search now; else open the row the person chose, or,
        with none chosen, show the first row as current in the focused list (that is not a read)."""
        if self.driver.pending():
            self.driver.refresh()
        elif not self.results.open_current():
            self.results.focus_first()

    def _mode_changed(self, mode: str) -> None:
        if mode != "recall" and self.tabs.currentWidget() is self.recall:
            self.tabs.setCurrentWidget(self.reader)

    def _tab_changed(self, index: int) -> None:
        widget = self.tabs.widget(index)
        for name in ("recall", "problems"):
            if widget is getattr(self, name):
                self.controllers[name].pane_shown()

    def show_view(self, name: str) -> None:
        """Switch the right-hand pane: reader, recall or problems ("results" leaves it as is)."""
        target = {"reader": self.reader, "recall": self.recall, "problems": self.problems}.get(name)
        if target is not None:
            self.reveal(target)

    def reveal(self, pane: QWidget) -> None:
        if self.tabs.indexOf(pane) >= 0:
            self.tabs.setCurrentWidget(pane)

    def _message(self, text: str, ms: int = 10000) -> None:
        self.status.showMessage(text, ms)

    def notify(
        self, title: str, text: str, icon: QMessageBox.Icon = QMessageBox.Icon.Information, *, rich: bool = False
    ) -> QMessageBox:
        """A window-modal message that does not block the caller (`open`, never `exec`)."""
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.open()
        self._message_box = box
        return box

    # -- persistence and shutdown ----------------------------------------------------------------

    def setting(self, key: str, default: Any) -> Any:
        """A persisted value, or `default` (see window_state.setting)."""
        return window_state.setting(self.qsettings, key, default)

    def shutdown(self) -> None:
        """Stop the watcher, the workers and the timers (idempotent)."""
        self.driver.stop()
        if self.bridge is not None:
            self.bridge.stop()
        self.runner.shutdown()
        self.idle_gc.stop()
        self.search_bar.set_busy(False)

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._sizes_restored:  # first run: panes in proportion to the window it opened at
            self._sizes_restored = True
            self.splitter.setSizes(default_sizes(self.width()))

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if not self._sizes_restored and self.isVisible():
            self.splitter.setSizes(default_sizes(self.width()))

    def closeEvent(self, event: QCloseEvent) -> None:
        window_state.save(self)
        # Gone from the screen first: the engine's close is waited for on this thread (20 ms when
        # idle; Runner.shutdown waits up to 15 s while it stops its watcher's pass and joins its
        # lanes, its parse workers killed), and a frozen window is worse than none.
        self.hide()
        self.shutdown()
        super().closeEvent(event)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """For batch tools (screenshots): pump events until nothing is pending (ui/shell/idle.py)."""
        return idle.wait_idle(self, timeout)
