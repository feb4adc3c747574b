"""Render resources/icons/memhtml-desktop.svg to the PNG sizes a desktop wants (Qt's SVG renderer).

    python packaging/render_icons.py [--check]

Writes resources/icons/memhtml-desktop-<size>.png for each size in ICON_SIZES. `--check` renders
to memory and fails when a committed PNG is missing or has the wrong dimensions (pixels may
differ by renderer version; the geometry may not). Run with QT_QPA_PLATFORM=offscreen headless.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parents[1]
ICONS = ROOT / "resources" / "icons"
SVG = ICONS / "memhtml-desktop.svg"
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)


def render(size: int, svg: Path = SVG) -> QImage:
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg} is not a valid SVG for Qt")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image


def png_path(size: int) -> Path:
    return ICONS / f"memhtml-desktop-{size}.png"


def main(argv: list[str]) -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - QPainter needs it
    check = "--check" in argv
    problems = []
    for size in ICON_SIZES:
        path = png_path(size)
        if check:
            image = QImage(str(path))
            if image.isNull() or (image.width(), image.height()) != (size, size):
                problems.append(f"{path.name}: missing or not {size}x{size}")
            continue
        if not render(size).save(str(path), "PNG"):
            problems.append(f"could not write {path}")
        else:
            print(f"wrote {path.relative_to(ROOT)}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
