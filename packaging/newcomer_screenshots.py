"""Pictures of issue 41's views that `memhtml-desktop screenshot` cannot set up: the store chooser, the
reader's Curate menu in a store without git, and the reader at a large memory's cut note.

    QT_QPA_PLATFORM=offscreen python packaging/newcomer_screenshots.py [--out docs/screenshots] [--all]

The real window and dialog, offscreen, grabbed as `screenshot` grabs them. Without `--all` it makes
the four kept in docs/screenshots (store-chooser, curation-off, large-memory-dark,
recall-specific); with `--all` every view at 1024x700 and 1920x1080, light and dark.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

LARGE = "areas/logs/a-pasted-incident-transcript.html"
DRAIN = "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html"
KEPT = {"chooser-1024x700-light": "store-chooser", "nogit-1024x700-light": "curation-off",
        "large-1024x700-dark": "large-memory-dark", "verdict-1024x700-light": "recall-specific"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--all", action="store_true")
    args = parser.parse_args(argv)
    from PySide6.QtCore import QPoint, QSettings
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QAbstractScrollArea

    from large_memory_bench import write_store
    from memhtml_desktop.index.store import check_store
    from memhtml_desktop.settings import Settings
    from memhtml_desktop.ui.app import apply_theme, copy_demo_store, ensure_app, import_sidecar, open_store
    from memhtml_desktop.ui.shell.main_window import MainWindow
    from memhtml_desktop.ui.shell.store_problem import StoreProblemDialog

    work = Path(tempfile.mkdtemp(prefix="memhtml-newcomer-shots-"))
    write_store(work / "large-store", 5.0)
    copy_demo_store(work / "demo")  # a git repository of its own
    shutil.copytree(work / "demo", work / "no-git-store", ignore=shutil.ignore_patterns(".git"))
    (work / "an-empty-folder").mkdir()
    app = ensure_app()
    args.out.mkdir(parents=True, exist_ok=True)

    def save(picture, name: str) -> None:
        target = KEPT.get(name, name if args.all else None)
        if target:
            picture.save(str(args.out / f"{target}.png"), "PNG")
            print(f"wrote {args.out / target}.png", flush=True)

    def settle(window) -> None:
        window.wait_idle()
        for _ in range(20):
            app.processEvents()
            time.sleep(0.01)

    sizes = ((1024, 700), (1920, 1080)) if args.all else ((1024, 700),)
    themes = ("light", "dark")
    for size in sizes:
        for theme in themes:
            tag = f"{size[0]}x{size[1]}-{theme}"
            apply_theme(app, theme)
            if tag in ("1024x700-light",) or args.all:
                dialog = StoreProblemDialog(check_store(work / "an-empty-folder").problem,
                                            ["/home/maya/memhtml", str(work / "no-git-store")])
                dialog.show()
                app.processEvents()
                save(dialog.grab(), f"chooser-{tag}")
                dialog.close()
            for name, root, query, path in (("nogit", work / "no-git-store", "drain the vip", DRAIN),
                                            ("large", work / "large-store", "pasted transcript", LARGE),
                                            ("verdict", work / "demo", "idempotency keys expire after 24 hours", None)):
                if not args.all and f"{name}-{tag}" not in KEPT:
                    continue
                scratch = Path(tempfile.mkdtemp(prefix="memhtml-shot-"))
                settings = Settings(theme=theme)
                store = open_store(root, settings)
                if name == "verdict":
                    import_sidecar(store)
                store.index()
                window = MainWindow(store, settings, qsettings=QSettings(str(scratch / "s.ini"), QSettings.Format.IniFormat))
                window.results.table.budgeted = False
                window.resize(*size)
                window.show()
                settle(window)
                window.set_query(query)
                settle(window)
                if path:
                    window.open_memory(path, bump=False)
                    settle(window)
                if name == "verdict":
                    window.search_bar.set_mode("recall")
                    window.recall.set_shape("catalog")
                    window.show_view("recall")
                    settle(window)
                    shot = window.grab()
                elif name == "large":
                    for area in window.reader.findChildren(QAbstractScrollArea):
                        area.verticalScrollBar().setValue(area.verticalScrollBar().maximum())
                    settle(window)
                    shot = window.grab()
                else:  # the Curate menu open, drawn where it pops up
                    button = window.reader.curate_button
                    menu = button.menu()
                    at = button.mapTo(window, QPoint(0, button.height()))
                    menu.popup(button.mapToGlobal(QPoint(0, button.height())))
                    app.processEvents()
                    shot = window.grab()
                    picture = menu.grab()
                    x = min(at.x(), shot.width() - picture.width())
                    y = at.y() if at.y() + picture.height() < shot.height() else at.y() - button.height() - picture.height()
                    painter = QPainter(shot)
                    painter.drawPixmap(x, y, picture)
                    painter.end()
                    menu.hide()
                save(shot, f"{name}-{tag}")
                window.shutdown()
                window.close()
                store.close_thread_connection()
                shutil.rmtree(scratch, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
