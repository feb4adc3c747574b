"""Agent-written text made inert for a terminal: every control character as a visible escape.

File names, titles, tags and echoed meta values are written by agents. `\\x1b]0;…\\x07` would retitle
the terminal and `\\x1b[2J` clear it; a newline in a file name would print a line that looks like
the program's own (a fake error, a fake hit), and a carriage return would overwrite one. Pure, so
the CLI and the headless watcher escape the same way.
"""

from __future__ import annotations

_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}
# C0, DEL, C1, and the two Unicode line/paragraph separators (str.splitlines, and some terminals,
# break lines on them too).
_CONTROL_POINTS = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029]
_ALL = {c: _NAMED.get(c, f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _CONTROL_POINTS}
# The stream-level table keeps what the program's own output is made of: line breaks, tabs, and the
# carriage return its progress bar redraws with.
_STREAM = {c: v for c, v in _ALL.items() if c not in (0x09, 0x0A, 0x0D)}


def field(text: object) -> str:
    """One value (a path, a title, a tag, a reason) for a human line: every control escaped."""
    return str(text).translate(_ALL)


def printable(text: str) -> str:
    """Whole output text: controls escaped except the line breaks, tabs and carriage returns the
    program writes itself. Values inside it must already have gone through `field`."""
    return text.translate(_STREAM)
