"""How the main window's panes sit: filters | list over the pool chart | reader, recall, problems.

Kept apart from `MainWindow` so the composition (which panes, which controllers) reads in one
screen and the geometry (splitters, stretch, minimum widths) in another.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QSplitter, QTabWidget, QVBoxLayout, QWidget


def default_sizes(width: int) -> list[int]:
    """Filters, list, reader for a window `width` wide: the list gets what the others leave."""
    filters = max(190, min(300, round(width * 0.2)))
    reader = max(280, min(560, round(width * 0.3)))
    return [filters, max(300, width - filters - reader), reader]


FIRST_SIZE = QSize(1400, 900)


def first_size(available: QSize) -> QSize:
    """The size a first run opens at: 1400x900, or the screen's free area where that is smaller.

    A saved geometry wins on later runs; this is only for the first, where a laptop's 1366x768
    (or a 1024x700 virtual screen) would otherwise put the reader off the right edge.
    """
    if available.isEmpty():
        return QSize(FIRST_SIZE)
    return FIRST_SIZE.boundedTo(available)


def lay_out(window: Any) -> None:
    """Place the window's panes (already built) in tabs and splitters; set the central widget."""
    window.tabs = QTabWidget(window)
    window.tabs.setObjectName("rightTabs")
    window.tabs.setAccessibleName("Reader, recall pack and problems")
    window.tabs.setDocumentMode(True)
    for pane, title in ((window.reader, "Reader"), (window.recall, "Recall pack"), (window.problems, "Problems")):
        window.tabs.addTab(pane, title)
    window.tabs.currentChanged.connect(window._tab_changed)
    window.middle = QSplitter(Qt.Orientation.Vertical, window)
    window.middle.setObjectName("listSplitter")
    window.middle.setChildrenCollapsible(False)
    window.middle.addWidget(window.results)
    window.middle.addWidget(window.chart)
    window.middle.setStretchFactor(0, 4)
    window.middle.setStretchFactor(1, 1)
    window.middle.setSizes([640, 160])
    window.splitter = QSplitter(Qt.Orientation.Horizontal, window)
    window.splitter.setObjectName("mainSplitter")
    window.splitter.setChildrenCollapsible(False)
    # Stretch 1:4:2: a narrower window takes width from every pane, the list most, so at
    # 1024 px the filters and the reader still fit beside a list whose titles can be read.
    for i, (widget, stretch) in enumerate(((window.filters, 1), (window.middle, 4), (window.tabs, 2))):
        window.splitter.addWidget(widget)
        window.splitter.setStretchFactor(i, stretch)
    window.filters.setMinimumWidth(150)
    window.tabs.setMinimumWidth(260)
    window.splitter.setSizes(default_sizes(1400))
    window._sizes_restored = False
    central = QWidget(window)
    layout = QVBoxLayout(central)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    layout.addWidget(window.search_bar)
    layout.addWidget(window.splitter, 1)
    window.setCentralWidget(central)
    window.setStatusBar(window.status)
    window.resize(first_size(window.screen().availableGeometry().size()))
