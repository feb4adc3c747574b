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


def muted_color() -> QColor:
    """Secondary text (snippets, dashes, zero counts): the palette's placeholder role."""
    app = QGuiApplication.instance()
    if app is None:
        return QColor("#777777")
    return app.palette().color(QPalette.ColorRole.PlaceholderText)


def arm_tint(arm: str, alpha: float) -> QColor:
    """The arm's colour at `alpha` (0..1), for backgrounds that must stay legible in both themes."""
    color = arm_color(arm)
    color.setAlphaF(max(0.0, min(1.0, alpha)))
    return color


ARM_HELP: dict[str, str] = {
    "fts": "Full-text arm: SQLite FTS5 bm25 over title, claim and body. Every query word must match "
           "when some file holds them all; otherwise any word may.",
    "vector": "Vector arm: cosine distance between the query's embedding and each memory's best chunk.",
    "recency": "Recency arm: newer memories rank higher (the memory's own time, else its update time).",
    "salience": "Salience arm: how often a memory was read and reinforced, with its outcome average, "
                "decayed over time.",
}
