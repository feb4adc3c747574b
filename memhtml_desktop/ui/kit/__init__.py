"""Shared Qt pieces every pane may use: the palette and icons, chips, the two-level tree model,
the PySide workarounds and the "open in editor" helper. Nothing here knows a pane or the session."""
