"""`memhtml-desktop screenshot`: the real window, rendered offscreen, saved as a PNG.

A batch tool, so it may wait: the store is indexed before the window shows, and the event loop is
pumped until every job has answered. It never bumps salience (the memory shown is read with
`bump=False`) and never touches the user's persisted settings (a throwaway INI file).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from memhtml_desktop.settings import Settings, resolve_store
from memhtml_desktop.ui.curate import shots as curation_views
from memhtml_desktop.ui.review import shots as review_views

DEFAULT_SIZE = (1400, 900)


def parse_size(text: str | None) -> tuple[int, int]:
    if not text:
        return DEFAULT_SIZE
    width, sep, height = text.lower().partition("x")
    if not sep:
        raise ValueError(f"size must be WIDTHxHEIGHT, not {text!r}")
    w, h = int(width), int(height)
    if not (320 <= w <= 8000 and 240 <= h <= 8000):
        raise ValueError(f"size out of range: {text!r}")
    return w, h


def take_screenshot(settings: Settings, args: Any) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings

    from memhtml_desktop.ui.app import (
        apply_theme,
        ensure_app,
        fresh_demo_copy,
        store_spec,
    )
    from memhtml_desktop.ui.shell.main_window import MainWindow

    try:
        size = parse_size(getattr(args, "size", None))
    except ValueError as exc:
        print(f"memhtml-desktop: {exc}", file=sys.stderr)
        return 2
    demo = bool(getattr(args, "demo", False))
    try:
        root = fresh_demo_copy() if demo else resolve_store(settings)
    except FileNotFoundError as exc:
        print(f"memhtml-desktop: {exc}", file=sys.stderr)
        return 1
    if not root.is_dir():
        print(f"memhtml-desktop: store not found: {root} (use --store DIR or --demo)", file=sys.stderr)
        return 1
    app = ensure_app()
    theme = getattr(args, "theme", None) or settings.theme
    settings = settings.with_(theme=theme)
    apply_theme(app, theme)
    scratch = Path(tempfile.mkdtemp(prefix="memhtml-shot-"))
    qsettings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    view = getattr(args, "view", "results") or "results"
    if demo and (view in curation_views.VIEWS or view in review_views.VIEWS or view == "workbench"):
        curation_views.make_repository(root)
    if view == "workbench":  # the workbench's own files (judgments) in the scratch folder, the engine's too
        os.environ["MEMHTML_DESKTOP_DATA"] = str(scratch / "app-data")
    spec = store_spec(root, settings)
    store = spec.open()  # the tool's own: the store is indexed before the window (and its engine) starts
    if demo:
        store.import_sidecar()
    store.index()
    if demo and view in review_views.VIEWS:
        review_views.agent_weeks(store)
    window = MainWindow(spec, settings, qsettings=qsettings)
    window.results.table.budgeted = False  # a picture wants every cell drawn in the one paint it grabs
    try:
        window.resize(*size)
        window.show()
        window.wait_idle()
        window.set_query(getattr(args, "query", "") or "")
        window.wait_idle()
        if getattr(args, "order", "agent") == "fused":
            window.results.set_order("fused")
            window.wait_idle()
        more = max(0, int(getattr(args, "more", 0) or 0))
        while more > 0 and window.results.model.result() is not None:
            before = window.results.model.rowCount()
            window.controllers["results"].show_more()
            window.wait_idle()
            more -= max(1, window.results.model.rowCount() - before)
        path = getattr(args, "open", None)
        result = window.results.model.result()
        if (
            not path
            and view in ("results", "reader", "correct", "undo", "timeline")
            and result is not None
            and result.hits
        ):
            path = result.hits[0].path
        if path:
            window.open_memory(path, bump=False)
            window.wait_idle()
        if view == "recall":
            window.search_bar.set_mode("recall")
            window.recall.set_shape(getattr(args, "shape", "memhtml") or "memhtml")
        window.show_view(view)
        window.wait_idle()
        if view == "recall" and getattr(args, "expand", 0):
            window.recall.catalogue.expand_row(int(args.expand) - 1)
            window.wait_idle()
        for _ in range(10):
            app.processEvents()
        if view == "workbench":
            from memhtml_desktop.ui.workbench.shots import workbench_view

            shown = workbench_view(window, store, args, size, scratch)
        elif view in curation_views.VIEWS:
            shown = curation_views.curation_view(window, view, path, args, size)
        elif view in review_views.VIEWS:
            shown = review_views.review_view(window, view, size)
        else:
            shown = window
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        if not shown.grab().save(str(out), "PNG"):
            print(f"memhtml-desktop: could not write {out}", file=sys.stderr)
            return 1
    finally:
        window.close()
        store.close_thread_connection()
        shutil.rmtree(scratch, ignore_errors=True)
        if demo:
            shutil.rmtree(root.parent, ignore_errors=True)
    print(f"wrote {args.out}")
    return 0
