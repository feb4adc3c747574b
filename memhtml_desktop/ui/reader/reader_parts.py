"""The reader's parts: the safe article browser, the link list, the warning strip, small labels.

Split from reader_pane.py so the pane itself reads as layout and wiring. Nothing here fetches
or opens anything: `SafeTextBrowser` answers every resource request itself.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import shiboken6
from PySide6.QtCore import QAbstractTableModel, QByteArray, QModelIndex, QPersistentModelIndex, Qt, QUrl, Signal
from PySide6.QtGui import QFont, QImage, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTextBrowser,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.types import Link
from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.palette import muted_color, warning_color

EXTERNAL_SCHEMES = ("http", "https", "mailto")
_SHOWN_ELSEWHERE = {"memhtml-entity", "memhtml-tag", "memhtml-type"}
_Index = QModelIndex | QPersistentModelIndex


def _blank_image() -> QImage:
    image = QImage(1, 1, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    return image


class SafeTextBrowser(QTextBrowser):
    """A QTextBrowser that fetches nothing and never navigates.

    `loadResource` answers every URL with an empty value. It must not answer "nothing" (None): then
    QTextDocument falls back to reading relative names from disk itself, and QTextImageHandler
    loads any image path directly — measured with strace. So images get a 1×1 transparent
    placeholder and every other resource an empty byte array.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setSearchPaths([])
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setAcceptDrops(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(self._fit_height)

    def loadResource(self, type_: int, name: QUrl) -> Any:  # noqa: N802 - Qt override
        if type_ == QTextDocument.ResourceType.ImageResource:
            return _blank_image()
        return QByteArray()

    def doSetSource(self, name: QUrl, type_: Any = None) -> None:  # noqa: N802 - never navigate
        return None

    def _fit_height(self, size: Any) -> None:
        self.setFixedHeight(int(size.height()) + 2 * self.frameWidth() + 4)


class LinksModel(QAbstractTableModel):
    """Outgoing links or backlinks of one memory: relation, title (or path), markers."""

    PathRole = Qt.ItemDataRole.UserRole + 1
    COLUMNS = ("Relation", "Memory", "")

    def __init__(self, arrow: str, parent: Any = None) -> None:
        super().__init__(parent)
        self._arrow = arrow
        self._links: tuple[Link, ...] = ()

    def set_links(self, links: tuple[Link, ...]) -> None:
        self.beginResetModel()
        self._links = tuple(links)
        self.endResetModel()

    def link(self, row: int) -> Link:
        return self._links[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._links)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < 3:
            return self.COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._links):
            return None
        link = self._links[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return f"{self._arrow} {relation_text(link.rel)}"
            if col == 1:
                return link.title or link.path
            return _link_markers(link)
        if role == Qt.ItemDataRole.ToolTipRole:
            return tooltip_text(f"{relation_text(link.rel)}: {link.path}" + (f"\n{link.title}" if link.title else ""))
        if role == Qt.ItemDataRole.ForegroundRole and (col != 1 or not link.exists or link.archived):
            return muted_color()
        if role == Qt.ItemDataRole.FontRole and col == 1 and not link.exists:
            font = QFont()
            font.setItalic(True)
            return font
        if role == self.PathRole:
            return link.path
        return None


def relation_text(rel: str) -> str:
    """`memhtml-part-of` / `part_of` → `part of`."""
    rel = rel.removeprefix("memhtml-")
    return rel.replace("_", " ").replace("-", " ")


def _link_markers(link: Link) -> str:
    marks = []
    if not link.exists:
        marks.append("missing")
    if link.archived:
        marks.append("archived")
    return " · ".join(marks)


class _LinkList(QTreeView):
    """A short list that grows to its rows (the reader scrolls, not the list); Enter opens."""

    open_path = Signal(str)

    def __init__(self, model: LinksModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.setRootIsDecorated(False)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.viewport().setAutoFillBackground(False)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.clicked.connect(self._emit)
        model.modelReset.connect(self._fit)

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self._emit(self.currentIndex())
            return
        super().keyPressEvent(event)

    def _emit(self, index: QModelIndex) -> None:
        path = index.siblingAtColumn(0).data(LinksModel.PathRole)
        if path:
            self.open_path.emit(path)

    def _fit(self) -> None:
        rows = self.model().rowCount()
        row_height = self.sizeHintForRow(0) if rows else 0
        self.setFixedHeight(rows * max(row_height, 1) + 2 * self.frameWidth() + 2)


class _Strip(QFrame):
    """The yellow strip: a bold heading over plain-text lines."""

    ACCENTS = {"warning": "#E69F00", "violation": "#D55E00"}

    def __init__(
        self, parent: QWidget | None = None, *, accent: str = "warning", on_link: Callable[[str], None] | None = None
    ) -> None:
        """`on_link`: the body is rich text whose anchors the caller writes (`#n`), else plain text."""
        super().__init__(parent)
        self._accent = self.ACCENTS.get(accent, accent)
        self.setObjectName("warningStrip")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(2)
        self.heading = _plain_label(self, wrap=True)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.body = _shrinkable(
            _link_label(self, on_link) if on_link else _plain_label(self, wrap=True, selectable=True)
        )
        layout.addWidget(self.heading)
        layout.addWidget(self.body)
        self.restyle()

    def set_lines(self, heading: str, lines: tuple[str, ...] | list[str]) -> None:
        self.heading.setText(f"⚠ {heading}")
        self.body.setText("\n".join(f"• {line}" for line in lines))
        self.body.setVisible(bool(lines))

    def restyle(self) -> None:
        self.setStyleSheet(
            f"QFrame#warningStrip {{ background: {warning_color()}; border-left: 4px solid {self._accent};"
            " border-radius: 2px; }"
        )


def _plain_label(parent: QWidget | None, *, wrap: bool = False, selectable: bool = False) -> QLabel:
    """A label that shows text literally: agent text never becomes markup."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _link_label(parent: QWidget | None, on_link: Callable[[str], None]) -> QLabel:
    """A rich-text label whose anchors WE write (`#n`); every visible word in it is escaped."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setOpenExternalLinks(False)
    label.setTextInteractionFlags(
        Qt.TextInteractionFlag.LinksAccessibleByMouse | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
    )
    label.linkActivated.connect(on_link)
    return label


def _shrinkable(label: QLabel) -> QLabel:
    """Let a long unbreakable value (a hash, a path) be clipped instead of widening the whole reader."""
    policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    policy.setHeightForWidth(label.wordWrap())
    label.setSizePolicy(policy)
    return label


def _muted(label: QWidget) -> QWidget:
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


def _section_title(text: str, parent: QWidget) -> QLabel:
    label = _plain_label(parent)
    label.setText(text.upper())
    font = label.font()
    font.setPointSizeF(max(font.pointSizeF() * 0.8, 6.0))
    font.setBold(True)
    font.setLetterSpacing(QFont.SpacingType.PercentageSpacing, 108)
    label.setFont(font)
    _muted(label)
    return label


def _clear_layout(layout: QGridLayout | QVBoxLayout) -> None:
    """Empty `layout` and delete what it held. `removeWidget` deletes the widget's layout item; the
    item `takeAt` hands back is the caller's to delete, and PySide6 never did: two QWidgetItems lost
    per metadata row at every memory opened (memray over a soak of the real window)."""
    while layout.count():
        item = layout.itemAt(0)
        widget = item.widget()
        if widget is not None:
            layout.removeWidget(widget)
            widget.hide()
            widget.deleteLater()
        else:
            layout.takeAt(0)
            shiboken6.delete(item)


def humanize_ago(stamp: str | None, now: datetime) -> str | None:
    """`2026-08-02T14:03:11Z` → `2 d ago` relative to `now`; None when there is no stamp."""
    if not stamp:
        return None
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    seconds = (now - when).total_seconds()
    if seconds < 0:
        return f"on {when.date().isoformat()}"
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    if seconds < 60 * 86400:
        return f"{int(seconds // 86400)} d ago"
    return f"on {when.date().isoformat()}"


def access_line(access: dict[str, Any] | None, now: datetime, *, indexed: bool = True) -> str:
    """ "Read 4× · last 2 d ago · outcome +0.40 (3 signals)" from a `state.access` row."""
    if not indexed:
        return "Not in the index: no access stats"
    if not access:
        return "Not read yet"
    parts = [f"Read {int(access.get('access_count') or 0)}×"]
    ago = humanize_ago(access.get("last_accessed_at"), now)
    if ago:
        parts.append(f"last {ago}")
    outcome = access.get("outcome_score")
    signals = int(access.get("reinforcement_count") or 0)
    if outcome is not None and signals:
        parts.append(f"outcome {float(outcome):+.2f} ({counted(signals, 'signal')})")
    return " · ".join(parts)


def reads_line(detail: Any, now: datetime) -> str:
    """`access_line`, and where the reads of its other versions are: on the versions it supersedes
    (a supersession leaves the loser's there), or, for an old version read nowhere, on its successor."""
    line = access_line(detail.access, now, indexed=detail.indexed)
    if not detail.access and detail.indexed and detail.superseded_by:
        line += f" as this version: reads are counted on {detail.superseded_by}, which superseded it"
    earlier = getattr(detail, "earlier_reads", ())
    if earlier:
        total = sum(n for _, n in earlier)
        where = earlier[0][0] if len(earlier) == 1 else counted(len(earlier), "version")
        line += f" \u00b7 and read {total}\u00d7 as the version it supersedes ({where})"
    return line


def safe_relative(path: str) -> pathlib.PurePosixPath | None:
    """A store-relative path with no way out of the store (no absolute, `..`, backslash or NUL)."""
    if not path or "\\" in path or "\x00" in path:
        return None
    pure = pathlib.PurePosixPath(path.lstrip("/"))
    if pure.is_absolute() or any(part in ("..", ".") for part in pure.parts) or not pure.parts:
        return None
    return pure


def memory_path_of(url: QUrl) -> str | None:
    """The store path in a `memhtml:/path` link (fragment and query dropped), or None."""
    if url.scheme().lower() != "memhtml":
        return None
    path = url.path(QUrl.ComponentFormattingOption.FullyDecoded).lstrip("/")
    return str(safe_relative(path)) if safe_relative(path) else None
