"""Settings the person changes in the window itself, not in the Settings dialog: the recall budget
(the slider IS the `recall_budget` setting), the ranking selector, implicit judgments. Each is in
force at once and kept for the next start (QSettings). The active ranking profile is the session's:
every job that ranks carries it to the engine; every pane that explains scores reads it.

Kept apart from `MainWindow` so the window stays a composition (tests/ui/test_size_limits.py).
"""

from __future__ import annotations

from typing import Any


class Preferences:
    def __init__(self, window: Any) -> None:
        self.window = window
        window.session.on("budget", lambda chars: self.keep("recall_budget", chars))
        window.session.on("ranking", self.ranking_changed)

    def keep(self, name: str, value: Any, stored: Any = None) -> None:
        """A setting the person changed in the window: in force now, and kept for the next start."""
        w = self.window
        w.settings = w.settings.with_(**{name: value})
        if w.qsettings is not None:
            w.qsettings.setValue(f"settings/{name}", value if stored is None else stored)

    def show_ranking(self, profile: Any) -> None:
        """Every pane that explains scores reads the ACTIVE profile's weights, k and windows."""
        w = self.window
        w.controllers["search"].show_ranking(profile)
        w.results.set_profile(profile)
        w.chart.set_profile(profile)
        w.recall.set_profile(profile)

    def ranking_changed(self, profile: Any) -> None:
        """The person chose another ranking profile: every later job that ranks carries it (the
        session's; nothing waits), the choice is kept, and the current search, the recall pack and an
        open "Why not?" report run again."""
        from memhtml_desktop.ui.kit.ranking_text import CHOICES

        w = self.window
        self.show_ranking(profile)
        if profile.name in CHOICES:
            self.keep("ranking", profile.name)
        w.driver.refresh()
        w.controllers["why"].ranking_changed()

    def judgments_changed(self, on: bool) -> None:
        self.keep("implicit_judgments", on, "true" if on else "false")
