"""The curation views for `memhtml-desktop screenshot --view correct|undo|conflicts|timeline`.

A batch tool, so it may wait (it pumps the event loop until the view has its answer). The Correct
dialog needs a git repository to preview a write: a fresh demo copy is made one (a throwaway
commit under a neutral identity); a store named with `--store` is shown as it is, refusal and all.
`undo` corrects the memory shown first (with `--claim`, or a claim of its own), through the window's
Correct dialog, then shows Edit → Undo… with that change chosen and its revert previewed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

VIEWS = ("correct", "undo", "conflicts", "timeline")
UNDO_CLAIM = "This memory was corrected for the screenshot, so Undo has a change to revert."
IDENTITY = {"GIT_AUTHOR_NAME": "memhtml desktop", "GIT_AUTHOR_EMAIL": "screenshot@memhtml.invalid",
            "GIT_COMMITTER_NAME": "memhtml desktop", "GIT_COMMITTER_EMAIL": "screenshot@memhtml.invalid"}  # fmt: skip


def make_repository(root: Path) -> None:
    """A throwaway demo copy is already a repository (`ui/app.make_demo_repository`); the previews'
    writes need an identity even where the machine has none."""
    from memhtml_desktop.ui.app import make_demo_repository

    for key, value in IDENTITY.items():
        os.environ.setdefault(key, value)
    make_demo_repository(root)


def _pump(window: Any, until, timeout: float = 20.0) -> bool:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.processEvents()
        if until():
            window.wait_idle()
            for _ in range(10):
                app.processEvents()
            return True
        time.sleep(0.01)
    return False


def curation_view(window: Any, view: str, path: str | None, args: Any, size: tuple[int, int]) -> Any:
    """Open `view` over the window's store (on `path`, the memory shown) and return the widget to grab."""
    if view == "conflicts":
        controller = window.controllers["conflicts"]
        shown = controller.show()
        _pump(window, lambda: controller.report is not None)
    elif view == "timeline":
        controller = window.controllers["timeline"]
        shown = controller.show(path)
        _pump(window, lambda: shown.chain is not None)
    elif view == "undo":
        shown = _undo_view(window, path, args)
    else:
        curate = window.controllers["curate"]
        curate.correct(path)
        _pump(window, lambda: curate.dialog is not None)
        shown = curate.dialog
        claim, reason = getattr(args, "claim", None), getattr(args, "reason", None)
        if claim:
            shown.fields.claim.setPlainText(claim)
        if reason:
            shown.reason.setText(reason)
        shown.timer.start(0)
        if claim or reason:
            _pump(window, lambda: shown.confirm_button.isEnabled() or shown.message_kind() in ("error", "stale"))
        else:
            _pump(window, lambda: shown.confirm_button.isEnabled() or shown.message_kind() != "")
        if getattr(args, "file", None) is not None:
            shown.preview.select_file(int(args.file))
    shown.resize(*size)
    _pump(window, lambda: True)
    return shown


def _undo_view(window: Any, path: str | None, args: Any) -> Any:
    """Correct `path` through the window's dialog, then open Edit → Undo… on that change."""
    curate = window.controllers["curate"]
    if path:
        curate.correct(path)
        _pump(window, lambda: curate.dialog is not None)
        dialog = curate.dialog
        dialog.fields.claim.setPlainText(getattr(args, "claim", None) or UNDO_CLAIM)
        if getattr(args, "reason", None):
            dialog.reason.setText(args.reason)
        dialog.timer.start(0)
        _pump(window, lambda: dialog.confirm_button.isEnabled() or dialog.message_kind() in ("error", "stale"))
        written = []
        curate.written.connect(written.append)
        dialog.confirm()
        _pump(window, lambda: bool(written))
    curate.undo()
    _pump(
        window,
        lambda: (
            curate.dialog is not None
            and curate.dialog.choices
            and (curate.dialog.confirm_button.isEnabled() or curate.dialog.message_kind() == "error")
        ),
    )
    shown = curate.dialog
    if getattr(args, "file", None) is not None:
        shown.preview.select_file(int(args.file))
    return shown
