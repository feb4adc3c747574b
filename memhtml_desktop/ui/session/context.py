"""What a pane's controller is handed: the session, the runner, the store events, four callbacks.

In the spirit of git-cola's `ApplicationContext`: one small object instead of a reference to the
window, so a pane (a new one in a later issue, too) reaches the session and the store's work and
never another pane. The callbacks are the shell's: a status-bar message, a window-modal notice,
and "bring this pane to the front"; and the driver's `Answer` now listed (the reader highlights its
parsed words, *Why not?* explains its ask with them: nothing parses the query again). `row_actions` is the shared registry of what a right-click on
a memory offers (`ui/kit/row_actions.py`): each pane adds its own actions to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memhtml_desktop.ui.kit.row_actions import RowActions
from memhtml_desktop.ui.session.runner import Runner, StoreEvents
from memhtml_desktop.ui.session.search import SearchSession


def _nothing(*_: Any, **__: Any) -> None:
    return None


@dataclass
class PaneContext:
    session: SearchSession
    runner: Runner
    status: Callable[[str, int], Any] = _nothing  # a status-bar message for that many ms
    notify: Callable[..., Any] = _nothing  # a window-modal notice: notify(title, text, icon=...)
    reveal: Callable[[Any], Any] = _nothing  # bring this pane (a widget) to the front
    answer: Callable[[], Any] = _nothing  # the Answer now listed (domain/results.py), or None
    row_actions: RowActions = field(default_factory=RowActions)

    @property
    def events(self) -> StoreEvents:
        return self.runner.events

    @property
    def store(self) -> Any:
        """The open Store (it changes when another store is opened: never keep it)."""
        return self.runner.store
