from pathlib import Path

from memhtml_desktop.ui.kit.editor import editor_command


def test_visual_wins_then_editor_then_nothing():
    path = Path("/store/areas/a.html")
    assert editor_command(path, {"VISUAL": "code -w", "EDITOR": "vi"}) == ["code", "-w", "/store/areas/a.html"]
    assert editor_command(path, {"EDITOR": "kate"}) == ["kate", "/store/areas/a.html"]
    assert editor_command(path, {"VISUAL": "  ", "EDITOR": ""}) is None
    assert editor_command(path, {"VISUAL": "'unbalanced", "EDITOR": "nano"}) == ["nano", "/store/areas/a.html"]
