"""Opening a memory file in the user's editor, never in a web browser.

The default handler for `.html` is a browser, and memory files are written by agents: a browser
would run any `<script>` an invalid file carries and fetch whatever it links. So "Open in editor"
uses `$VISUAL`, then `$EDITOR`; with neither set it reveals the file in the file manager instead and
says why.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path

from PySide6.QtCore import QProcess


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


def launch(argv: list[str]) -> bool:
    """Start the editor detached from this process; False when it could not be started."""
    ok, _pid = QProcess.startDetached(argv[0], argv[1:])
    return bool(ok)
