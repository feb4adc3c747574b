"""One colour per arm, everywhere: column headers, stacked bars, tooltips, the recall ledger.

Okabe–Ito, a colour-blind-safe set. Tier badges in the recall pack use their own three tones.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QGuiApplication, QPalette

ARM_COLORS: dict[str, str] = {
    "fts": "#0072B2",
    "vector": "#CC79A7",
    "recency": "#009E73",
    "salience": "#E69F00",
}
ARM_LABELS: dict[str, str] = {"fts": "fts", "vector": "vec", "recency": "rec", "salience": "sal"}
ARM_TITLES: dict[str, str] = {
    "fts": "full text (bm25)",
    "vector": "vector (cosine)",
    "recency": "recency",
    "salience": "salience",
}
TIER_COLORS: dict[str, str] = {"quote": "#0072B2", "disclosure": "#56B4E9", "index": "#999999"}
MARK_LIGHT = "#fff3a3"
MARK_DARK = "#6b5d00"
WARNING_LIGHT = "#fff4ce"
WARNING_DARK = "#5c4b00"


def arm_color(arm: str) -> QColor:
    return QColor(ARM_COLORS.get(arm, "#777777"))


def is_dark() -> bool:
    """Whether the application palette is dark (the system's, or the theme setting's)."""
    app = QGuiApplication.instance()
    if app is None:
        return False
    window = app.palette().color(QPalette.ColorRole.Window)
    return window.lightness() < 128


def mark_color() -> str:
    return MARK_DARK if is_dark() else MARK_LIGHT


def warning_color() -> str:
    return WARNING_DARK if is_dark() else WARNING_LIGHT
