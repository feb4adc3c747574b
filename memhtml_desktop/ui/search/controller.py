"""The search bar's wiring: typing, Esc, the mode switch and the chips edit the session; the
session's state and the search's form come back into the bar."""

from __future__ import annotations

from PySide6.QtCore import QObject

from memhtml_desktop.domain.ranking import profile_named
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.ui.kit.ranking_text import profile_help
from memhtml_desktop.ui.search.search_bar import SearchBar
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.ui.session.driver import SessionDriver


class SearchController(QObject):
    def __init__(self, ctx: PaneContext, driver: SessionDriver, bar: SearchBar) -> None:
        super().__init__(bar)
        session = ctx.session
        self.bar = bar
        bar.query_edited.connect(lambda text: session.set_query(text, immediate=False))
        bar.escape_pressed.connect(self._escape)
        bar.mode_changed.connect(session.set_mode)
        bar.chip_removed.connect(lambda axis, value: session.toggle_filter(axis, value, False))
        bar.clear_filters.connect(lambda: session.set_scope(Scope()))
        bar.as_of_entered.connect(self._as_of)
        bar.ranking_chosen.connect(self._ranking_chosen)
        session.on("ranking", self._ranking_set)
        session.on("query", self._query_set)
        session.on("scope", bar.set_scope)
        session.on("mode", self._mode_set)
        driver.answered.connect(lambda a: bar.set_form(a.result.fts_form, a.result.arms, a.result.degraded_reasons))
        ctx.runner.busy_changed.connect(lambda kind, busy: bar.set_busy(busy) if kind == "search" else None)
        self.session = session

    def _ranking_chosen(self, name: str) -> None:
        current = self.session.ranking
        if current is None or current.name != name:
            self.session.set_ranking(profile_named(name))

    def _ranking_set(self, profile) -> None:
        self.bar.set_ranking(profile.name, profile_help(profile))

    def show_ranking(self, profile) -> None:
        """A store opened with its own profile: the selector shows it (nothing re-runs)."""
        if profile is not None:
            self._ranking_set(profile)

    def _escape(self) -> None:
        """Esc: clear the query; when it is already empty, clear the filters."""
        self.session.clear()
        self.bar.focus_query()

    def _as_of(self, instant: str) -> None:
        if (self.session.scope.as_of or "") != instant:
            self.session.set_scope(self.session.scope.with_(as_of=instant or None))

    def _query_set(self, text: str, immediate: bool) -> None:
        if self.bar.text() != text:
            self.bar.set_text(text)

    def _mode_set(self, mode: str) -> None:
        if self.bar.mode() != mode:
            self.bar.set_mode(mode)
