"""The quota ledgers: four budgets drawn side by side, then what each holds and what it cut.

`QuotaBudgets` paints the budget as one bar split into the four accounts (each as wide as its
limit), each filled with what it spent (quotes, then claims) and the rest left visibly empty: a
ledger never lends, so its unspent part stays in its own segment. `LedgerModel` lists each ledger
(a top row: limit, used, unspent, cut rule) with its memories under it in the ledger's own order.
The widgets show the QuotaPack as given; they never re-fold.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QToolTip,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.quotas import Ledger, QuotaPack
from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.palette import TIER_COLORS, muted_color
from memhtml_desktop.ui.kit.two_level_model import Index, TwoLevelModel
from memhtml_desktop.ui.recall.recall_model import TIER_HELP, TIER_LABELS, RecallModel, TierBadgeDelegate, reason_text

NARROW = 420  # px of list below which the reason column steps aside
SHORT = {"profile": "Profile", "task": "Task", "experience": "Experience", "pending": "Pending"}


def ledger_summary(ledger: Ledger) -> str:
    counts = ledger.section.counts
    text = (
        f"{ledger.spec.label} ({ledger.share}%): {ledger.used:,} / {ledger.limit:,} used, {ledger.unspent:,} unspent"
        f" · {counts['quote']} quote · {counts['disclosure']} claim · {counts['index']} index"
    )
    if ledger.beyond:
        text += f" · {ledger.beyond} more not listed"
    if ledger.does_not_fit:
        text += " · limit below the smallest capsule"
    elif ledger.overrun:
        text += " · overrun: the profile outgrew its share"
    return text


class QuotaBudgets(QWidget):
    """The four accounts as one bar: segment widths are the limits, fills what each spent."""

    BAR = 14

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pack: QuotaPack | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Quota ledgers")
        self.setMouseTracking(True)

    def set_pack(self, pack: QuotaPack | None) -> None:
        self.pack = pack
        text = "" if pack is None else "; ".join(ledger_summary(ledger) for ledger in pack.ledgers)
        self.setAccessibleDescription(text)
        self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(300, self.BAR + 2 * self.fontMetrics().height() + 8)

    def segments(self) -> list[tuple[QRectF, Ledger | None]]:
        """(rect, ledger) per account, then the unallocated rest (ledger None) when there is one."""
        if self.pack is None:
            return []
        width = max(1.0, self.width() - 2.0)
        parts: list[tuple[int, Ledger | None]] = [(ledger.limit, ledger) for ledger in self.pack.ledgers]
        if self.pack.unallocated:
            parts.append((self.pack.unallocated, None))
        total = sum(limit for limit, _ in parts)
        x, out = 1.0, []
        for limit, ledger in parts:
            w = width * limit / total if total else width / len(parts)
            out.append((QRectF(x, 1.0, w, float(self.height() - 2)), ledger))
            x += w
        return out

    def paintEvent(self, event: Any) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        metrics = self.fontMetrics()
        for rect, ledger in self.segments():
            bar = QRectF(rect.left() + 1, rect.top(), max(0.0, rect.width() - 2), self.BAR)
            painter.setPen(palette.color(QPalette.ColorRole.Mid))
            painter.setBrush(palette.color(QPalette.ColorRole.Base))
            painter.drawRoundedRect(bar, 3, 3)
            name = "No ledger" if ledger is None else SHORT[ledger.name]
            figures = f"{self.pack.unallocated:,}" if ledger is None else f"{ledger.used:,}/{ledger.limit:,}"
            if ledger is not None and ledger.limit > 0:
                x = bar.left() + 1
                inner = bar.width() - 2
                painter.setPen(Qt.PenStyle.NoPen)
                for tier in ("quote", "disclosure"):
                    chars = sum(i.chars for i in ledger.section.items if i.tier == tier)
                    w = inner * min(chars, ledger.limit) / ledger.limit
                    if w > 0:
                        painter.setBrush(QColor(TIER_COLORS[tier]))
                        painter.drawRect(QRectF(x, bar.top() + 1, w, bar.height() - 2))
                        x += w
                if ledger.does_not_fit or ledger.overrun:
                    painter.setPen(QPen(QColor("#D55E00"), 1.5))
                    painter.setBrush(Qt.BrushStyle.NoBrush)
                    painter.drawRoundedRect(bar, 3, 3)
            painter.setPen(palette.color(QPalette.ColorRole.WindowText) if ledger is not None else muted_color())
            for line, label in enumerate((name, figures)):
                text_rect = QRectF(
                    bar.left(), bar.bottom() + 2 + line * metrics.height(), bar.width(), metrics.height()
                )
                painter.drawText(
                    text_rect,
                    int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                    metrics.elidedText(label, Qt.TextElideMode.ElideRight, int(bar.width())),
                )
        painter.end()

    def event(self, event: Any) -> bool:
        if event.type() == event.Type.ToolTip:
            for rect, ledger in self.segments():
                if rect.contains(event.position() if hasattr(event, "position") else event.pos()):
                    text = (
                        ledger_summary(ledger) + f"\nholds {ledger.spec.holds}\ncut rule: {ledger.spec.cut_rule}"
                        if ledger is not None
                        else f"{self.pack.unallocated:,} chars in no ledger (never moved)"
                    )
                    QToolTip.showText(event.globalPos(), tooltip_text(text), self)
                    return True
            QToolTip.hideText()
            return True
        return super().event(event)


class LedgerModel(TwoLevelModel):
    """Top rows: the four ledgers; children: each one's memories in its order (roles as RecallModel's)."""

    COLUMNS = ("Ledger / memory", "Tier", "Cost", "Why here")
    MEMORY, TIER, COST, REASON = range(4)
    LedgerRole = Qt.ItemDataRole.UserRole + 20

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._ledgers: tuple[Ledger, ...] = ()

    def set_pack(self, pack: QuotaPack | None) -> None:
        self.beginResetModel()
        self._ledgers = pack.ledgers if pack is not None else ()
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        if not parent.isValid():
            return len(self._ledgers)
        if parent.internalId() == 0 and parent.column() == 0 and parent.row() < len(self._ledgers):
            return len(self._ledgers[parent.row()].section.items)
        return 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return len(self.COLUMNS)

    def flags(self, index: Index) -> Qt.ItemFlag:
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable if index.isValid() else Qt.ItemFlag.NoItemFlags

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < 4:
            return self.COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        col = index.column()
        if index.internalId() == 0:
            ledger = self._ledgers[index.row()]
            if role == Qt.ItemDataRole.DisplayRole:  # one text across the row (the view spans it)
                counts = ledger.section.counts
                return (
                    ""
                    if col
                    else (
                        f"{ledger.spec.label} ({ledger.share}%) — {ledger.used:,} / {ledger.limit:,} "
                        f"used · {ledger.unspent:,} unspent · {counts['index']} index"
                    )
                )
            if role == Qt.ItemDataRole.ToolTipRole:
                return tooltip_text(
                    f"{ledger_summary(ledger)}\nholds {ledger.spec.holds}\ncut rule: {ledger.spec.cut_rule}"
                )
            if role == Qt.ItemDataRole.FontRole and col == 0:
                from PySide6.QtGui import QFont

                font = QFont()
                font.setBold(True)
                return font
            if role == self.LedgerRole:
                return ledger
            return None
        ledger = self._ledgers[index.internalId() - 1]
        item = ledger.section.items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                item.title or item.path,
                TIER_LABELS.get(item.tier, item.tier),
                f"{item.chars:,}",
                reason_text(item),
            )[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == self.TIER:
                return tooltip_text(TIER_HELP.get(item.tier, item.tier))
            return tooltip_text(
                f"{item.path}\n{item.memory_type} · {item.chars:,} chars · {reason_text(item)}\n\n{item.text}"
            )
        if role == Qt.ItemDataRole.ForegroundRole and (col == self.REASON or item.tier == "index"):
            return muted_color()
        if role == Qt.ItemDataRole.TextAlignmentRole and col == self.COST:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return {
            RecallModel.TierRole: item.tier,
            RecallModel.PathRole: item.path,
            RecallModel.ItemRole: item,
            RecallModel.CostRole: item.chars,
            RecallModel.IsTextRole: False,
        }.get(role)


class LedgersView(QWidget):
    """The quota-ledger page of the recall pane. Data in (`set_pack`), `open_path` out."""

    open_path = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(4)
        self.budgets = QuotaBudgets(self)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.model = LedgerModel(self)
        self.view = QTreeView(self)
        self.view.setModel(self.model)
        self.view.setAccessibleName("Quota ledgers and their memories")
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setItemDelegateForColumn(LedgerModel.TIER, TierBadgeDelegate(self.view))
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(LedgerModel.MEMORY, QHeaderView.ResizeMode.Stretch)
        for col in (LedgerModel.TIER, LedgerModel.COST):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(LedgerModel.REASON, QHeaderView.ResizeMode.Fixed)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.model.modelReset.connect(self._reset)
        self.view.activated.connect(self._activated)  # Enter or a double click opens the memory
        layout.addWidget(self.budgets)
        layout.addWidget(self.summary)
        layout.addWidget(self.view, 1)
        self.set_pack(None)

    def set_pack(self, pack: QuotaPack | None) -> None:
        self.budgets.set_pack(pack)
        self.model.set_pack(pack)
        if pack is None:
            self.summary.setText("No quota pack yet.")
            return
        parts = [
            f"Budget {pack.budget:,} in four ledgers that never lend: used {pack.used:,}, "
            f"unspent {pack.unspent:,} (stays unspent)"
        ]
        if pack.unallocated:
            parts.append(f"{pack.unallocated:,} in no ledger")
        if pack.map_source:
            parts.append(f"map: {pack.map_name} ({pack.map_source})")
        note = pack.fit_note()
        text = " · ".join(parts) + (f"\n{note[0].upper() + note[1:]}." if note else "")
        if pack.map_note:  # the store's map could not be used: the seed's stands in, and says why
            text += f"\n\u26a0 {pack.map_note}."
        self.summary.setText(text)

    def _reset(self) -> None:
        for row in range(self.model.rowCount()):
            self.view.setFirstColumnSpanned(row, QModelIndex(), True)
        self.view.expandAll()
        self._fit_reason()

    def _fit_reason(self) -> None:
        """The reason column gets what it needs up to a quarter of the width, and steps aside (its
        text stays in each row's tooltip) when the pane is too narrow for titles to stay readable."""
        width = self.view.viewport().width()
        self.view.setColumnHidden(LedgerModel.REASON, width < NARROW)
        wanted = max(self.view.sizeHintForColumn(LedgerModel.REASON), 60)
        self.view.header().resizeSection(LedgerModel.REASON, min(wanted, max(60, width // 4)))

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit_reason()

    def _activated(self, index: QModelIndex) -> None:
        path = index.data(RecallModel.PathRole)
        if index.isValid() and index.internalId() != 0 and path:
            self.open_path.emit(path)
