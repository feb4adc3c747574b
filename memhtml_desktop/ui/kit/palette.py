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


def luminance(color: QColor) -> float:
    """WCAG relative luminance."""

    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio (1 to 21): 4.5 is the floor for body text."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def legible(color: QColor, background: QColor, ratio: float = 4.5) -> QColor:
    """`color`'s hue, made lighter (on a dark background) or darker (on a light one) until it reads.

    The arm colours are chosen to tell arms apart in bars; as text on a dark window the blue and
    green read poorly. The hue stays, so the header still names its arm by colour.
    """
    if contrast(color, background) >= ratio:
        return QColor(color)
    dark_background = luminance(background) < 0.5
    h, s, l, a = color.getHslF()
    h = max(h, 0.0)
    for step in range(1, 41):
        lightness = min(1.0, l + step * 0.025) if dark_background else max(0.0, l - step * 0.025)
        candidate = QColor.fromHslF(h, s, lightness, a)
        if contrast(candidate, background) >= ratio:
            return candidate
    return QColor("#ffffff" if dark_background else "#000000")


def window_color() -> QColor:
    app = QGuiApplication.instance()
    if app is None:
        return QColor("#ffffff")
    return app.palette().color(QPalette.ColorRole.Window)


def arm_text_color(arm: str, background: QColor | None = None) -> QColor:
    """The arm's colour as TEXT (headers, labels): its hue at a lightness that reads on `background`.

    The header is painted on the Button colour, a shade off the Window colour; both are checked.
    """
    app = QGuiApplication.instance()
    if background is not None:
        return legible(arm_color(arm), background)
    if app is None:
        return arm_color(arm)
    pal = app.palette()
    color = legible(arm_color(arm), pal.color(QPalette.ColorRole.Window))
    return legible(color, pal.color(QPalette.ColorRole.Button))


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
