"""The search session: what the person is asking right now, with no Qt in it.

In the spirit of qutebrowser's `Completer`: one object owns the query, the scope, the mode
(search or recall), the page size, the recall budget, the ranking profile, the debounce policy and the history of opened memories. The window and the panes observe it; none of them
holds a copy or reaches into another pane to learn it. The Qt side (`ui/session/driver.py`)
turns its events into jobs.

Observers subscribe per event name and are called synchronously on the thread that changed the
session (the GUI thread): `query` (text, immediate), `scope` (Scope), `mode` (str), `budget`
(int), `limit` (int), `ranking` (RankingProfile: the window makes the store rank with it and
searches again), `open` (path, bump), `why` (path), `reset` (). A new pane listens to the events
it needs and to nothing else.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memhtml_desktop.domain.types import Scope
from memhtml_desktop.ui.session.scope_edits import active_filters, set_filter

SEARCH, RECALL = "search", "recall"
EVENTS = ("query", "scope", "mode", "budget", "limit", "ranking", "open", "why", "reset")

REOPEN_GUARD_S = 0.8
"""A click then a double-click on one row is one read, not two jobs."""


@dataclass(frozen=True)
class Ask:
    """One snapshot of what is asked (the runner's generations per job kind drop stale answers)."""

    query: str
    scope: Scope
    mode: str
    limit: int
    budget: int


class SearchSession:
    """Query, scope, mode, limit, budget, debounce and history (see the module docstring)."""

    def __init__(
        self,
        *,
        limit: int = 10,
        budget: int = 16000,
        debounce_ms: int = 150,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._query = ""
        self._scope = Scope()
        self._mode = SEARCH
        self._limit = int(limit)
        self._budget = int(budget)
        self._ranking: Any = None  # the RankingProfile the window ranks with (the store's, on opening)
        self.debounce_ms = max(0, int(debounce_ms))
        self._history: list[str] = []
        self._history_at = -1
        self._last_open: tuple[str, float] = ("", 0.0)
        self._clock = clock
        self._observers: dict[str, list[Callable[..., Any]]] = defaultdict(list)

    # -- observing ---------------------------------------------------------------------------

    def on(self, event: str, callback: Callable[..., Any]) -> None:
        """Call `callback(*payload)` whenever `event` happens (see EVENTS)."""
        if event not in EVENTS:
            raise ValueError(f"unknown session event {event!r}")
        self._observers[event].append(callback)

    def _emit(self, event: str, *payload: Any) -> None:
        for callback in list(self._observers[event]):
            callback(*payload)

    def _changed(self, event: str, *payload: Any) -> None:
        self._emit(event, *payload)

    # -- what is asked -----------------------------------------------------------------------

    @property
    def query(self) -> str:
        return self._query

    @property
    def scope(self) -> Scope:
        return self._scope

    @property
    def mode(self) -> str:
        return self._mode

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def budget(self) -> int:
        return self._budget

    @property
    def ranking(self) -> Any:
        """The active ranking profile (a `RankingProfile`), or None before a store is shown."""
        return self._ranking

    def ask(self) -> Ask:
        return Ask(self._query, self._scope, self._mode, self._limit, self._budget)

    def set_query(self, text: str, *, immediate: bool = True) -> None:
        """A new query: `immediate` searches now; typing (`immediate=False`) waits for the debounce."""
        self._query = text
        self._changed("query", text, immediate)

    def set_scope(self, scope: Scope) -> None:
        self._scope = scope
        self._changed("scope", scope)

    def toggle_filter(self, axis: str, value: str, on: bool) -> None:
        """One filter value on or off (ValueError for an axis the scope does not know)."""
        self.set_scope(set_filter(self._scope, axis, value, on))

    def clear(self) -> None:
        """Esc: clear the query; when it is already empty, clear the filters."""
        if self._query:
            self.set_query("")
        elif active_filters(self._scope):
            self.set_scope(Scope())

    def set_mode(self, mode: str) -> None:
        if mode not in (SEARCH, RECALL):
            raise ValueError(f"unknown mode {mode!r}")
        if mode != self._mode:
            self._mode = mode
            self._changed("mode", mode)

    def set_budget(self, chars: int) -> None:
        self._budget = max(0, int(chars))
        self._changed("budget", self._budget)

    def set_ranking(self, profile: Any, *, announce: bool = True) -> None:
        """Rank with another profile. `announce=False` only records it (a store opening with its
        own profile: the reopened store is searched anyway)."""
        if profile is None or profile == self._ranking:
            return
        self._ranking = profile
        if announce:
            self._changed("ranking", profile)

    def set_limit(self, limit: int) -> None:
        self._limit = max(1, int(limit))
        self._changed("limit", self._limit)

    # -- reading and history -----------------------------------------------------------------

    def open(self, path: str, *, bump: bool = True, record: bool = True) -> bool:
        """Ask to open `path` (a person's open counts as a read); False when it repeats a click.

        The guard is for a person's clicks (`bump`): the window's own opens (after a write, an
        undo and its redo within the same second) always go through."""
        last_path, last_at = self._last_open
        now = self._clock()
        if bump and path == last_path and now - last_at < REOPEN_GUARD_S:
            return False
        self._last_open = (path, now)
        if record:
            del self._history[self._history_at + 1 :]
            if not self._history or self._history[-1] != path:
                self._history.append(path)
            self._history_at = len(self._history) - 1
        self._emit("open", path, bump)
        return True

    def back(self) -> bool:
        if self._history_at <= 0:
            return False
        self._history_at -= 1
        self._last_open = ("", 0.0)
        return self.open(self._history[self._history_at], record=False)

    def forward(self) -> bool:
        if self._history_at + 1 >= len(self._history):
            return False
        self._history_at += 1
        self._last_open = ("", 0.0)
        return self.open(self._history[self._history_at], record=False)

    @property
    def history(self) -> tuple[str, ...]:
        return tuple(self._history)

    def why(self, path: str) -> None:
        """Ask where `path` stood for the current query, scope and limit."""
        self._emit("why", path)

    def reset(self) -> None:
        """Another store: the history and the reopen guard start over (query and scope stay)."""
        self._history, self._history_at, self._last_open = [], -1, ("", 0.0)
        self._changed("reset")
