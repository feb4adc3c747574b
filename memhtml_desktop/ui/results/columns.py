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
COLUMN_TITLES = {Column.Position: "#", Column.Fused: "Fused", Column.Title: "Title", Column.Type: "Type",
                 Column.Path: "Path", Column.Date: "Updated", Column.Score: "Score", BAR_COLUMN: "Contribution"}
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
