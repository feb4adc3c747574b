"""The ranked hits as a table: one row per `Hit`, one column per arm, and the breakdown as roles.

The model holds the `SearchResult` it was given and translates it; it never ranks, queries or
formats beyond what a cell shows. Delegates read the custom roles (the hit, its per-arm scores, the
words to highlight, the scale of the contribution bar) and paint from them.

Columns: position, title (+ snippet, painted by the title delegate), memory type, fused score, one
column per arm of `RANK_ARMS` holding that arm's rank (a dash when the arm did not rank the hit),
and the stacked contribution bar.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush

from memhtml_desktop.domain.fts_query import parse_fts_query
from memhtml_desktop.domain.rrf import RANK_ARMS, RRF_K
from memhtml_desktop.domain.types import Hit, SearchResult
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.kit.chips import tooltip_text

ARM_NAMES: tuple[str, ...] = tuple(arm.name for arm in RANK_ARMS)
ARM_WEIGHTS: dict[str, float] = {arm.name: arm.weight for arm in RANK_ARMS}
MAX_SCORE = sum(arm.weight for arm in RANK_ARMS) / (1 + RRF_K)
"""The fused score of a hit every arm ranked first: the full length of the contribution bar.

A fixed scale (not "the best hit of this query") lets bars compare across queries: a short bar
means weak agreement between arms, whatever else was found.
"""
DASH = "\u2014"
_ROOT = QModelIndex()


class Role(IntEnum):
    Hit = Qt.ItemDataRole.UserRole + 1
    Path = Qt.ItemDataRole.UserRole + 2
    ArmScores = Qt.ItemDataRole.UserRole + 4  # tuple[ArmScore, ...] in RANK_ARMS order, ranked arms only
    Terms = Qt.ItemDataRole.UserRole + 6  # the query's words, for highlighting
    MaxScore = Qt.ItemDataRole.UserRole + 9
    Contribution = Qt.ItemDataRole.UserRole + 10  # this arm column's contribution (float) or None


class Column(IntEnum):
    Position = 0
    Title = 1
    Type = 2
    Score = 3


FIRST_ARM_COLUMN = 4
BAR_COLUMN = FIRST_ARM_COLUMN + len(ARM_NAMES)
COLUMN_COUNT = BAR_COLUMN + 1
STEP_NAMES = {"mmr": "MMR", "polarity": "polarity"}


def arm_for_column(column: int) -> str | None:
    offset = column - FIRST_ARM_COLUMN
    return ARM_NAMES[offset] if 0 <= offset < len(ARM_NAMES) else None


def moved_text(hit: Hit) -> str | None:
    if not hit.moved_by:
        return None
    step = STEP_NAMES.get(hit.moved_by, hit.moved_by)
    if hit.moved_from is None:
        return f"moved by {step}"
    return f"moved by {step} from {hit.moved_from}"


def raw_text(raw: dict[str, Any]) -> str:
    parts = []
    for key, value in raw.items():
        if isinstance(value, float):
            value = f"{value:.4g}"
        parts.append(f"{key} {value}")
    return ", ".join(parts)


def arm_tooltip(arm: str, score) -> str:
    title = palette.ARM_TITLES.get(arm, arm)
    if score is None:
        return f"{title}: did not rank this memory (no contribution)"
    return (
        f"{title}: rank {score.rank} \u00d7 weight {score.weight:g} \u2192 "
        f"{score.weight:g}/({score.rank}+{RRF_K}) = {score.contribution:.4f}"
        + (f"\nraw signal: {raw_text(score.raw)}" if score.raw else "")
    )


def breakdown_tooltip(hit: Hit) -> str:
    lines = [f"fused score {hit.score:.4f} = sum of the arms' contributions"]
    for arm in ARM_NAMES:
        lines.append(arm_tooltip(arm, hit.arm(arm)))
    moved = moved_text(hit)
    if moved:
        lines.append(f"{moved} (fused position {hit.fused_position})")
    return "\n".join(lines)


class ResultsModel(QAbstractTableModel):
    """A read-only table over the hits of one `SearchResult`."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._result: SearchResult | None = None
        self._hits: list[Hit] = []
        self._terms: tuple[str, ...] = ()
        self._active: frozenset[str] = frozenset(ARM_NAMES)
        self._degraded: dict[str, str] = {}

    # -- content -------------------------------------------------------------------------------

    def set_result(self, result: SearchResult | None) -> None:
        self.beginResetModel()
        self._result = result
        self._hits = list(result.hits) if result else []
        self._terms = parse_fts_query(result.query).highlight_words if result else ()
        self._active = frozenset(result.arms) if result else frozenset(ARM_NAMES)
        self._degraded = {}
        if result:
            for reason in result.degraded_reasons:
                arm, _, why = reason.partition(":")
                self._degraded[arm.strip()] = why.strip() or reason
        self.endResetModel()
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, FIRST_ARM_COLUMN, BAR_COLUMN - 1)

    def result(self) -> SearchResult | None:
        return self._result

    def hit(self, row: int) -> Hit | None:
        return self._hits[row] if 0 <= row < len(self._hits) else None

    def row_of(self, path: str) -> int:
        for row, hit in enumerate(self._hits):
            if hit.path == path:
                return row
        return -1

    def terms(self) -> tuple[str, ...]:
        return self._terms

    def arm_active(self, arm: str) -> bool:
        return arm in self._active

    # -- Qt model API ----------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._hits)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else COLUMN_COUNT

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._hits)):
            return None
        hit = self._hits[index.row()]
        column = index.column()
        arm = arm_for_column(column)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(hit, column, arm)
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = self._tooltip(hit, column, arm)
            return tooltip_text(tip) if tip else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if column == Column.Title or column == Column.Type:
                return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole:
            if arm is not None and hit.arm(arm) is None:
                return QBrush(palette.muted_color())
            if column == Column.Type:
                return QBrush(palette.muted_color())
            return None
        if role == Qt.ItemDataRole.AccessibleTextRole and column == BAR_COLUMN:
            return breakdown_tooltip(hit)
        if role == Role.Hit:
            return hit
        if role == Role.Path:
            return hit.path
        if role == Role.ArmScores:
            return tuple(s for name in ARM_NAMES if (s := hit.arm(name)) is not None)
        if role == Role.Contribution:
            score = hit.arm(arm) if arm else None
            return score.contribution if score else None
        if role == Role.Terms:
            return self._terms
        if role == Role.MaxScore:
            return MAX_SCORE
        return None

    def _display(self, hit: Hit, column: int, arm: str | None) -> str | None:
        if column == Column.Position:
            return str(hit.position)
        if column == Column.Title:
            return hit.title or hit.path
        if column == Column.Type:
            return hit.memory_type
        if column == Column.Score:
            return f"{hit.score:.4f}"
        if arm is not None:
            score = hit.arm(arm)
            return str(score.rank) if score else DASH
        if column == BAR_COLUMN:
            return ""
        return None

    def _tooltip(self, hit: Hit, column: int, arm: str | None) -> str | None:
        if arm is not None:
            return arm_tooltip(arm, hit.arm(arm))
        if column == BAR_COLUMN or column == Column.Score:
            return breakdown_tooltip(hit)
        if column == Column.Title:
            text = hit.path
            if hit.archived:
                text += "\narchived" + (f" \u2014 superseded by {hit.superseded_by}" if hit.superseded_by else "")
            moved = moved_text(hit)
            if moved:
                text += f"\n{moved}"
            return text
        if column == Column.Position:
            moved = moved_text(hit)
            return f"position {hit.position}" + (f" ({moved})" if moved else f" (fused position {hit.fused_position})")
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not (0 <= section < COLUMN_COUNT):
            return None
        arm = arm_for_column(section)
        if role == Qt.ItemDataRole.DisplayRole:
            if arm is not None:
                label = palette.ARM_LABELS.get(arm, arm)
                return f"{label} \u26a0" if arm in self._degraded or not self.arm_active(arm) else label
            return {Column.Position: "#", Column.Title: "Title", Column.Type: "Type", Column.Score: "Score"}.get(
                section, "Contribution"
            )
        if role == Qt.ItemDataRole.ForegroundRole and arm is not None:
            return QBrush(palette.arm_color(arm) if self.arm_active(arm) else palette.muted_color())
        if role == Qt.ItemDataRole.ToolTipRole:
            if arm is not None:
                text = (
                    f"{palette.ARM_TITLES.get(arm, arm)} \u2014 weight {ARM_WEIGHTS[arm]:g}\n"
                    f"{palette.ARM_HELP.get(arm, '')}\n"
                    f"The cell is this arm's rank for the hit; it adds weight/(rank+{RRF_K}) to the score. "
                    f"A dash: the arm did not rank the hit."
                )
                if arm in self._degraded:
                    text += f"\nNot in this search: {self._degraded[arm]}"
                elif not self.arm_active(arm):
                    text += "\nNot in this search (no query words, or the arm could not fire)."
                return tooltip_text(text)
            if section == Column.Score:
                return "The fused reciprocal-rank score: the sum of the arms' contributions."
            if section == BAR_COLUMN:
                return "Each arm's contribution to the fused score, in the arm's colour (full width: every arm ranks it first)."
            if section == Column.Position:
                return "Final position, after polarity and MMR reordering."
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if section in (Column.Title, Column.Type, BAR_COLUMN):
                return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None
