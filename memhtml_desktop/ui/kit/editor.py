"""Opening a memory file in the user's editor, never in a web browser.

The default handler for `.html` is a browser, and memory files are written by agents: a browser
would run any `<script>` an invalid file carries and fetch whatever it links. So "Open in editor"
uses `$VISUAL`, then `$EDITOR`; with neither set it reveals the file in the file manager instead and
says why.

A terminal editor (`vi`, `nano`, `emacs -nw`, ...) started from a window has no terminal: it would
run orphaned and invisible. It is started inside the user's terminal emulator instead: `$TERMINAL`
first, then the desktop's default (`x-terminal-emulator`, the desktop's own terminal), then the
common ones; with none found the person is told why nothing opened.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QProcess

TERMINAL_EDITORS = frozenset(
    {
        "vi",
        "vim",
        "nvim",
        "view",
        "nano",
        "pico",
        "micro",
        "hx",
        "helix",
        "kak",
        "joe",
        "jed",
        "jmacs",
        "jstar",
        "ne",
        "mcedit",
        "ed",
        "ex",
        "mg",
        "vis",
        "amp",
        "emacs-nox",
        "elvis",
        "nvi",
        "zile",
        "dte",
    }
)
"""Editors that need a terminal (`emacs` only with `-nw`/`--no-window-system`/`-t`)."""

# How each terminal runs a command: the arguments that come before the command's argv.
TERMINAL_EXEC = {
    "x-terminal-emulator": ["-e"],
    "gnome-terminal": ["--"],
    "kgx": ["--"],
    "ptyxis": ["--"],
    "konsole": ["-e"],
    "xfce4-terminal": ["-x"],
    "mate-terminal": ["-x"],
    "lxterminal": ["-e"],
    "qterminal": ["-e"],
    "terminator": ["-x"],
    "tilix": ["-e"],
    "alacritty": ["-e"],
    "kitty": [],
    "foot": [],
    "wezterm": ["start", "--"],
    "st": ["-e"],
    "urxvt": ["-e"],
    "xterm": ["-e"],
}
DESKTOP_TERMINALS = {
    "GNOME": "gnome-terminal",
    "KDE": "konsole",
    "XFCE": "xfce4-terminal",
    "MATE": "mate-terminal",
    "LXQT": "qterminal",
    "LXDE": "lxterminal",
}
FALLBACK_TERMINALS = (
    "x-terminal-emulator",
    "kgx",
    "gnome-terminal",
    "konsole",
    "xfce4-terminal",
    "alacritty",
    "kitty",
    "foot",
    "wezterm",
    "tilix",
    "terminator",
    "xterm",
)


def editor_command(path: Path, environ: Mapping[str, str] | None = None) -> list[str] | None:
    """The argv that opens `path` in the configured editor, or None when none is configured."""
    env = os.environ if environ is None else environ
    for name in ("VISUAL", "EDITOR"):
        value = (env.get(name) or "").strip()
        if value:
            try:
                argv = shlex.split(value)
            except ValueError:
                continue
            if argv:
                return [*argv, str(path)]
    return None


def needs_terminal(argv: list[str]) -> bool:
    name = os.path.basename(argv[0]) if argv else ""
    if name in ("emacs", "emacsclient"):
        return any(a in ("-nw", "--no-window-system", "-t", "--tty") for a in argv[1:])
    return name in TERMINAL_EDITORS


def terminal_command(
    argv: list[str], environ: Mapping[str, str] | None = None, which: Callable[[str], str | None] = shutil.which
) -> list[str] | None:
    """`argv` run inside a terminal emulator, or None when no terminal can be found."""
    env = os.environ if environ is None else environ
    custom = (env.get("TERMINAL") or "").strip()
    if custom:
        try:
            terminal = shlex.split(custom)
        except ValueError:
            terminal = []
        if terminal and which(terminal[0]):
            name = os.path.basename(terminal[0])
            return [*terminal, *TERMINAL_EXEC.get(name, ["-e"]), *argv]
    desktops = [d.strip().upper() for d in (env.get("XDG_CURRENT_DESKTOP") or "").split(":") if d.strip()]
    preferred = [DESKTOP_TERMINALS[d] for d in desktops if d in DESKTOP_TERMINALS]
    for name in (*preferred, *FALLBACK_TERMINALS):
        if which(name):
            return [name, *TERMINAL_EXEC.get(name, ["-e"]), *argv]
    return None


@dataclass(frozen=True)
class EditPlan:
    """What "Open in editor" does: run `argv`, or (argv None) tell the person `message`."""

    argv: list[str] | None
    message: str = ""
    reveal: bool = False  # open the folder in the file manager instead


def plan_edit(
    path: Path, environ: Mapping[str, str] | None = None, which: Callable[[str], str | None] = shutil.which
) -> EditPlan:
    argv = editor_command(path, environ)
    if argv is None:
        return EditPlan(
            None,
            "Set $VISUAL or $EDITOR to open memories in your editor. The file manager "
            "opened instead: a web browser would run the file's scripts.",
            reveal=True,
        )
    if not needs_terminal(argv):
        return EditPlan(argv)
    wrapped = terminal_command(argv, environ, which)
    if wrapped is None:
        editor = os.path.basename(argv[0])
        return EditPlan(
            None,
            f"{editor} runs in a terminal, and no terminal emulator was found: set $TERMINAL "
            f"(e.g. TERMINAL=xterm), or set $VISUAL to a graphical editor.",
        )
    return EditPlan(wrapped)


def launch(argv: list[str]) -> bool:
    """Start the editor detached from this process; False when it could not be started."""
    ok, _pid = QProcess.startDetached(argv[0], argv[1:])
    return bool(ok)
