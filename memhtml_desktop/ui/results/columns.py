"""The results table's columns and the custom roles its model answers (delegates paint from them)."""

from __future__ import annotations

from enum import IntEnum

from PySide6.QtCore import Qt

from memhtml_desktop.ui.results.results_text import ARM_NAMES


class Role(IntEnum):
    Hit = Qt.ItemDataRole.UserRole + 1
    Path = Qt.ItemDataRole.UserRole + 2
    ArmScores = Qt.ItemDataRole.UserRole + 4  # tuple[ArmScore, ...] in RANK_ARMS order, ranked arms only
    Terms = Qt.ItemDataRole.UserRole + 6  # the query's words, for highlighting
    MaxScore = Qt.ItemDataRole.UserRole + 9
    Contribution = Qt.ItemDataRole.UserRole + 10  # this arm column's contribution (float) or None
    Page = Qt.ItemDataRole.UserRole + 11  # the position on the agent's page, or None below it
    Badges = Qt.ItemDataRole.UserRole + 12  # list[str]: what the title painter writes under the title
    SortKey = Qt.ItemDataRole.UserRole + 13


class Column(IntEnum):
    Position = 0
    Fused = 1
    Title = 2
    Type = 3
    Path = 4
    Date = 5
    Score = 6


FIRST_ARM_COLUMN = 7
BAR_COLUMN = FIRST_ARM_COLUMN + len(ARM_NAMES)
COLUMN_COUNT = BAR_COLUMN + 1
DESCENDING_FIRST = (Column.Date, Column.Score, BAR_COLUMN)
"""Columns whose first header click sorts high to low (the header otherwise kept "#"'s ascending order)."""
COLUMN_TITLES = {
    Column.Position: "#",
    Column.Fused: "Fused",
    Column.Title: "Title",
    Column.Type: "Type",
    Column.Path: "Path",
    Column.Date: "Updated",
    Column.Score: "Score",
    BAR_COLUMN: "Contribution",
}
COLUMN_HELP = {
    Column.Position: "Position on the agent's page, after polarity and MMR (blank for a row not on it).",
    Column.Fused: "Position in the fused list, before polarity and MMR reorder it.",
    Column.Path: "The memory's path in the store.",
    Column.Date: "When the memory was last updated.",
    Column.Score: "The fused reciprocal-rank score: the sum of the arms' contributions.",
    BAR_COLUMN: "Each arm's contribution to the fused score, in the arm's colour (full width: every arm ranks it first).",
}


def arm_for_column(column: int) -> str | None:
    offset = column - FIRST_ARM_COLUMN
    return ARM_NAMES[offset] if 0 <= offset < len(ARM_NAMES) else None


# The roles, flags and alignments as plain values for ResultsModel.data(): it runs a few hundred
# times a paint, and an enum member's lookup and comparison cost more than the answer.
USER_ROLE, DISPLAY_ROLE, TOOLTIP_ROLE = (
    int(Qt.ItemDataRole.UserRole),
    int(Qt.ItemDataRole.DisplayRole),
    int(Qt.ItemDataRole.ToolTipRole),
)
ALIGN_ROLE, FOREGROUND_ROLE = int(Qt.ItemDataRole.TextAlignmentRole), int(Qt.ItemDataRole.ForegroundRole)
ACCESSIBLE_ROLE, DESCRIPTION_ROLE = (
    int(Qt.ItemDataRole.AccessibleTextRole),
    int(Qt.ItemDataRole.AccessibleDescriptionRole),
)
HIT_ROLE, PATH_ROLE, PAGE_ROLE, BADGES_ROLE = int(Role.Hit), int(Role.Path), int(Role.Page), int(Role.Badges)
ARM_SCORES_ROLE, CONTRIBUTION_ROLE, TERMS_ROLE, MAX_SCORE_ROLE = (
    int(Role.ArmScores),
    int(Role.Contribution),
    int(Role.Terms),
    int(Role.MaxScore),
)
ROW_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
NO_FLAGS = Qt.ItemFlag.NoItemFlags
LEFT_ALIGNED = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
RIGHT_ALIGNED = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
LEFT_COLUMNS = frozenset({int(Column.Title), int(Column.Type), int(Column.Path)})
MUTED_COLUMNS = frozenset({int(Column.Type), int(Column.Path), int(Column.Date), int(Column.Fused)})
ANSWERED_ROLES = frozenset({DISPLAY_ROLE, TOOLTIP_ROLE, ALIGN_ROLE, FOREGROUND_ROLE, ACCESSIBLE_ROLE, DESCRIPTION_ROLE})
"""The standard roles the model answers; the view asks for a dozen per cell per paint."""
