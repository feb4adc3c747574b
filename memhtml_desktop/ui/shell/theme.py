"""The colour theme: `system`, `light` or `dark` (the `theme` setting), applied to the application.

Here rather than in the composition root so the Settings dialog's "apply now" can use it without
importing `ui/app.py`.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle


def dark_palette() -> QPalette:
    pal = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#2b2b2b",
        QPalette.ColorRole.WindowText: "#e6e6e6",
        # Base a little LIGHTER than Window: Fusion outlines check boxes with Window.darker(140),
        # which vanishes on a Base darker than the window.
        QPalette.ColorRole.Base: "#333333",
        QPalette.ColorRole.AlternateBase: "#3a3a3a",
        QPalette.ColorRole.Text: "#e6e6e6",
        QPalette.ColorRole.Button: "#3a3a3a",
        QPalette.ColorRole.ButtonText: "#e6e6e6",
        QPalette.ColorRole.Highlight: "#2f65ca",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#333333",
        QPalette.ColorRole.ToolTipText: "#e6e6e6",
        QPalette.ColorRole.PlaceholderText: "#9a9a9a",
        QPalette.ColorRole.Link: "#6ea8ff",
        QPalette.ColorRole.Mid: "#5a5a5a",
        QPalette.ColorRole.Midlight: "#4a4a4a",
        QPalette.ColorRole.Dark: "#1a1a1a",
    }
    for role, color in roles.items():
        pal.setColor(role, QColor(color))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#777777"))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, QColor("#777777"))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#777777"))
    return pal


THEME_PROPERTY = "memhtmlTheme"
INDICATOR_CONTRAST = 3.0
"""WCAG's floor for a control's boundary against what is around it (non-text contrast)."""
_INDICATORS = (
    QStyle.PrimitiveElement.PE_IndicatorCheckBox,
    QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck,
    QStyle.PrimitiveElement.PE_IndicatorRadioButton,
)


class LegibleIndicators(QProxyStyle):
    """Fusion, with the frame of a check box (and a radio button) drawn at a contrast of 3:1.

    Fusion outlines the box with the window colour made 40 % darker: on a dark window (ours, or
    the platform's own dark Fusion palette) that is #1e1e1e on #2b2b2b, about 1.3:1, and the
    filters' check boxes all but vanished (issue 41). On a dark palette the frame is drawn again
    over Fusion's in the placeholder colour, lightened until it reads against the window; the box,
    its fill and its tick stay Fusion's. A light palette is left as it is (its frame reads).
    """

    def drawPrimitive(self, element, option, painter, widget=None) -> None:  # noqa: N802
        super().drawPrimitive(element, option, painter, widget)
        if element not in _INDICATORS:
            return
        pal = option.palette
        window = pal.color(QPalette.ColorRole.Window)
        if window.lightness() >= 128:
            return
        from memhtml_desktop.ui.kit.palette import legible

        frame = legible(pal.color(QPalette.ColorRole.PlaceholderText), window, INDICATOR_CONTRAST)
        if not option.state & QStyle.StateFlag.State_Enabled:
            frame.setAlphaF(0.5)
        painter.save()
        painter.setRenderHint(painter.RenderHint.Antialiasing, element == _INDICATORS[2])
        painter.setPen(frame)
        painter.setBrush(QColor(0, 0, 0, 0))
        box = option.rect.adjusted(0, 0, -1, -1)
        if element == _INDICATORS[2]:
            painter.drawEllipse(box)
        else:
            painter.drawRect(box)
        painter.restore()


def legible_links(palette: QPalette) -> QPalette:
    """`palette` with its link colours readable on its own base (Fusion's dark scheme on X11 keeps
    QPalette's default #0000ff: dark blue on near-black, the facets in the reader all but invisible)."""
    from memhtml_desktop.ui.kit.palette import legible

    fixed = QPalette(palette)
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        base = palette.color(group, QPalette.ColorRole.Base)
        for role in (QPalette.ColorRole.Link, QPalette.ColorRole.LinkVisited):
            fixed.setColor(group, role, legible(palette.color(group, role), base))
    return fixed


def restyle(app: QApplication) -> None:
    """Polish every widget that has a style sheet again, and lay out every rich-text label's links
    again. A sheet's `palette(button)` is read when the widget is polished, and a label's link colour
    when its text is set, so after a palette change (the theme applied from Settings, or a platform
    that switches its scheme once the window is up) the segment switches stayed light and the links
    kept the old colour."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLabel

    for widget in app.allWidgets():
        sheet = widget.styleSheet()
        if sheet:
            widget.setStyleSheet(sheet)
        if isinstance(widget, QLabel) and widget.textFormat() != Qt.TextFormat.PlainText and "<a " in widget.text():
            text = widget.text()
            widget.clear()  # setText with the same text is a no-op
            widget.setText(text)


def _scheme_palette(app: QApplication, theme: str) -> QPalette:
    palette = app.style().standardPalette()
    if theme == "dark" and palette.color(QPalette.ColorRole.Window).lightness() >= 128:
        palette = dark_palette()  # the platform cannot switch schemes (e.g. offscreen, Qt < 6.8)
    return palette


def apply_theme(app: QApplication, theme: str) -> None:
    """`system` keeps the platform's palette (light or dark); `light`/`dark` ask Qt for that scheme.

    Qt 6.8+ lets an application pick the colour scheme, and Fusion then draws its own palette for
    it (check boxes and frames included); older Qt gets our dark palette. Either way the links are
    made legible on the base colour, the widgets with style sheets are polished again, and a scheme
    the platform delivers later (it may, after the window is up) is settled the same way.
    """
    from PySide6.QtCore import Qt

    app.setProperty(THEME_PROPERTY, theme)
    hints = app.styleHints()
    if not app.property(THEME_PROPERTY + "Hooked") and hasattr(hints, "colorSchemeChanged"):
        hints.colorSchemeChanged.connect(lambda *_: _settle(app))
        app.setProperty(THEME_PROPERTY + "Hooked", True)
    if theme == "system":
        _settle(app)
        return
    if not isinstance(app.style(), LegibleIndicators):
        app.setStyle(LegibleIndicators("Fusion"))
    if hasattr(hints, "setColorScheme"):
        hints.setColorScheme(Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light)
    app.setPalette(legible_links(_scheme_palette(app, theme)))
    restyle(app)


def _settle(app: QApplication) -> None:
    """After a scheme change: legible links, and the style sheets polished against the new palette."""
    theme = str(app.property(THEME_PROPERTY) or "system")
    if theme != "system":
        app.setPalette(legible_links(_scheme_palette(app, theme)))
    else:
        palette = app.palette()
        fixed = legible_links(palette)
        if fixed != palette:
            app.setPalette(fixed)
    restyle(app)
