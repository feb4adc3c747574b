"""The "Why not?" dialog's arm table: one row per arm, its rank, window, contribution and raw signal."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.ranking import DEFAULT
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.kit.chips import tooltip_text

ARM_ORDER = ("fts", "vector", "recency", "salience")
STATUS_TEXT = {
    "indexed": "In the index.",
    "invalid": "Failed to parse, so it is not in the index.",
    "unreadable": "Could not be read, so it is not in the index.",
    "not_indexed": "Not in the index (missing on disk, or not indexed yet).",
    "not_a_memory": "Not a memory file (wrong folder, extension, or a scaffold page).",
}
_Index = QModelIndex | QPersistentModelIndex


def raw_text(arm: str, entry: dict[str, Any]) -> str:
    """An arm's raw signal in words: bm25, cosine distance, the time, or the salience terms."""
    if arm == "vector" and entry.get("distance") is not None:
        return f"cosine distance {float(entry['distance']):.3f}"
    raw = entry.get("raw")
    if raw is None:
        return "—"
    if arm == "fts" and isinstance(raw, (int, float)):
        form = entry.get("form")
        return f"bm25 {float(raw):.3f}" + (f" ({form} terms)" if form in ("all", "any") else "")
    if arm == "recency":
        return f"time {raw}"
    if arm == "salience" and isinstance(raw, (list, tuple)) and len(raw) >= 3:
        text = f"decay {float(raw[0]):.2f} · popularity {float(raw[1]):.2f} · outcome {float(raw[2]):.2f}"
        if len(raw) >= 4 and raw[3] is not None:
            text += f" · {float(raw[3]):,.0f} h since last read"
        return text
    if isinstance(raw, dict):
        return " · ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in raw.items())
    if isinstance(raw, float):
        return f"{raw:.4g}"
    return str(raw)


class ArmsModel(QAbstractTableModel):
    """One row per arm of a WhyNot report."""

    COLUMNS = ("Arm", "Rank", "Window", "Weight", "Contribution", "Raw signal")
    ARM, RANK, WINDOW, WEIGHT, CONTRIBUTION, RAW = range(6)
    ArmRole = Qt.ItemDataRole.UserRole + 1
    EntryRole = Qt.ItemDataRole.UserRole + 2

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, dict[str, Any]]] = []
        self.window = DEFAULT.arm_window  # the active profile's candidate window per arm

    def set_arms(self, arms: dict[str, dict[str, Any]]) -> None:
        self.beginResetModel()
        known = [a for a in ARM_ORDER if a in arms]
        self._rows = [(a, arms[a]) for a in known + sorted(set(arms) - set(known))]
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return self.COLUMNS[section]
            if role == Qt.ItemDataRole.ToolTipRole and section == self.WINDOW:
                return (
                    f"Whether the rank is inside the {counted(self.window, 'candidate')} each arm hands to the fusion"
                )
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        arm, entry = self._rows[index.row()]
        col = index.column()
        rank = entry.get("rank")
        if role == Qt.ItemDataRole.DisplayRole:
            if col == self.ARM:
                return palette.ARM_TITLES.get(arm, arm)
            if col == self.RANK:
                ranked = entry.get("ranked")
                if rank is None:
                    return f"not ranked (of {ranked:,})" if ranked else "not ranked"
                return f"{int(rank):,} of {int(ranked):,}" if ranked is not None else f"{int(rank):,}"
            if col == self.WINDOW:
                if rank is None:
                    return "—"
                return f"inside the {self.window}" if entry.get("in_window") else f"outside the {self.window}"
            if col == self.WEIGHT:
                weight = entry.get("weight")
                return "—" if weight is None else f"{float(weight):g}"
            if col == self.CONTRIBUTION:
                if entry.get("counted") is False:
                    return "not counted"
                contribution = entry.get("contribution") or 0.0
                return f"{float(contribution):.4f}" if contribution else "—"
            return raw_text(arm, entry)
        if role == Qt.ItemDataRole.DecorationRole and col == self.ARM:
            return palette.arm_color(arm)
        if role == Qt.ItemDataRole.ForegroundRole:
            if col == self.WINDOW and rank is not None and not entry.get("in_window"):
                return QColor("#D55E00")
            if rank is None and col != self.ARM:
                return palette.muted_color()
        if role == Qt.ItemDataRole.ToolTipRole:
            help_text = getattr(palette, "ARM_HELP", {}).get(arm, palette.ARM_TITLES.get(arm, arm))
            return tooltip_text(f"{help_text}\n{raw_text(arm, entry)}")
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (self.RANK, self.WEIGHT, self.CONTRIBUTION):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == self.ArmRole:
            return arm
        if role == self.EntryRole:
            return entry
        return None
