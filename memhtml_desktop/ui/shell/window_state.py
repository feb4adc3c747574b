"""What the main window keeps between runs: geometry, splitters, the list's columns, which panes show.

QSettings is read through `setting`, which never asks for a missing key (see
ui.kit.pyside_fixes.guard_singleton_refcounts).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings


def setting(qsettings: QSettings | None, key: str, default: Any) -> Any:
    """A persisted value, or `default` when there is none (or no QSettings at all)."""
    if qsettings is None or not qsettings.contains(key):
        return default
    value = qsettings.value(key)
    return default if value in (None, "") else value


def restore(window: Any) -> None:
    """Put the window back as it was left; a first run keeps the proportional defaults."""
    for key, put_back in (
        ("window/geometry", window.restoreGeometry),
        ("window/state", window.restoreState),
        ("window/splitter", window.splitter.restoreState),
        ("window/list_splitter", window.middle.restoreState),
    ):
        value = window.setting(key, None)
        if value:
            put_back(value)
            window._sizes_restored = window._sizes_restored or key == "window/splitter"
    window.results.restore_state(window.setting("results/header", None))
    filters_visible = str(window.setting("window/filters", "true")).lower() != "false"
    window.filters.setVisible(filters_visible)
    window.menus.filters_action.setChecked(filters_visible)
    chart_visible = str(window.setting("window/pool_chart", "true")).lower() != "false"
    window.chart.setVisible(chart_visible)
    window.menus.chart_action.setChecked(chart_visible)


def save(window: Any) -> None:
    qsettings = window.qsettings
    if qsettings is None:
        return
    for key, value in (
        ("window/geometry", window.saveGeometry()),
        ("window/state", window.saveState()),
        ("window/splitter", window.splitter.saveState()),
        ("results/header", window.results.save_state()),
        ("window/list_splitter", window.middle.saveState()),
        ("window/filters", "true" if window.filters.isVisible() else "false"),
        ("window/pool_chart", "false" if window.chart.isHidden() else "true"),
        ("settings/recall_budget", window.session.budget),
    ):
        qsettings.setValue(key, value)
    qsettings.sync()
