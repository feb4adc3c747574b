"""The colour theme: `system`, `light` or `dark` (the `theme` setting), applied to the application.

Here rather than in the composition root so the Settings dialog's "apply now" can use it without
importing `ui/app.py`.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication


def dark_palette() -> QPalette:
    pal = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#2b2b2b", QPalette.ColorRole.WindowText: "#e6e6e6",
        # Base a little LIGHTER than Window: Fusion outlines check boxes with Window.darker(140),
        # which vanishes on a Base darker than the window.
        QPalette.ColorRole.Base: "#333333", QPalette.ColorRole.AlternateBase: "#3a3a3a",
        QPalette.ColorRole.Text: "#e6e6e6", QPalette.ColorRole.Button: "#3a3a3a",
        QPalette.ColorRole.ButtonText: "#e6e6e6", QPalette.ColorRole.Highlight: "#2f65ca",
        QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.ToolTipBase: "#333333",
        QPalette.ColorRole.ToolTipText: "#e6e6e6", QPalette.ColorRole.PlaceholderText: "#9a9a9a",
        QPalette.ColorRole.Link: "#6ea8ff", QPalette.ColorRole.Mid: "#5a5a5a",
        QPalette.ColorRole.Midlight: "#4a4a4a", QPalette.ColorRole.Dark: "#1a1a1a",
    }
    for role, color in roles.items():
        pal.setColor(role, QColor(color))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#777777"))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, QColor("#777777"))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#777777"))
    return pal


def apply_theme(app: QApplication, theme: str) -> None:
    """`system` keeps the platform's palette (light or dark); `light`/`dark` ask Qt for that scheme.

    Qt 6.8+ lets an application pick the colour scheme, and Fusion then draws its own palette for
    it (check boxes and frames included); older Qt gets our dark palette.
    """
    if theme == "system":
        return
    from PySide6.QtCore import Qt

    app.setStyle("Fusion")
    hints = app.styleHints()
    if hasattr(hints, "setColorScheme"):
        hints.setColorScheme(Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light)
    palette = app.style().standardPalette()
    if theme == "dark" and palette.color(QPalette.ColorRole.Window).lightness() >= 128:
        palette = dark_palette()  # the platform cannot switch schemes (e.g. offscreen, Qt < 6.8)
    app.setPalette(palette)
